//! [`FromJson`] for the standard types the data is made of, as serde writes them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use super::{wrong_kind, DecodeError, FromJson};

impl FromJson for Value {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        Ok(value.clone())
    }
}

impl FromJson for String {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| wrong_kind("a string", value))
    }
}

impl FromJson for bool {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        value
            .as_bool()
            .ok_or_else(|| wrong_kind("a boolean", value))
    }
}

impl FromJson for f64 {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        value.as_f64().ok_or_else(|| wrong_kind("a number", value))
    }
}

/// A whole number that fits in `u64`, for the unsigned readers.
fn unsigned(value: &Value) -> Result<u64, DecodeError> {
    value.as_u64().ok_or_else(|| match value.as_number() {
        Some(n) => DecodeError::new(format!("expected an unsigned integer, found {n}")),
        None => wrong_kind("an unsigned integer", value),
    })
}

/// The unsigned integer types, each read through `u64` and checked for range.
macro_rules! unsigned_from_json {
    ($($ty:ty),*) => {$(
        impl FromJson for $ty {
            fn from_json(value: &Value) -> Result<Self, DecodeError> {
                let wide = unsigned(value)?;
                <$ty>::try_from(wide).map_err(|_| {
                    DecodeError::new(format!("{wide} is out of range for {}", stringify!($ty)))
                })
            }
        }
    )*};
}

unsigned_from_json!(u8, u16, u32, u64, usize);

impl FromJson for i64 {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        value
            .as_i64()
            .ok_or_else(|| wrong_kind("an integer", value))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        if value.is_null() {
            Ok(None)
        } else {
            T::from_json(value).map(Some)
        }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        T::from_json(value).map(Box::new)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        let Value::Array(items) = value else {
            return Err(wrong_kind("an array", value));
        };
        // A plain loop: `collect` into a Result compiles an iterator adapter per item type.
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(T::from_json(item).map_err(|e| e.within_index(i))?);
        }
        Ok(out)
    }
}

impl<T: FromJson> FromJson for BTreeMap<String, T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        let Value::Object(map) = value else {
            return Err(wrong_kind("an object", value));
        };
        // Inserted one by one: collecting sorts first, a sort compiled per value type.
        let mut out = BTreeMap::new();
        for (key, item) in map {
            out.insert(key.clone(), T::from_json(item)?);
        }
        Ok(out)
    }
}

impl<T: FromJson> FromJson for VecDeque<T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        Vec::<T>::from_json(value).map(VecDeque::from)
    }
}

impl<T: FromJson + Ord> FromJson for BTreeSet<T> {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        let mut out = BTreeSet::new();
        for item in Vec::<T>::from_json(value)? {
            out.insert(item);
        }
        Ok(out)
    }
}

/// serde writes `()` as `null`.
impl FromJson for () {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        value.as_null().ok_or_else(|| wrong_kind("null", value))
    }
}

impl<A: FromJson, B: FromJson> FromJson for (A, B) {
    fn from_json(value: &Value) -> Result<Self, DecodeError> {
        match value.as_array().map(Vec::as_slice) {
            Some([a, b]) => Ok((A::from_json(a)?, B::from_json(b)?)),
            Some(_) | None => Err(wrong_kind("an array of two", value)),
        }
    }
}
