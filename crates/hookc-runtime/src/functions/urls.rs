//! URL functions of the `when` language: the scheme, host, port and path of
//! a URL string, hand-written on RFC 3986's generic syntax
//! (`scheme ":" "//" authority path ["?" query] ["#" fragment]`). Nothing
//! here panics, allocates for a well-formed URL that needs no lowering, or
//! resolves names.
//!
//! Guards use these on URLs an agent is about to fetch: a web-fetch tool's
//! `url` (a full URL, read by a WHATWG parser such as a browser's or
//! Node's) and the arguments of `curl` or `wget` in a shell command (often
//! without a scheme: `curl example.com/x`). Read strictly by RFC 3986, some
//! of those name no host, or another host than the one fetched; a guard
//! that then sees no host lets the request through. So, on top of RFC
//! 3986, the host is read where those clients read it:
//!
//! 1. Leading and trailing C0 controls and spaces are ignored, and tabs
//!    and newlines anywhere are removed, as a WHATWG parser does
//!    (`" https://x.org"` has host `x.org`).
//! 2. For the schemes a WHATWG parser calls special and that have a host
//!    (`http`, `https`, `ws`, `wss`, `ftp`), any run of `/` and `\` after
//!    the `:` introduces the authority, and a `\` ends it as a `/` would:
//!    `http:evil.com`, `https:/\evil.com` and `http://evil.com\@good.com`
//!    all have host `evil.com`, as in a browser.
//! 3. A string without a scheme is read as curl reads it, `host[:port]`
//!    then an optional path (`example.com/x`, `localhost:3000`,
//!    `user@10.0.0.1/x`), when what stands before the first `/`, `?` or
//!    `#` looks like a host: an IP literal (`[::1]`), `localhost`, or a
//!    name with an inner dot. `README.md` looks like one too: a guard that
//!    needs a URL, not a word, also tests `url.scheme(u) != null`.
//!    `host:port` counts as scheme-less when the "scheme" has a dot or is
//!    `localhost` and the rest is a port (`example.com:8080/x`), although
//!    RFC 3986 reads `example.com` there as a scheme.
//!
//! Other rules:
//! - Userinfo ends at the last `@` of the authority (as WHATWG and curl);
//!   it is never returned.
//! - A host is returned with ASCII letters lowered and nothing else
//!   changed: no percent-decoding, no IDNA, no IPv4 normalization
//!   (`0x7f.1` stays as written). An IPv6 literal is returned without its
//!   brackets (`::1`, as Go's `Hostname()` and Python's `hostname`), so it
//!   compares with an address as usually written.
//! - A host must be RFC 3986 `reg-name` characters (unreserved,
//!   percent-encoded, sub-delims), or any non-ASCII character (an IRI), or
//!   a bracketed literal; a port, at most 65535. Otherwise the authority
//!   is malformed and `host`, `port` and `path` are `None`.
//! - An empty host (`file:///etc/passwd`) is no host: `None`.

use std::borrow::Cow;

/// A URL's parts, borrowed from the (trimmed) input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct UrlParts<'u> {
    /// The scheme as written, if the URL has one.
    scheme: Option<&'u str>,
    /// `None` when the URL has no authority; `Some(Err(Malformed))` when it has a
    /// malformed one.
    authority: Option<Result<Authority<'u>, Malformed>>,
    /// The path, without query and fragment.
    path: &'u str,
}

/// Why an authority was rejected: it is not RFC 3986 syntax (a bad
/// character in the host, a port that is not digits or exceeds 65535, an
/// unclosed IPv6 bracket). The functions answer `None` for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Malformed;

/// The parts of an authority that the functions return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Authority<'u> {
    /// The host as written, without brackets; may be empty.
    host: &'u str,
    /// The port, if one is written.
    port: Option<u16>,
}

/// `url.scheme(u)`: the scheme of `u`, lowered (`HTTPS://x` gives
/// `https`), or `None` when `u` does not start with one. A scheme is
/// RFC 3986's `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` followed by `:`
/// (`mailto:a@b` has one; `C:\x` has the scheme `c`, by that rule).
/// `example.com:8080` and `localhost:3000` have none (see the module's
/// rule 3).
pub fn scheme(u: &str) -> Option<Cow<'_, str>> {
    with_input(u, |u| parse(u).scheme.map(lower))
}

/// `url.host(u)`: the host of `u`'s authority, lowered, without userinfo,
/// port or IPv6 brackets; `None` when `u` has no authority, an empty host
/// or a malformed authority. `https://User@Example.COM:8443/x` gives
/// `example.com`, `http://[::1]:80/` gives `::1`, `example.com/x` gives
/// `example.com` (module rule 3), `mailto:a@b.org` and `/x/y` give `None`.
pub fn host(u: &str) -> Option<Cow<'_, str>> {
    with_input(u, |u| match parse(u).authority {
        Some(Ok(a)) if !a.host.is_empty() => Some(lower(a.host)),
        _ => None,
    })
}

/// `url.port(u)`: the port written in `u`'s authority
/// (`https://x.org:8443/` gives 8443), or `None` when there is no port, an
/// empty one (`http://x.org:/`), or no or a malformed authority. Default
/// ports are not filled in: `https://x.org/` gives `None`.
pub fn port(u: &str) -> Option<i64> {
    let parts_port = |u: &str| match parse(u).authority {
        Some(Ok(a)) => a.port,
        _ => None,
    };
    let port = match strip_tabs_and_newlines(u) {
        Some(cleaned) => parts_port(&cleaned),
        None => parts_port(u),
    };
    port.map(i64::from)
}

/// `url.path(u)`: the path of `u`, as written (not decoded, not cleaned),
/// without query and fragment: `/a/b` for `https://x.org/a/b?q#f`, `""`
/// for `https://x.org`, `a@b.org` for `mailto:a@b.org`. `None` only when
/// the authority is malformed.
pub fn path(u: &str) -> Option<Cow<'_, str>> {
    with_input(u, |u| {
        let parts = parse(u);
        match parts.authority {
            Some(Err(Malformed)) => None,
            _ => Some(Cow::Borrowed(parts.path)),
        }
    })
}

/// Runs `f` on `u` without its tabs and newlines (WHATWG removes them
/// before parsing), copying the answer out when they had to be removed.
fn with_input<'u>(
    u: &'u str,
    f: impl for<'a> Fn(&'a str) -> Option<Cow<'a, str>>,
) -> Option<Cow<'u, str>> {
    match strip_tabs_and_newlines(u) {
        Some(cleaned) => f(&cleaned).map(|v| Cow::Owned(v.into_owned())),
        None => f(u),
    }
}

/// `u` without tabs, LFs and CRs, or `None` when it has none.
fn strip_tabs_and_newlines(u: &str) -> Option<String> {
    let is_tab_or_newline = |c: char| matches!(c, '\t' | '\n' | '\r');
    if u.contains(is_tab_or_newline) {
        Some(u.chars().filter(|&c| !is_tab_or_newline(c)).collect())
    } else {
        None
    }
}

/// `s` with ASCII letters lowered, borrowed when it has no capital.
fn lower(s: &str) -> Cow<'_, str> {
    super::strings::lower_ascii(s)
}

/// Whether `s` is an RFC 3986 scheme name.
fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// Whether `s` starts with a port (1 to 5 digits) and then ends or goes on
/// with a path, query or fragment: the rest of `example.com:8080/x` after
/// the first `:`.
fn starts_with_port(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    (1..=5).contains(&digits)
        && s.get(digits..)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']))
}

/// Whether `scheme` has a host that a WHATWG parser reads leniently.
fn is_special(scheme: &str) -> bool {
    ["http", "https", "ws", "wss", "ftp"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// Splits `s` at the first of `ends`, or at its end.
fn split_at_any<'s>(s: &'s str, ends: &[char]) -> (&'s str, &'s str) {
    match s.find(ends) {
        Some(at) => (s.get(..at).unwrap_or(s), s.get(at..).unwrap_or("")),
        None => (s, ""),
    }
}

/// The path of a rest of a URL that starts with it: up to `?` or `#`.
fn path_of(rest: &str) -> &str {
    split_at_any(rest, &['?', '#']).0
}

/// Parses a URL (tabs and newlines already removed).
fn parse(u: &str) -> UrlParts<'_> {
    // WHATWG ignores leading and trailing C0 controls and spaces.
    let u = u.trim_matches(|c: char| c <= ' ');
    let scheme_split = u.find(':').and_then(|colon| {
        let name = u.get(..colon)?;
        let rest = u.get(colon.saturating_add(1)..)?;
        is_scheme(name).then_some((name, rest))
    });
    match scheme_split {
        // `example.com:8080/x`, `localhost:3000`: a host and a port, not
        // a scheme (module rule 3).
        Some((name, rest))
            if (name.contains('.') || name.eq_ignore_ascii_case("localhost"))
                && starts_with_port(rest) =>
        {
            bare(u)
        }
        Some((name, rest)) if is_special(name) => {
            // Any run of `/` and `\` introduces the authority, which a `\`
            // ends as a `/` does (module rule 2).
            let after = rest.trim_start_matches(['/', '\\']);
            let (authority, rest) = split_at_any(after, &['/', '\\', '?', '#']);
            UrlParts {
                scheme: Some(name),
                authority: Some(authority_of(authority)),
                path: path_of(rest),
            }
        }
        Some((name, rest)) => match rest.strip_prefix("//") {
            Some(after) => {
                let (authority, rest) = split_at_any(after, &['/', '?', '#']);
                UrlParts {
                    scheme: Some(name),
                    authority: Some(authority_of(authority)),
                    path: path_of(rest),
                }
            }
            None => UrlParts {
                scheme: Some(name),
                authority: None,
                path: path_of(rest),
            },
        },
        None => match u.strip_prefix("//") {
            // A network-path reference (RFC 3986 §4.2): `//host/x`.
            Some(after) => {
                let (authority, rest) = split_at_any(after, &['/', '?', '#']);
                UrlParts {
                    scheme: None,
                    authority: Some(authority_of(authority)),
                    path: path_of(rest),
                }
            }
            None => bare(u),
        },
    }
}

/// Reads a URL without a scheme: `host[:port][/path]` when what stands
/// before the first `/`, `?` or `#` looks like a host (module rule 3),
/// else a relative reference with a path only.
fn bare(u: &str) -> UrlParts<'_> {
    let relative = UrlParts {
        scheme: None,
        authority: None,
        path: path_of(u),
    };
    if u.starts_with('/') {
        return relative;
    }
    let (authority, rest) = split_at_any(u, &['/', '?', '#']);
    match authority_of(authority) {
        Ok(a) if looks_like_host(a.host, authority) => UrlParts {
            scheme: None,
            authority: Some(Ok(a)),
            path: path_of(rest),
        },
        _ => relative,
    }
}

/// Whether a scheme-less URL's host looks like one: a bracketed literal,
/// `localhost`, or a name with a dot that is neither first nor last.
fn looks_like_host(host: &str, authority: &str) -> bool {
    let literal = authority
        .rsplit('@')
        .next()
        .is_some_and(|h| h.starts_with('['));
    let inner_dot = host
        .get(1..host.len().saturating_sub(1))
        .is_some_and(|inner| inner.contains('.'));
    literal || inner_dot || host.eq_ignore_ascii_case("localhost")
}

/// Parses an authority: `[userinfo "@"] host [":" port]`.
fn authority_of(authority: &str) -> Result<Authority<'_>, Malformed> {
    // Userinfo ends at the last `@`, as WHATWG and curl read it.
    let host_port = match authority.rfind('@') {
        Some(at) => authority.get(at.saturating_add(1)..).ok_or(Malformed)?,
        None => authority,
    };
    let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let close = literal.find(']').ok_or(Malformed)?;
        let host = literal.get(..close).ok_or(Malformed)?;
        let after = literal.get(close.saturating_add(1)..).ok_or(Malformed)?;
        if host.is_empty() || !host.is_ascii() || !valid_chars(host, b":") {
            return Err(Malformed);
        }
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or(Malformed)?),
        };
        (host, port)
    } else {
        let (host, port) = match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        };
        if !valid_chars(host, b"") {
            return Err(Malformed);
        }
        (host, port)
    };
    let port = match port {
        None | Some("") => None,
        Some(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => {
            // Leading zeros are allowed (`:0080`); the value must fit.
            let value = digits.trim_start_matches('0');
            Some(if value.is_empty() {
                0
            } else {
                value.parse::<u16>().map_err(|_| Malformed)?
            })
        }
        Some(_) => return Err(Malformed),
    };
    Ok(Authority { host, port })
}

/// Whether `s` is made of RFC 3986 unreserved characters, sub-delims,
/// well-formed percent-encodings, non-ASCII characters (an IRI's) and
/// the bytes of `extra`.
fn valid_chars(s: &str, extra: &[u8]) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let ok = match b {
            b'%' => {
                let hex = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_hexdigit);
                if hex(i.saturating_add(1)) && hex(i.saturating_add(2)) {
                    i = i.saturating_add(2);
                    true
                } else {
                    false
                }
            }
            b if !b.is_ascii() => true,
            b if b.is_ascii_alphanumeric() => true,
            b'-' | b'.' | b'_' | b'~' => true,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => true,
            b => extra.contains(&b),
        };
        if !ok {
            return false;
        }
        i = i.saturating_add(1);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(u: &str) -> Option<String> {
        host(u).map(Cow::into_owned)
    }

    fn s(u: &str) -> Option<String> {
        scheme(u).map(Cow::into_owned)
    }

    fn p(u: &str) -> Option<String> {
        path(u).map(Cow::into_owned)
    }

    #[test]
    fn scheme_is_lowered_and_checked() {
        assert_eq!(s("https://example.com"), Some("https".into()));
        assert_eq!(s("HTTPS://example.com"), Some("https".into()));
        assert_eq!(s("git+ssh://git@github.com/x"), Some("git+ssh".into()));
        assert_eq!(s("mailto:a@b.org"), Some("mailto".into()));
        assert_eq!(s("urn:isbn:0451450523"), Some("urn".into()));
        assert_eq!(s("a.b-c+d:x"), Some("a.b-c+d".into()));
        assert_eq!(s("file:///etc/passwd"), Some("file".into()));
        assert_eq!(s("  http://x.org  "), Some("http".into()));
        // By RFC 3986, a drive letter is a scheme.
        assert_eq!(s("C:\\x"), Some("c".into()));
        assert_eq!(s(""), None);
        assert_eq!(s(":"), None);
        assert_eq!(s("://x"), None);
        assert_eq!(s("1http://x"), None);
        assert_eq!(s("ht tp://x"), None);
        assert_eq!(s("/a:b"), None);
        assert_eq!(s("a/b:c"), None);
        assert_eq!(s("example.com/x"), None);
        assert_eq!(s("é://x"), None);
        // host:port, not scheme:path.
        assert_eq!(s("example.com:8080/x"), None);
        assert_eq!(s("localhost:3000"), None);
        // Not a port after the colon: a scheme, as RFC 3986 says.
        assert_eq!(s("tel:911"), Some("tel".into()));
        assert_eq!(s("a.b:c"), Some("a.b".into()));
        assert_eq!(s("x.y:123456"), Some("x.y".into()));
    }

    #[test]
    fn scheme_borrows_when_already_lower() {
        assert!(matches!(scheme("https://x"), Some(Cow::Borrowed("https"))));
        assert!(matches!(scheme("HTTPS://x"), Some(Cow::Owned(_))));
    }

    #[test]
    fn host_of_full_urls() {
        assert_eq!(h("https://example.com"), Some("example.com".into()));
        assert_eq!(h("https://example.com/"), Some("example.com".into()));
        assert_eq!(h("https://Example.COM/A?B#C"), Some("example.com".into()));
        assert_eq!(h("https://example.com?q=1"), Some("example.com".into()));
        assert_eq!(h("https://example.com#frag"), Some("example.com".into()));
        assert_eq!(h("https://user@example.com"), Some("example.com".into()));
        assert_eq!(
            h("https://user:pa:ss@example.com:8443/x"),
            Some("example.com".into())
        );
        assert_eq!(h("https://example.com:8443"), Some("example.com".into()));
        assert_eq!(h("https://example.com:/x"), Some("example.com".into()));
        assert_eq!(h("ssh://git@github.com:22/x"), Some("github.com".into()));
        assert_eq!(h("ftp://10.0.0.1/x"), Some("10.0.0.1".into()));
        assert_eq!(h("http://[::1]/"), Some("::1".into()));
        assert_eq!(h("http://[::1]:8080/"), Some("::1".into()));
        assert_eq!(
            h("http://[FE80::1%25eth0]:80/"),
            Some("fe80::1%25eth0".into())
        );
        assert_eq!(h("http://[v1.x]/"), Some("v1.x".into()));
        assert_eq!(h("http://bücher.de/"), Some("bücher.de".into()));
        assert_eq!(h("http://%65vil.com/"), Some("%65vil.com".into()));
        assert_eq!(h("custom+x://Host.Example/x"), Some("host.example".into()));
    }

    #[test]
    fn host_is_none_without_an_authority() {
        assert_eq!(h("mailto:a@b.org"), None);
        assert_eq!(h("urn:isbn:0451450523"), None);
        assert_eq!(h("custom:host.example/x"), None);
        assert_eq!(h("custom:/host.example/x"), None);
        assert_eq!(h("/just/a/path"), None);
        assert_eq!(h("relative/path"), None);
        assert_eq!(h("README"), None);
        assert_eq!(h(""), None);
        assert_eq!(h("   "), None);
        assert_eq!(h("?q=1"), None);
        assert_eq!(h("#frag"), None);
        // An empty host is no host.
        assert_eq!(h("file:///etc/passwd"), None);
        assert_eq!(h("http://"), None);
        assert_eq!(h("custom:///x"), None);
        assert_eq!(h("http://user@/x"), None);
        assert_eq!(h("//"), None);
    }

    #[test]
    fn host_is_none_for_a_malformed_authority() {
        assert_eq!(h("http://exa mple.com/"), None);
        assert_eq!(h("http://example.com:80:80/"), None);
        assert_eq!(h("http://example.com:http/"), None);
        assert_eq!(h("http://example.com:65536/"), None);
        assert_eq!(h("http://[::1/"), None);
        assert_eq!(h("http://[]/"), None);
        assert_eq!(h("http://[::1]x/"), None);
        assert_eq!(h("http://[::1]:x/"), None);
        assert_eq!(h("http://ex<ample.com/"), None);
        assert_eq!(h("http://ex%zzample.com/"), None);
        assert_eq!(h("http://ex%4/"), None);
        assert_eq!(h("custom://a\\b/"), None);
        assert_eq!(port("http://exa mple.com:80/"), None);
        assert_eq!(path("http://exa mple.com/x"), None);
    }

    #[test]
    fn host_follows_whatwg_for_special_schemes() {
        assert_eq!(h("http:evil.com"), Some("evil.com".into()));
        assert_eq!(h("http:/evil.com/x"), Some("evil.com".into()));
        assert_eq!(h("https:/\\evil.com"), Some("evil.com".into()));
        assert_eq!(h("https:\\\\evil.com\\x"), Some("evil.com".into()));
        assert_eq!(h("http:///evil.com"), Some("evil.com".into()));
        assert_eq!(h("http://evil.com\\@good.com"), Some("evil.com".into()));
        assert_eq!(h("WSS://Evil.com"), Some("evil.com".into()));
        // The last `@` ends the userinfo.
        assert_eq!(h("http://a@b@evil.com/"), Some("evil.com".into()));
        assert_eq!(h("http://good.com@evil.com/"), Some("evil.com".into()));
        // Tabs and newlines anywhere are dropped, C0 and spaces trimmed.
        assert_eq!(h("ht\ttp://ev\nil.com/"), Some("evil.com".into()));
        assert_eq!(
            h("\u{0}\u{1f} http://evil.com \u{7}"),
            Some("evil.com".into())
        );
        // Not a special scheme: RFC 3986 only.
        assert_eq!(h("custom:evil.com"), None);
    }

    #[test]
    fn host_of_bare_hosts_as_curl_reads_them() {
        assert_eq!(h("example.com"), Some("example.com".into()));
        assert_eq!(h("example.com/x"), Some("example.com".into()));
        assert_eq!(h("Example.com?q"), Some("example.com".into()));
        assert_eq!(h("example.com:8080/x"), Some("example.com".into()));
        assert_eq!(port("example.com:8080/x"), Some(8080));
        assert_eq!(h("localhost:3000"), Some("localhost".into()));
        assert_eq!(port("localhost:3000"), Some(3000));
        assert_eq!(h("localhost/x"), Some("localhost".into()));
        assert_eq!(h("user@10.0.0.1/x"), Some("10.0.0.1".into()));
        assert_eq!(h("10.0.0.1:22"), Some("10.0.0.1".into()));
        assert_eq!(h("[::1]:8080/x"), Some("::1".into()));
        assert_eq!(h("//example.com/x"), Some("example.com".into()));
        assert_eq!(h("//example/x"), Some("example".into()));
        // A file name looks like a host name; a word does not.
        assert_eq!(h("README.md"), Some("readme.md".into()));
        assert_eq!(h("word"), None);
        assert_eq!(h(".hidden"), None);
        assert_eq!(h("trailing."), None);
        assert_eq!(h("./x"), None);
        assert_eq!(h("../x.y"), None);
        assert_eq!(h("-X"), None);
        assert_eq!(h("a b.c"), None);
        assert_eq!(path("a b.c/x"), Some("a b.c/x".into()));
    }

    #[test]
    fn port_is_explicit_only() {
        assert_eq!(port("https://x.org:8443/"), Some(8443));
        assert_eq!(port("https://x.org:0/"), Some(0));
        assert_eq!(port("https://x.org:0080/"), Some(80));
        assert_eq!(port("https://x.org:65535/"), Some(65535));
        assert_eq!(port("https://x.org:000000000000000443/"), Some(443));
        assert_eq!(port("https://x.org:65536/"), None);
        assert_eq!(port("https://x.org:99999999999999999999/"), None);
        assert_eq!(port("https://x.org/"), None);
        assert_eq!(port("https://x.org:/"), None);
        assert_eq!(port("http://[::1]:8080"), Some(8080));
        assert_eq!(port("http://[::1]"), None);
        assert_eq!(port("mailto:a@b.org"), None);
        assert_eq!(port("https://u:123@x.org/"), None);
        assert_eq!(port("ht\ttps://x.org:4\n43/"), Some(443));
        assert_eq!(port(""), None);
    }

    #[test]
    fn path_without_query_and_fragment() {
        assert_eq!(p("https://x.org/a/b?q=1#f"), Some("/a/b".into()));
        assert_eq!(p("https://x.org"), Some("".into()));
        assert_eq!(p("https://x.org?q"), Some("".into()));
        assert_eq!(p("https://x.org/%2e%2e/"), Some("/%2e%2e/".into()));
        assert_eq!(p("mailto:a@b.org"), Some("a@b.org".into()));
        assert_eq!(p("file:///etc/passwd"), Some("/etc/passwd".into()));
        assert_eq!(p("/x/y?z"), Some("/x/y".into()));
        assert_eq!(p("example.com/a/b"), Some("/a/b".into()));
        assert_eq!(p("http:\\\\x.org\\a"), Some("\\a".into()));
        assert_eq!(p(""), Some("".into()));
        assert_eq!(p("/a\tb"), Some("/ab".into()));
    }

    #[test]
    fn garbage_gives_answers_not_panics() {
        for u in [
            "",
            ":",
            "::",
            ":::",
            "@",
            "@@",
            "[",
            "]",
            "[]",
            "//@",
            "//[",
            "//:",
            "http://@",
            "http://:",
            "http://[",
            "http://]",
            "http://%",
            "http://%%",
            "http://é",
            "😀://x",
            "http://😀/",
            "%",
            "a:%",
            "\u{0}",
            "\\\\",
            "http:\\",
            "x.y:",
            "x.y:1",
            "x.y:/",
            "[::1",
            "::1]",
            "http://[::1]]",
        ] {
            let _ = (scheme(u), host(u), port(u), path(u));
        }
        assert_eq!(h("http://😀/"), Some("😀".into()));
        assert_eq!(h("x.y:1"), Some("x.y".into()));
    }
}
