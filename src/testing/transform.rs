//! Test entry points for `transform`.
