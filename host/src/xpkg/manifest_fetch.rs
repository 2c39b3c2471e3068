//! Manifests and indexes read with a size cap. oci-client reads a manifest answer whole before
//! anything can look at its size, so a registry could make the host buffer gigabytes; here the
//! claimed size (`Content-Length`) is checked before the body is read, and the body is read
//! chunk by chunk and dropped at the first byte over the cap (for answers that claim nothing
//! or lie).

use anyhow::{Result, anyhow, bail};
use oci_client::Reference;

/// How a request to the registry is authorized.
#[derive(Clone, Debug)]
pub(crate) enum Authorization {
    Anonymous,
    Basic(String, String),
    Bearer(String),
}

/// The answer: the manifest's bytes and the digest the registry announced for them.
pub(crate) struct Fetched {
    pub(crate) bytes: Vec<u8>,
    pub(crate) announced_digest: Option<String>,
}

/// `GET /v2/<repository>/manifests/<tag or digest>`, at most `max` bytes.
pub(crate) async fn manifest(
    http: &reqwest::Client,
    scheme: &str,
    reference: &Reference,
    auth: &Authorization,
    accept: &[&str],
    max: u64,
) -> Result<Fetched> {
    let url = format!(
        "{scheme}://{}/v2/{}/manifests/{}",
        reference.resolve_registry(),
        reference.repository(),
        reference
            .digest()
            .unwrap_or_else(|| reference.tag().unwrap_or("latest")),
    );
    let request = http
        .get(&url)
        .header(reqwest::header::ACCEPT, accept.join(", "));
    let request = match auth {
        Authorization::Anonymous => request,
        Authorization::Basic(user, password) => request.basic_auth(user, Some(password)),
        Authorization::Bearer(token) => request.bearer_auth(token),
    };
    let mut response = request.send().await?;
    let status = response.status();
    if !status.is_success() {
        // The error body is only for the message: keep a little of it.
        let mut reason = read_capped(&mut response, 4096).await.unwrap_or_default();
        reason.truncate(512);
        bail!(
            "the registry answered {status} for {url}: {}",
            String::from_utf8_lossy(&reason).trim()
        );
    }
    if let Some(claimed) = response.content_length()
        && claimed > max
    {
        bail!(
            "the registry announces {claimed} bytes, over the limit of {max} bytes for a manifest"
        );
    }
    let announced_digest = response
        .headers()
        .get("Docker-Content-Digest")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = read_capped(&mut response, max).await?;
    Ok(Fetched {
        bytes,
        announced_digest,
    })
}

/// The body, refused at the first byte past `max`.
async fn read_capped(response: &mut reqwest::Response, max: u64) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if (body.len() + chunk.len()) as u64 > max {
            return Err(anyhow!(
                "the answer runs past {max} bytes, the limit for a manifest"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
