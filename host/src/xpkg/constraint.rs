//! Version constraints of `spec.dependsOn` in the syntax Crossplane accepts (Masterminds semver
//! v3), evaluated with the `semver` crate after rewriting what it spells differently: a leading
//! `v`, a bare version meaning "exactly", `=>`/`=<`/`~>`, whitespace between the parts of an AND
//! group, `a - b` ranges, `||` alternatives and `!=`.

use anyhow::{Result, anyhow, bail};
use semver::{Comparator, Op, Version, VersionReq};

/// One parsed constraint: alternatives (`||`), each an AND group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Constraint {
    text: String,
    groups: Vec<Group>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    req: VersionReq,
    /// `!=` parts, which the semver crate has no operator for: (version, major.minor only).
    not: Vec<Comparator>,
    /// Masterminds lets a group match pre-releases only when one of its parts names one.
    pre: bool,
}

impl std::fmt::Display for Constraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A tag as a version: `v1.2.3` or `1.2.3`, pre-release and build allowed; other tags (such as
/// `latest`) are not versions.
pub(crate) fn parse_tag(tag: &str) -> Option<Version> {
    Version::parse(tag.strip_prefix('v').unwrap_or(tag)).ok()
}

impl Constraint {
    pub(crate) fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| anyhow!("invalid version constraint {text:?}: {why}");
        if text.trim().is_empty() {
            return Err(bad("it is empty"));
        }
        let mut groups = Vec::new();
        for alt in text.split("||") {
            groups.push(parse_group(alt).map_err(|e| bad(&e.to_string()))?);
        }
        Ok(Self {
            text: text.to_owned(),
            groups,
        })
    }

    pub(crate) fn matches(&self, v: &Version) -> bool {
        self.groups.iter().any(|g| {
            (v.pre.is_empty() || g.pre)
                && g.req.comparators.iter().all(|c| admits(c, v))
                && !g.not.iter().any(|c| excluded(c, v))
        })
    }
}

/// One comparator as Masterminds evaluates it: a partial version (`1`, `1.2`) is a wildcard on
/// what it leaves out, and the bounds of `~`, `^` and partial `>`/`<=` compare version fields.
fn admits(c: &Comparator, v: &Version) -> bool {
    let lo = Version {
        pre: c.pre.clone(),
        ..Version::new(c.major, c.minor.unwrap_or(0), c.patch.unwrap_or(0))
    };
    let same_major = v.major == c.major;
    let same_minor = same_major && c.minor.is_none_or(|m| v.minor == m);
    let cmp = v.cmp_precedence(&lo);
    use std::cmp::Ordering::*;
    match c.op {
        Op::Exact | Op::Wildcard if c.patch.is_some() => cmp == Equal,
        Op::Exact | Op::Wildcard | Op::Tilde => cmp != Less && same_minor,
        Op::Greater => match (c.minor, c.patch) {
            (_, Some(_)) => cmp == Greater,
            (None, None) => v.major > c.major,
            (Some(m), None) => v.major > c.major || (same_major && v.minor > m),
        },
        Op::GreaterEq => cmp != Less,
        Op::Less => cmp == Less,
        Op::LessEq => match (c.minor, c.patch) {
            (_, Some(_)) => cmp != Greater,
            (None, None) => v.major <= c.major,
            (Some(m), None) => v.major < c.major || (same_major && v.minor <= m),
        },
        Op::Caret => {
            cmp != Less
                && match (c.major, c.minor, c.patch) {
                    (0, Some(0), Some(p)) => v.major == 0 && v.minor == 0 && v.patch == p,
                    (0, Some(m), _) => v.major == 0 && v.minor == m,
                    _ => same_major,
                }
        }
        _ => false,
    }
}

/// `!=1.2` excludes every 1.2.x; `!=1.2.3` only that version.
fn excluded(c: &Comparator, v: &Version) -> bool {
    c.major == v.major
        && c.minor.is_none_or(|m| m == v.minor)
        && c.patch.is_none_or(|p| p == v.patch)
        && (c.pre.is_empty() || c.pre == v.pre)
}

/// Splits an AND group into `(operator, version)` parts.
fn parts(text: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            return Ok(out);
        }
        let op_len = rest
            .find(|c: char| !matches!(c, '=' | '!' | '<' | '>' | '~' | '^'))
            .unwrap_or(rest.len());
        let op = &rest[..op_len];
        rest = rest[op_len..].trim_start();
        let v_len = rest
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let v = &rest[..v_len];
        if v.is_empty() {
            bail!("operator {op:?} has no version");
        }
        out.push((op.to_owned(), v.to_owned()));
        rest = &rest[v_len..];
    }
}

/// `a - b` (bare versions around a lone `-`) becomes `>=a <=b`.
fn rewrite_ranges(raw: Vec<(String, String)>) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut it = raw.into_iter().peekable();
    while let Some((op, v)) = it.next() {
        if op.is_empty() && v == "-" {
            let lo = out.pop().filter(|(o, _)| o.is_empty());
            let hi = it.next().filter(|(o, v)| o.is_empty() && v != "-");
            let (Some((_, lo)), Some((_, hi))) = (lo, hi) else {
                bail!("a range needs a bare version on both sides of \" - \"");
            };
            out.push((">=".into(), lo));
            out.push(("<=".into(), hi));
        } else {
            out.push((op, v));
        }
    }
    Ok(out)
}

fn parse_group(text: &str) -> Result<Group> {
    let raw = rewrite_ranges(parts(text)?)?;
    if raw.is_empty() {
        bail!("an alternative between || is empty");
    }
    let mut comparators = Vec::new();
    let mut not = Vec::new();
    let mut pre = false;
    for (op, v) in raw {
        let op = match op.as_str() {
            "" | "=" => "=",
            "=>" | ">=" => ">=",
            "=<" | "<=" => "<=",
            "~>" | "~" => "~",
            ">" | "<" | "^" | "!=" => op.as_str(),
            other => bail!("unknown operator {other:?}"),
        };
        // x, X and * mean what leaving the part out means; a whole wildcard admits anything.
        let bare = v.strip_prefix('v').unwrap_or(&v);
        let kept: Vec<&str> = bare
            .split('.')
            .take_while(|p| !matches!(*p, "x" | "X" | "*"))
            .collect();
        if kept.is_empty() {
            continue;
        }
        let c = Comparator::parse(&format!("{op}{}", kept.join(".")).replace("!=", "="))
            .map_err(|e| anyhow!("{op}{v}: {e}"))?;
        pre |= !c.pre.is_empty();
        if op == "!=" {
            not.push(c);
        } else {
            comparators.push(c);
        }
    }
    Ok(Group {
        req: VersionReq { comparators },
        not,
        pre,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAGS: &[&str] = &[
        "v0.0.3",
        "v0.1.0",
        "v0.2.5",
        "v1.0.0",
        "v1.1.0",
        "v1.2.0",
        "v1.2.3",
        "v1.3.0-rc.1",
        "v1.3.0",
        "v2.0.0",
        "v2.1.4",
        "v3.0.0-beta.1",
    ];

    /// The tags a constraint admits, as Masterminds semver v3 (Crossplane) evaluates them.
    fn admitted(c: &str) -> Vec<&'static str> {
        let c = Constraint::parse(c).unwrap();
        TAGS.iter()
            .copied()
            .filter(|t| c.matches(&parse_tag(t).unwrap()))
            .collect()
    }

    #[test]
    fn every_constraint_form() {
        let cases: &[(&str, &[&str])] = &[
            // Exact versions, with or without v and =.
            ("v1.2.3", &["v1.2.3"]),
            ("1.2.3", &["v1.2.3"]),
            ("=v1.2.3", &["v1.2.3"]),
            // A partial exact version is a wildcard on what it leaves out.
            ("v1.2", &["v1.2.0", "v1.2.3"]),
            ("1.x", &["v1.0.0", "v1.1.0", "v1.2.0", "v1.2.3", "v1.3.0"]),
            (
                "*",
                &[
                    "v0.0.3", "v0.1.0", "v0.2.5", "v1.0.0", "v1.1.0", "v1.2.0", "v1.2.3", "v1.3.0",
                    "v2.0.0", "v2.1.4",
                ],
            ),
            // Comparisons.
            (
                ">=v1.2.0",
                &["v1.2.0", "v1.2.3", "v1.3.0", "v2.0.0", "v2.1.4"],
            ),
            (
                "=>1.2.0",
                &["v1.2.0", "v1.2.3", "v1.3.0", "v2.0.0", "v2.1.4"],
            ),
            (">v1.2.3", &["v1.3.0", "v2.0.0", "v2.1.4"]),
            (">1.2", &["v1.3.0", "v2.0.0", "v2.1.4"]),
            ("<v1.0.0", &["v0.0.3", "v0.1.0", "v0.2.5"]),
            ("<=1.1", &["v0.0.3", "v0.1.0", "v0.2.5", "v1.0.0", "v1.1.0"]),
            ("!=v1.2.3, >=1.2", &["v1.2.0", "v1.3.0", "v2.0.0", "v2.1.4"]),
            // AND groups: comma or whitespace.
            (
                ">=1.0.0, <2.0.0",
                &["v1.0.0", "v1.1.0", "v1.2.0", "v1.2.3", "v1.3.0"],
            ),
            (">= 1.1.0 < 1.3.0", &["v1.1.0", "v1.2.0", "v1.2.3"]),
            // Hyphen ranges, inclusive; a partial upper bound covers its whole minor.
            ("v1.1.0 - v1.2.3", &["v1.1.0", "v1.2.0", "v1.2.3"]),
            ("1.0 - 1.2", &["v1.0.0", "v1.1.0", "v1.2.0", "v1.2.3"]),
            // Caret and tilde.
            ("^1.1.0", &["v1.1.0", "v1.2.0", "v1.2.3", "v1.3.0"]),
            ("^0.1.0", &["v0.1.0"]),
            ("^0.0.3", &["v0.0.3"]),
            ("^0", &["v0.0.3", "v0.1.0", "v0.2.5"]),
            ("~1.2.0", &["v1.2.0", "v1.2.3"]),
            ("~>1.2", &["v1.2.0", "v1.2.3"]),
            ("~1", &["v1.0.0", "v1.1.0", "v1.2.0", "v1.2.3", "v1.3.0"]),
            // Alternatives.
            ("^0.2 || >=2.1", &["v0.2.5", "v2.1.4"]),
            ("v1.0.0 || v2.0.0", &["v1.0.0", "v2.0.0"]),
            // Pre-releases only when the group names one.
            (
                ">=1.3.0-rc.0",
                &["v1.3.0-rc.1", "v1.3.0", "v2.0.0", "v2.1.4", "v3.0.0-beta.1"],
            ),
            ("v3.0.0-beta.1", &["v3.0.0-beta.1"]),
        ];
        for (c, want) in cases {
            assert_eq!(admitted(c), *want, "constraint {c:?}");
        }
    }

    #[test]
    fn invalid_constraints_name_the_text() {
        for (c, why) in [
            ("", "it is empty"),
            (">=", "operator \">=\" has no version"),
            ("v1 ||", "an alternative between || is empty"),
            ("=!1.0.0", "unknown operator \"=!\""),
            (">=one", ">=one"),
        ] {
            let e = Constraint::parse(c).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid version constraint {c:?}: ")) && e.contains(why),
                "{c:?}: {e}"
            );
        }
    }

    #[test]
    fn tags_that_are_versions() {
        assert_eq!(parse_tag("v1.2.3"), Some(Version::new(1, 2, 3)));
        assert_eq!(parse_tag("1.2.3"), Some(Version::new(1, 2, 3)));
        assert!(parse_tag("latest").is_none());
        assert!(parse_tag("v1.2").is_none());
        assert!(parse_tag("sha256-abc.sig").is_none());
    }
}
