//! Keeps a reply from looping: the tokens that would extend a run of text the reply has already
//! written are made less likely, the more so the longer the run ("don't repeat yourself", as
//! koboldcpp's and llama.cpp's DRY sampler). Why: greedy decoding of a small model falls into
//! loops ("She is a cat who loves to learn new things." until the output limit) and the reply
//! is cut. Only the reply's own tokens count, never the prompt's, so copying a path or a name
//! from the task is not penalised (a plain repeat penalty over the context made SmolLM2-135M
//! write "notes.txt" for "/notes.txt"). Under a grammar (a tool call's JSON) a run stops at a
//! token holding a quote, a backslash, a brace or a line break, so the repeated shape of JSON
//! (`","status":"`) is never a run, and such a token is never penalised: closing a looping
//! string is how a reply gets out of it. In free text nothing ends a run: a loop of whole lines
//! ("- todo:" until the limit) is held back like any other.

/// How strongly runs are held back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepeatGuard {
    /// The penalty of a run one token past `allowed`, in logits.
    pub multiplier: f32,
    /// How fast the penalty grows with each further token of the run.
    pub base: f32,
    /// The shortest run whose extension is penalised.
    pub allowed: usize,
}

impl RepeatGuard {
    /// The guard the engine runs with.
    pub const DEFAULT: RepeatGuard = RepeatGuard {
        multiplier: 0.8,
        base: 1.75,
        allowed: 3,
    };

    /// Lowers `logits` of each token that would extend a run `output` (the reply's tokens so
    /// far) has already written; `breaks(token)` tells the tokens that end a run.
    pub fn penalize(&self, logits: &mut [f32], output: &[u32], breaks: impl Fn(u32) -> bool) {
        for (token, penalty) in self.penalties(output, breaks) {
            if let Some(logit) = logits.get_mut(token as usize) {
                *logit -= penalty;
            }
        }
    }

    /// What [`penalize`](Self::penalize) takes off each token's logit, as `(token, penalty)`:
    /// for lowering a few tokens' logits exactly as it would (jump-forward's check).
    pub fn penalties(&self, output: &[u32], breaks: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        let Some((&last, _)) = output.split_last() else {
            return Vec::new();
        };
        if breaks(last) {
            return Vec::new();
        }
        let end = output.len() - 1;
        // Longest run each following token would extend: (token, run length).
        let mut runs: Vec<(u32, usize)> = Vec::new();
        for earlier in (0..end).filter(|&at| output[at] == last) {
            let next = output[earlier + 1];
            if breaks(next) {
                continue;
            }
            let mut length = 1;
            while length <= earlier
                && output[earlier - length] == output[end - length]
                && !breaks(output[earlier - length])
            {
                length += 1;
            }
            match runs.iter_mut().find(|(token, _)| *token == next) {
                Some(run) => run.1 = run.1.max(length),
                None => runs.push((next, length)),
            }
        }
        runs.into_iter()
            .filter(|(_, length)| *length >= self.allowed)
            .map(|(token, length)| {
                let exponent = (length - self.allowed) as i32;
                (token, self.multiplier * self.base.powi(exponent))
            })
            .collect()
    }
}

/// Whether a token's bytes end a run: a quote, a backslash, a brace or a line break.
pub fn breaks_run(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .any(|b| matches!(b, b'"' | b'\\' | b'{' | b'}' | b'\n'))
}
