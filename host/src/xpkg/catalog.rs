//! The registry as a [`Catalog`]: tag listings and package images through the verified cache,
//! with a spinner saying what is being fetched.

use std::io::IsTerminal as _;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::deps::{Catalog, Fetched, Root, is_digest, needs_of};
use super::registry::parse_reference;
use super::{Content, Loaded, Options, Registry};

pub(crate) struct RegistryCatalog {
    opts: Options,
    bar: indicatif::ProgressBar,
}

impl RegistryCatalog {
    pub(crate) fn new(opts: &Options) -> Self {
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        Self {
            opts: opts.clone(),
            bar,
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for RegistryCatalog {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Catalog for RegistryCatalog {
    fn tags(&mut self, package: &str) -> Result<Vec<String>> {
        self.bar.set_message(format!("listing tags of {package}"));
        Registry::new(package, &self.opts)?.tags()
    }

    fn fetch(&mut self, package: &str, version: &str) -> Result<Fetched> {
        let reference = if is_digest(version) {
            format!("{package}@{version}")
        } else {
            format!("{package}:{version}")
        };
        self.bar.set_message(format!("pulling {reference}"));
        let (_, loaded) = super::pull(&reference, &self.opts)?;
        fetched(loaded, &reference)
    }
}

/// What resolution and installation need of a loaded package.
pub(crate) fn fetched(loaded: Loaded, what: &str) -> Result<Fetched> {
    let digest = loaded.digest.unwrap_or_default();
    Ok(match loaded.content {
        Content::Xpkg(p) => {
            let meta = p.meta().clone();
            let name = meta
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let needs = needs_of(meta.pointer("/spec/dependsOn"), &format!("{what} ({name})"))?;
            let objects = p
                .objects
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != p.meta_index)
                .map(|(_, o)| o.clone())
                .collect();
            Fetched {
                digest,
                kind: p.kind.as_str().to_owned(),
                name,
                needs,
                objects,
                record: None,
            }
        }
        Content::Legacy(l) => {
            let name = l
                .record
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let needs = needs_of(l.record.pointer("/spec/dependsOn"), what)?;
            Fetched {
                digest,
                kind: "Legacy".into(),
                name,
                needs,
                objects: l.crds,
                record: Some(l.record),
            }
        }
    })
}

/// `registry/repository` of a reference, and what the command line pins: a tag, a digest,
/// both, or neither (the highest version tag).
pub(crate) fn root_of(text: &str, opts: &Options) -> Result<Root> {
    let path = Path::new(text);
    if path.is_file() {
        let loaded = super::open_file(path, opts)?;
        let f = fetched(loaded, text)?;
        return Ok(Root::File {
            name: f.name.clone(),
            fetched: f,
        });
    }
    let r = parse_reference(text)?;
    let package = format!("{}/{}", r.registry(), r.repository());
    let last = text.rsplit('/').next().unwrap_or(text);
    let tag = last
        .split('@')
        .next()
        .and_then(|s| s.split_once(':'))
        .map(|(_, t)| t.to_owned());
    Ok(match (tag, r.digest()) {
        (Some(t), Some(d)) => Root::Reference {
            package,
            version: d.to_owned(),
            tag_digest: Some((t, d.to_owned())),
        },
        (None, Some(d)) => Root::Reference {
            package,
            version: d.to_owned(),
            tag_digest: None,
        },
        (Some(t), None) => Root::Reference {
            package,
            version: t,
            tag_digest: None,
        },
        (None, None) => Root::Latest(package),
    })
}
