//! Presentation: read-only view models of a session for the playground UI and the JS API's
//! public shapes ([`public`]): the [`Timeline`] of what happened,
//! the [`SessionSummary`] of where a run stands, the [`LiveState`] of streamed output, the
//! [`Settings`] form and the texts for numbers. Pure data folded from records and notices, so
//! the Leptos components stay thin and all of this is tested natively.

mod format;
mod labels;
mod live;
pub mod public;
mod settings;
mod summary;
mod timeline;
mod timeline_item;

pub use crate::core::RunPhase;
pub use crate::runtime::options::stored_provider;
pub use format::{
    format_bytes, format_cost, format_count, plural, step_spend_text, DownloadProgress,
    LedgerSummary,
};
pub use labels::{detector_label, interrupt_label, pretty_args, rejection_label, transition_label};
pub use live::LiveState;
pub use settings::{missing_key, parse_max_steps, provider_from_value, provider_value, Settings};
pub use summary::{doubled, SessionSummary};
pub use timeline::Timeline;
pub use timeline_item::{ErrorSource, RunEnd, StepMarker, TimelineItem, ToolCallView, ToolStatus};
