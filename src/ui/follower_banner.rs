//! The banner of a follower tab: another tab runs the session, this one only watches.

use leptos::prelude::*;

use super::state::Role;

/// Shown while another tab writes the session (`data-testid="follower-banner"`).
#[component]
pub fn FollowerBanner(
    /// This tab's part in the session.
    #[prop(into)]
    role: Signal<Role>,
) -> impl IntoView {
    move || {
        (role.get() == Role::Follower).then(|| {
            view! {
                <div class="banner follower" data-testid="follower-banner" role="status">
                    <strong>"Read-only: another tab is running this session."</strong>
                    <span class="detail">
                        "Its steps stream in here. Controls come back if that tab closes."
                    </span>
                </div>
            }
        })
    }
}
