//! The native side of benches/local_model/dot_peak.mjs: times llama.cpp's AVX2 loop shape for
//! about SECONDS and prints one JSON line: the best and the mean rate over calls of about 25 ms
//! (the best is the loop's ceiling, the mean what the machine's load left of it) and the
//! result's worst gap to a scalar product.
//!
//!   dot-peak-native [SECONDS]

#[cfg(target_arch = "x86_64")]
fn main() {
    use dot_peak::{avx2, Data, MACS};
    use std::time::{Duration, Instant};
    use tabloop_engine::kernels::encoding::Encoding;

    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    if !avx2::available() {
        println!(r#"{{"loop":"native 4x2","error":"no AVX2 and FMA on this CPU"}}"#);
        std::process::exit(1);
    }
    let mut d = Data::new(0x5eed, Encoding::Signed8);
    let mut run = |times: u32| {
        let start = Instant::now();
        for _ in 0..times {
            // SAFETY: AVX2 and FMA checked above.
            unsafe { avx2::product(std::hint::black_box(&mut d)) };
        }
        start.elapsed()
    };
    // calls of about 25 ms: short enough that one often runs unpreempted
    let mut times = 1;
    while run(times) < Duration::from_millis(10) {
        times *= 2;
    }
    let times = (f64::from(times) * 25.0 / (run(times).as_secs_f64() * 1e3)).max(1.0) as u32;
    let (mut best, mut total, mut calls) = (f64::INFINITY, 0.0, 0u32);
    while total < seconds {
        let took = run(times).as_secs_f64();
        best = best.min(took);
        total += took;
        calls += 1;
    }
    let macs = (MACS as f64) * f64::from(times);
    d.out.fill(0.0);
    // SAFETY: as above.
    unsafe { avx2::product(&mut d) };
    println!(
        r#"{{"loop":"native 4x2","gmacs":{:.3},"gmacs_mean":{:.3},"calls":{},"times_per_call":{},"worst_gap":{:e}}}"#,
        macs / best / 1e9,
        macs * f64::from(calls) / total / 1e9,
        calls,
        times,
        d.worst_gap()
    );
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!(r#"{{"loop":"native 4x2","error":"x86_64 only"}}"#);
    std::process::exit(1);
}
