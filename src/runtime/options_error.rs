//! [`OptionsError`]: why the options a page passed cannot be honoured (the agent's and the
//! loop guard's alike).

/// Options that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A tool name nobody registered.
    #[error("unknown tool \"{0}\": register it with tabloop.registerTool first")]
    UnknownTool(String),
    /// `requireFinish` with nothing to check the claim.
    #[error("requireFinish needs a finish verifier: register a tool named \"finish\" with tabloop.registerTool before createAgent")]
    NoFinishVerifier,
    /// A value out of its range.
    #[error("invalid option: {0}")]
    Invalid(String),
    /// A remote provider without what it needs.
    #[error("the {0} provider needs {1}")]
    MissingProviderField(&'static str, &'static str),
}
