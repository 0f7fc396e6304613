//! Presentation: read-only view models of a session for the playground UI and the JS API's
//! public shapes ([`public`]): the [`Timeline`] of what happened,
//! the [`SessionSummary`] of where a run stands, the [`LiveState`] of streamed output, the
//! [`Settings`] form and the texts for numbers. Pure data folded from records and notices, so
//! the Leptos components stay thin and all of this is tested natively.

mod field_error;
mod file_tree;
mod format;
mod guard_settings;
mod labels;
mod live;
mod markdown;
mod model_catalog;
mod model_prices;
mod offline;
pub mod public;
mod run_field;
mod run_meters;
mod run_settings;
mod session_search;
mod settings;
mod step_chart;
mod summary;
mod theme;
mod timeline;
mod timeline_item;
mod viewport;

pub use crate::core::RunPhase;
pub use crate::runtime::options::stored_provider;
pub use field_error::FieldError;
pub use file_tree::{download_name, file_tree, upload_path, TreeRow};
pub use format::{
    format_bytes, format_cost, format_count, plural, step_spend_text, DownloadProgress,
    LedgerSummary,
};
pub use guard_settings::{check_guard, parse_allow_hosts, GuardField};
pub use labels::{
    detector_label, interrupt_label, pretty_args, rejection_label, step_evidence_text,
    transition_label,
};
pub use live::LiveState;
pub use markdown::{render_markdown, safe_url};
pub use model_catalog::{
    check_model_url, local_file_name, model_rows, model_source, model_title, CatalogModel,
    ModelRow, ModelSource, PickedModel, StoreKind, StoredModel, BUNDLED_BYTES, BUNDLED_NAME,
    LOCAL_FILE_PATH, RECOMMENDED,
};
pub use model_prices::{builtin_price_hint, ModelPrice, ModelPrices};
pub use offline::{network_badge, NetworkBadge, StorageUse};
pub use run_field::RunField;
pub use run_meters::{GuardMark, Meter, RunMeters, StepPoint};
pub use run_settings::{
    parse_price, permission_from_value, permission_value, BudgetField, RunSettings,
    PLAYGROUND_TOOLS,
};
pub use session_search::session_matches;
pub use settings::{missing_key, parse_max_steps, provider_from_value, provider_value, Settings};
pub use step_chart::{chart_layout, Bar, ChartLayout, Mark, MAX_BARS};
pub use summary::{doubled, SessionSummary};
pub use theme::Theme;
pub use timeline::Timeline;
pub use timeline_item::{ErrorSource, RunEnd, StepMarker, TimelineItem, ToolCallView, ToolStatus};
pub use viewport::{Viewport, MIN_WINDOW, OVERSCAN_PX};
