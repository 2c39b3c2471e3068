//! The Function context a pipeline passes from step to step: the environment
//! (kept in `State::env`, under `apiextensions.crossplane.io/environment`)
//! and any other keys, which the emulated functions pass through untouched.

use crate::value::{Map, Value};

/// The context key Crossplane and the functions keep the environment under.
const ENVIRONMENT_KEY: &str = "apiextensions.crossplane.io/environment";

#[derive(Clone, Debug, Default)]
pub(crate) struct FnContext {
    /// Keys other than the environment.
    others: Map,
    /// Whether the environment key is set.
    environment: bool,
}

impl FnContext {
    /// The context a request supplies; its environment, if any, is returned apart.
    pub(crate) fn new(mut supplied: Map) -> (FnContext, Option<Value>) {
        let env = supplied.remove(ENVIRONMENT_KEY);
        // Values travel as protobuf Structs: every number is a float.
        for v in supplied.values_mut() {
            v.floats_everywhere();
        }
        let ctx = FnContext {
            others: supplied,
            environment: env.is_some(),
        };
        (ctx, env)
    }

    pub(crate) fn has_environment(&self) -> bool {
        self.environment
    }

    pub(crate) fn set_environment(&mut self) {
        self.environment = true;
    }

    /// The context as a JSON object, the environment under its key.
    pub(crate) fn to_value(&self, env: &Value) -> Value {
        let mut m = self.others.clone();
        if self.environment {
            m.insert(ENVIRONMENT_KEY.to_owned(), env.clone());
        }
        Value::Object(m)
    }
}
