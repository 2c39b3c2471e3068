//! A number JSON cannot hold, and the path that names it.

use std::fmt;

/// One step of a path into a Struct.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Step<'a> {
    Key(&'a [u8]),
    Index(usize),
}

/// A [`Step`] kept with a written entry.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum OwnedStep {
    Key(Vec<u8>),
    Index(usize),
}

/// A number JSON cannot hold, and where: reported as `spec.list[0].x: invalid number NaN: ...`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fault(String);

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Fault {
    pub(super) fn at(path: &[OwnedStep], n: f64) -> Fault {
        let mut at = String::new();
        for (i, step) in path.iter().enumerate() {
            match step {
                OwnedStep::Key(k) => {
                    // Every key but the first is joined by a dot, the empty key too: `.x` is
                    // the key `x` in the object under the key "".
                    if i > 0 {
                        at.push('.');
                    }
                    at.push_str(&String::from_utf8_lossy(k));
                }
                OwnedStep::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        Fault(format!(
            "{at}: invalid number {n}: JSON has no NaN or infinity"
        ))
    }
}
