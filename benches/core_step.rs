//! Per-step overhead of the loop core (no model, no I/O) after histories of 10 to 10,000 events:
//! the cost of a decision must grow with the new events only, not with the history.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, BenchmarkId, Criterion};
    use tabloop::runtime::synthetic::SyntheticSession;

    pub fn per_step(c: &mut Criterion) {
        let mut group = c.benchmark_group("core_step");
        for events in [10usize, 100, 1_000, 10_000] {
            let session = SyntheticSession::with_history(events);
            group.bench_with_input(BenchmarkId::from_parameter(events), &events, |b, _| {
                b.iter_batched(
                    || {
                        // A clone has exactly-sized buffers; one untimed step lets them grow as
                        // they would in a live session, so the timed step is a steady-state one.
                        let mut session = session.clone();
                        session.step();
                        session
                    },
                    |mut session| {
                        session.step();
                        // Returned so dropping the cloned history is not timed.
                        session
                    },
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }

    criterion_group!(benches, per_step);

    /// What `criterion_main!` would generate, callable from the cfg-gated `main`.
    pub fn run() {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

/// The benchmark is native only; on wasm32 it is an empty program.
#[cfg(target_arch = "wasm32")]
fn main() {}
