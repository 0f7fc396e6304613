//! [`FieldError`]: why a settings field's text was refused, typed; the form shows its `Display`
//! text beside the field.

/// Why the text typed in a settings field was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// A count (steps, tool calls, tokens, a guard threshold) that is not a positive whole
    /// number.
    #[error("{what} must be a positive whole number, not \"{text}\"")]
    NotPositiveWhole {
        /// What the field holds.
        what: &'static str,
        /// The text typed.
        text: String,
    },
    /// A cost or a time that is not a positive number.
    #[error("{what} must be a positive number, not \"{text}\"")]
    NotPositive {
        /// What the field holds.
        what: &'static str,
        /// The text typed.
        text: String,
    },
    /// A price per million tokens that is not a number ≥ 0.
    #[error("a price must be a number of USD per million tokens, not \"{text}\"")]
    NotAPrice {
        /// The text typed.
        text: String,
    },
    /// A model URL left empty.
    #[error("enter the URL of a .gguf file")]
    NoModelUrl,
    /// A model URL without an `http(s)` scheme.
    #[error("the model URL must start with https:// or http://")]
    NotHttp,
    /// A model URL without a host.
    #[error("the model URL has no host")]
    NoHost,
    /// A model URL with spaces or control characters.
    #[error("the model URL must not contain spaces")]
    Spaces,
    /// A model URL over 2048 characters.
    #[error("the model URL is longer than 2048 characters")]
    TooLong,
    /// An allow-list entry with a scheme or a path.
    #[error(
        "\"{entry}\" is not a host: give the host alone (example.com), without scheme or path"
    )]
    HostWithPath {
        /// The entry as typed.
        entry: String,
    },
    /// An allow-list entry that is no host.
    #[error(
        "\"{entry}\" is not a host: use example.com, *.example.com, host:port or an IP address"
    )]
    NotAHost {
        /// The entry as typed.
        entry: String,
    },
}
