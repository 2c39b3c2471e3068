//! The string formats the API server checks (kube-openapi's format registry); other formats
//! are accepted as the API server accepts them.

use base64::Engine as _;

/// Whether `s` is a valid value of `format`; `None` when the format is not checked.
pub(crate) fn check(format: &str, s: &str) -> Option<bool> {
    Some(match format {
        "byte" => base64::engine::general_purpose::STANDARD.decode(s).is_ok(),
        "date" => is_date(s),
        "date-time" | "datetime" => is_date_time(s),
        "duration" => is_duration(s),
        "uuid" => is_uuid(s),
        "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => is_cidr(s),
        "mac" => is_mac(s),
        "hostname" => is_hostname(s),
        "email" => is_email(s),
        "uri" => is_uri(s),
        _ => return None,
    })
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_date(s: &str) -> bool {
    let p: Vec<&str> = s.split('-').collect();
    p.len() == 3
        && digits(p[0], 4)
        && digits(p[1], 2)
        && digits(p[2], 2)
        && (1..=12).contains(&p[1].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&p[2].parse::<u32>().unwrap_or(0))
}

/// RFC 3339: `2006-01-02T15:04:05Z`, optional fraction, `Z` or `±hh:mm`.
fn is_date_time(s: &str) -> bool {
    let Some(t) = s.find(['T', 't', ' ']) else {
        return false;
    };
    let (date, rest) = (&s[..t], &s[t + 1..]);
    if !is_date(date) || rest.len() < 8 {
        return false;
    }
    let (clock, mut zone) = rest.split_at(8);
    let c: Vec<&str> = clock.split(':').collect();
    if c.len() != 3 || !c.iter().all(|p| digits(p, 2)) {
        return false;
    }
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        zone = &frac[n..];
    }
    match zone {
        "Z" | "z" => true,
        z if z.len() == 6 && (z.starts_with('+') || z.starts_with('-')) => {
            digits(&z[1..3], 2) && &z[3..4] == ":" && digits(&z[4..6], 2)
        }
        _ => false,
    }
}

/// Go's time.ParseDuration syntax (`1h30m`, `-1.5s`, `300ms`).
fn is_duration(s: &str) -> bool {
    xprender::model::parse_duration(s).is_ok()
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => bits <= 32,
        Ok(std::net::IpAddr::V6(_)) => bits <= 128,
        Err(_) => false,
    }
}

fn is_mac(s: &str) -> bool {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    matches!(parts.len(), 6 | 8 | 20)
        && parts
            .iter()
            .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

fn is_email(s: &str) -> bool {
    match s.rsplit_once('@') {
        Some((local, domain)) => !local.is_empty() && !local.contains(' ') && is_hostname(domain),
        None => false,
    }
}

/// Go's url.ParseRequestURI: an absolute URI (scheme) or an absolute path.
fn is_uri(s: &str) -> bool {
    if s.starts_with('/') {
        return !s.contains(' ');
    }
    match s.split_once(':') {
        Some((scheme, rest)) => {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !rest.is_empty()
                && !s.contains(' ')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn formats() {
        let cases = [
            ("date-time", "2024-05-01T10:00:00Z", true),
            ("date-time", "2024-05-01T10:00:00.123+02:00", true),
            ("date-time", "2024-05-01", false),
            ("date", "2024-13-01", false),
            ("duration", "1h30m", true),
            ("duration", "90 minutes", false),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "123e4567", false),
            ("ipv4", "10.0.0.1", true),
            ("ipv4", "10.0.0.256", false),
            ("cidr", "10.0.0.0/16", true),
            ("cidr", "10.0.0.0/33", false),
            ("byte", "aGVsbG8=", true),
            ("byte", "not base64!", false),
            ("hostname", "db.example.org", true),
            ("hostname", "-bad.example.org", false),
            ("uri", "https://example.org/x", true),
            ("uri", "example", false),
            ("email", "ops@example.org", true),
        ];
        for (f, s, want) in cases {
            assert_eq!(check(f, s), Some(want), "{f} {s}");
        }
        assert_eq!(check("password", "x"), None);
    }
}
