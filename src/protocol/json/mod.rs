//! JSON text to a `serde_json::Value` and back, as serde_json reads and writes it (the same
//! values, the same bytes, the same error messages), without serde's generic machinery.
//!
//! serde_json's reader and writer are generic over serde's traits; in the wasm bundle they, and
//! every type's derived readers and writers compiled against them, were a sixth of the code.
//! These are plain functions over `Value`, compiled once. `serde_json::Value` stays the tree
//! type; the crate's own types read it through [`super::decode`] and write text through
//! [`super::encode`].

mod decimal;
mod error;
mod float;
mod float_text;
mod number;
mod parse;
mod string;
mod value;
mod write;

pub use error::{JsonError, JsonErrorCode};
pub use float::parse_f64;
pub use float_text::{display_f64, fixed_f64};
pub use parse::parse;
pub(crate) use string::{hex4, plain_run, short_escape, surrogate_pair};
pub(crate) use value::{json, to_value_via_text};
pub use value::{written, ToValue};
pub use write::{
    to_string, to_string_pretty, write_bool, write_f32, write_f64, write_i64, write_number,
    write_str, write_u64, write_value,
};
