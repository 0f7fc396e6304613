//! One labelled text input of a form: the label, and the input it names by id (the id is its
//! test hook too, unless another is given). What the input takes ([`InputKind`]) sets its type
//! and what the browser may add to it (spellcheck, autocomplete, a numeric keypad).

use leptos::prelude::*;

/// What an input takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Text used exactly as typed (a URL path, a model name): no spellcheck, no autocomplete.
    Verbatim,
    /// A URL, used exactly as typed.
    Url,
    /// A secret: hidden, never autocompleted.
    Secret,
    /// A whole number from 1.
    Count,
    /// A whole number from 1, typed on the numeric keypad.
    CountKeypad,
    /// Free text over several lines (a prompt): a three-row text area.
    Prose,
}

impl InputKind {
    /// The `type` of the `<input>`; `None` for a text area.
    fn input_type(self) -> Option<&'static str> {
        match self {
            InputKind::Verbatim => Some("text"),
            InputKind::Url => Some("url"),
            InputKind::Secret => Some("password"),
            InputKind::Count | InputKind::CountKeypad => Some("number"),
            InputKind::Prose => None,
        }
    }

    /// `spellcheck`, `autocomplete`, `min` and `inputmode`, each only where the kind sets it.
    fn helpers(self) -> [Option<&'static str>; 4] {
        match self {
            InputKind::Verbatim | InputKind::Url => [Some("false"), Some("off"), None, None],
            InputKind::Secret => [None, Some("off"), None, None],
            InputKind::Prose => [None, None, None, None],
            InputKind::Count => [None, None, Some("1"), None],
            InputKind::CountKeypad => [None, None, Some("1"), Some("numeric")],
        }
    }
}

/// The label and its input. With `beside` (an error, say), the input and it share a `field`
/// box after the label.
#[component]
pub fn LabelledInput(
    /// The input's id, and its test hook unless `hook` names another.
    id: &'static str,
    /// The test hook, when it is not the id.
    #[prop(optional)]
    hook: Option<&'static str>,
    /// The label's text.
    label: &'static str,
    /// What the input takes.
    kind: InputKind,
    /// Shown while the input is empty.
    #[prop(optional, into)]
    placeholder: MaybeProp<&'static str>,
    /// The text shown (set as a property: an edited input ignores its attribute).
    #[prop(into)]
    value: Signal<String>,
    /// Called with the text after each edit.
    on_input: Callback<String>,
    /// Called on Enter in the input (in place of the browser's default).
    #[prop(optional)]
    on_enter: Option<Callback<()>>,
    /// Shown after the input, in one `field` box with it.
    #[prop(optional, into)]
    beside: Option<ViewFn>,
) -> impl IntoView {
    let hook = hook.unwrap_or(id);
    let placeholder = move || placeholder.get();
    let value = move || value.get();
    let on_input = move |ev| on_input.run(event_target_value(&ev));
    let input = match kind.input_type() {
        None => view! {
            <textarea
                id=id
                data-testid=hook
                rows="3"
                placeholder=placeholder
                prop:value=value
                on:input=on_input
            ></textarea>
        }
        .into_any(),
        Some(input_type) => {
            let [spellcheck, autocomplete, min, inputmode] = kind.helpers();
            view! {
                <input
                    id=id
                    data-testid=hook
                    type=input_type
                    spellcheck=spellcheck
                    autocomplete=autocomplete
                    min=min
                    inputmode=inputmode
                    placeholder=placeholder
                    prop:value=value
                    on:input=on_input
                    on:keydown=move |ev| {
                        if let Some(on_enter) = on_enter.filter(|_| ev.key() == "Enter") {
                            ev.prevent_default();
                            on_enter.run(());
                        }
                    }
                />
            }
            .into_any()
        }
    };
    let control = match beside {
        Some(beside) => view! { <div class="field">{input}{beside.run()}</div> }.into_any(),
        None => input,
    };
    view! {
        <label for=id>{label}</label>
        {control}
    }
}
