//! Writing tabloop's own data as JSON text through one plain, non-generic path, byte for byte
//! as serde's derived `Serialize` writes it through serde_json (the log's stored form, and the
//! hash of each record a fold snapshot is bound to, depend on those bytes).
//!
//! serde's derived writers are generic over the serializer, and serde_json's writer is generic
//! over its output and formatter, so together they compiled to a large share of the wasm
//! bundle. Here a type writes itself onto a `String` with ordinary code ([`ToJson`]) generated
//! by a macro beside the type from the same list of fields and variants its reader uses
//! (`json_struct!`, `json_tagged!`, `json_names!`, `json_external!`).
//!
//! The types keep serde's derived `Serialize` as the reference: the tests write every variant
//! both ways and compare the text. The library itself never calls it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use super::json;

mod macros;

pub(crate) use macros::{
    json_external, json_names, json_struct, json_tagged, write_external, write_names, write_struct,
    write_tagged,
};

/// A type written as JSON text.
pub trait ToJson {
    /// Appends this value's JSON text to `out`.
    fn write_json(&self, out: &mut String);

    /// Whether a field marked `omit_empty` holding this value is left out (serde's
    /// `skip_serializing_if = "Option::is_none"` or `"Vec::is_empty"`).
    fn is_empty_json(&self) -> bool {
        false
    }
}

/// `value` as JSON text.
pub fn to_string<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = String::new();
    value.write_json(&mut out);
    out
}

/// An object being written: its members' keys and separators, the values written by the caller
/// between calls.
pub struct Object<'a> {
    /// Where the text goes.
    pub out: &'a mut String,
    first: bool,
}

impl<'a> Object<'a> {
    /// Opens an object.
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, first: true }
    }

    /// Opens an object whose first member is an enum's tag, given as its text (`"type":"x"`).
    pub fn tagged(out: &'a mut String, tag: &str) -> Self {
        out.push('{');
        out.push_str(tag);
        Self { out, first: false }
    }

    /// Starts a member: its key, given as its text with the colon (`"name":`); its value is
    /// written next.
    pub fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push_str(key);
    }

    /// Writes a whole member.
    pub fn member<T: ToJson + ?Sized>(&mut self, key: &str, value: &T) {
        self.key(key);
        value.write_json(self.out);
    }

    /// Closes the object.
    pub fn end(self) {
        self.out.push('}');
    }
}

/// Writes the items of `items` as a JSON array.
fn write_items<'a, T: ToJson + 'a>(items: impl IntoIterator<Item = &'a T>, out: &mut String) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_json(out);
    }
    out.push(']');
}

impl ToJson for Value {
    fn write_json(&self, out: &mut String) {
        json::write_value(self, out);
    }
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        json::write_str(self, out);
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        json::write_str(self, out);
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        json::write_bool(*self, out);
    }
}

impl ToJson for f32 {
    fn write_json(&self, out: &mut String) {
        json::write_f32(*self, out);
    }
}

impl ToJson for f64 {
    fn write_json(&self, out: &mut String) {
        json::write_f64(*self, out);
    }
}

/// The unsigned integer types, written through `u64`.
macro_rules! unsigned_to_json {
    ($($ty:ty),*) => {$(
        impl ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                json::write_u64(*self as u64, out);
            }
        }
    )*};
}

unsigned_to_json!(u8, u16, u32, u64, usize);

impl ToJson for i64 {
    fn write_json(&self, out: &mut String) {
        json::write_i64(*self, out);
    }
}

/// serde writes `()` as `null`.
impl ToJson for () {
    fn write_json(&self, out: &mut String) {
        out.push_str("null");
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    fn is_empty_json(&self) -> bool {
        (**self).is_empty_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }

    fn is_empty_json(&self) -> bool {
        self.is_none()
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        write_items(self, out);
    }

    fn is_empty_json(&self) -> bool {
        self.is_empty()
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        write_items(self, out);
    }

    fn is_empty_json(&self) -> bool {
        self.is_empty()
    }
}

impl<T: ToJson> ToJson for VecDeque<T> {
    fn write_json(&self, out: &mut String) {
        write_items(self, out);
    }
}

impl<T: ToJson> ToJson for BTreeSet<T> {
    fn write_json(&self, out: &mut String) {
        write_items(self, out);
    }
}

impl<T: ToJson> ToJson for BTreeMap<String, T> {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        for (key, value) in self {
            if !object.first {
                object.out.push(',');
            }
            object.first = false;
            json::write_str(key, object.out);
            object.out.push(':');
            value.write_json(object.out);
        }
        object.end();
    }
}

impl<A: ToJson, B: ToJson> ToJson for (A, B) {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        self.0.write_json(out);
        out.push(',');
        self.1.write_json(out);
        out.push(']');
    }
}
