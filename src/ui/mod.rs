//! Leptos components over read-only view models (`view`). One public component per
//! file; the reactive state lives in `state`, and what the controls do in `actions` and
//! `transfer`. Model and tool output is only ever rendered as text.

mod actions;
mod approval_card;
mod error_alert;
mod import_button;
mod key_banner;
mod model_progress;
mod playground;
mod provider_banner;
mod session_list;
mod session_toolbar;
mod session_view;
mod settings_panel;
mod startup;
mod state;
mod status_bar;
mod storage_banner;
mod streaming_view;
mod task_form;
mod timeline_entry;
mod timeline_view;
mod tool_call_card;
mod transfer;
mod verify_button;

pub use approval_card::ApprovalCard;
pub use playground::Playground;
pub use state::{ModelProgressFeed, ProgressContext, ServiceContext};
pub use status_bar::StatusBar;
pub use timeline_view::TimelineView;
pub use tool_call_card::ToolCallCard;
