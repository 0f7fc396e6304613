//! Parsing throughput: a Chat Completions event stream (SSE framing, then chunk assembly into a
//! reply) fed in network-sized pieces, as the fetch client parses it; and a stored session's
//! JSON-lines log read back into records, as opening a session reads it. Reported in bytes/s.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
    use tabloop::core::{parse_jsonl, to_jsonl};
    use tabloop::providers::SseParser;
    use tabloop::runtime::synthetic::session_log;
    use tabloop::runtime::synthetic_stream::{chat_completion_sse, parse_chat_completion_sse};

    pub fn parse(c: &mut Criterion) {
        let bytes = chat_completion_sse(400);
        let mut group = c.benchmark_group("parse");
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        for piece in [1_024usize, 16_384] {
            group.bench_with_input(
                BenchmarkId::new("sse_and_chunks", piece),
                &piece,
                |b, &piece| b.iter(|| parse_chat_completion_sse(&bytes, piece)),
            );
            group.bench_with_input(BenchmarkId::new("sse_only", piece), &piece, |b, &piece| {
                b.iter(|| {
                    let mut parser = SseParser::default();
                    let mut events = 0usize;
                    for chunk in bytes.chunks(piece) {
                        let counted = parser.push_each(chunk, |_| {
                            events += 1;
                            Ok::<(), ()>(())
                        });
                        std::hint::black_box(counted.is_ok());
                    }
                    events
                })
            });
        }
        group.finish();
        let log = to_jsonl(&session_log(10_000, "bench"));
        let mut group = c.benchmark_group("parse");
        group.throughput(Throughput::Bytes(log.len() as u64));
        group.bench_function("records_10k", |b| {
            b.iter(|| parse_jsonl(&log).map(|r| r.len()))
        });
        group.finish();
    }

    criterion_group!(benches, parse);

    /// This process's CPU time in seconds (user + system, from /proc; Linux only).
    fn cpu_seconds() -> Option<f64> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // Fields after the command name (which may hold spaces) start after its `)`.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: f64 =
            fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        Some(ticks / 100.0)
    }

    /// Throughput per CPU-second, which holds on a machine shared with other work (wall-clock
    /// figures there mostly measure the other work). Printed as one JSON line.
    fn per_cpu_second(piece: usize) {
        let bytes = chat_completion_sse(400);
        let (Some(cpu0), wall0) = (cpu_seconds(), std::time::Instant::now()) else {
            return;
        };
        let mut parses = 0u64;
        while wall0.elapsed().as_secs_f64() < 4.0 || parses < 100 {
            let reply = parse_chat_completion_sse(&bytes, piece);
            std::hint::black_box(reply.is_ok());
            parses += 1;
        }
        let Some(cpu1) = cpu_seconds() else { return };
        let mb = (bytes.len() as u64 * parses) as f64 / 1e6;
        println!(
            "{{\"cpu_parse\": {{\"piece\": {piece}, \"parses\": {parses}, \"mb\": {mb:.3}, \"cpu_s\": {:.3}, \"wall_s\": {:.3}, \"mb_per_cpu_s\": {:.1}}}}}",
            cpu1 - cpu0,
            wall0.elapsed().as_secs_f64(),
            mb / (cpu1 - cpu0)
        );
    }

    /// What `criterion_main!` would generate, callable from the cfg-gated `main`; then the
    /// per-CPU-second figure (not in test mode, where each benchmark runs once).
    pub fn run() {
        benches();
        criterion::Criterion::default()
            .configure_from_args()
            .final_summary();
        if !std::env::args().any(|a| a == "--test" || a == "--list") {
            per_cpu_second(1_024);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

/// The benchmark is native only; on wasm32 it is an empty program.
#[cfg(target_arch = "wasm32")]
fn main() {}
