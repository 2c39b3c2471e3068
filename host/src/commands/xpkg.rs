//! `xprender xpkg`: pull, inspect, build and push Crossplane packages.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use serde_json::{Value, json};

use super::fetch::FetchArgs;
use crate::xpkg::{self, Content, Layout, Options, Registry};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum Format {
    Yaml,
    Json,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum XpkgCommand {
    /// Pull a package into the local cache (and optionally extract its package files).
    Pull {
        /// The package reference, e.g. registry.example.org/org/pkg:v1.0.0 or ...@sha256:...
        reference: String,
        /// Write package.yaml (or a legacy package's .registry/ tree) into this directory.
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Show what a package holds: meta, dependencies, annotations and objects.
    Inspect {
        /// A package reference, or an image layout file written by `xpkg build`.
        package: String,
        /// Output format.
        #[arg(short = 'o', long, value_enum, default_value = "yaml")]
        output: Format,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Build a package from the YAML files of a directory.
    Build {
        /// The directory whose YAML files make up package.yaml.
        dir: PathBuf,
        /// The package file to write (an OCI image layout tarball).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Build a Function package that runs xprender itself: the image gets a layer with a
        /// statically linked `xprender` binary, entrypoint `xprender function serve`, port 9443.
        #[arg(long)]
        function: bool,
        /// The binary for the runtime layer [default: this xprender, if statically linked].
        #[arg(long, value_name = "FILE", requires = "function")]
        runtime_binary: Option<PathBuf>,
    },
    /// Push a package file to a registry.
    Push {
        /// The package file (an OCI image layout tarball).
        file: PathBuf,
        /// Where to push it, e.g. localhost:5000/org/pkg:v1.0.0.
        reference: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Resolve a package's dependencies: the version of each and the install order.
    Deps(super::packages::DepsArgs),
    /// Index package contents (CRDs, XRDs, composite types) for CRD-level dependencies.
    Index(super::packages::IndexArgs),
    /// Install a package and its dependencies into a cluster (a dry run unless --yes).
    Install(Box<super::packages::InstallArgs>),
    /// Uninstall a package installed with --direct (refused while another depends on it).
    Uninstall(super::packages::UninstallArgs),
    /// List the packages installed in a cluster.
    List(super::packages::ListArgs),
}

pub(crate) fn run(cmd: XpkgCommand) -> Result<ExitCode> {
    match cmd {
        XpkgCommand::Pull {
            reference,
            output,
            fetch,
        } => pull(&reference, output.as_deref(), &fetch.options()),
        XpkgCommand::Inspect {
            package,
            output,
            fetch,
        } => inspect(&package, output, &fetch.options()),
        XpkgCommand::Build {
            dir,
            output,
            function,
            runtime_binary,
        } => build(&dir, &output, function, runtime_binary.as_deref()),
        XpkgCommand::Push {
            file,
            reference,
            fetch,
        } => push(&file, &reference, &fetch.options()),
        XpkgCommand::Deps(args) => super::packages::deps(&args),
        XpkgCommand::Index(args) => super::packages::index(&args),
        XpkgCommand::Install(args) => super::packages::install(&args),
        XpkgCommand::Uninstall(args) => super::packages::uninstall(&args),
        XpkgCommand::List(args) => super::packages::list(&args),
    }?;
    Ok(ExitCode::SUCCESS)
}

fn pull(reference: &str, out: Option<&Path>, opts: &Options) -> Result<()> {
    let (_, loaded) = xpkg::pull(reference, opts)?;
    if let Some(dir) = out {
        for (path, bytes) in loaded.fs.package_files() {
            // Paths were cleaned when the layer was read: relative, no `..`.
            let dest = dir.join(path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&dest, bytes).with_context(|| format!("writing {}", dest.display()))?;
        }
    }
    crate::outln!("{reference} {}", loaded.digest.as_deref().unwrap_or("-"));
    Ok(())
}

fn inspect(target: &str, format: Format, opts: &Options) -> Result<()> {
    let path = Path::new(target);
    let (source, loaded, version) = if path.is_file() {
        (json!({"file": target}), xpkg::open_file(path, opts)?, None)
    } else {
        let (reg, loaded) = xpkg::pull(target, opts)?;
        let tag = reg.reference.tag().map(str::to_owned);
        (json!({"reference": reg.reference.whole()}), loaded, tag)
    };
    let mut doc = source;
    doc["digest"] = loaded.digest.clone().map_or(Value::Null, Value::String);
    match &loaded.content {
        Content::Xpkg(p) => {
            let mut s = xpkg::package::summary(p);
            if let (Some(v), Some(o)) = (version, s.as_object_mut()) {
                o.insert("version".into(), Value::String(v));
            }
            doc["package"] = s;
        }
        Content::Legacy(l) => {
            doc["legacy"] = json!({"package": l.record, "customResourceDefinitions": l.crds});
        }
    }
    let text = match format {
        Format::Json => serde_json::to_string_pretty(&doc)? + "\n",
        Format::Yaml => serde_saphyr::to_string(&doc).context("writing YAML")?,
    };
    crate::out!("{text}");
    Ok(())
}

fn build(dir: &Path, out: &Path, function: bool, runtime: Option<&Path>) -> Result<()> {
    let stream = xpkg::collect_package_yaml(dir)?;
    let bytes = if function {
        let pkg = xpkg::package::validate(xpkg::package::parse_stream(&stream, "package.yaml")?)?;
        if pkg.kind != xpkg::package::Kind::Function {
            bail!(
                "--function builds a Function package, but {} holds a {}",
                dir.display(),
                pkg.kind.as_str()
            );
        }
        let path = match runtime {
            Some(p) => p.to_path_buf(),
            None => std::env::current_exe().context("finding this xprender binary")?,
        };
        let binary = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        xpkg::elf::check_static(&binary).with_context(|| {
            format!(
                "{} cannot be the function's runtime (the image has no libraries); build one with \
                 RUSTFLAGS='-C target-feature=+crt-static' cargo build --release -p xprender-host \
                 --target x86_64-unknown-linux-gnu, then pass it with --runtime-binary",
                path.display()
            )
        })?;
        xpkg::layout::build_function_package(stream.as_bytes(), &binary)?
    } else {
        xpkg::layout::build_package(stream.as_bytes())?
    };
    let tmp = out.with_extension("xpkg.tmp");
    std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("built {}", out.display());
    Ok(())
}

fn push(file: &Path, reference: &str, opts: &Options) -> Result<()> {
    let layout = Layout::read(file, opts.limits.max_unpacked_bytes)?;
    let reg = Registry::new(reference, opts)?;
    if reg.reference.digest().is_some() {
        bail!("push to a tag, not a digest: {reference}");
    }
    reg.authorize_push()?;
    let digest = reg.push(&layout)?;
    crate::outln!("{} {digest}", reg.reference.whole());
    Ok(())
}
