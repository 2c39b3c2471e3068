//! What resolution reads and answers: the needs a package declares, the images a catalog
//! gives, where resolution starts and the graph it ends with.

use serde_json::Value;

/// What one dependency entry asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Need {
    /// A package (`spec.dependsOn` of an xpkg): its repository, kind and version constraint
    /// (or `sha256:` digest).
    Package {
        package: String,
        kind: Option<String>,
        version: String,
    },
    /// A CRD (`dependsOn` of a legacy package): `kind.group/version`, group wildcards allowed.
    Crd(String),
}

/// A package image as far as resolution and installation care.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub(crate) digest: String,
    /// Configuration, Provider, Function, or Legacy.
    pub(crate) kind: String,
    /// The meta object's name (the legacy record's name): what the package is installed as.
    pub(crate) name: String,
    pub(crate) needs: Vec<Need>,
    /// Objects to install (CRDs, XRDs, Compositions, webhooks; a legacy package's CRDs).
    pub(crate) objects: Vec<Value>,
    /// A legacy package's record.
    pub(crate) record: Option<Value>,
}

/// What resolution starts from.
#[derive(Debug, Clone)]
pub(crate) enum Root {
    /// A repository at a tag or digest (`tag_digest`: a tag that must resolve to this digest).
    Reference {
        package: String,
        version: String,
        tag_digest: Option<(String, String)>,
    },
    /// A package file: its image stands for itself.
    File { name: String, fetched: Fetched },
    /// A repository with no tag or digest: its highest version tag.
    Latest(String),
    /// A CRD to find through the index.
    Crd(String),
}

/// One resolved package.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) package: String,
    pub(crate) version: String,
    pub(crate) fetched: Fetched,
    /// (what was asked, the package that satisfies it).
    pub(crate) depends_on: Vec<(Need, String)>,
}

/// The resolved packages.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub(crate) root: String,
    /// The root is a package file, not a registry reference.
    pub(crate) root_is_file: bool,
    /// Install order: dependencies first, the root last.
    pub(crate) packages: Vec<Resolved>,
}

impl Graph {
    pub(crate) fn get(&self, package: &str) -> Option<&Resolved> {
        self.packages.iter().find(|p| p.package == package)
    }
}

pub(crate) fn is_digest(s: &str) -> bool {
    s.starts_with("sha256:")
}

/// `(package, installed as)`: how errors and trees name a package.
pub(super) fn label(package: &str, version: &str) -> String {
    if is_digest(version) {
        format!("{package}@{version}")
    } else {
        format!("{package}:{version}")
    }
}
