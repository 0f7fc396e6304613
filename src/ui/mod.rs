//! Leptos components over read-only view models (`view`). One public component per
//! file; the reactive state lives in `state`, and what the controls do in `actions` and
//! `transfer`. Tool output is only ever rendered as text, model text as sanitised markdown.

mod actions;
mod approval_card;
mod budget_meters;
mod error_alert;
mod file_actions;
mod file_browser;
mod fold_panel;
mod follower_banner;
mod guard_settings_form;
mod import_button;
mod key_banner;
mod markdown_text;
mod model_chooser;
mod model_library;
mod model_list_state;
mod model_progress;
mod model_row;
mod network_state;
mod number_field;
mod pause_banner;
mod playground;
mod price_settings;
mod run_settings_form;
mod session_item;
mod session_list;
mod session_toolbar;
mod session_view;
mod settings_panel;
mod startup;
mod state;
mod status_bar;
mod step_chart;
mod step_jump;
mod storage_banner;
mod storage_use;
mod stored_sessions;
mod streaming_view;
mod task_form;
mod theme_toggle;
mod timeline_entry;
mod timeline_view;
mod tool_call_card;
mod transfer;
mod ui_error;
mod update_banner;
mod verify_button;

pub use approval_card::ApprovalCard;
pub use model_library::{stored_model_choice, ByteProgressFn, LibraryContext, ModelLibrary};
pub use playground::Playground;
pub use state::{ModelProgressFeed, ProgressContext, ServiceContext};
pub use status_bar::StatusBar;
pub use timeline_view::TimelineView;
pub use tool_call_card::ToolCallCard;
pub use ui_error::UiError;
