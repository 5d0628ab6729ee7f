//! The timeline under the charts: play, pause, step and a scrubber (a range input, so the
//! arrow keys, Page Up/Down, Home and End move it), and what each side's fabric was doing
//! at that moment: the rate delivered, the hottest links' use and queues.

use engine::netsim::{delivered_series, hottest_links, sample_at, side_letter, Report};
use yew::prelude::*;

use super::state::{Action, LabPage, SPEEDS};
use crate::views::figures::{bytes, duration};

/// Links listed per side at the cursor.
const AT_LINKS: usize = 4;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub page: UseReducerHandle<LabPage>,
}

#[function_component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let page = &props.page;
    let (Some(times), Some(reports)) = (page.timeline(), page.reports()) else {
        return html! {};
    };
    let last = times.len() - 1;
    let at = page.cursor.unwrap_or(last).min(last);
    let t_us = times[at];
    let dispatch = page.dispatcher();
    let send = |action: fn() -> Action| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(action()))
    };
    let on_seek = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(i) = input.value().parse::<usize>() {
                dispatch.dispatch(Action::Seek(i));
            }
        })
    };
    let on_speed = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(n) = select.value().parse::<usize>() {
                dispatch.dispatch(Action::Speed(n));
            }
        })
    };
    let when = duration(t_us * 1e-6);
    html! {
        <div class="fabric-timeline-box">
            <div class="fabric-timeline" data-cursor={at.to_string()} data-playing={page.playing.to_string()} data-speed={page.speed.to_string()}>
                <button type="button" class="fabric-play" aria-pressed={page.playing.to_string()}
                    onclick={send(|| Action::TogglePlay)}>{ if page.playing { "Pause" } else { "Play" } }</button>
                <button type="button" class="fabric-step-back" aria-label="Step back one sample"
                    onclick={send(|| Action::Step(-1))}>{ "◀" }</button>
                <button type="button" class="fabric-step" aria-label="Step on one sample"
                    onclick={send(|| Action::Step(1))}>{ "▶" }</button>
                <label for="fabric-speed">{ "Speed" }</label>
                <select id="fabric-speed" class="fabric-speed" onchange={on_speed}>
                    { for SPEEDS.iter().map(|&n| html! {
                        <option value={n.to_string()} selected={page.speed == n}>{ speed_name(n) }</option>
                    }) }
                </select>
                <label for="fabric-time">{ "Time" }</label>
                <input type="range" id="fabric-time" min="0" max={last.to_string()} value={at.to_string()}
                    aria-valuetext={when.clone()} oninput={on_seek} />
                <output for="fabric-time">{ when.clone() }</output>
            </div>
            <div class="fabric-at" aria-live="polite">
                { for reports.iter().enumerate().map(|(i, r)| at_moment(r, i, t_us)) }
            </div>
        </div>
    }
}

/// A speed as the list shows it.
fn speed_name(samples_per_tick: usize) -> String {
    match samples_per_tick {
        1 => "1 sample a step".to_string(),
        n => format!("{n} samples a step"),
    }
}

/// One side at the cursor's time.
fn at_moment(r: &Report, side: usize, t_us: f64) -> Html {
    let letter = side_letter(side);
    let Some(k) = sample_at(r, t_us).filter(|_| r.end_us >= t_us) else {
        return html! { <p class="fabric-at-side" data-side={letter.to_string()}>
        { format!("Side {letter} had stopped by then.") }</p> };
    };
    let rate = delivered_series(r).get(k).copied().unwrap_or(0.0);
    html! {
        <div class="fabric-at-side" data-side={letter.to_string()}>
            <p>{ format!("Side {letter} at {}: delivering {rate:.0} Gb/s", duration(r.time_us[k] * 1e-6)) }</p>
            <ul>
                { for hottest_links(r, AT_LINKS).into_iter().map(|i| {
                    let l = &r.links[i];
                    let used = l.utilisation.get(k).map_or("–".into(), |u| format!("{:.0} %", u * 100.0));
                    let queued = l.queue_bytes.get(k).map_or("–".into(), |b| bytes(f64::from(*b)));
                    html! { <li>{ format!("{} → {}: {used} used, {queued} queued", l.from, l.to) }</li> }
                }) }
            </ul>
        </div>
    }
}
