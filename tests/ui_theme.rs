//! The theme choice: stored values, what the toggle switches to, and its label.

use pretty_assertions::assert_eq;
use tabloop::view::Theme;

#[test]
fn the_stored_choice_round_trips_and_anything_else_follows_the_system() {
    for theme in [Theme::System, Theme::Light, Theme::Dark] {
        assert_eq!(Theme::from_stored(theme.stored()), theme);
    }
    assert_eq!(Theme::from_stored(Some("purple")), Theme::System);
}

#[test]
fn one_click_always_changes_what_is_on_screen() {
    assert_eq!(Theme::System.toggled(true), Theme::Light);
    assert_eq!(Theme::System.toggled(false), Theme::Dark);
    assert_eq!(Theme::Light.toggled(true), Theme::Dark);
    assert_eq!(Theme::Dark.toggled(false), Theme::Light);
    assert_eq!(Theme::System.toggle_label(true), "Switch to light theme");
    assert_eq!(Theme::Light.toggle_label(true), "Switch to dark theme");
}
