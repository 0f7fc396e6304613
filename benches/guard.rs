//! The loop guard's judgement of one tool observation (normalising, hashing, the detectors):
//! a short result as most tools give, a long one that takes the similarity path, and an
//! error. Figures only; nothing is asserted.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, BenchmarkId, Criterion};
    use serde_json::{json, Value};
    use tabloop::core::guard::{Guard, Observation};
    use tabloop::core::log::GuardThresholds;

    /// Arguments and result text of observation `n` of a kind.
    fn observation(kind: &str, n: u64) -> (Value, String) {
        let args = json!({ "i": n, "path": format!("src/file_{}.rs", n % 7) });
        let content = match kind {
            "short" => format!("ok {}", (n * 7919) % 100_003),
            "long" => (0..40)
                .map(|line| {
                    format!(
                        "[2026-12-05T04:{:02}:30.1Z] test parser::case_{line} ... ok ({}ms, run {n})\n",
                        line % 60,
                        (n + line) % 900
                    )
                })
                .collect(),
            _ => format!("error: no such file src/file_{}.rs (attempt {n})", n % 7),
        };
        (args, content)
    }

    pub fn observe(c: &mut Criterion) {
        let limits = GuardThresholds::default();
        let mut group = c.benchmark_group("guard_observe");
        for kind in ["short", "long", "error"] {
            let inputs: Vec<(Value, String)> = (0..256).map(|n| observation(kind, n)).collect();
            let mut guard = Guard::default();
            let mut next = 0usize;
            group.bench_with_input(BenchmarkId::from_parameter(kind), &kind, |b, &kind| {
                b.iter(|| {
                    let (args, content) = &inputs[next % inputs.len()];
                    next += 1;
                    let obs = Observation {
                        tool: "noop",
                        args,
                        raw_args: "",
                        content,
                        is_error: kind == "error",
                        effect: true,
                    };
                    guard.observe(&obs, &limits).novel
                })
            });
        }
        group.finish();
    }

    criterion_group!(benches, observe);

    /// What `criterion_main!` would generate, callable from the cfg-gated `main`.
    pub fn run() {
        benches();
        criterion::Criterion::default()
            .configure_from_args()
            .final_summary();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

/// The benchmark is native only; on wasm32 it is an empty program.
#[cfg(target_arch = "wasm32")]
fn main() {}
