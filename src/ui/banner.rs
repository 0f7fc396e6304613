//! The banners of a session held up (a key to enter, a log that cannot be written, a provider
//! or tool server out of reach): each reports why and offers the one button that moves the
//! session on. One banner serves all three; what differs is a row of [`Hold`]'s table.

use leptos::prelude::*;

/// What holds the session up, which decides the banner's words, look and hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// A session cannot resume until the user enters its API key again (Resume). Hooks:
    /// `key-needed`, `resume`.
    Key,
    /// The session's log cannot be written; the run is paused (Retry). Hooks: `storage-error`,
    /// `retry-storage`.
    Storage,
    /// The run is paused because the model provider or a tool's server could not be reached;
    /// the recorded message says it all (Retry). Hooks: `provider-error`, `retry-provider`
    /// (the names the first pause, the provider's, gave them).
    Provider,
}

/// How a banner looks and is found: its classes, role, test hook, and its button's label and
/// test hook.
struct Look {
    class: &'static str,
    role: &'static str,
    hook: &'static str,
    button: &'static str,
    button_hook: &'static str,
}

impl Hold {
    fn look(self) -> Look {
        let [class, role, hook, button, button_hook] = match self {
            Hold::Key => ["banner key", "status", "key-needed", "Resume", "resume"],
            Hold::Storage => [
                "banner storage",
                "alert",
                "storage-error",
                "Retry",
                "retry-storage",
            ],
            Hold::Provider => [
                "banner storage",
                "alert",
                "provider-error",
                "Retry",
                "retry-provider",
            ],
        };
        Look {
            class,
            role,
            hook,
            button,
            button_hook,
        }
    }

    /// The words before the message, when the banner has its own: a title and what follows it.
    fn lead(self) -> Option<(&'static str, &'static str)> {
        match self {
            Hold::Key => Some(("Waiting for the API key.", " ")),
            Hold::Storage => Some((
                "Saving the session failed.",
                " The run is paused and nothing is lost. Free some space, then retry. ",
            )),
            Hold::Provider => None,
        }
    }
}

/// The banner of `hold`, shown while `message` says why.
#[component]
pub fn Banner(
    /// What holds the session up.
    hold: Hold,
    /// Why (`None`: nothing holds it up, no banner).
    #[prop(into)]
    message: Signal<Option<String>>,
    /// Called when the user presses the banner's button.
    on_click: Callback<()>,
) -> impl IntoView {
    let look = hold.look();
    move || {
        message.get().map(|message| {
            let words = match hold.lead() {
                Some((title, lead)) => view! {
                    <div>
                        <strong>{title}</strong>
                        {lead}
                        <span class="detail">{message}</span>
                    </div>
                }
                .into_any(),
                None => view! { <p>{message}</p> }.into_any(),
            };
            view! {
                <div class=look.class role=look.role data-testid=look.hook>
                    {words}
                    <button data-testid=look.button_hook on:click=move |_| on_click.run(())>
                        {look.button}
                    </button>
                </div>
            }
        })
    }
}
