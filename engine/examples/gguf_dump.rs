//! Prints a GGUF file's metadata (arrays by length) and tensor table.
//!
//!     cargo run -p tabloop-engine --example gguf_dump -- MODEL.gguf
use tabloop_engine::gguf::{Gguf, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: gguf_dump MODEL.gguf")?;
    let bytes = std::fs::read(path)?;
    let file = Gguf::parse(&bytes)?;
    println!("version {}", file.version);
    let mut keys: Vec<_> = file_keys(&file);
    keys.sort();
    for key in keys {
        let shown = match file.get(&key) {
            Some(Value::Str(s)) => {
                let text = String::from_utf8_lossy(s);
                let short: String = text.chars().take(120).collect();
                format!("{short:?}")
            }
            Some(Value::Array(a)) => format!("array of {}", a.len()),
            Some(other) => format!("{other:?}"),
            None => String::new(),
        };
        println!("{key} = {shown}");
    }
    let mut kinds = std::collections::BTreeMap::new();
    for t in file.tensors() {
        *kinds.entry(t.kind.name()).or_insert(0) += 1;
    }
    println!("tensor types: {kinds:?}");
    for t in file.tensors().iter().take(14) {
        println!("{} {:?} {}", t.name, t.dims, t.kind.name());
    }
    Ok(())
}

fn file_keys(file: &Gguf) -> Vec<String> {
    file.keys().map(str::to_string).collect()
}
