//! The macros that write a type's [`FromJson`](super::FromJson) from the list of its fields
//! and variants, in the shapes serde's derived writers use.

/// Gives a [`FromJson`] type serde's `Deserialize`, reading through [`deserialize_with`].
macro_rules! deserialize_via_json {
    ($ty:ty) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::protocol::decode::deserialize_with(deserializer)
            }
        }
    };
}

/// [`FromJson`] (and serde's `Deserialize`) for a struct read field by field, each field named
/// in JSON as in Rust unless written `field: "jsonName"`. A field written `name = default`
/// keeps its `Default` when absent; `name = omit_empty` too (a writer leaves it out when empty).
macro_rules! read_struct {
    ($ty:ident { $($field:ident $(: $name:literal)? $(= $default:ident)?),* $(,)? }) => {
        impl $crate::protocol::decode::FromJson for $ty {
            fn from_json(
                value: &serde_json::Value,
            ) -> Result<Self, $crate::protocol::decode::DecodeError> {
                use $crate::protocol::decode as decode;
                let fields = decode::Fields::of(value)?;
                Ok(Self { $($field: decode::read_struct!(
                    @field fields [$field $($name)?] $($default)?
                ),)* })
            }
        }
        $crate::protocol::decode::deserialize_via_json!($ty);
    };
    (@field $fields:ident [$field:ident $($name:literal)?]) => {
        $fields.get(decode::read_struct!(@name $field $($name)?))?
    };
    (@field $fields:ident [$field:ident $($name:literal)?] default) => {
        $fields.get_or_default(decode::read_struct!(@name $field $($name)?))?
    };
    (@field $fields:ident [$field:ident $($name:literal)?] omit_empty) => {
        $fields.get_or_default(decode::read_struct!(@name $field $($name)?))?
    };
    (@name $field:ident) => { stringify!($field) };
    (@name $field:ident $name:literal) => { $name };
}

/// [`FromJson`] (and `Deserialize`) for an enum written as one string per variant, all unit
/// variants: `read_names!(Permission { "allow" => Allow, "deny" => Deny })`.
macro_rules! read_names {
    ($ty:ident { $($name:literal => $variant:ident),* $(,)? }) => {
        impl $crate::protocol::decode::FromJson for $ty {
            fn from_json(
                value: &serde_json::Value,
            ) -> Result<Self, $crate::protocol::decode::DecodeError> {
                match value.as_str() {
                    $(Some($name) => Ok(Self::$variant),)*
                    Some(other) => Err($crate::protocol::decode::unknown_variant(other)),
                    None => Err($crate::protocol::decode::wrong_kind("a string", value)),
                }
            }
        }
        $crate::protocol::decode::deserialize_via_json!($ty);
    };
}

/// [`FromJson`] (and `Deserialize`) for an internally tagged enum: an object whose field `tag`
/// names the variant and whose other fields are the variant's. Variants are listed as
/// `"name" => Unit` or `"name" => Variant { field, other = default }`.
macro_rules! read_tagged {
    ($ty:ident, $tag:literal, {
        $($name:literal => $variant:ident
            $({ $($field:ident $(: $json:literal)? $(= $default:ident)?),* $(,)? })?),* $(,)?
    }) => {
        impl $crate::protocol::decode::FromJson for $ty {
            fn from_json(
                value: &serde_json::Value,
            ) -> Result<Self, $crate::protocol::decode::DecodeError> {
                use $crate::protocol::decode as decode;
                let fields = decode::Fields::of(value)?;
                #[allow(unused_variables)]
                let read = fields;
                match fields.tag($tag)? {
                    $($name => Ok(Self::$variant $({
                        $($field: decode::read_struct!(
                            @field read [$field $($json)?] $($default)?
                        ),)*
                    })?),)*
                    other => Err(decode::unknown_variant(other)),
                }
            }
        }
        $crate::protocol::decode::deserialize_via_json!($ty);
    };
}

/// [`FromJson`] (and `Deserialize`) for an externally tagged enum as serde writes it: a unit
/// variant as its name, any other as `{"Name": content}`. Variants are listed by form: unit,
/// newtype (`Name(content)`), struct (`Name { fields }`).
macro_rules! read_external {
    ($ty:ident {
        units: [$($unit_name:literal => $unit:ident),* $(,)?],
        newtypes: [$($newtype_name:literal => $newtype:ident),* $(,)?],
        structs: [$($struct_name:literal => $variant:ident {
            $($field:ident $(: $json:literal)? $(= $default:ident)?),* $(,)?
        }),* $(,)?] $(,)?
    }) => {
        impl $crate::protocol::decode::FromJson for $ty {
            fn from_json(
                value: &serde_json::Value,
            ) -> Result<Self, $crate::protocol::decode::DecodeError> {
                use $crate::protocol::decode as decode;
                let (name, content) = decode::external_variant(value)?;
                match name {
                    $($unit_name => Ok(Self::$unit),)*
                    $($newtype_name => {
                        let content = decode::variant_content($newtype_name, content)?;
                        Ok(Self::$newtype(decode::FromJson::from_json(content)?))
                    })*
                    $($struct_name => {
                        let read =
                            decode::Fields::of(decode::variant_content($struct_name, content)?)?;
                        Ok(Self::$variant {
                            $($field: decode::read_struct!(
                                @field read [$field $($json)?] $($default)?
                            ),)*
                        })
                    })*
                    other => Err(decode::unknown_variant(other)),
                }
            }
        }
        $crate::protocol::decode::deserialize_via_json!($ty);
    };
}

pub(crate) use {deserialize_via_json, read_external, read_names, read_struct, read_tagged};
