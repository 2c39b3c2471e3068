//! Test entry points for `fieldpath`.
