//! Choosing the next token from the logits: greedy (temperature 0, what tool calls use, so a
//! small model's calls are reproducible) or sampled from the top candidates with a
//! temperature, always among the tokens the grammar admits.

use crate::grammar::{choose_greedy, Grammar, GrammarState};
use crate::tokenizer::Tokenizer;

/// How the next token is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// The most likely admitted token.
    Greedy,
    /// A draw from the `top_k` most likely admitted tokens, cut to the smallest set holding
    /// `top_p` of their probability, at `temperature`.
    Temperature {
        /// Softmax temperature (> 0).
        temperature: f32,
        /// Most candidates kept.
        top_k: usize,
        /// Probability mass kept.
        top_p: f32,
    },
}

impl Sampling {
    /// llama.cpp's defaults for a given temperature: greedy at 0, else top-k 40 and top-p 0.95.
    pub fn with_temperature(temperature: f32) -> Sampling {
        if temperature.is_finite() && temperature > 0.0 {
            Sampling::Temperature {
                temperature,
                top_k: 40,
                top_p: 0.95,
            }
        } else {
            Sampling::Greedy
        }
    }
}

/// The next token, or `None` when the grammar admits none. `random` is a uniform draw in
/// [0, 1) (used only when sampling).
pub fn choose(
    logits: &[f32],
    tokenizer: &Tokenizer,
    grammar: Option<(&Grammar, &GrammarState)>,
    sampling: Sampling,
    random: f32,
) -> Option<u32> {
    let admitted = |id: usize| match grammar {
        Some((g, state)) => {
            let token = id as u32;
            if tokenizer.is_end_of_generation(token) {
                state.is_complete()
            } else {
                state.accepts(g, tokenizer.token_bytes(token))
            }
        }
        None => !tokenizer.is_control(id as u32) || tokenizer.is_end_of_generation(id as u32),
    };
    match sampling {
        Sampling::Greedy => match grammar {
            Some((g, state)) => choose_greedy(
                g,
                state,
                logits,
                |id| tokenizer.token_bytes(id as u32),
                |id| tokenizer.is_end_of_generation(id as u32),
            )
            .map(|id| id as u32),
            None => {
                let mut best: Option<usize> = None;
                for (id, value) in logits.iter().enumerate() {
                    if best.is_none_or(|b| *value > logits[b]) && admitted(id) {
                        best = Some(id);
                    }
                }
                best.map(|id| id as u32)
            }
        },
        Sampling::Temperature {
            temperature,
            top_k,
            top_p,
        } => {
            let mut order: Vec<usize> = (0..logits.len()).collect();
            order.sort_unstable_by(|a, b| logits[*b].total_cmp(&logits[*a]));
            let candidates: Vec<usize> = order
                .into_iter()
                .filter(|id| admitted(*id))
                .take(top_k.max(1))
                .collect();
            let first = *candidates.first()?;
            let top = logits[first];
            let weights: Vec<f32> = candidates
                .iter()
                .map(|id| ((logits[*id] - top) / temperature).exp())
                .collect();
            let total: f32 = weights.iter().sum();
            let mut kept = 0;
            let mut mass = 0.0;
            for w in &weights {
                kept += 1;
                mass += w / total;
                if mass >= top_p {
                    break;
                }
            }
            let kept_total: f32 = weights[..kept].iter().sum();
            let mut target = random.clamp(0.0, 1.0) * kept_total;
            for (id, w) in candidates[..kept].iter().zip(&weights) {
                if target < *w {
                    return Some(*id as u32);
                }
                target -= w;
            }
            candidates.get(kept - 1).map(|id| *id as u32)
        }
    }
}
