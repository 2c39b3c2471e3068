//! Reads layer tarballs safely into an in-memory filesystem, applying OCI changesets in order.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read};

use anyhow::{Context as _, Result, bail};

/// Caps applied while reading layers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Largest compressed layer (blob) accepted, in bytes.
    pub(crate) max_layer_bytes: u64,
    /// Largest total of decompressed tar bytes read over all layers of a package.
    pub(crate) max_unpacked_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_layer_bytes: 256 << 20,
            max_unpacked_bytes: 1 << 30,
        }
    }
}

/// Only these files are read from a package; everything else is tracked by name alone, so a
/// large image costs no memory beyond its file list.
pub(crate) fn is_package_content(path: &str) -> bool {
    path == "package.yaml" || path == ".registry" || path.starts_with(".registry/")
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Dir,
    /// File content, kept only for package content.
    File(Option<Vec<u8>>),
    Symlink(String),
}

/// The flattened filesystem: clean relative paths (no `.`, `..` or leading `/`) to nodes.
#[derive(Debug, Default)]
pub(crate) struct Filesystem {
    nodes: BTreeMap<String, Node>,
    unpacked: u64,
}

/// The whiteout prefix and the opaque-directory marker of the OCI image spec.
const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";

enum Change {
    Whiteout(String),
    Opaque(String),
    Put(String, Node),
}

impl Filesystem {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Applies one layer (plain or gzip-compressed tar) as an OCI changeset. `layer` names it in
    /// errors.
    pub(crate) fn apply_layer(&mut self, blob: &[u8], layer: &str, limits: &Limits) -> Result<()> {
        let changes = self
            .read_changes(blob, limits)
            .with_context(|| format!("reading layer {layer}"))?;
        // Whiteouts apply to lower layers only, so they go first; then this layer's entries.
        for c in &changes {
            match c {
                Change::Whiteout(p) => self.remove_tree(p),
                Change::Opaque(dir) => self.clear_dir(dir),
                Change::Put(..) => {}
            }
        }
        for c in changes {
            if let Change::Put(p, n) = c {
                self.put(p, n);
            }
        }
        Ok(())
    }

    fn read_changes(&mut self, blob: &[u8], limits: &Limits) -> Result<Vec<Change>> {
        let mut input = BufReader::new(blob);
        let head = input.fill_buf()?;
        let decompressed: Box<dyn Read + '_> = if head.starts_with(&[0x1f, 0x8b]) {
            Box::new(flate2::read::GzDecoder::new(input))
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            bail!("zstd-compressed layers are not supported");
        } else {
            Box::new(input)
        };
        let budget = limits.max_unpacked_bytes.saturating_sub(self.unpacked);
        let mut counted = Capped {
            inner: decompressed,
            left: budget,
            cap: limits.max_unpacked_bytes,
        };
        let mut changes = Vec::new();
        let mut seen: BTreeMap<String, ()> = BTreeMap::new();
        {
            let mut archive = tar::Archive::new(&mut counted);
            for entry in archive.entries()? {
                let mut entry = entry?;
                let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
                let Some(path) = clean_path(&raw)? else {
                    continue;
                };
                let (parent, base) = match path.rsplit_once('/') {
                    Some((p, b)) => (p.to_owned(), b),
                    None => (String::new(), path.as_str()),
                };
                if base == OPAQUE {
                    changes.push(Change::Opaque(parent));
                    continue;
                }
                if let Some(target) = base.strip_prefix(WHITEOUT) {
                    let victim = if parent.is_empty() {
                        target.to_owned()
                    } else {
                        format!("{parent}/{target}")
                    };
                    clean_path(&victim)?;
                    changes.push(Change::Whiteout(victim));
                    continue;
                }
                let node = match entry.header().entry_type() {
                    tar::EntryType::Directory => Node::Dir,
                    tar::EntryType::Symlink => {
                        let target = link_name(&entry)?;
                        check_symlink(&path, &target)?;
                        Node::Symlink(target)
                    }
                    tar::EntryType::Link => {
                        let target = link_name(&entry)?;
                        let Some(target) = clean_path(&target)? else {
                            bail!("hard link {path:?} points at the root directory");
                        };
                        let found = changes.iter().rev().find_map(|c| match c {
                            Change::Put(p, n) if *p == target => Some(n.clone()),
                            _ => None,
                        });
                        match found.or_else(|| self.nodes.get(&target).cloned()) {
                            Some(n @ Node::File(_)) => n,
                            _ => bail!(
                                "hard link {path:?} points at {target:?}, which is not a file in the image"
                            ),
                        }
                    }
                    tar::EntryType::Regular
                    | tar::EntryType::Continuous
                    | tar::EntryType::GNUSparse => {
                        if is_package_content(&path) {
                            if seen.insert(path.clone(), ()).is_some() {
                                bail!("{path} appears twice in the layer");
                            }
                            let mut content = Vec::new();
                            entry.read_to_end(&mut content)?;
                            Node::File(Some(content))
                        } else {
                            io::copy(&mut entry, &mut io::sink())?;
                            Node::File(None)
                        }
                    }
                    // Devices, FIFOs and metadata-only records carry nothing a package needs.
                    _ => continue,
                };
                changes.push(Change::Put(path, node));
            }
        }
        // Count the tar padding and end blocks too: the cap is on everything decompressed.
        io::copy(&mut counted, &mut io::sink())?;
        self.unpacked = limits.max_unpacked_bytes - counted.left.min(limits.max_unpacked_bytes);
        Ok(changes)
    }

    fn remove_tree(&mut self, path: &str) {
        let prefix = format!("{path}/");
        self.nodes
            .retain(|k, _| k != path && !k.starts_with(&prefix));
    }

    fn clear_dir(&mut self, dir: &str) {
        if dir.is_empty() {
            self.nodes.clear();
            return;
        }
        let prefix = format!("{dir}/");
        self.nodes.retain(|k, _| !k.starts_with(&prefix));
    }

    fn put(&mut self, path: String, node: Node) {
        // Parents become directories, replacing any file or link that stood in their place.
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            let parent = &path[..at + i];
            if !matches!(self.nodes.get(parent), Some(Node::Dir)) {
                self.remove_tree(parent);
                self.nodes.insert(parent.to_owned(), Node::Dir);
            }
            at += i + 1;
        }
        if node != Node::Dir || !matches!(self.nodes.get(&path), Some(Node::Dir)) {
            self.remove_tree(&path);
            self.nodes.insert(path, node);
        }
    }

    /// A file's content, following symbolic links inside the tree.
    pub(crate) fn read(&self, path: &str) -> Option<&[u8]> {
        let mut path = path.to_owned();
        for _ in 0..16 {
            match self.nodes.get(&path)? {
                Node::File(Some(c)) => return Some(c),
                Node::Symlink(t) => {
                    let base = path.rsplit_once('/').map_or("", |(p, _)| p);
                    path = clean_path(&join(base, t)).ok()??;
                }
                _ => return None,
            }
        }
        None
    }

    pub(crate) fn exists(&self, path: &str) -> bool {
        self.nodes.contains_key(path)
    }

    /// Every file whose content was kept (package.yaml, the .registry/ tree), in path order.
    pub(crate) fn package_files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.nodes.iter().filter_map(|(k, n)| match n {
            Node::File(Some(c)) => Some((k.as_str(), c.as_slice())),
            _ => None,
        })
    }

    /// Files whose content was kept, under `prefix`, in path order.
    pub(crate) fn files_under<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        self.nodes.keys().filter_map(move |k| {
            let under = k.strip_prefix(prefix).is_some_and(|r| r.starts_with('/'));
            if !under {
                return None;
            }
            self.read(k).map(|c| (k.as_str(), c))
        })
    }
}

/// Normalises a tar path to a clean relative one; `None` for the root itself. Absolute paths
/// and `..` components are refused outright rather than resolved.
pub(crate) fn clean_path(raw: &str) -> Result<Option<String>> {
    if raw.starts_with('/') {
        bail!("tar entry {raw:?} has an absolute path");
    }
    if raw.contains('\0') || raw.contains('\\') {
        bail!("tar entry {raw:?} has an invalid path");
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => bail!("tar entry {raw:?} contains a .. component"),
            p => parts.push(p),
        }
    }
    Ok(if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    })
}

fn join(base: &str, rel: &str) -> String {
    if base.is_empty() {
        rel.to_owned()
    } else {
        format!("{base}/{rel}")
    }
}

/// A symbolic link must stay inside the tree, resolved lexically from its own directory.
fn check_symlink(path: &str, target: &str) -> Result<()> {
    if target.starts_with('/') {
        bail!("symbolic link {path:?} points outside the package (absolute target {target:?})");
    }
    let mut depth: i64 = path.matches('/').count() as i64;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    bail!("symbolic link {path:?} points outside the package ({target:?})");
                }
            }
            _ => depth += 1,
        }
    }
    Ok(())
}

fn link_name<R: Read>(entry: &tar::Entry<'_, R>) -> Result<String> {
    match entry.link_name_bytes() {
        Some(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
        None => bail!("link entry without a target"),
    }
}

/// Counts decompressed bytes against the package-wide cap.
struct Capped<R> {
    inner: R,
    left: u64,
    cap: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::other(format!(
                "decompressed content exceeds the limit of {} bytes",
                self.cap
            )));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An entry of a hand-made test layer.
    pub(crate) enum E<'a> {
        F(&'a str, &'a [u8]),
        D(&'a str),
        Sym(&'a str, &'a str),
        Hard(&'a str, &'a str),
    }

    /// Builds a tar (gzip when asked) without the tar crate's path checks, so hostile names
    /// can be written.
    pub(crate) fn layer(entries: &[E<'_>], gzip: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for e in entries {
            let (name, data, kind, link): (&str, &[u8], u8, &str) = match e {
                E::F(n, d) => (n, d, b'0', ""),
                E::D(n) => (n, b"", b'5', ""),
                E::Sym(n, t) => (n, b"", b'2', t),
                E::Hard(n, t) => (n, b"", b'1', t),
            };
            let mut h = [0u8; 512];
            h[..name.len()].copy_from_slice(name.as_bytes());
            h[100..107].copy_from_slice(b"0000644");
            h[108..115].copy_from_slice(b"0000000");
            h[116..123].copy_from_slice(b"0000000");
            h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
            h[136..147].copy_from_slice(b"00000000000");
            h[156] = kind;
            h[157..157 + link.len()].copy_from_slice(link.as_bytes());
            h[257..263].copy_from_slice(b"ustar\0");
            h[263..265].copy_from_slice(b"00");
            h[148..156].copy_from_slice(b"        ");
            let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
            h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
            out.extend_from_slice(&h);
            out.extend_from_slice(data);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.resize(out.len() + 1024, 0);
        if gzip {
            use std::io::Write as _;
            let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(&out).unwrap();
            return z.finish().unwrap();
        }
        out
    }

    fn apply(layers: &[Vec<u8>]) -> Result<Filesystem> {
        let mut fs = Filesystem::new();
        for (i, l) in layers.iter().enumerate() {
            fs.apply_layer(l, &format!("#{i}"), &Limits::default())?;
        }
        Ok(fs)
    }

    fn err(layers: &[Vec<u8>]) -> String {
        format!("{:#}", apply(layers).unwrap_err())
    }

    #[test]
    fn hostile_paths_are_rejected() {
        let cases: &[(&[E<'_>], &str)] = &[
            (&[E::F("/package.yaml", b"x")], "absolute path"),
            (&[E::F("a/../../package.yaml", b"x")], ".. component"),
            (&[E::F("../x", b"x")], ".. component"),
            (&[E::Sym("package.yaml", "/etc/passwd")], "absolute target"),
            (
                &[E::Sym("a/link", "../../etc")],
                "points outside the package",
            ),
            (&[E::Hard("package.yaml", "/etc/passwd")], "absolute path"),
            (&[E::Hard("package.yaml", "../etc/passwd")], ".. component"),
            (
                &[E::Hard("package.yaml", "missing")],
                "not a file in the image",
            ),
            (&[E::F(".wh...", b"")], ".. component"),
        ];
        for (entries, want) in cases {
            let e = err(&[layer(entries, false)]);
            assert!(e.contains(want), "{e} should contain {want}");
        }
    }

    #[test]
    fn links_inside_the_tree_are_followed() {
        let fs = apply(&[layer(
            &[
                E::D("."),
                E::F("./real/pkg.yaml", b"a: 1"),
                E::Sym("package.yaml", "real/../real/pkg.yaml"),
                E::F(".registry/app.yaml", b"title: t"),
                E::Hard(".registry/copy.yaml", ".registry/app.yaml"),
            ],
            true,
        )])
        .unwrap();
        // real/pkg.yaml is not package content, so its bytes were never kept.
        assert_eq!(fs.read("package.yaml"), None);
        assert_eq!(fs.read(".registry/copy.yaml"), Some(&b"title: t"[..]));
        let fs = apply(&[layer(
            &[
                E::F(".registry/a", b"1"),
                E::Sym("package.yaml", ".registry/a"),
            ],
            false,
        )])
        .unwrap();
        assert_eq!(fs.read("package.yaml"), Some(&b"1"[..]));
    }

    #[test]
    fn whiteouts_and_opaque_directories_follow_the_oci_rules() {
        let l1 = layer(
            &[
                E::F("package.yaml", b"old"),
                E::F(".registry/app.yaml", b"app"),
                E::F(".registry/resources/a/crd.yaml", b"a"),
                E::F(".registry/icon.svg", b"svg"),
            ],
            true,
        );
        let l2 = layer(
            &[
                E::F(".registry/resources/.wh..wh..opq", b""),
                E::F(".registry/resources/b/crd.yaml", b"b"),
                E::F(".registry/.wh.icon.svg", b""),
                E::F("package.yaml", b"new"),
            ],
            false,
        );
        // A whiteout only hides lower layers: the same layer's own file survives.
        let l3 = layer(&[E::F(".wh.extra", b""), E::F("extra", b"x")], true);
        let fs = apply(&[l1, l2, l3]).unwrap();
        assert_eq!(fs.read("package.yaml"), Some(&b"new"[..]));
        assert_eq!(fs.read(".registry/app.yaml"), Some(&b"app"[..]));
        assert!(!fs.exists(".registry/resources/a/crd.yaml"));
        assert!(!fs.exists(".registry/icon.svg"));
        assert!(fs.exists("extra"));
        let files: Vec<_> = fs.files_under(".registry").map(|(p, _)| p).collect();
        assert_eq!(
            files,
            [".registry/app.yaml", ".registry/resources/b/crd.yaml"]
        );
        // Root opaque marker wipes everything below.
        let fs = apply(&[
            layer(&[E::F("package.yaml", b"1")], false),
            layer(&[E::F(".wh..wh..opq", b"")], false),
        ])
        .unwrap();
        assert!(!fs.exists("package.yaml"));
    }

    #[test]
    fn duplicate_package_yaml_in_a_layer_is_an_error() {
        let e = err(&[layer(
            &[E::F("package.yaml", b"a"), E::F("./package.yaml", b"b")],
            false,
        )]);
        assert!(e.contains("package.yaml appears twice"), "{e}");
    }

    #[test]
    fn decompressed_size_is_capped_across_layers() {
        let big = vec![b'x'; 4096];
        let l = layer(&[E::F("package.yaml", &big)], true);
        let limits = Limits {
            max_layer_bytes: 1 << 20,
            max_unpacked_bytes: 5000,
        };
        let mut fs = Filesystem::new();
        let e = format!("{:#}", fs.apply_layer(&l, "#0", &limits).unwrap_err());
        assert!(e.contains("exceeds the limit of 5000 bytes"), "{e}");
        let limits = Limits {
            max_layer_bytes: 1 << 20,
            max_unpacked_bytes: 8000,
        };
        let mut fs = Filesystem::new();
        fs.apply_layer(&l, "#0", &limits).unwrap();
        let e = format!("{:#}", fs.apply_layer(&l, "#1", &limits).unwrap_err());
        assert!(e.contains("exceeds the limit of 8000 bytes"), "{e}");
    }

    #[test]
    fn zstd_layers_are_refused() {
        let e = err(&[vec![0x28, 0xb5, 0x2f, 0xfd, 0, 0]]);
        assert!(e.contains("zstd"), "{e}");
    }
}
