//! The model a session uses, chosen by its provider options: a remote API, the shared in-tab
//! model, or the page's own function.

use crate::ports::{ModelClient, PlatformError};
use crate::protocol::{ModelError, ModelReply, ModelRequest, StreamDelta};
use crate::runtime::options::{ProviderKind, ProviderOptions};

use super::custom_client::CustomModel;
use super::local_shared::local_model;
use super::network;
use super::provider::Provider;
use super::remote_client::RemoteModel;
use futures::future::Either;

/// A remote or local model behind one [`ModelClient`].
pub enum AnyModel {
    /// OpenAI-compatible or Anthropic over fetch.
    Remote(RemoteModel),
    /// The in-tab model at this GGUF URL (`None`: the bundled default).
    Local(Option<String>),
    /// The page's `complete` function.
    Custom(CustomModel),
}

impl AnyModel {
    /// The client for `options`. Remote defaults: the provider's public API root. A custom
    /// provider needs the page's `complete` function; without it (a session resumed by a page
    /// that did not pass it) this says so.
    pub fn from_options(
        options: &ProviderOptions,
        complete: Option<js_sys::Function>,
    ) -> Result<Self, PlatformError> {
        let remote = |provider, default_base: &str| {
            AnyModel::Remote(RemoteModel::new(
                provider,
                options
                    .base_url
                    .clone()
                    .unwrap_or_else(|| default_base.to_string()),
                options.api_key.clone().unwrap_or_default(),
                options.model.clone().unwrap_or_default(),
            ))
        };
        Ok(match options.kind {
            ProviderKind::Local => {
                AnyModel::Local(options.base_url.clone().filter(|u| !u.is_empty()))
            }
            ProviderKind::Openai => remote(Provider::OpenAi, "https://api.openai.com/v1"),
            ProviderKind::Anthropic => remote(Provider::Anthropic, "https://api.anthropic.com"),
            ProviderKind::Custom => {
                let model = options.model.clone().unwrap_or_else(|| "custom".into());
                let Some(complete) = complete else {
                    return Err(PlatformError::Provider(format!(
                        "this session uses a custom model provider ({model}): pass provider: \
                         {{ kind: 'custom', complete }} to createAgent to resume it"
                    )));
                };
                AnyModel::Custom(CustomModel::new(complete, model))
            }
        })
    }
}

impl ModelClient for AnyModel {
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        match self {
            AnyModel::Remote(model) => {
                // Offline, a remote call fails at once (and one under way when the network
                // goes is cut): the run pauses until the network returns.
                if !network::online() {
                    return Err(network::offline_error());
                }
                let call = model.complete(request, on_delta);
                futures::pin_mut!(call);
                match futures::future::select(call, network::went_offline()).await {
                    Either::Left((reply, _)) => reply,
                    Either::Right(((), _)) => Err(network::offline_error()),
                }
            }
            AnyModel::Local(url) => {
                local_model(url.clone())
                    .await?
                    .complete(request, on_delta)
                    .await
            }
            AnyModel::Custom(model) => model.complete(request, on_delta).await,
        }
    }

    fn set_api_key(&self, key: &str) {
        if let AnyModel::Remote(model) = self {
            model.set_api_key(key);
        }
    }
}
