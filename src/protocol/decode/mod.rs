//! Reading tabloop's own data back from JSON through one plain, non-generic path.
//!
//! serde's derived readers are generic over the deserializer, and tagged enums are read through
//! serde's buffered content, so every type was compiled once per way it is read, each variant's
//! fields inlined into one large function: the readers of the log's types were a quarter of the
//! wasm bundle. Here a type reads a parsed [`Value`] with ordinary code ([`FromJson`]), and its
//! serde `Deserialize` is a shim that parses a `Value` and calls it ([`deserialize_via_json!`]),
//! so every caller keeps using serde and the bundle carries each reader once.
//!
//! Writing stays with serde's derived `Serialize`. The readers follow serde's rules for the
//! attributes the types use: unknown fields are ignored, an absent `Option` is `None`, a field
//! marked `default` keeps its `Default` when absent, enum variants are named as written.

use std::fmt;

use serde_json::{Map, Value};

mod macros;
mod std_types;

pub(crate) use macros::{
    deserialize_via_json, read_external, read_names, read_struct, read_tagged,
};

/// A type read from a parsed JSON value.
pub trait FromJson: Sized {
    /// Reads `value`, or says what in it is wrong.
    fn from_json(value: &Value) -> Result<Self, DecodeError>;

    /// The value of an absent field: `None` for options, no value (an error) for the rest.
    fn absent() -> Option<Self> {
        None
    }
}

/// Why a value could not be read, with the path of fields leading to it. Boxed: a reader's
/// result is then its value or one pointer, which keeps every reader's code smaller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Failure>);

/// What a [`DecodeError`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    /// Innermost first.
    path: Vec<Step>,
    message: String,
}

/// One step of a path into a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Field(&'static str),
    Index(usize),
}

impl DecodeError {
    /// An error about the value being read.
    pub fn new(message: impl Into<String>) -> Self {
        Self(Box::new(Failure {
            path: Vec::new(),
            message: message.into(),
        }))
    }

    /// The same error, found inside the field `name`.
    #[inline(never)]
    pub(super) fn within(mut self, name: &'static str) -> Self {
        self.0.path.push(Step::Field(name));
        self
    }

    /// The same error, found in item `index` of an array.
    #[inline(never)]
    pub(super) fn within_index(mut self, index: usize) -> Self {
        self.0.path.push(Step::Index(index));
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Failure { path, message } = &*self.0;
        if path.is_empty() {
            return f.write_str(message);
        }
        for (i, step) in path.iter().rev().enumerate() {
            match step {
                Step::Field(name) if i == 0 => f.write_str(name)?,
                Step::Field(name) => write!(f, ".{name}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        write!(f, ": {message}")
    }
}

impl std::error::Error for DecodeError {}

/// A JSON value's kind, for error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An error saying `value` is not the `expected` kind.
pub fn wrong_kind(expected: &str, value: &Value) -> DecodeError {
    DecodeError::new(format!("expected {expected}, found {}", kind(value)))
}

/// An error naming a required field that is absent.
#[cold]
#[inline(never)]
fn missing(name: &str) -> DecodeError {
    DecodeError::new(format!("missing field `{name}`"))
}

/// An error naming a variant tag this build does not know.
pub fn unknown_variant(tag: &str) -> DecodeError {
    DecodeError::new(format!("unknown variant `{tag}`"))
}

/// The fields of a JSON object, read by name.
#[derive(Clone, Copy)]
pub struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// The fields of `value`, which must be an object.
    pub fn of(value: &'a Value) -> Result<Self, DecodeError> {
        if let Value::Object(map) = value {
            Ok(Self(map))
        } else {
            Err(wrong_kind("an object", value))
        }
    }

    /// The field `name`: required, unless `T` has a value for an absent field.
    pub fn get<T: FromJson>(&self, name: &'static str) -> Result<T, DecodeError> {
        match self.value(name) {
            Some(value) => T::from_json(value).map_err(|e| e.within(name)),
            None => T::absent().ok_or_else(|| missing(name)),
        }
    }

    /// The value of field `name`: one lookup, compiled once for every type read.
    #[inline(never)]
    fn value(&self, name: &str) -> Option<&'a Value> {
        self.0.get(name)
    }

    /// The field `name`, or `T::default()` when it is absent (serde's `#[serde(default)]`).
    pub fn get_or_default<T: FromJson + Default>(
        &self,
        name: &'static str,
    ) -> Result<T, DecodeError> {
        match self.value(name) {
            Some(value) => T::from_json(value).map_err(|e| e.within(name)),
            None => Ok(T::default()),
        }
    }

    /// The field `name`, or `default()` when it is absent (serde's `#[serde(default = "..")]`).
    pub fn get_or<T: FromJson>(
        &self,
        name: &'static str,
        default: impl FnOnce() -> T,
    ) -> Result<T, DecodeError> {
        match self.value(name) {
            Some(value) => T::from_json(value).map_err(|e| e.within(name)),
            None => Ok(default()),
        }
    }

    /// The field `name`, or when it is absent the field `alias` (serde's `alias`), else default.
    pub fn get_aliased_or_default<T: FromJson + Default>(
        &self,
        name: &'static str,
        alias: &'static str,
    ) -> Result<T, DecodeError> {
        match self.0.get(name) {
            Some(value) => T::from_json(value).map_err(|e| e.within(name)),
            None => self.get_or_default(alias),
        }
    }

    /// The field `name` as it is, for a reader of its own; required.
    pub fn raw(&self, name: &'static str) -> Result<&'a Value, DecodeError> {
        self.0.get(name).ok_or_else(|| missing(name))
    }

    /// The string field `name` that says which variant the object is.
    pub fn tag(&self, name: &'static str) -> Result<&'a str, DecodeError> {
        match self.0.get(name) {
            Some(Value::String(tag)) => Ok(tag),
            Some(other) => Err(wrong_kind("a string", other).within(name)),
            None => Err(missing(name)),
        }
    }
}

/// The variant of an externally tagged enum: a unit variant's name as a string, or an object
/// with one field, named for the variant, that holds its content (`None` for a string).
pub fn external_variant(value: &Value) -> Result<(&str, Option<&Value>), DecodeError> {
    if let Value::String(name) = value {
        return Ok((name, None));
    }
    let only = value.as_object().filter(|map| map.len() == 1);
    match only.and_then(|map| map.iter().next()) {
        Some((name, content)) => Ok((name, Some(content))),
        None => Err(wrong_kind(
            "a variant name or an object with one field",
            value,
        )),
    }
}

/// The content of variant `name`, which must have one.
pub fn variant_content<'a>(
    name: &'static str,
    content: Option<&'a Value>,
) -> Result<&'a Value, DecodeError> {
    content.ok_or_else(|| DecodeError::new(format!("variant `{name}` needs its content")))
}

/// Reads a `T` from any serde deserializer: the value is parsed as JSON first, then read.
pub fn deserialize_with<'de, T: FromJson, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
    T::from_json(&value).map_err(serde::de::Error::custom)
}

/// Reads a `T` from JSON text.
pub fn from_str<T: FromJson>(text: &str) -> Result<T, DecodeError> {
    let value = super::json::parse(text).map_err(|e| DecodeError::new(e.to_string()))?;
    T::from_json(&value)
}
