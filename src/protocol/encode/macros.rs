//! The macros that write a type's [`ToJson`](super::ToJson) from the list of its fields and
//! variants, in the shapes serde's derived writers use, and the `json_*` macros that give a type
//! its reader ([`FromJson`](crate::protocol::decode::FromJson)) and writer from one list.
//!
//! A field is written under its Rust name, or `field: "jsonName"`; `field = omit_empty` is left
//! out when empty (`None`, an empty `Vec`) and read as its default when absent; `field =
//! default` is always written and read as its default when absent.

/// [`ToJson`](super::ToJson) for a struct written field by field, in the order listed (serde
/// writes them in declaration order).
macro_rules! write_struct {
    ($ty:ident { $($field:ident $(: $name:literal)? $(= $mode:ident)?),* $(,)? }) => {
        impl $crate::protocol::encode::ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                #[allow(unused_mut)]
                let mut object = $crate::protocol::encode::Object::new(out);
                $($crate::protocol::encode::write_struct!(
                    @field object [$field $($name)?] (&self.$field) $($mode)?
                );)*
                object.end();
            }
        }
    };
    (@field $object:ident [$field:ident $($name:literal)?] ($value:expr)) => {
        $object.member($crate::protocol::encode::write_struct!(@key $field $($name)?), $value)
    };
    (@field $object:ident [$field:ident $($name:literal)?] ($value:expr) default) => {
        $object.member($crate::protocol::encode::write_struct!(@key $field $($name)?), $value)
    };
    (@field $object:ident [$field:ident $($name:literal)?] ($value:expr) omit_empty) => {
        if !$crate::protocol::encode::ToJson::is_empty_json($value) {
            $object.member($crate::protocol::encode::write_struct!(@key $field $($name)?), $value)
        }
    };
    (@key $field:ident) => { concat!("\"", stringify!($field), "\":") };
    (@key $field:ident $name:literal) => { concat!("\"", $name, "\":") };
}

/// [`ToJson`](super::ToJson) for an enum written as one string per variant, all unit variants.
macro_rules! write_names {
    ($ty:ident { $($name:literal => $variant:ident),* $(,)? }) => {
        impl $crate::protocol::encode::ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                out.push_str(match self {
                    $(Self::$variant => concat!("\"", $name, "\""),)*
                });
            }
        }
    };
}

/// [`ToJson`](super::ToJson) for an internally tagged enum: an object whose field `tag` names
/// the variant, followed by the variant's fields.
macro_rules! write_tagged {
    ($ty:ident, $tag:literal, {
        $($name:literal => $variant:ident
            $({ $($field:ident $(: $json:literal)? $(= $mode:ident)?),* $(,)? })?),* $(,)?
    }) => {
        impl $crate::protocol::encode::ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                match self {
                    $(Self::$variant $({ $($field),* })? => {
                        #[allow(unused_mut)]
                        let mut object = $crate::protocol::encode::Object::tagged(
                            out,
                            concat!("\"", $tag, "\":\"", $name, "\""),
                        );
                        $($($crate::protocol::encode::write_struct!(
                            @field object [$field $($json)?] ($field) $($mode)?
                        );)*)?
                        object.end();
                    })*
                }
            }
        }
    };
}

/// [`ToJson`](super::ToJson) for an externally tagged enum as serde writes it: a unit variant
/// as its name, any other as `{"Name": content}`.
macro_rules! write_external {
    ($ty:ident {
        units: [$($unit_name:literal => $unit:ident),* $(,)?],
        newtypes: [$($newtype_name:literal => $newtype:ident),* $(,)?],
        structs: [$($struct_name:literal => $variant:ident {
            $($field:ident $(: $json:literal)? $(= $mode:ident)?),* $(,)?
        }),* $(,)?] $(,)?
    }) => {
        impl $crate::protocol::encode::ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                match self {
                    $(Self::$unit => out.push_str(concat!("\"", $unit_name, "\"")),)*
                    $(Self::$newtype(content) => {
                        out.push_str(concat!("{\"", $newtype_name, "\":"));
                        $crate::protocol::encode::ToJson::write_json(content, out);
                        out.push('}');
                    })*
                    $(Self::$variant { $($field),* } => {
                        out.push_str(concat!("{\"", $struct_name, "\":"));
                        #[allow(unused_mut)]
                        let mut object = $crate::protocol::encode::Object::new(out);
                        $($crate::protocol::encode::write_struct!(
                            @field object [$field $($json)?] ($field) $($mode)?
                        );)*
                        object.end();
                        out.push('}');
                    })*
                }
            }
        }
    };
}

/// [`read_struct!`](crate::protocol::decode::read_struct) and [`write_struct!`] from one list.
macro_rules! json_struct {
    ($($body:tt)*) => {
        $crate::protocol::decode::read_struct!($($body)*);
        $crate::protocol::encode::write_struct!($($body)*);
    };
}

/// [`read_names!`](crate::protocol::decode::read_names) and [`write_names!`] from one list.
macro_rules! json_names {
    ($($body:tt)*) => {
        $crate::protocol::decode::read_names!($($body)*);
        $crate::protocol::encode::write_names!($($body)*);
    };
}

/// [`read_tagged!`](crate::protocol::decode::read_tagged) and [`write_tagged!`] from one list.
macro_rules! json_tagged {
    ($($body:tt)*) => {
        $crate::protocol::decode::read_tagged!($($body)*);
        $crate::protocol::encode::write_tagged!($($body)*);
    };
}

/// [`read_external!`](crate::protocol::decode::read_external) and [`write_external!`] from one
/// list.
macro_rules! json_external {
    ($($body:tt)*) => {
        $crate::protocol::decode::read_external!($($body)*);
        $crate::protocol::encode::write_external!($($body)*);
    };
}

pub(crate) use {
    json_external, json_names, json_struct, json_tagged, write_external, write_names, write_struct,
    write_tagged,
};
