//! The model list of the local provider: which rows it shows (bundled, recommended, then what
//! the user stored, chose or is adding), what each says of its state, how a custom URL is
//! checked, what name a model goes by, and that the chosen model reaches the session options.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use tabloop::runtime::options::ProviderKind;
use tabloop::view::{
    check_model_url, local_file_name, model_rows, model_source, model_title, DownloadProgress,
    ModelSource, Settings, StoreKind, StoredModel, BUNDLED_NAME, RECOMMENDED,
};

const PICKED: &str =
    "http://127.0.0.1:8080/.tabloop-local-file/98362432-1700000000000/my%20model.gguf";

fn stored(url: &str, store: StoreKind, bytes: u64) -> StoredModel {
    StoredModel {
        url: url.to_string(),
        store: Some(store),
        bytes: Some(bytes),
    }
}

#[test]
fn the_list_starts_with_the_bundled_model_then_the_recommended_ones() {
    let rows = model_rows(&[], "", &[]);
    let titles: Vec<&str> = rows.iter().map(|r| r.title.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            BUNDLED_NAME,
            "SmolLM2-360M-Instruct Q8_0",
            "Qwen2.5-0.5B-Instruct Q8_0",
            "Llama-3.2-1B-Instruct Q4_K_M",
            "Llama-3.2-1B-Instruct Q8_0",
            "Qwen3-0.6B Q8_0",
            "Qwen3-1.7B Q8_0",
            "Gemma-3-270M-IT Q8_0",
        ]
    );
    assert_eq!(rows[0].url, "");
    assert_eq!(
        rows[0].status_text(),
        "served with this page, works offline · 138.1 MiB"
    );
    assert_eq!(
        rows[1].status_text(),
        "not downloaded · 368.5 MiB to download"
    );
    assert!(rows[1].needs_download());
    assert!(
        !rows[0].needs_download(),
        "the bundled model is served here"
    );
}

#[test]
fn recommended_urls_are_hugging_face_resolve_links_to_gguf_files() {
    for model in RECOMMENDED {
        assert!(
            model.url.starts_with("https://huggingface.co/")
                && model.url.contains("/resolve/main/"),
            "{}",
            model.url
        );
        assert!(model.url.ends_with(".gguf"), "{}", model.url);
        assert_eq!(check_model_url(model.url), Ok(model.url.to_string()));
        assert!(
            model.bytes > 250_000_000 && model.bytes < 2_000_000_000,
            "{}",
            model.name
        );
    }
}

#[test]
fn stored_chosen_and_pending_models_are_added_once_after_the_list() {
    let custom = "http://127.0.0.1:9000/m/custom-a.gguf";
    let pending = "http://127.0.0.1:9000/slow/custom-b.gguf";
    let rows = model_rows(
        &[
            stored("", StoreKind::Cache, 144_811_072),
            stored(RECOMMENDED[1].url, StoreKind::Opfs, 675_710_816),
            stored(custom, StoreKind::Cache, 98_362_432),
            stored(PICKED, StoreKind::Memory, 98_362_432),
            StoredModel {
                url: "http://gone.example/x.gguf".into(),
                store: None,
                bytes: None,
            },
        ],
        custom,
        &[pending.to_string(), custom.to_string()],
    );
    // the bundled model and the recommended ones come first
    let after = 1 + RECOMMENDED.len();
    let urls: Vec<&str> = rows.iter().skip(after).map(|r| r.url.as_str()).collect();
    assert_eq!(urls, vec![custom, PICKED, pending]);
    assert_eq!(rows[0].status_text(), "stored in the browser · 138.1 MiB");
    assert_eq!(rows[2].stored, Some(StoreKind::Opfs));
    assert_eq!(rows[after].source, ModelSource::CustomUrl);
    assert_eq!(rows[after].title, "custom-a.gguf");
    assert_eq!(rows[after].detail, custom);
    assert_eq!(rows[after + 1].source, ModelSource::PickedFile);
    assert_eq!(rows[after + 1].title, "my model.gguf");
    assert_eq!(
        rows[after + 1].status_text(),
        "used from the picked file until this page closes · 93.8 MiB"
    );
    assert_eq!(rows[after + 2].status_text(), "not downloaded");
    assert!(rows[after + 2].needs_download());
}

#[test]
fn a_picked_file_no_longer_stored_asks_to_be_picked_again() {
    let rows = model_rows(&[], PICKED, &[]);
    let row = rows.last().unwrap();
    assert_eq!(row.source, ModelSource::PickedFile);
    assert_eq!(row.status_text(), "no longer stored: pick the file again");
    assert!(!row.needs_download(), "a picked file cannot be downloaded");
}

#[test]
fn model_names_come_from_the_list_the_file_or_the_url() {
    assert_eq!(model_title(""), BUNDLED_NAME);
    assert_eq!(
        model_title(RECOMMENDED[0].url),
        "SmolLM2-360M-Instruct Q8_0"
    );
    assert_eq!(model_title(PICKED), "my model.gguf");
    assert_eq!(
        model_title("https://host.example/dir/a%2Bb.gguf?download=true"),
        "a+b.gguf"
    );
    assert_eq!(
        model_title("https://host.example/"),
        "https://host.example/"
    );
    assert_eq!(local_file_name("https://host.example/m.gguf"), None);
    assert_eq!(local_file_name(PICKED).as_deref(), Some("my model.gguf"));
    assert_eq!(model_source(PICKED), ModelSource::PickedFile);
    assert_eq!(
        model_title("https://host.example/%ZZ%e2%82.gguf"),
        "%ZZ%e2%82.gguf",
        "a malformed escape is shown as it is"
    );
}

#[test]
fn a_custom_url_must_be_absolute_http_with_a_host() {
    assert_eq!(
        check_model_url("  https://host.example/m.gguf "),
        Ok("https://host.example/m.gguf".to_string())
    );
    for (text, why) in [
        ("", "enter the URL of a .gguf file"),
        (
            "javascript:alert(1)",
            "the model URL must start with https:// or http://",
        ),
        (
            "/models/a.gguf",
            "the model URL must start with https:// or http://",
        ),
        (
            "data:application/octet-stream,GGUF",
            "the model URL must start with https:// or http://",
        ),
        ("https:///a.gguf", "the model URL has no host"),
        (
            "https://host.example/a b.gguf",
            "the model URL must not contain spaces",
        ),
    ] {
        assert_eq!(
            check_model_url(text).map_err(|e| e.to_string()),
            Err(why.to_string()),
            "{text}"
        );
    }
}

#[test]
fn the_chosen_model_url_goes_to_new_local_sessions() {
    let settings = Settings {
        provider: ProviderKind::Local,
        gguf_url: RECOMMENDED[1].url.to_string(),
        ..Settings::default()
    };
    let provider = settings.to_options(None).provider.unwrap();
    assert_eq!(provider.kind, ProviderKind::Local);
    assert_eq!(provider.base_url.as_deref(), Some(RECOMMENDED[1].url));
    let bundled = Settings::default().to_options(None).provider.unwrap();
    assert_eq!(bundled.base_url, None, "the bundled model is the default");
}

#[test]
fn a_load_that_ends_without_a_model_says_so_in_the_progress_line() {
    let ended = |phase: &str, loaded, total| DownloadProgress {
        phase: phase.into(),
        loaded,
        total,
        from_cache: false,
        per_second: None,
        note: None,
    };
    assert_eq!(
        ended("stopped", 7 * 1024 * 1024, Some(144_811_072)).text(),
        "Model loading stopped at 7.0 MiB of 138.1 MiB"
    );
    assert_eq!(ended("stopped", 0, None).text(), "Model loading stopped");
    assert_eq!(
        ended("stopped", 2048, None).text(),
        "Model loading stopped at 2.0 KiB"
    );
    assert_eq!(
        ended("failed", 0, Some(10)).text(),
        "The model could not be loaded (see the error)"
    );
}
