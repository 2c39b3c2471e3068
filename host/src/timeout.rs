//! Timeout flags: Go durations (`30s`, `1m30s`), as `crossplane` reads them.

use std::time::Duration;

/// A timeout flag: a Go duration that is positive.
///
/// # Errors
/// Go's message for text Go refuses; a notice for zero and negative durations, which would
/// cancel the work before it starts.
pub(crate) fn parse_timeout(s: &str) -> Result<Duration, String> {
    let nanos = xprender::model::parse_duration(s)?;
    u64::try_from(nanos)
        .ok()
        .filter(|n| *n > 0)
        .map(Duration::from_nanos)
        .ok_or_else(|| format!("{s} is not a positive duration"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_positive() {
        assert_eq!(parse_timeout("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(
            parse_timeout("0"),
            Err("0 is not a positive duration".into())
        );
        assert_eq!(
            parse_timeout("-1s"),
            Err("-1s is not a positive duration".into())
        );
        assert!(
            parse_timeout("1")
                .unwrap_err()
                .starts_with("time: missing unit")
        );
    }
}
