//! Reading Kubernetes documents (YAML the way kubectl reads it, or JSON) and writing them as
//! `crossplane render` prints them.

mod go_yaml;
mod input;
mod origins;
mod whole_floats;
mod yaml_read;
mod yaml_write;

pub(crate) use input::{
    Doc, InputError, check_input_size, input_error, into_docs, lookup, read_docs,
    read_file_limited, read_limited, read_single, set_max_input_size,
};
pub(crate) use origins::with_origins;
pub(crate) use yaml_read::{options_for as yaml_options, parse_yaml_stream, yaml_reason};
pub(crate) use yaml_write::{YamlNode, to_yaml, with_deep_stack, write_yaml};

/// Nesting read from YAML and JSON files: the engine's own limit for a request.
const MAX_DEPTH: usize = 1000;
