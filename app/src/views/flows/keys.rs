//! The player's keys: ← back, → forward, space play/pause, taken wherever focus sits in
//! the player unless the focused element has a use of its own for that key.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement};

use super::player::Action;

/// What has focus inside the player, by the keys it uses itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The player itself, a link, the stage: no use for the arrows or space.
    Plain,
    /// A button, checkbox or disclosure: space presses it.
    Pressable,
    /// The scrubber, a range input: the arrows move it (one step at a time); space is free.
    Slider,
    /// Something that scrolls sideways (the stage on a narrow screen): the arrows scroll it.
    Scroller,
    /// A text field or a menu: every key is its own.
    Field,
}

/// The player's own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerKey {
    Back,
    Forward,
    TogglePlay,
}

impl PlayerKey {
    pub fn action(self) -> Action {
        match self {
            PlayerKey::Back => Action::Back,
            PlayerKey::Forward => Action::Forward,
            PlayerKey::TogglePlay => Action::TogglePlay,
        }
    }
}

/// The player key `key` (a `KeyboardEvent.key`) stands for with `focus` focused, or `None`
/// when the key belongs to what is focused (or is no player key).
pub fn player_key(key: &str, focus: Focus) -> Option<PlayerKey> {
    let arrows_free = matches!(focus, Focus::Plain | Focus::Pressable);
    let space_free = matches!(focus, Focus::Plain | Focus::Slider | Focus::Scroller);
    match key {
        "ArrowLeft" if arrows_free => Some(PlayerKey::Back),
        "ArrowRight" if arrows_free => Some(PlayerKey::Forward),
        " " if space_free => Some(PlayerKey::TogglePlay),
        _ => None,
    }
}

/// What kind of focus `target` is, inside the player element `player`.
pub fn focus_of(target: &Element, player: &Element) -> Focus {
    match target.tag_name().as_str() {
        "INPUT" => {
            let kind = target
                .dyn_ref::<HtmlInputElement>()
                .map(|input| input.type_())
                .unwrap_or_default();
            return match kind.as_str() {
                "range" => Focus::Slider,
                "checkbox" | "radio" | "button" | "submit" | "reset" | "color" | "file" => {
                    Focus::Pressable
                }
                _ => Focus::Field,
            };
        }
        "SELECT" | "TEXTAREA" => return Focus::Field,
        "BUTTON" | "SUMMARY" => return Focus::Pressable,
        _ => {}
    }
    if target
        .dyn_ref::<HtmlElement>()
        .is_some_and(HtmlElement::is_content_editable)
    {
        return Focus::Field;
    }
    let role = target.get_attribute("role").unwrap_or_default();
    if matches!(
        role.as_str(),
        "button" | "checkbox" | "switch" | "radio" | "menuitem" | "tab" | "option"
    ) {
        return Focus::Pressable;
    }
    if target != player && target.scroll_width() > target.client_width() {
        return Focus::Scroller;
    }
    Focus::Plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_taken_only_where_focus_has_no_use_for_them() {
        use PlayerKey::*;
        let table = [
            (Focus::Plain, [Some(Back), Some(Forward), Some(TogglePlay)]),
            (Focus::Pressable, [Some(Back), Some(Forward), None]),
            (Focus::Slider, [None, None, Some(TogglePlay)]),
            (Focus::Scroller, [None, None, Some(TogglePlay)]),
            (Focus::Field, [None, None, None]),
        ];
        for (focus, expected) in table {
            let got = ["ArrowLeft", "ArrowRight", " "].map(|k| player_key(k, focus));
            assert_eq!(got, expected, "{focus:?}");
            assert_eq!(player_key("Enter", focus), None);
            assert_eq!(player_key("a", focus), None);
        }
    }
}
