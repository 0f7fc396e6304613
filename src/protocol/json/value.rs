//! Building `Value` trees in code: the `json!` macro with serde_json's syntax, whose
//! interpolated expressions become values through [`ToValue`] (plain conversions) instead of
//! serde's `to_value`, which compiled serde's value serializer for every type put in.
//! The macro is serde_json's own (MIT or Apache-2.0, as this crate), with that one change.

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

/// A `Value` in JSON syntax with expressions interpolated, as serde_json's `json!`.
macro_rules! json {
    ($($json:tt)+) => {
        $crate::protocol::json::json_internal!($($json)+)
    };
}

/// The muncher behind [`json!`] (serde_json's `json_internal`).
macro_rules! json_internal {
    (@array [$($elems:expr,)*]) => {
        vec![$($elems,)*]
    };
    (@array [$($elems:expr),*]) => {
        vec![$($elems),*]
    };
    (@array [$($elems:expr,)*] null $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!(null)] $($rest)*)
    };
    (@array [$($elems:expr,)*] true $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!(true)] $($rest)*)
    };
    (@array [$($elems:expr,)*] false $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!(false)] $($rest)*)
    };
    (@array [$($elems:expr,)*] [$($array:tt)*] $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!([$($array)*])] $($rest)*)
    };
    (@array [$($elems:expr,)*] {$($map:tt)*} $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!({$($map)*})] $($rest)*)
    };
    (@array [$($elems:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!($next),] $($rest)*)
    };
    (@array [$($elems:expr,)*] $last:expr) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)* $crate::protocol::json::json_internal!($last)])
    };
    (@array [$($elems:expr),*] , $($rest:tt)*) => {
        $crate::protocol::json::json_internal!(@array [$($elems,)*] $($rest)*)
    };
    (@object $object:ident () () ()) => {};
    (@object $object:ident [$($key:tt)+] ($value:expr) , $($rest:tt)*) => {
        let _ = $object.insert(($($key)+).into(), $value);
        $crate::protocol::json::json_internal!(@object $object () ($($rest)*) ($($rest)*));
    };
    (@object $object:ident [$($key:tt)+] ($value:expr)) => {
        let _ = $object.insert(($($key)+).into(), $value);
    };
    (@object $object:ident ($($key:tt)+) (: null $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!(null)) $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: true $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!(true)) $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: false $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!(false)) $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: [$($array:tt)*] $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!([$($array)*])) $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: {$($map:tt)*} $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!({$($map)*})) $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: $value:expr , $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!($value)) , $($rest)*);
    };
    (@object $object:ident ($($key:tt)+) (: $value:expr) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object [$($key)+] ($crate::protocol::json::json_internal!($value)));
    };
    (@object $object:ident () (($key:expr) : $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object ($key) (: $($rest)*) (: $($rest)*));
    };
    (@object $object:ident ($($key:tt)*) ($tt:tt $($rest:tt)*) $copy:tt) => {
        $crate::protocol::json::json_internal!(@object $object ($($key)* $tt) ($($rest)*) ($($rest)*));
    };
    (null) => {
        serde_json::Value::Null
    };
    (true) => {
        serde_json::Value::Bool(true)
    };
    (false) => {
        serde_json::Value::Bool(false)
    };
    ([]) => {
        serde_json::Value::Array(vec![])
    };
    ([ $($tt:tt)+ ]) => {
        serde_json::Value::Array($crate::protocol::json::json_internal!(@array [] $($tt)+))
    };
    ({}) => {
        serde_json::Value::Object(serde_json::Map::new())
    };
    ({ $($tt:tt)+ }) => {
        serde_json::Value::Object({
            let mut object = serde_json::Map::new();
            $crate::protocol::json::json_internal!(@object object () ($($tt)+) ($($tt)+));
            object
        })
    };
    ($other:expr) => {
        $crate::protocol::json::ToValue::to_value(&$other)
    };
}

pub(crate) use {json, json_internal, to_value_via_text};
