//! Debugger-style controls: restart, back, play/pause, forward, speed and a scrubber.

use yew::prelude::*;

use super::player::{Action, SPEEDS};

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub playing: bool,
    pub done: bool,
    /// Segment under the playhead and how many there are.
    pub index: usize,
    pub segments: usize,
    pub speed: f64,
    /// What the scrubber walks ("Step", "Moment").
    pub unit: AttrValue,
    /// Where the scrubber stands, in words (for the live label).
    pub position: AttrValue,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn Controls(props: &ControlsProps) -> Html {
    let send = |action: fn() -> Action| {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.emit(action()))
    };
    let on_speed = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target_dyn_into::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default();
            if let Ok(speed) = value.parse::<f64>() {
                dispatch.emit(Action::Speed(speed));
            }
        })
    };
    let on_scrub = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let value = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .map(|i| i.value())
                .unwrap_or_default();
            if let Ok(n) = value.parse::<usize>() {
                dispatch.emit(Action::Seek(n.saturating_sub(1)));
            }
        })
    };
    let play_label = if props.playing {
        "Pause"
    } else if props.done {
        "Replay"
    } else {
        "Play"
    };
    let last = props.segments.max(1);
    html! {
        <div class="flow-controls" role="group" aria-label="Playback">
            <div class="flow-buttons">
                <button type="button" class="flow-restart" onclick={send(|| Action::Restart)}
                        aria-label="Restart">{ "↺ Restart" }</button>
                <button type="button" class="flow-back" onclick={send(|| Action::Back)}
                        aria-label="Step back" aria-keyshortcuts="ArrowLeft">{ "◀ Back" }</button>
                <button type="button" class="flow-play" onclick={send(|| Action::TogglePlay)}
                        aria-pressed={props.playing.to_string()} aria-keyshortcuts="Space">
                    { if props.playing { "❚❚ " } else { "▶ " } }{ play_label }
                </button>
                <button type="button" class="flow-forward" onclick={send(|| Action::Forward)}
                        aria-label="Step forward" aria-keyshortcuts="ArrowRight">{ "Forward ▶" }</button>
                <label class="flow-speed">
                    { "Speed " }
                    <select onchange={on_speed}>
                        { for SPEEDS.iter().map(|&s| html! {
                            <option value={s.to_string()} selected={s == props.speed}>{ format!("{s}×") }</option>
                        }) }
                    </select>
                </label>
            </div>
            <label class="flow-scrub">
                <span class="flow-position" aria-live="off">{ props.position.clone() }</span>
                <input type="range" min="1" max={last.to_string()} step="1"
                       value={(props.index + 1).to_string()} oninput={on_scrub}
                       aria-label={format!("{} on the timeline", props.unit)}
                       aria-valuetext={props.position.clone()} />
            </label>
        </div>
    }
}
