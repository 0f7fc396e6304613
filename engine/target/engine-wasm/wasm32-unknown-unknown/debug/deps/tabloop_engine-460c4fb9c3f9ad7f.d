/work/wt-engine/engine/target/engine-wasm/wasm32-unknown-unknown/debug/deps/tabloop_engine-460c4fb9c3f9ad7f.d: /work/wt-engine/clippy.toml engine/src/lib.rs engine/src/abi.rs engine/src/gguf.rs engine/src/grammar/mod.rs engine/src/grammar/charset.rs engine/src/grammar/check.rs engine/src/grammar/choose.rs engine/src/grammar/compiled.rs engine/src/grammar/lex.rs engine/src/grammar/matcher.rs engine/src/grammar/parse.rs engine/src/grammar/repeat.rs engine/src/grammar/rules.rs engine/src/grammar/stacks.rs engine/src/grammar/state.rs engine/src/grammar/utf8.rs engine/src/kernels/mod.rs engine/src/kernels/encoding.rs engine/src/kernels/math.rs engine/src/kernels/portable.rs engine/src/kernels/wasm.rs engine/src/kernels/out.rs engine/src/model/mod.rs engine/src/model/config.rs engine/src/model/forward.rs engine/src/model/weights.rs engine/src/pool.rs engine/src/quant.rs engine/src/sampling.rs engine/src/session.rs engine/src/tokenizer/mod.rs engine/src/tokenizer/bpe.rs engine/src/tokenizer/byte_level.rs engine/src/tokenizer/hash.rs engine/src/tokenizer/pretokenize.rs engine/src/tokenizer/special.rs engine/src/tokenizer/unicode.rs engine/src/tokenizer/vocab.rs Cargo.toml

/work/wt-engine/engine/target/engine-wasm/wasm32-unknown-unknown/debug/deps/libtabloop_engine-460c4fb9c3f9ad7f.rmeta: /work/wt-engine/clippy.toml engine/src/lib.rs engine/src/abi.rs engine/src/gguf.rs engine/src/grammar/mod.rs engine/src/grammar/charset.rs engine/src/grammar/check.rs engine/src/grammar/choose.rs engine/src/grammar/compiled.rs engine/src/grammar/lex.rs engine/src/grammar/matcher.rs engine/src/grammar/parse.rs engine/src/grammar/repeat.rs engine/src/grammar/rules.rs engine/src/grammar/stacks.rs engine/src/grammar/state.rs engine/src/grammar/utf8.rs engine/src/kernels/mod.rs engine/src/kernels/encoding.rs engine/src/kernels/math.rs engine/src/kernels/portable.rs engine/src/kernels/wasm.rs engine/src/kernels/out.rs engine/src/model/mod.rs engine/src/model/config.rs engine/src/model/forward.rs engine/src/model/weights.rs engine/src/pool.rs engine/src/quant.rs engine/src/sampling.rs engine/src/session.rs engine/src/tokenizer/mod.rs engine/src/tokenizer/bpe.rs engine/src/tokenizer/byte_level.rs engine/src/tokenizer/hash.rs engine/src/tokenizer/pretokenize.rs engine/src/tokenizer/special.rs engine/src/tokenizer/unicode.rs engine/src/tokenizer/vocab.rs Cargo.toml

/work/wt-engine/clippy.toml:
engine/src/lib.rs:
engine/src/abi.rs:
engine/src/gguf.rs:
engine/src/grammar/mod.rs:
engine/src/grammar/charset.rs:
engine/src/grammar/check.rs:
engine/src/grammar/choose.rs:
engine/src/grammar/compiled.rs:
engine/src/grammar/lex.rs:
engine/src/grammar/matcher.rs:
engine/src/grammar/parse.rs:
engine/src/grammar/repeat.rs:
engine/src/grammar/rules.rs:
engine/src/grammar/stacks.rs:
engine/src/grammar/state.rs:
engine/src/grammar/utf8.rs:
engine/src/kernels/mod.rs:
engine/src/kernels/encoding.rs:
engine/src/kernels/math.rs:
engine/src/kernels/portable.rs:
engine/src/kernels/wasm.rs:
engine/src/kernels/out.rs:
engine/src/model/mod.rs:
engine/src/model/config.rs:
engine/src/model/forward.rs:
engine/src/model/weights.rs:
engine/src/pool.rs:
engine/src/quant.rs:
engine/src/sampling.rs:
engine/src/session.rs:
engine/src/tokenizer/mod.rs:
engine/src/tokenizer/bpe.rs:
engine/src/tokenizer/byte_level.rs:
engine/src/tokenizer/hash.rs:
engine/src/tokenizer/pretokenize.rs:
engine/src/tokenizer/special.rs:
engine/src/tokenizer/unicode.rs:
engine/src/tokenizer/vocab.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
