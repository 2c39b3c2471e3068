//! Test entry points for `fmt`.
