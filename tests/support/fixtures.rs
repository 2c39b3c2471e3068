//! The golden fixtures as renders: every case under `tests/fixtures`, once per semantics it runs.
//!
//! A case is a directory holding `request.json`. A request that names one semantics, or none
//! (its Composition's mode decides), renders once and expects `expected.json`. A request whose
//! options hold `"semantics": ["native", "function"]` renders once per semantics, the list
//! replaced in its text by that semantics' name (so every other byte is the same), and expects
//! `expected.<semantics>.json`, or `expected.json` when both semantics give the same output.

// Fixture files are read by the test harness, not by the engine.
#![allow(clippy::disallowed_methods, dead_code, unreachable_pub)]

use std::fs;
use std::path::{Path, PathBuf};

/// The request text that asks a case to be rendered under each semantics.
pub const EVERY_SEMANTICS: &str = r#""semantics": ["native", "function"]"#;

/// The semantics a case with [`EVERY_SEMANTICS`] renders under, in order.
pub const SEMANTICS: [&str; 2] = ["native", "function"];

/// One render of a fixture.
pub struct Render {
    /// `<area>/<case>`, with ` (<semantics>)` for a case rendered under each semantics.
    pub name: String,
    pub area: String,
    /// The case directory.
    pub dir: PathBuf,
    /// The semantics this render asks for when the case runs under each.
    pub semantics: Option<&'static str>,
    /// The request text as rendered.
    pub request: String,
    /// The file that holds the expected output (which may not exist yet).
    pub expected: PathBuf,
}

/// Every case directory under `root`, sorted: `(area, case, dir)`.
pub fn cases(root: &Path) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(areas) = fs::read_dir(root) else {
        return out;
    };
    for area in areas.flatten() {
        let Ok(entries) = fs::read_dir(area.path()) else {
            continue;
        };
        for case in entries.flatten() {
            if case.path().join("request.json").is_file() {
                out.push((
                    area.file_name().to_string_lossy().into_owned(),
                    case.file_name().to_string_lossy().into_owned(),
                    case.path(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// The request text asking for `semantics` in place of every semantics.
pub fn with_semantics(request: &str, semantics: &str) -> String {
    request.replacen(
        EVERY_SEMANTICS,
        &format!("\"semantics\": \"{semantics}\""),
        1,
    )
}

/// The expected file of a render under `semantics` (`None`: the request as it stands).
pub fn expected_path(dir: &Path, semantics: Option<&str>) -> PathBuf {
    match semantics {
        Some(s) if dir.join(format!("expected.{s}.json")).is_file() => {
            dir.join(format!("expected.{s}.json"))
        }
        _ => dir.join("expected.json"),
    }
}

/// Every render of every case under `root`, in case order, native before function.
pub fn renders(root: &Path) -> Vec<Render> {
    let mut out = Vec::new();
    for (area, case, dir) in cases(root) {
        let request = fs::read_to_string(dir.join("request.json")).expect("readable request.json");
        if request.contains(EVERY_SEMANTICS) {
            for s in SEMANTICS {
                out.push(Render {
                    name: format!("{area}/{case} ({s})"),
                    area: area.clone(),
                    expected: expected_path(&dir, Some(s)),
                    request: with_semantics(&request, s),
                    semantics: Some(s),
                    dir: dir.clone(),
                });
            }
        } else {
            out.push(Render {
                name: format!("{area}/{case}"),
                area,
                expected: dir.join("expected.json"),
                request,
                semantics: None,
                dir,
            });
        }
    }
    out
}
