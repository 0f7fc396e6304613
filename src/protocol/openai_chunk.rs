//! One Chat Completions stream chunk read by hand ([`super::json_scan`]) into only the members
//! the assembler uses, strings borrowed from the event's text when they hold no escapes,
//! everything else skipped unparsed. Each member reads as a JSON tree's accessors read it (a
//! string member of another type is absent, `null` is absent, a repeated member keeps its last
//! value), so the assembler gives the very same answer as from the tree; a chunk the scanner
//! declines (invalid JSON, or one with an `error` member) is left to the general reading.

use std::borrow::Cow;

use super::json_scan::Cursor;
use super::model::Usage;

/// One `chat.completion.chunk`.
#[derive(Debug, Default)]
pub(crate) struct Chunk<'a> {
    /// The model that answered.
    pub(crate) model: Option<Cow<'a, str>>,
    /// Token usage (the last chunk, with `stream_options.include_usage`), when it is an object.
    pub(crate) usage: Option<Usage>,
    /// The choices that are objects; the assembler reads every one.
    pub(crate) choices: Items<Choice<'a>>,
}

/// One choice of a chunk.
#[derive(Debug, Default)]
pub(crate) struct Choice<'a> {
    /// What this chunk adds (absent when it is not an object).
    pub(crate) delta: Option<Delta<'a>>,
    /// Why the reply ended, on its last chunk.
    pub(crate) finish_reason: Option<Cow<'a, str>>,
}

/// The increment of a choice.
#[derive(Debug, Default)]
pub(crate) struct Delta<'a> {
    /// Answer text.
    pub(crate) content: Option<Cow<'a, str>>,
    /// A refusal, kept as text.
    pub(crate) refusal: Option<Cow<'a, str>>,
    /// Reasoning text (one server's name).
    pub(crate) reasoning_content: Option<Cow<'a, str>>,
    /// Reasoning text (another's).
    pub(crate) reasoning: Option<Cow<'a, str>>,
    /// Tool-call fragments, one per array item: an item that is not an object still counts
    /// (as an empty fragment at its position), as it does in the tree reading.
    pub(crate) tool_calls: Items<CallDelta<'a>>,
}

/// A fragment of one tool call.
#[derive(Debug, Default)]
pub(crate) struct CallDelta<'a> {
    /// Which call it continues.
    pub(crate) index: Option<u64>,
    /// The call's id (its first fragment).
    pub(crate) id: Option<Cow<'a, str>>,
    /// The tool's name (its first fragment).
    pub(crate) name: Option<Cow<'a, str>>,
    /// A piece of the JSON argument text.
    pub(crate) arguments: Option<Cow<'a, str>>,
}

/// The items of an array in order, the first kept inline: nearly every chunk has one choice
/// and at most one call fragment, so reading it allocates no list.
#[derive(Debug)]
pub(crate) struct Items<T> {
    /// The first item, if any.
    first: Option<T>,
    /// The items after it.
    rest: Vec<T>,
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items {
            first: None,
            rest: Vec::new(),
        }
    }
}

impl<T> Items<T> {
    /// Appends an empty item and returns it, to be read in place.
    fn push_default(&mut self) -> Option<&mut T>
    where
        T: Default,
    {
        if self.first.is_none() {
            return Some(self.first.insert(T::default()));
        }
        self.rest.push(T::default());
        self.rest.last_mut()
    }

    /// The items in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(&self.rest)
    }
}

/// Reads the chunk in `data` into `chunk` (a fresh one); `None` when only the general reading
/// can answer for it: not a JSON object the scanner reads in full, or one with an `error`
/// member. Every member is read in place, so no part of the chunk is moved while it is read.
pub(crate) fn fast_chunk<'a>(data: &'a str, chunk: &mut Chunk<'a>) -> Option<()> {
    let mut cursor = Cursor::new(data);
    cursor.object(0, |c, key| {
        match key {
            "model" => chunk.model = c.str_or_absent(1)?,
            "usage" => chunk.usage = usage(c)?,
            "choices" => items_into(c, 1, &mut chunk.choices, |c, choices| {
                if c.peek_value()? != b'{' {
                    return c.skip(2);
                }
                let choice = choices.push_default()?;
                c.object(2, |c, key| choice_member(choice, c, key))
            })?,
            "error" => return None,
            _ => c.skip(1)?,
        }
        Some(())
    })?;
    cursor.at_end().then_some(())
}

/// Reads the next value into `slot` when it is an object; any other value leaves it absent.
fn object_into<'a, T: Default>(
    c: &mut Cursor<'a>,
    depth: usize,
    slot: &mut Option<T>,
    mut member: impl FnMut(&mut T, &mut Cursor<'a>, &str) -> Option<()>,
) -> Option<()> {
    *slot = None;
    if c.peek_value()? != b'{' {
        return c.skip(depth);
    }
    let out = slot.insert(T::default());
    c.object(depth, |c, key| member(out, c, key))
}

/// Reads an array's items into `list` through `item`; any other value leaves it empty.
fn items_into<'a, T>(
    c: &mut Cursor<'a>,
    depth: usize,
    list: &mut Items<T>,
    mut item: impl FnMut(&mut Cursor<'a>, &mut Items<T>) -> Option<()>,
) -> Option<()> {
    *list = Items::default();
    if c.peek_value()? != b'[' {
        return c.skip(depth);
    }
    c.array(depth, |c| item(c, list))
}

/// One member of a choice.
fn choice_member<'a>(choice: &mut Choice<'a>, c: &mut Cursor<'a>, key: &str) -> Option<()> {
    match key {
        "delta" => object_into(c, 3, &mut choice.delta, delta_member),
        "finish_reason" => {
            choice.finish_reason = c.str_or_absent(3)?;
            Some(())
        }
        _ => c.skip(3),
    }
}

/// One member of a `delta` object.
fn delta_member<'a>(delta: &mut Delta<'a>, c: &mut Cursor<'a>, key: &str) -> Option<()> {
    match key {
        "content" => delta.content = c.str_or_absent(4)?,
        "refusal" => delta.refusal = c.str_or_absent(4)?,
        "reasoning_content" => delta.reasoning_content = c.str_or_absent(4)?,
        "reasoning" => delta.reasoning = c.str_or_absent(4)?,
        "tool_calls" => items_into(c, 4, &mut delta.tool_calls, |c, calls| {
            // An item that is not an object still counts, as an empty fragment.
            let call = calls.push_default()?;
            if c.peek_value()? != b'{' {
                return c.skip(5);
            }
            c.object(5, |c, key| call_member(call, c, key))
        })?,
        _ => c.skip(4)?,
    }
    Some(())
}

/// One member of a tool-call fragment; `function`'s members land in it directly (a repeated
/// `function` replaces both, as in a tree).
fn call_member<'a>(call: &mut CallDelta<'a>, c: &mut Cursor<'a>, key: &str) -> Option<()> {
    match key {
        "index" => call.index = c.u64_or_absent(6)?,
        "id" => call.id = c.str_or_absent(6)?,
        "function" => {
            (call.name, call.arguments) = (None, None);
            if c.peek_value()? != b'{' {
                return c.skip(6);
            }
            c.object(6, |c, key| {
                match key {
                    "name" => call.name = c.str_or_absent(7)?,
                    "arguments" => call.arguments = c.str_or_absent(7)?,
                    _ => c.skip(7)?,
                }
                Some(())
            })?;
        }
        _ => c.skip(6)?,
    }
    Some(())
}

/// The `usage` member when it is an object: cached prompt tokens are split out of
/// `prompt_tokens`, as the general reading's `parse_usage` does.
fn usage(c: &mut Cursor<'_>) -> Option<Option<Usage>> {
    let mut prompt = None;
    let mut cached = None;
    let mut completion = None;
    if c.peek_value()? != b'{' {
        return c.skip(1).map(|()| None);
    }
    c.object(1, |c, key| {
        match key {
            "prompt_tokens" => prompt = c.u64_or_absent(2)?,
            "completion_tokens" => completion = c.u64_or_absent(2)?,
            "prompt_tokens_details" => {
                cached = None;
                if c.peek_value()? != b'{' {
                    return c.skip(2);
                }
                c.object(2, |c, key| {
                    match key {
                        "cached_tokens" => cached = c.u64_or_absent(3)?,
                        _ => c.skip(3)?,
                    }
                    Some(())
                })?;
            }
            _ => c.skip(2)?,
        }
        Some(())
    })?;
    let (prompt, cached) = (prompt.unwrap_or(0), cached.unwrap_or(0));
    Some(Some(Usage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: completion.unwrap_or(0),
        cached_input_tokens: cached,
        cache_write_tokens: 0,
    }))
}
