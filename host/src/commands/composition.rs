//! Where the Composition comes from, shared by `render`, `diff` and `apply`: the cluster's own
//! choice, a local `--composition FILE`, or a Crossplane package (`--package REF`).

use std::path::{Path, PathBuf};

use crate::cluster::inputs::Candidates;
use crate::io::{self, Doc, input_error};

/// How the cluster commands choose the Composition, for their `--help`.
macro_rules! composition_sources_help {
    () => {
        "The Composition: the cluster's (the XRD's enforcedCompositionRef, the XR's compositionRef or \
         compositionSelector, the XRD's defaultCompositionRef), rendered from the CompositionRevision \
         Crossplane v1.14 would use: with compositionUpdatePolicy Manual the one compositionRevisionRef \
         names; with a compositionRevisionSelector the highest revision of the Composition whose labels \
         match; else the Composition itself (its latest revision). --composition FILE or --package REF \
         (one of them) replace it; --composition-name NAME picks one by name."
    };
}
pub(crate) use composition_sources_help;

#[derive(Debug, clap::Args)]
pub(crate) struct CompositionArgs {
    /// Use the Compositions in FILE (YAML or JSON, multi-document allowed, or a directory)
    /// instead of the one the cluster selects: try a new Composition against live state. From
    /// files, they join COMPOSITION's. Repeatable: nested XRs' Compositions in files of their own.
    #[arg(long = "composition", value_name = "FILE", conflicts_with = "package")]
    pub(crate) composition_file: Vec<PathBuf>,
    /// Take the Composition (and the XRD) from a Crossplane package: a registry reference
    /// (pulled through the verified cache) or a file from `xpkg build`.
    #[arg(long, value_name = "REF|FILE")]
    pub(crate) package: Option<String>,
    /// Render with the Composition of this name: among the documents given (COMPOSITION,
    /// --composition or --package), else the cluster's Composition of that name. It must still
    /// suit the XR.
    #[arg(long, value_name = "NAME")]
    pub(crate) composition_name: Option<String>,
    /// Registry and cache options for --package.
    #[command(flatten)]
    pub(crate) fetch: super::fetch::FetchArgs,
}

impl CompositionArgs {
    /// The local documents to choose the Composition from, when not the cluster's.
    pub(crate) fn candidates(&self) -> anyhow::Result<Option<Candidates>> {
        let (docs, source) = match (&self.package, self.composition_file.as_slice()) {
            (Some(reference), _) => (
                self.package_docs(reference)?,
                format!("package {reference}"),
            ),
            (None, []) => return Ok(None),
            (None, paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                (self.composition_docs()?, names.join(", "))
            }
        };
        Ok(Some(Candidates { docs, source }))
    }

    /// The documents of every `--composition FILE`, in the order given.
    pub(crate) fn composition_docs(&self) -> Result<Vec<Doc>, crate::io::InputError> {
        let mut docs = Vec::new();
        for path in &self.composition_file {
            docs.extend(io::read_docs(path)?);
        }
        Ok(docs)
    }

    /// The documents of a package's package.yaml, read as Composition files are read.
    pub(crate) fn package_docs(&self, reference: &str) -> anyhow::Result<Vec<Doc>> {
        let opts = self.fetch.options();
        let text = if Path::new(reference).is_file() {
            crate::xpkg::file_package_yaml(Path::new(reference), &opts)?
        } else {
            crate::xpkg::load_package_yaml(reference, &opts)?
        };
        let origin = PathBuf::from(format!("{reference}//package.yaml"));
        let values =
            io::parse_yaml_stream(&text).map_err(|e| input_error!("{}:{e}", origin.display()))?;
        Ok(io::into_docs(values, &origin))
    }
}
