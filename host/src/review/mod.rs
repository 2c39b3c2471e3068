//! Change review: what applying XRs or claims (or another Composition) would change in the
//! objects they compose, read from a live cluster or from exported objects.

pub(crate) mod objects;
