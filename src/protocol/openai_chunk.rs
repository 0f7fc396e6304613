//! The typed shape of one Chat Completions stream chunk, read without building a JSON tree:
//! only the members the assembler uses, strings borrowed from the event's text when they hold
//! no escapes, everything else skipped unparsed. Each shape accepts a JSON object only (never
//! an array in its place) and a member of the wrong type fails the whole chunk, so the caller
//! can fall back to the general reading and give the very same answer for any input.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// A JSON string, borrowed when it has no escapes.
#[derive(Debug, Default)]
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for StrVisitor<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(StrVisitor(PhantomData))
    }
}

impl Str<'_> {
    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// Declares a struct of optional members read from a JSON object only: unknown members are
/// skipped, a repeated member keeps its last value (as a JSON tree would), `null` is absent.
macro_rules! object_shape {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident: $ty:ty = $key:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        pub(crate) struct $name<'a> {
            $($(#[$fmeta])* pub(crate) $field: Option<$ty>,)*
            _text: PhantomData<&'a ()>,
        }

        impl<'de: 'a, 'a> Deserialize<'de> for $name<'a> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ShapeVisitor<'a>(PhantomData<&'a ()>);
                impl<'de: 'a, 'a> Visitor<'de> for ShapeVisitor<'a> {
                    type Value = $name<'a>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut out = $name::default();
                        while let Some(key) = map.next_key::<Str<'de>>()? {
                            match key.as_str() {
                                $($key => out.$field = map.next_value()?,)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                deserializer.deserialize_map(ShapeVisitor(PhantomData))
            }
        }
    };
}

object_shape!(
    /// One `chat.completion.chunk` (its `error` member is left to the general reading).
    Chunk {
        /// The model that answered.
        model: Str<'a> = "model",
        /// Token usage (the last chunk, with `stream_options.include_usage`).
        usage: Value = "usage",
        /// The choices; the assembler reads every one.
        choices: Vec<Choice<'a>> = "choices",
    }
);

object_shape!(
    /// One choice of a chunk.
    Choice {
        /// What this chunk adds.
        delta: Delta<'a> = "delta",
        /// Why the reply ended, on its last chunk.
        finish_reason: Str<'a> = "finish_reason",
    }
);

object_shape!(
    /// The increment of a choice.
    Delta {
        /// Answer text.
        content: Str<'a> = "content",
        /// A refusal, kept as text.
        refusal: Str<'a> = "refusal",
        /// Reasoning text (one server's name).
        reasoning_content: Str<'a> = "reasoning_content",
        /// Reasoning text (another's).
        reasoning: Str<'a> = "reasoning",
        /// Tool-call fragments.
        tool_calls: Vec<CallDelta<'a>> = "tool_calls",
    }
);

object_shape!(
    /// A fragment of one tool call.
    CallDelta {
        /// Which call it continues.
        index: u64 = "index",
        /// The call's id (its first fragment).
        id: Str<'a> = "id",
        /// Name and argument text.
        function: Function<'a> = "function",
    }
);

object_shape!(
    /// The function part of a tool-call fragment.
    Function {
        /// The tool's name (its first fragment).
        name: Str<'a> = "name",
        /// A piece of the JSON argument text.
        arguments: Str<'a> = "arguments",
    }
);

/// The chunk in `data`, or `None` when only the general reading can answer for it: not an
/// object, a member of an unexpected type, or one that may be an `error` member.
pub(crate) fn fast_chunk(data: &str) -> Option<Chunk<'_>> {
    if !data.starts_with('{') || data.contains("\"error\"") {
        return None;
    }
    serde_json::from_str(data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_objects_are_read_and_wrong_types_fail_the_chunk() {
        assert!(fast_chunk(r#"[{"model":"m"}]"#).is_none());
        assert!(fast_chunk(r#"{"choices":[[null,"stop"]]}"#).is_none());
        assert!(fast_chunk(r#"{"model":7}"#).is_none());
        assert!(fast_chunk(r#"{"error":{"message":"x"}}"#).is_none());
        let chunk =
            fast_chunk(r#"{"model":"a","model":"b","x":[1,{"y":2}],"choices":null}"#).unwrap();
        assert_eq!(chunk.model.unwrap().as_str(), "b");
        assert!(chunk.choices.is_none());
        let chunk =
            fast_chunk(r#"{"choices":[{"delta":{"content":"a\nb"},"finish_reason":null}]}"#)
                .unwrap();
        let choice = &chunk.choices.unwrap()[0];
        assert_eq!(
            choice
                .delta
                .as_ref()
                .unwrap()
                .content
                .as_ref()
                .unwrap()
                .as_str(),
            "a\nb"
        );
        assert!(choice.finish_reason.is_none());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod agreement {
    use crate::protocol::{OpenAiStream, SseEvent};
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    /// An odd value: a leaf of any type, or an array in place of an object.
    fn odd() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..5).prop_map(Value::from),
            Just(json!(1.5)),
            Just(json!("")),
            Just(json!("stop")),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop::collection::vec(inner, 0..3).prop_map(Value::Array)
        })
    }

    /// A string that may need escapes, sometimes empty.
    fn text() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(""),
            Just("a"),
            Just("b\n\"c"),
            Just("stop"),
            Just("tool_calls"),
            Just("error"),
            Just("é")
        ]
        .prop_map(Value::from)
    }

    /// Usually `good`, sometimes an odd value, sometimes null.
    fn or_odd(good: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
        prop_oneof![6 => good, 1 => odd(), 1 => Just(Value::Null)].boxed()
    }

    /// An object with some of `members` (each maybe odd), perhaps a stray or repeated member.
    fn object(members: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
        let picks: Vec<_> = members
            .into_iter()
            .map(|(key, value)| {
                prop::option::weighted(0.7, or_odd(value)).prop_map(move |v| v.map(|v| (key, v)))
            })
            .collect();
        (picks, prop::option::of(("x|model|content|index", odd())))
            .prop_map(|(picked, stray)| {
                let mut out = Map::new();
                for (key, value) in picked.into_iter().flatten() {
                    out.insert(key.to_string(), value);
                }
                if let Some((key, value)) = stray {
                    let key = ["x", "model", "content", "index"][key.len() % 4];
                    out.insert(key.to_string(), value);
                }
                Value::Object(out)
            })
            .boxed()
    }

    /// A chunk-shaped value with odd types and members mixed in.
    fn value() -> impl Strategy<Value = Value> {
        let function = object(vec![
            ("name", text().boxed()),
            ("arguments", text().boxed()),
        ]);
        let call = object(vec![
            ("index", (0u64..3).prop_map(Value::from).boxed()),
            ("id", text().boxed()),
            ("function", function),
        ]);
        let delta = object(vec![
            ("content", text().boxed()),
            ("refusal", text().boxed()),
            ("reasoning_content", text().boxed()),
            ("reasoning", text().boxed()),
            (
                "tool_calls",
                prop::collection::vec(call, 0..3)
                    .prop_map(Value::Array)
                    .boxed(),
            ),
        ]);
        let choice = object(vec![("delta", delta), ("finish_reason", text().boxed())]);
        let usage = object(vec![(
            "prompt_tokens",
            (0u64..9).prop_map(Value::from).boxed(),
        )]);
        let error = object(vec![("message", text().boxed())]);
        let chunk = object(vec![
            ("model", text().boxed()),
            ("usage", usage),
            (
                "choices",
                prop::collection::vec(choice, 0..3)
                    .prop_map(Value::Array)
                    .boxed(),
            ),
        ]);
        prop_oneof![12 => chunk, 1 => error.prop_map(|e| json!({ "error": e })), 1 => odd()]
    }

    proptest! {
        /// The typed reading answers exactly as the general one, for any chunk.
        #[test]
        fn the_typed_reading_agrees_with_the_general_one(chunks in prop::collection::vec(value(), 1..6)) {
            let mut fast = OpenAiStream::default();
            let mut general = OpenAiStream::default();
            for chunk in &chunks {
                let data = chunk.to_string();
                let event = SseEvent { event: "message".into(), data: data.clone(), id: None };
                let a = fast.push(&event);
                let b = general.take_general(&data);
                prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
            prop_assert_eq!(format!("{:?}", fast.finish()), format!("{:?}", general.finish()));
        }
    }
}
