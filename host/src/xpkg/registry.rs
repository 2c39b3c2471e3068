//! The registry client: oci-client with Docker-config credentials, plain http for loopback or
//! `--insecure`, and every blob going through the verified cache.

use std::io::IsTerminal as _;

use anyhow::{Context as _, Result, anyhow, bail};
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference, RegistryOperation};
use serde_json::Value;

use super::cache::{Cache, Digest};
use super::image::{self, Descriptor};
use super::layout::Layout;
use super::manifest_fetch::{self, Authorization};
use super::{Options, Source};

pub(crate) struct Registry {
    rt: tokio::runtime::Runtime,
    client: Client,
    /// Manifests are read with a cap, outside oci-client (see `manifest_fetch`).
    http: reqwest::Client,
    scheme: &'static str,
    /// The credentials from the Docker config, and the pull authorization they gave
    /// (settled at the first manifest).
    auth: RegistryAuth,
    pull: std::sync::OnceLock<Authorization>,
    pub(crate) reference: Reference,
    cache: Cache,
    opts: Options,
}

/// Is this registry host on the loopback interface (where plain http is the norm)?
pub(crate) fn is_loopback(registry: &str) -> bool {
    let host = match registry.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => registry.split(':').next().unwrap_or_default(),
    };
    host == "localhost" || host == "::1" || host.starts_with("127.")
}

pub(crate) fn parse_reference(s: &str) -> Result<Reference> {
    s.parse::<Reference>()
        .map_err(|e| anyhow!("invalid package reference {s:?}: {e}"))
}

/// Credentials for a registry from the Docker config (`$DOCKER_CONFIG` or `~/.docker`).
fn credentials(registry: &str) -> Result<RegistryAuth> {
    use docker_credential::{CredentialRetrievalError as E, DockerCredential};
    let dir = std::env::var_os("DOCKER_CONFIG")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".docker")));
    if !dir.is_some_and(|d| d.join("config.json").is_file()) {
        return Ok(RegistryAuth::Anonymous);
    }
    let server = if registry == "index.docker.io" || registry == "docker.io" {
        "https://index.docker.io/v1/"
    } else {
        registry
    };
    match docker_credential::get_credential(server) {
        Ok(DockerCredential::UsernamePassword(u, p)) => Ok(RegistryAuth::Basic(u, p)),
        Ok(DockerCredential::IdentityToken(t)) => Ok(RegistryAuth::Bearer(t)),
        Err(E::NoCredentialConfigured | E::ConfigNotFound) => Ok(RegistryAuth::Anonymous),
        Err(e) => Err(anyhow!("reading Docker credentials for {registry}: {e}")),
    }
}

fn oci_err(e: oci_client::errors::OciDistributionError) -> anyhow::Error {
    anyhow!("{e}")
}

impl Registry {
    pub(crate) fn new(reference: &str, opts: &Options) -> Result<Self> {
        let reference = parse_reference(reference)?;
        let registry = reference.resolve_registry().to_owned();
        let (protocol, scheme) = if opts.insecure {
            (ClientProtocol::Http, "http")
        } else if is_loopback(&registry) {
            (ClientProtocol::HttpsExcept(vec![registry.clone()]), "http")
        } else {
            (ClientProtocol::Https, "https")
        };
        let client = Client::new(ClientConfig {
            protocol,
            // A registry that stops answering must not hang the pull.
            read_timeout: Some(opts.timeout),
            connect_timeout: Some(opts.timeout),
            ..Default::default()
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let http = reqwest::Client::builder()
            .read_timeout(opts.timeout)
            .connect_timeout(opts.timeout)
            .build()
            .context("setting up the registry client")?;
        let auth = credentials(&registry)?;
        rt.block_on(client.store_auth_if_needed(&registry, &auth));
        Ok(Self {
            rt,
            client,
            http,
            scheme,
            auth,
            pull: std::sync::OnceLock::new(),
            reference,
            cache: Cache::new(&opts.cache_dir),
            opts: opts.clone(),
        })
    }

    /// How pulls are authorized: the registry's token flow run once, with the Docker config's
    /// credentials when it has some, so that wrong credentials fail here by name instead of
    /// as an anonymous pull refused later.
    fn pull_authorization(&self) -> Result<Authorization> {
        if let Some(a) = self.pull.get() {
            return Ok(a.clone());
        }
        let registry = self.reference.resolve_registry();
        let token = self
            .rt
            .block_on(
                self.client
                    .auth(&self.reference, &self.auth, RegistryOperation::Pull),
            )
            .map_err(oci_err)
            .with_context(|| format!("authenticating to {registry}"))?;
        let a = match (token, &self.auth) {
            (Some(t), _) => Authorization::Bearer(t),
            (None, RegistryAuth::Basic(u, p)) => Authorization::Basic(u.clone(), p.clone()),
            (None, _) => Authorization::Anonymous,
        };
        Ok(self.pull.get_or_init(|| a).clone())
    }

    fn fetch_manifest(&self, reference: &Reference) -> Result<(Vec<u8>, Digest)> {
        let auth = self.pull_authorization()?;
        let fetched = self
            .rt
            .block_on(manifest_fetch::manifest(
                &self.http,
                self.scheme,
                reference,
                &auth,
                image::MANIFEST_TYPES,
                image::MAX_MANIFEST_BYTES,
            ))
            .with_context(|| format!("fetching the manifest of {reference}"))?;
        let actual = Digest::of(&fetched.bytes);
        if let Some(want) = reference.digest()
            && Digest::parse(want).ok().as_ref() != Some(&actual)
        {
            bail!("manifest {want} does not match its digest (the content hashes to {actual})");
        }
        if let Some(announced) = &fetched.announced_digest
            && Digest::parse(announced).ok().as_ref() != Some(&actual)
        {
            bail!("the manifest of {reference} does not match its digest {announced}");
        }
        self.cache.put(&actual, &fetched.bytes)?;
        Ok((fetched.bytes, actual))
    }

    /// A manifest by digest: from the cache when present, else fetched and verified.
    fn manifest_by_digest(&self, digest: &Digest) -> Result<Vec<u8>> {
        if let Some(b) = self.cache.read(digest, image::MAX_MANIFEST_BYTES)? {
            return Ok(b);
        }
        let r = self.reference.clone_with_digest(digest.as_str().to_owned());
        Ok(self.fetch_manifest(&r)?.0)
    }

    fn progress(&self, d: &Descriptor) -> indicatif::ProgressBar {
        if !std::io::stderr().is_terminal() {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::new(d.size);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(d.digest.as_str()[..19].to_owned());
        bar
    }

    /// Pushes the image of a layout tarball to this reference.
    pub(crate) fn push(&self, layout: &Layout) -> Result<Digest> {
        let (root, _) = layout.root()?;
        let tag = self.reference.tag().unwrap_or("latest").to_owned();
        let target = Reference::with_tag(
            self.reference.registry().to_owned(),
            self.reference.repository().to_owned(),
            tag,
        );
        self.push_document(layout, &root, &target, 0)
    }

    fn push_document(
        &self,
        layout: &Layout,
        bytes: &[u8],
        target: &Reference,
        depth: u32,
    ) -> Result<Digest> {
        if depth > 2 {
            bail!("image indexes nest too deeply");
        }
        let v: Value = serde_json::from_slice(bytes)?;
        let media_type = v
            .get("mediaType")
            .and_then(Value::as_str)
            .unwrap_or(image::OCI_MANIFEST)
            .to_owned();
        match image::parse_document(bytes)? {
            image::Document::Index(children) => {
                for c in children {
                    let child = layout.blob(&c.digest)?;
                    let r = self
                        .reference
                        .clone_with_digest(c.digest.as_str().to_owned());
                    self.push_document(layout, child, &r, depth + 1)?;
                }
            }
            image::Document::Manifest(layers) => {
                let mut blobs: Vec<Digest> = layers.into_iter().map(|l| l.digest).collect();
                if let Some(c) = v.pointer("/config/digest").and_then(Value::as_str) {
                    blobs.push(Digest::parse(c)?);
                }
                for d in blobs {
                    let exists = self
                        .rt
                        .block_on(self.client.blob_exists(target, d.as_str()))
                        .unwrap_or(false);
                    if !exists {
                        let data = layout.blob(&d)?.to_vec();
                        self.rt
                            .block_on(self.client.push_blob(target, data, d.as_str()))
                            .map_err(oci_err)
                            .with_context(|| format!("pushing blob {d} to {target}"))?;
                    }
                }
            }
        }
        let content_type = media_type
            .parse()
            .map_err(|_| anyhow!("invalid media type {media_type:?}"))?;
        self.rt
            .block_on(
                self.client
                    .push_manifest_raw(target, bytes.to_vec(), content_type),
            )
            .map_err(oci_err)
            .with_context(|| format!("pushing the manifest to {target}"))?;
        Ok(Digest::of(bytes))
    }

    /// Every tag of this reference's repository, following the registry's pagination.
    pub(crate) fn tags(&self) -> Result<Vec<String>> {
        const PAGE: usize = 1000;
        let mut out: Vec<String> = Vec::new();
        loop {
            let last = out.last().cloned();
            let page = self
                .rt
                .block_on(self.client.list_tags(
                    &self.reference,
                    &RegistryAuth::Anonymous,
                    Some(PAGE),
                    last.as_deref(),
                ))
                .map_err(oci_err)
                .with_context(|| {
                    format!(
                        "listing the tags of {}/{}",
                        self.reference.registry(),
                        self.reference.repository()
                    )
                })?;
            let n = page.tags.len();
            out.extend(page.tags.into_iter().filter(|t| Some(t) != last.as_ref()));
            if n < PAGE {
                return Ok(out);
            }
        }
    }

    /// Makes sure the registry token for pushing is in place (pull tokens are fetched lazily).
    pub(crate) fn authorize_push(&self) -> Result<()> {
        let auth = credentials(self.reference.resolve_registry())?;
        self.rt
            .block_on(
                self.client
                    .auth(&self.reference, &auth, RegistryOperation::Push),
            )
            .map_err(oci_err)
            .with_context(|| format!("authenticating to {}", self.reference.resolve_registry()))?;
        Ok(())
    }
}

impl Source for Registry {
    fn root(&mut self) -> Result<(Vec<u8>, Option<Digest>)> {
        if let Some(d) = self.reference.digest() {
            let d = Digest::parse(d)?;
            return Ok((self.manifest_by_digest(&d)?, Some(d)));
        }
        let (b, d) = self.fetch_manifest(&self.reference.clone())?;
        Ok((b, Some(d)))
    }

    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>> {
        if d.size > image::MAX_MANIFEST_BYTES {
            bail!(
                "manifest {} is {} bytes, over the limit of {} bytes for a manifest",
                d.digest,
                d.size,
                image::MAX_MANIFEST_BYTES
            );
        }
        self.manifest_by_digest(&d.digest)
    }

    fn layer(&mut self, d: &Descriptor) -> Result<Vec<u8>> {
        let max = self.opts.limits.max_layer_bytes;
        if let Some(b) = self.cache.read(&d.digest, max)? {
            return Ok(b);
        }
        if d.size > max {
            bail!(
                "layer {} is {} bytes, over the limit of {max} bytes (--max-layer-size)",
                d.digest,
                d.size
            );
        }
        let bar = self.progress(d);
        let size = (d.size > 0).then_some(d.size);
        let mut w = self
            .cache
            .writer(&d.digest, max, size)?
            .with_progress(bar.clone());
        let pulled = self.rt.block_on(self.client.pull_blob(
            &self.reference,
            d.digest.as_str(),
            &mut w,
        ));
        bar.finish_and_clear();
        pulled
            .map_err(oci_err)
            .with_context(|| format!("fetching layer {}", d.digest))?;
        w.commit()?;
        self.cache
            .read(&d.digest, max)?
            .ok_or_else(|| anyhow!("layer {} vanished from the cache", d.digest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in ["localhost:5000", "127.0.0.1:1234", "[::1]:80", "localhost"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in [
            "registry.example.org",
            "10.0.0.1:5000",
            "localhost.example.org",
        ] {
            assert!(!is_loopback(h), "{h}");
        }
    }
}
