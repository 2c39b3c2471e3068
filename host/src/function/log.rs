//! Structured logs: one JSON object per line on stderr, as function-sdk-go's zap logger writes.

use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// The server's logger; `debug` lines only with `--debug`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Log {
    pub(crate) debug: bool,
}

impl Log {
    pub(crate) fn info(self, msg: &str, fields: &[(&str, Value)]) {
        line("info", msg, fields);
    }

    pub(crate) fn debug(self, msg: &str, fields: &[(&str, Value)]) {
        if self.debug {
            line("debug", msg, fields);
        }
    }
}

fn line(level: &str, msg: &str, fields: &[(&str, Value)]) {
    let ts = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let mut m = Map::new();
    m.insert("level".into(), level.into());
    m.insert("ts".into(), ts.into());
    m.insert("logger".into(), "xprender".into());
    m.insert("msg".into(), msg.into());
    for (k, v) in fields {
        m.insert((*k).to_owned(), v.clone());
    }
    let mut text = Value::Object(m).to_string();
    text.push('\n');
    // A closed stderr must not take the server down.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
