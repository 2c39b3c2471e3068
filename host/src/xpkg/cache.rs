//! Content-addressed blob cache: sha256-named files, verified when written and when read.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use anyhow::{Context as _, Result, bail};
use sha2::{Digest as _, Sha256};

/// A validated `sha256:<64 hex>` digest; the only form the cache accepts, so a digest from a
/// manifest can never name a path outside the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digest(String);

impl Digest {
    pub(crate) fn parse(s: &str) -> Result<Self> {
        let Some(hex) = s.strip_prefix("sha256:") else {
            bail!("unsupported digest {s:?}: only sha256 digests are supported");
        };
        if hex.len() != 64
            || !hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            bail!("malformed digest {s:?}: expected sha256: and 64 lowercase hex digits");
        }
        Ok(Self(s.to_owned()))
    }

    pub(crate) fn of(bytes: &[u8]) -> Self {
        Self(format!("sha256:{}", hex(&Sha256::digest(bytes))))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    pub(crate) fn hex(&self) -> &str {
        &self.0["sha256:".len()..]
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Blobs live at `<root>/blobs/sha256/<hex>`; partial downloads sit next to them under a
/// `.tmp-` name and are renamed into place only once their digest checks out.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    root: PathBuf,
}

impl Cache {
    pub(crate) fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `$XPRENDER_CACHE_DIR`, else `$XDG_CACHE_HOME/xprender`, else `~/.cache/xprender`.
    pub(crate) fn default_dir() -> PathBuf {
        if let Some(d) = std::env::var_os("XPRENDER_CACHE_DIR") {
            return d.into();
        }
        if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            return Path::new(&d).join("xprender");
        }
        match std::env::var_os("HOME") {
            Some(h) => Path::new(&h).join(".cache").join("xprender"),
            None => std::env::temp_dir().join("xprender-cache"),
        }
    }

    fn dir(&self) -> PathBuf {
        self.root.join("blobs").join("sha256")
    }

    pub(crate) fn path(&self, digest: &Digest) -> PathBuf {
        self.dir().join(digest.hex())
    }

    /// Reads a cached blob, verifying its digest. `Ok(None)` when absent. A blob whose content no
    /// longer matches its name (corrupted or truncated on disk) is removed and reported as an error.
    pub(crate) fn read(&self, digest: &Digest, max: u64) -> Result<Option<Vec<u8>>> {
        let path = self.path(digest);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(e).with_context(|| format!("opening cached blob {}", path.display()));
            }
        };
        let mut bytes = Vec::new();
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .with_context(|| format!("reading cached blob {}", path.display()))?;
        if bytes.len() as u64 > max {
            bail!("cached blob {digest} exceeds the size limit of {max} bytes");
        }
        let actual = Digest::of(&bytes);
        if actual != *digest {
            let _ = fs::remove_file(&path);
            bail!(
                "cached blob {digest} is corrupt (content hashes to {actual}); it was removed, pull again"
            );
        }
        Ok(Some(bytes))
    }

    /// Stores bytes already in memory under their digest (verified), atomically.
    pub(crate) fn put(&self, digest: &Digest, bytes: &[u8]) -> Result<()> {
        let mut w = self.writer(digest, u64::MAX, None)?;
        w.write_all(bytes)?;
        w.commit()
    }

    /// A writer for a blob being downloaded: hashes and counts as it writes, refuses more than
    /// `max` bytes, and only [`BlobWriter::commit`] makes the blob visible.
    pub(crate) fn writer(
        &self,
        digest: &Digest,
        max: u64,
        expected_size: Option<u64>,
    ) -> Result<BlobWriter> {
        let dir = self.dir();
        fs::create_dir_all(&dir)
            .with_context(|| format!("creating cache directory {}", dir.display()))?;
        let tmp = dir.join(format!(".tmp-{}-{}", digest.hex(), std::process::id()));
        let file = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        Ok(BlobWriter {
            file: Some(file),
            tmp,
            dest: self.path(digest),
            digest: digest.clone(),
            hasher: Sha256::new(),
            written: 0,
            max,
            expected_size,
            progress: None,
        })
    }
}

pub(crate) struct BlobWriter {
    file: Option<File>,
    tmp: PathBuf,
    dest: PathBuf,
    digest: Digest,
    hasher: Sha256,
    written: u64,
    max: u64,
    expected_size: Option<u64>,
    progress: Option<indicatif::ProgressBar>,
}

impl BlobWriter {
    pub(crate) fn with_progress(mut self, bar: indicatif::ProgressBar) -> Self {
        self.progress = Some(bar);
        self
    }

    /// Checks size and digest, then renames the blob into place. On failure nothing is left.
    pub(crate) fn commit(mut self) -> Result<()> {
        let Some(mut file) = self.file.take() else {
            bail!("blob writer for {} already failed", self.digest);
        };
        file.flush()?;
        file.sync_all().ok();
        drop(file);
        let actual = Digest(format!("sha256:{}", hex(&self.hasher.clone().finalize())));
        if actual != self.digest {
            bail!(
                "digest mismatch for blob {}: content hashes to {actual}",
                self.digest
            );
        }
        if let Some(size) = self.expected_size
            && size != self.written
        {
            bail!(
                "size mismatch for blob {}: descriptor says {size} bytes, got {}",
                self.digest,
                self.written
            );
        }
        fs::rename(&self.tmp, &self.dest)
            .with_context(|| format!("moving blob into {}", self.dest.display()))?;
        Ok(())
    }

    fn accept(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(file) = self.file.as_mut() else {
            return Err(io::Error::other("blob writer already failed"));
        };
        if self.written.saturating_add(buf.len() as u64) > self.max {
            self.file = None;
            return Err(io::Error::other(format!(
                "blob {} exceeds the size limit of {} bytes",
                self.digest, self.max
            )));
        }
        file.write_all(buf)?;
        self.hasher.update(buf);
        self.written += buf.len() as u64;
        if let Some(p) = &self.progress {
            p.inc(buf.len() as u64);
        }
        Ok(buf.len())
    }
}

impl Drop for BlobWriter {
    fn drop(&mut self) {
        // Committed writers have already renamed the temp file; this only cleans up failures.
        let _ = fs::remove_file(&self.tmp);
    }
}

impl Write for BlobWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.accept(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl tokio::io::AsyncWrite for BlobWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(self.get_mut().accept(buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Write::flush(self.get_mut()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir.join("blobs/sha256"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn digests_are_validated() {
        assert!(Digest::parse(&format!("sha256:{}", "a".repeat(64))).is_ok());
        for bad in [
            "sha512:abc",
            "sha256:../../etc/passwd",
            "sha256:ABC",
            &format!("sha256:{}", "g".repeat(64)),
        ] {
            assert!(Digest::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn put_then_read_round_trips() {
        let t = tempfile::tempdir().unwrap();
        let c = Cache::new(t.path());
        let d = Digest::of(b"hello");
        assert_eq!(c.read(&d, 100).unwrap(), None);
        c.put(&d, b"hello").unwrap();
        assert_eq!(c.read(&d, 100).unwrap().as_deref(), Some(&b"hello"[..]));
        assert_eq!(entries(t.path()), vec![d.hex().to_owned()]);
    }

    #[test]
    fn corrupt_or_truncated_cache_entries_are_errors_and_removed() {
        let t = tempfile::tempdir().unwrap();
        let c = Cache::new(t.path());
        for damaged in [&b"hellO"[..], &b"hell"[..]] {
            let d = Digest::of(b"hello");
            c.put(&d, b"hello").unwrap();
            fs::write(c.path(&d), damaged).unwrap();
            let err = c.read(&d, 100).unwrap_err().to_string();
            assert!(err.contains("is corrupt"), "{err}");
            assert!(!c.path(&d).exists());
        }
    }

    #[test]
    fn digest_mismatch_on_download_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let c = Cache::new(t.path());
        let d = Digest::of(b"expected");
        let mut w = c.writer(&d, 100, None).unwrap();
        w.write_all(b"something else").unwrap();
        let err = w.commit().unwrap_err().to_string();
        assert!(err.contains("digest mismatch"), "{err}");
        assert!(entries(t.path()).is_empty());
    }

    #[test]
    fn size_mismatch_and_size_cap_leave_nothing() {
        let t = tempfile::tempdir().unwrap();
        let c = Cache::new(t.path());
        let d = Digest::of(b"0123456789");
        let mut w = c.writer(&d, 100, Some(11)).unwrap();
        w.write_all(b"0123456789").unwrap();
        assert!(
            w.commit()
                .unwrap_err()
                .to_string()
                .contains("size mismatch")
        );
        let mut w = c.writer(&d, 5, None).unwrap();
        let err = w.write_all(b"0123456789").unwrap_err().to_string();
        assert!(err.contains("exceeds the size limit of 5 bytes"), "{err}");
        assert!(w.commit().is_err());
        assert!(entries(t.path()).is_empty());
        // A read with a smaller cap than the stored blob is refused too.
        c.put(&d, b"0123456789").unwrap();
        let err = c.read(&d, 4).unwrap_err().to_string();
        assert!(err.contains("exceeds the size limit of 4 bytes"), "{err}");
    }
}
