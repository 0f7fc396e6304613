//! Building `Value` trees in code: a `json!` macro in JSON syntax, whose interpolated
//! expressions become values through [`ToValue`] (plain conversions) instead of
//! serde's `to_value`, which compiled serde's value serializer for every type put in.

use serde_json::{Map, Number, Value};

use crate::protocol::encode::{self, ToJson};

/// A value that becomes a JSON tree as serde_json's `to_value` makes it.
pub trait ToValue {
    /// The tree.
    fn to_value(&self) -> Value;
}

impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::String(self.to_owned())
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::String(self.clone())
    }
}

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

/// The unsigned integer types, through `u64`.
macro_rules! unsigned_to_value {
    ($($ty:ty),*) => {$(
        impl ToValue for $ty {
            fn to_value(&self) -> Value {
                Value::Number(Number::from(*self as u64))
            }
        }
    )*};
}

unsigned_to_value!(u8, u16, u32, u64, usize);

impl ToValue for i64 {
    fn to_value(&self) -> Value {
        Value::Number(Number::from(*self))
    }
}

impl ToValue for i32 {
    fn to_value(&self) -> Value {
        Value::Number(Number::from(*self))
    }
}

/// A non-finite float is `null`, as serde_json makes it.
impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Number::from_f64(*self).map_or(Value::Null, Value::Number)
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

impl<T: ToValue> ToValue for [T] {
    fn to_value(&self) -> Value {
        Value::Array(self.iter().map(ToValue::to_value).collect())
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(&self) -> Value {
        self.as_slice().to_value()
    }
}

impl ToValue for Map<String, Value> {
    fn to_value(&self) -> Value {
        Value::Object(self.clone())
    }
}

/// The tree of a type written by [`ToJson`]: its text read back (for the few such types put
/// into `json!`, all small).
pub fn written<T: ToJson + ?Sized>(value: &T) -> Value {
    super::parse(&encode::to_string(value)).unwrap_or(Value::Null)
}

/// Gives types written by [`ToJson`] a [`ToValue`] through their text.
macro_rules! to_value_via_text {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::protocol::json::ToValue for $ty {
            fn to_value(&self) -> serde_json::Value {
                $crate::protocol::json::written(self)
            }
        }
    )*};
}

/// A `Value` written in JSON syntax: keys are string literals; a value is `null`, a nested
/// `{..}` or `[..]`, or any expression, which becomes a value through [`ToValue`] (by
/// reference, so nothing is moved).
macro_rules! json {
    (@members $object:ident) => {};
    (@members $object:ident $key:literal : null $(, $($rest:tt)*)?) => {
        $object.insert($key.into(), serde_json::Value::Null);
        $crate::protocol::json::json!(@members $object $($($rest)*)?);
    };
    (@members $object:ident $key:literal : [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $object.insert($key.into(), $crate::protocol::json::json!([$($inner)*]));
        $crate::protocol::json::json!(@members $object $($($rest)*)?);
    };
    (@members $object:ident $key:literal : {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $object.insert($key.into(), $crate::protocol::json::json!({$($inner)*}));
        $crate::protocol::json::json!(@members $object $($($rest)*)?);
    };
    (@members $object:ident $key:literal : $value:expr $(, $($rest:tt)*)?) => {
        $object.insert($key.into(), $crate::protocol::json::ToValue::to_value(&$value));
        $crate::protocol::json::json!(@members $object $($($rest)*)?);
    };
    (@elements $array:ident) => {};
    (@elements $array:ident null $(, $($rest:tt)*)?) => {
        $array.push(serde_json::Value::Null);
        $crate::protocol::json::json!(@elements $array $($($rest)*)?);
    };
    (@elements $array:ident [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $array.push($crate::protocol::json::json!([$($inner)*]));
        $crate::protocol::json::json!(@elements $array $($($rest)*)?);
    };
    (@elements $array:ident {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $array.push($crate::protocol::json::json!({$($inner)*}));
        $crate::protocol::json::json!(@elements $array $($($rest)*)?);
    };
    (@elements $array:ident $value:expr $(, $($rest:tt)*)?) => {
        $array.push($crate::protocol::json::ToValue::to_value(&$value));
        $crate::protocol::json::json!(@elements $array $($($rest)*)?);
    };
    (null) => {
        serde_json::Value::Null
    };
    ([$($elements:tt)*]) => {{
        #[allow(unused_mut, clippy::vec_init_then_push)]
        let array = {
            let mut array: Vec<serde_json::Value> = Vec::new();
            $crate::protocol::json::json!(@elements array $($elements)*);
            array
        };
        serde_json::Value::Array(array)
    }};
    ({$($members:tt)*}) => {{
        #[allow(unused_mut)]
        let mut object = serde_json::Map::new();
        $crate::protocol::json::json!(@members object $($members)*);
        serde_json::Value::Object(object)
    }};
    ($value:expr) => {
        $crate::protocol::json::ToValue::to_value(&$value)
    };
}

pub(crate) use {json, to_value_via_text};

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    #[test]
    fn the_macro_builds_the_tree_serde_json_builds() {
        let name = String::from("vfs");
        let count = 3_u32;
        let maybe: Option<&str> = None;
        let list = vec![1_i64, -2];
        let ours = super::json!({
            "empty": {}, "none": [], "nothing": null, "yes": true, "name": name,
            "sum": count + 1, "maybe": maybe, "list": list,
            "nested": [{ "a": [null, 1.5, "x", [name.len()]] }, false, { "b": {} }],
        });
        let theirs = serde_json::json!({
            "empty": {}, "none": [], "nothing": null, "yes": true, "name": name,
            "sum": count + 1, "maybe": maybe, "list": list,
            "nested": [{ "a": [null, 1.5, "x", [name.len()]] }, false, { "b": {} }],
        });
        assert_eq!(ours, theirs);
        assert_eq!(super::json!(null), serde_json::Value::Null);
        assert_eq!(super::json!("auto"), serde_json::json!("auto"));
    }
}
