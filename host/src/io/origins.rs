//! Where each document of a documents request came from, in the engine's messages.

/// An engine message about a documents request with each `documents[N]` named by the file
/// (and document) it came from.
pub(crate) fn with_origins(message: &str, origins: &[String]) -> String {
    const AT: &str = "documents[";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(pos) = rest.find(AT) {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + AT.len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        let origin = after[..digits]
            .parse::<usize>()
            .ok()
            .filter(|_| after[digits..].starts_with(']'))
            .and_then(|i| origins.get(i));
        match origin {
            Some(o) => {
                out.push_str(o);
                rest = &after[digits + 1..];
            }
            None => {
                out.push_str(AT);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
