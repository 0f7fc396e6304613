//! The colour theme the playground is drawn in: the system's choice (`prefers-color-scheme`)
//! unless the user picked light or dark, which is remembered.

/// The user's theme choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Follow the system (`prefers-color-scheme`).
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// The choice stored under [`Theme::STORAGE_KEY`] (anything unknown means the system's).
    pub fn from_stored(value: Option<&str>) -> Self {
        match value {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            Some(_) | None => Theme::System,
        }
    }

    /// Where the choice is kept in `localStorage`.
    pub const STORAGE_KEY: &'static str = "tabloop-theme";

    /// The value to store, and the `data-theme` of the page (`None` = follow the system).
    pub fn stored(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }

    /// The theme the toggle switches to: the opposite of what is on screen, so one click
    /// always changes the page (`system_dark`: the system prefers dark).
    pub fn toggled(self, system_dark: bool) -> Self {
        if self.is_dark(system_dark) {
            Theme::Light
        } else {
            Theme::Dark
        }
    }

    /// Whether the page is dark with this choice.
    pub fn is_dark(self, system_dark: bool) -> bool {
        match self {
            Theme::System => system_dark,
            Theme::Light => false,
            Theme::Dark => true,
        }
    }

    /// The toggle's label: what a click does.
    pub fn toggle_label(self, system_dark: bool) -> &'static str {
        if self.is_dark(system_dark) {
            "Switch to light theme"
        } else {
            "Switch to dark theme"
        }
    }
}
