//! The models the playground offers the in-tab provider: the bundled SmolLM2-135M (the
//! offline default), a short list of recommended small instruct models by URL, and what the
//! user added (a custom URL, a picked file), each with what browser storage holds of it. Plain
//! data, so the model list component only renders it.

pub use crate::ports::{PickedModel, StoreKind, StoredModel};

use super::field_error::FieldError;
use super::format::format_bytes;

/// A recommended model: a stable Hugging Face `resolve` URL and the size listed for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogModel {
    /// Display name with its quantisation.
    pub name: &'static str,
    /// The GGUF file.
    pub url: &'static str,
    /// Size in bytes as the host lists it (checked against Content-Length on download).
    pub bytes: u64,
    /// One line on why it is on the list.
    pub note: &'static str,
}

/// The bundled model's name.
pub const BUNDLED_NAME: &str = "SmolLM2-135M-Instruct Q8_0 (bundled)";
/// Size of the bundled GGUF (Q4_1 layers re-stored as Q8_0).
pub const BUNDLED_BYTES: u64 = 144_811_072;
/// Path (on the page's origin) of the keys picked files are stored under; the model files
/// module uses the same.
pub const LOCAL_FILE_PATH: &str = "/.tabloop-local-file/";

/// Small instruct models that run in a tab: the first four smallest first, then those that
/// call tools best for their size (Qwen3, on the Berkeley Function Calling Leaderboard; Q8_0,
/// where Qwen3-0.6B loses nothing to quantization) and a Gemma 3. Sizes of the last three are
/// their parameters at Q8_0's 8.5 bits, rounded: the host's exact figures could not be read
/// from here (the download is checked against its Content-Length either way).
pub const RECOMMENDED: [CatalogModel; 7] = [
    CatalogModel {
        name: "SmolLM2-360M-Instruct Q8_0",
        url: "https://huggingface.co/ngxson/SmolLM2-360M-Instruct-Q8_0-GGUF/resolve/main/smollm2-360m-instruct-q8_0.gguf",
        bytes: 386_404_992,
        note: "the bundled model's larger sibling, same prompt format",
    },
    CatalogModel {
        name: "Qwen2.5-0.5B-Instruct Q8_0",
        url: "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q8_0.gguf",
        bytes: 675_710_816,
        note: "trained for JSON output and tool calls",
    },
    CatalogModel {
        name: "Llama-3.2-1B-Instruct Q4_K_M",
        url: "https://huggingface.co/hugging-quants/Llama-3.2-1B-Instruct-Q4_K_M-GGUF/resolve/main/llama-3.2-1b-instruct-q4_k_m.gguf",
        bytes: 807_690_656,
        note: "a 1B model in 4 bits: about 60% of the Q8_0 download",
    },
    CatalogModel {
        name: "Llama-3.2-1B-Instruct Q8_0",
        url: "https://huggingface.co/hugging-quants/Llama-3.2-1B-Instruct-Q8_0-GGUF/resolve/main/llama-3.2-1b-instruct-q8_0.gguf",
        bytes: 1_321_079_200,
        note: "needs about 2 GB of memory",
    },
    CatalogModel {
        name: "Qwen3-0.6B Q8_0",
        url: "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf",
        bytes: 640_000_000,
        note: "calls tools in its own format (<tool_call>); thinking is turned off",
    },
    CatalogModel {
        name: "Qwen3-1.7B Q8_0",
        url: "https://huggingface.co/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf",
        bytes: 1_830_000_000,
        note: "the largest here: Qwen3-0.6B's bigger sibling; needs about 2.5 GB of memory",
    },
    CatalogModel {
        name: "Gemma-3-270M-IT Q8_0",
        url: "https://huggingface.co/ggml-org/gemma-3-270m-it-GGUF/resolve/main/gemma-3-270m-it-Q8_0.gguf",
        bytes: 292_000_000,
        note: "Google's smallest Gemma 3: sliding-window attention, its own turn format",
    },
];

/// Where a model on the list comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// The bundled default, served with the playground.
    Bundled,
    /// One of [`RECOMMENDED`].
    Recommended,
    /// A URL the user gave.
    CustomUrl,
    /// A file the user picked.
    PickedFile,
}

/// One row of the model list.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    /// The model's URL, as the settings hold it (`""` for the bundled model).
    pub url: String,
    /// Where it comes from.
    pub source: ModelSource,
    /// Its name.
    pub title: String,
    /// Why it is listed, or where it comes from.
    pub detail: String,
    /// Size listed for it before download, when known.
    pub listed_bytes: Option<u64>,
    /// Where browser storage keeps it, if it does.
    pub stored: Option<StoreKind>,
    /// Its stored size.
    pub stored_bytes: Option<u64>,
}

impl ModelRow {
    /// What the row says of its state: `stored in the browser · 138.1 MiB`.
    pub fn status_text(&self) -> String {
        let size = |bytes: Option<u64>| bytes.map(format_bytes);
        match (self.stored, self.source) {
            (Some(StoreKind::Cache | StoreKind::Opfs), _) => match size(self.stored_bytes) {
                Some(size) => format!("stored in the browser · {size}"),
                None => "stored in the browser".to_string(),
            },
            (Some(StoreKind::Memory), _) => match size(self.stored_bytes) {
                Some(size) => format!("used from the picked file until this page closes · {size}"),
                None => "used from the picked file until this page closes".to_string(),
            },
            (None, ModelSource::Bundled) => match size(self.listed_bytes) {
                Some(size) => format!("served with this page, works offline · {size}"),
                None => "served with this page, works offline".to_string(),
            },
            (None, ModelSource::PickedFile) => "no longer stored: pick the file again".to_string(),
            (None, ModelSource::Recommended | ModelSource::CustomUrl) => {
                match size(self.listed_bytes) {
                    Some(size) => format!("not downloaded · {size} to download"),
                    None => "not downloaded".to_string(),
                }
            }
        }
    }

    /// Whether choosing it needs a download first (it is not stored and not served here).
    pub fn needs_download(&self) -> bool {
        self.stored.is_none()
            && matches!(
                self.source,
                ModelSource::Recommended | ModelSource::CustomUrl
            )
    }
}

/// Where the model at `url` comes from.
pub fn model_source(url: &str) -> ModelSource {
    if url.is_empty() {
        ModelSource::Bundled
    } else if RECOMMENDED.iter().any(|m| m.url == url) {
        ModelSource::Recommended
    } else if local_file_name(url).is_some() {
        ModelSource::PickedFile
    } else {
        ModelSource::CustomUrl
    }
}

/// The file name in the key of a picked file, or `None` when `url` is not one.
pub fn local_file_name(url: &str) -> Option<String> {
    let after_scheme = url.split_once("://")?.1;
    let path = &after_scheme[after_scheme.find('/')?..];
    let rest = path.strip_prefix(LOCAL_FILE_PATH)?;
    let name = rest.rsplit('/').next().filter(|n| !n.is_empty())?;
    Some(percent_decode(name))
}

/// The model's name for the settings summary and the list.
pub fn model_title(url: &str) -> String {
    match model_source(url) {
        ModelSource::Bundled => BUNDLED_NAME.to_string(),
        ModelSource::Recommended => RECOMMENDED
            .iter()
            .find(|m| m.url == url)
            .map_or_else(|| url.to_string(), |m| m.name.to_string()),
        ModelSource::PickedFile => local_file_name(url).unwrap_or_else(|| url.to_string()),
        ModelSource::CustomUrl => url
            .split(['?', '#'])
            .next()
            .and_then(|path| path.rsplit('/').next())
            .filter(|file| !file.is_empty())
            .map_or_else(|| url.to_string(), percent_decode),
    }
}

/// The rows of the model list: the bundled model, the recommended ones, then every other model
/// that is stored, chosen or being added (`pending`), each once.
pub fn model_rows(stored: &[StoredModel], chosen: &str, pending: &[String]) -> Vec<ModelRow> {
    let find = |url: &str| stored.iter().find(|s| s.url == url && s.store.is_some());
    let row = |url: &str, listed_bytes: Option<u64>, detail: String| {
        let hit = find(url);
        ModelRow {
            url: url.to_string(),
            source: model_source(url),
            title: model_title(url),
            detail,
            listed_bytes,
            stored: hit.and_then(|s| s.store),
            stored_bytes: hit.and_then(|s| s.bytes),
        }
    };
    let mut rows = vec![row(
        "",
        Some(BUNDLED_BYTES),
        "the default: small and quick, the one the tests use".to_string(),
    )];
    rows.extend(
        RECOMMENDED
            .iter()
            .map(|m| row(m.url, Some(m.bytes), m.note.to_string())),
    );
    let others = stored
        .iter()
        .filter(|s| s.store.is_some())
        .map(|s| s.url.as_str())
        .chain(std::iter::once(chosen))
        .chain(pending.iter().map(String::as_str));
    for url in others {
        if url.is_empty() || rows.iter().any(|r| r.url == url) {
            continue;
        }
        let detail = match model_source(url) {
            ModelSource::PickedFile => "a file picked from this computer".to_string(),
            ModelSource::Bundled | ModelSource::Recommended | ModelSource::CustomUrl => {
                url.to_string()
            }
        };
        rows.push(row(url, None, detail));
    }
    rows
}

/// A custom model URL as typed, checked: an absolute `http(s)` URL with a host, no spaces.
pub fn check_model_url(text: &str) -> Result<String, FieldError> {
    let url = text.trim();
    if url.is_empty() {
        return Err(FieldError::NoModelUrl);
    }
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .ok_or(FieldError::NotHttp)?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() {
        return Err(FieldError::NoHost);
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(FieldError::Spaces);
    }
    if url.len() > 2048 {
        return Err(FieldError::TooLong);
    }
    Ok(url.to_string())
}

/// `%XX` escapes decoded (for showing a file name); anything malformed is kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}
