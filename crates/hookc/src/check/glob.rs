//! Glob patterns of `x.glob('Bash(git:*)')` and YAML `op: glob`: their
//! syntax, their translation into a `regex` pattern, and a direct matcher.
//!
//! A glob matches the whole string (it is anchored), case-sensitively, one
//! Unicode scalar at a time: `*` is any sequence (empty included, `/` and
//! newlines included), `?` exactly one character, `[abc]` / `[a-z]` one
//! character of a class, `[!a-z]` (or `[^a-z]`) one character outside it,
//! and `\` makes the next character literal. Everything else is literal, in
//! particular `( ) : . + |`, so tool matchers such as `Bash(git:*)` mean what
//! they say.
//!
//! The compiler never evaluates globs itself: [`regex_of`] translates one
//! into an [`ir::Regex`] whose pattern is a `regex` crate pattern, so the
//! regex machinery (one compilation per pattern, the fused `PathMatches`
//! op, the artifact's regex table, the verifier) serves globs unchanged. The
//! glob text rides along in [`ir::Regex::glob`] for what users see:
//! diagnostics and the normalized output. [`Glob::is_match`] matches without
//! any regex; the reference evaluator uses it, so the differential tests
//! check the translation against an independent implementation.

use crate::diag::{Code, Diagnostic};
use crate::ir;
use crate::span::Span;
use std::fmt::Write;

/// One element of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum GlobPiece {
    /// `*`: any sequence of characters.
    Star,
    /// `?`: any one character.
    Any,
    /// A literal character (written plainly or escaped).
    Char(char),
    /// `[...]`: one character in (or, negated, outside) the ranges.
    Class {
        /// `[!...]` / `[^...]`.
        negated: bool,
        /// Inclusive ranges; a single character `c` is `(c, c)`.
        ranges: Vec<(char, char)>,
    },
}

impl GlobPiece {
    /// Appends this piece's regex; `in_segment`: as part of one path
    /// element, where `*`, `?` and classes never match `/`.
    fn push_regex(&self, out: &mut String, in_segment: bool) {
        let mut buf = [0u8; 4];
        match self {
            GlobPiece::Star => out.push_str(if in_segment { "[^/]*" } else { ".*" }),
            GlobPiece::Any => out.push_str(if in_segment { "[^/]" } else { "." }),
            GlobPiece::Char(c) => out.push_str(&regex::escape(c.encode_utf8(&mut buf))),
            GlobPiece::Class { negated, ranges } => {
                out.push('[');
                if *negated {
                    out.push('^');
                }
                for &(lo, hi) in ranges {
                    // Escaping every meta character is valid inside a
                    // class too, and keeps `-`, `^`, `]`, `[`, `&&`, `~~`
                    // literal.
                    out.push_str(&regex::escape(lo.encode_utf8(&mut buf)));
                    if hi != lo {
                        out.push('-');
                        out.push_str(&regex::escape(hi.encode_utf8(&mut buf)));
                    }
                }
                // In an element, a negated class leaves `/` out by naming
                // it, another by intersecting with everything but `/`.
                out.push_str(match (in_segment, negated) {
                    (false, _) => "]",
                    (true, true) => "/]",
                    (true, false) => "&&[^/]]",
                });
            }
        }
    }

    /// Whether this one-character piece matches `c` (never called on `*`).
    fn matches(&self, c: char) -> bool {
        match self {
            GlobPiece::Star | GlobPiece::Any => true,
            GlobPiece::Char(x) => *x == c,
            GlobPiece::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

/// A parsed glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    /// The pieces, runs of `*` collapsed into one (they mean the same).
    pieces: Vec<GlobPiece>,
}

/// Why a glob is invalid, with the byte range of the glob text at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// First byte of the offending part, in the glob text.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// What is wrong (lowercase, no final period).
    pub reason: String,
    /// The caret label.
    pub label: &'static str,
    /// What to write instead.
    pub help: String,
}

impl GlobError {
    /// The E0309 diagnostic for the glob `text`; `at` maps a byte range of the
    /// glob text to a file span (exact when the literal is verbatim in the
    /// file, the whole literal otherwise).
    pub fn diagnostic(&self, text: &str, at: impl Fn(usize, usize) -> Span) -> Diagnostic {
        Diagnostic::new(
            Code::BadGlob,
            format!("invalid glob `{text}`: {}", self.reason),
        )
        .at(at(self.start, self.end))
        .label(self.label)
        .help(self.help.clone())
    }
}

/// A character of the glob text and where it is.
type Cursor<'t> = std::iter::Peekable<std::str::CharIndices<'t>>;

/// Parses a glob.
pub fn parse(text: &str) -> Result<Glob, GlobError> {
    let mut pieces = Vec::new();
    let mut chars: Cursor<'_> = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let piece = match c {
            '*' => {
                if pieces.last() == Some(&GlobPiece::Star) {
                    continue;
                }
                GlobPiece::Star
            }
            '?' => GlobPiece::Any,
            '\\' => GlobPiece::Char(escaped(&mut chars, at)?),
            '[' => class(&mut chars, text, at)?,
            c => GlobPiece::Char(c),
        };
        pieces.push(piece);
    }
    Ok(Glob { pieces })
}

/// The character after a `\` at byte `at`.
fn escaped(chars: &mut Cursor<'_>, at: usize) -> Result<char, GlobError> {
    chars.next().map(|(_, c)| c).ok_or_else(|| GlobError {
        start: at,
        end: at + 1,
        reason: "`\\` at the end escapes nothing".to_owned(),
        label: "nothing follows this `\\`",
        help: "write `\\\\` for a literal backslash".to_owned(),
    })
}

/// A class whose `[` is at byte `open`: `[!a-z]`, `[abc]`, `[\]]`.
///
/// `]` always closes (a literal `]` is `\]`), so `[]` is an empty class, an
/// error, rather than the start of a class holding `]` as in some shells. A
/// `-` is literal first or last, and otherwise makes a range between the two
/// characters around it; anywhere else (`[a-c-e]`, `[+--]`) it is ambiguous
/// and an error (`\-` is a literal `-` anywhere).
fn class(chars: &mut Cursor<'_>, text: &str, open: usize) -> Result<GlobPiece, GlobError> {
    let unclosed = || GlobError {
        start: open,
        end: text.len(),
        reason: "unclosed `[`".to_owned(),
        label: "this class is never closed",
        help: "close the class with `]`, or write `\\[` for a literal `[`".to_owned(),
    };
    let negated = matches!(chars.peek(), Some((_, '!' | '^')));
    if negated {
        chars.next();
    }
    let mut ranges: Vec<(char, char)> = Vec::new();
    loop {
        let (at, c) = chars.next().ok_or_else(unclosed)?;
        let closes_next = matches!(chars.peek(), Some((_, ']')));
        let lo = match c {
            ']' if ranges.is_empty() => {
                return Err(GlobError {
                    start: open,
                    end: at + 1,
                    reason: "empty character class".to_owned(),
                    label: "matches no character",
                    help: "list characters in the class (`[abc]`, `[a-z]`); a literal `]` is `\\]`, a literal `[` outside a class `\\[`".to_owned(),
                });
            }
            ']' => return Ok(GlobPiece::Class { negated, ranges }),
            '\\' => escaped(chars, at)?,
            // First or last: literal, and never the start of a range.
            '-' if ranges.is_empty() || closes_next => {
                ranges.push(('-', '-'));
                continue;
            }
            '-' if chars.peek().is_some() => {
                return Err(GlobError {
                    start: at,
                    end: at + 1,
                    reason: "`-` that is not a range".to_owned(),
                    label: "neither between two characters nor first or last in the class",
                    help: "escape it as `\\-`, or put it first or last in the class".to_owned(),
                });
            }
            c => c,
        };
        // `lo-hi` when a `-` follows that is neither last (`[a-]`) nor
        // followed by another `-`.
        let mut ahead = chars.clone();
        let is_range = matches!(
            (ahead.next(), ahead.peek()),
            (Some((_, '-')), Some(&(_, h))) if h != ']' && h != '-'
        );
        let hi = if is_range {
            chars.next();
            let (hi_at, h) = chars.next().ok_or_else(unclosed)?;
            let hi = if h == '\\' { escaped(chars, hi_at)? } else { h };
            if hi < lo {
                let end = chars.peek().map_or(text.len(), |&(i, _)| i);
                return Err(GlobError {
                    start: at,
                    end,
                    reason: format!("range `{lo}-{hi}` is out of order"),
                    label: "the first character is after the last",
                    help: format!("write the lower bound first: `{hi}-{lo}`"),
                });
            }
            hi
        } else {
            lo
        };
        ranges.push((lo, hi));
    }
}

impl Glob {
    /// Whether the glob matches the whole of `s`.
    ///
    /// The classic linear scan with backtracking to the last `*`: a later `*`
    /// can absorb whatever an earlier one would, so only the last one needs
    /// retrying. `O(len(s) × pieces)` at worst, no recursion.
    pub fn is_match(&self, s: &str) -> bool {
        let text: Vec<char> = s.chars().collect();
        let (mut i, mut j) = (0usize, 0usize);
        // (index of the last `*` seen, text position it is retried from)
        let mut star: Option<(usize, usize)> = None;
        while let Some(&c) = text.get(i) {
            match self.pieces.get(j) {
                Some(GlobPiece::Star) => {
                    star = Some((j, i));
                    j += 1;
                }
                Some(p) if p.matches(c) => {
                    i += 1;
                    j += 1;
                }
                _ => match star {
                    Some((sj, si)) => {
                        star = Some((sj, si + 1));
                        i = si + 1;
                        j = sj + 1;
                    }
                    None => return false,
                },
            }
        }
        self.pieces.iter().skip(j).all(|p| *p == GlobPiece::Star)
    }

    /// The `regex` crate pattern matching exactly the strings the glob does.
    ///
    /// Anchored with `\A`/`\z` (never `^`/`$`, which a later flag could turn
    /// into line anchors). A leading or trailing `*` drops the anchor on its
    /// side instead of becoming `.*`: a search is unanchored anyway, and the
    /// regex engine then finds a literal core (`*.rs` is `\.rs\z`, `*` the
    /// empty pattern, which matches every string). `(?s)` makes `.` match
    /// newlines, as `?` and `*` must.
    pub fn to_regex(&self) -> String {
        let mut pieces = self.pieces.as_slice();
        let open = match pieces.split_first() {
            Some((GlobPiece::Star, rest)) => {
                pieces = rest;
                false
            }
            _ => true,
        };
        // On the whole glob: `*` alone is both ends, and no anchor at all.
        let close = self.pieces.last() != Some(&GlobPiece::Star);
        if let Some((GlobPiece::Star, rest)) = pieces.split_last() {
            pieces = rest;
        }
        let mut out = String::new();
        if pieces
            .iter()
            .any(|p| matches!(p, GlobPiece::Star | GlobPiece::Any))
        {
            out.push_str("(?s)");
        }
        if open {
            out.push_str(r"\A");
        }
        for p in pieces {
            p.push_regex(&mut out, false);
        }
        if close {
            out.push_str(r"\z");
        }
        out
    }

    /// The one string the glob matches, when it has no wildcard or class:
    /// the glob is an equality.
    pub fn as_literal(&self) -> Option<String> {
        self.pieces
            .iter()
            .map(|p| match p {
                GlobPiece::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// The prefix, when the glob is literal characters then one `*`
    /// (`Bash(git:*`, `*`): the glob is a `startsWith`.
    pub fn as_prefix(&self) -> Option<String> {
        let (last, init) = self.pieces.split_last()?;
        if *last != GlobPiece::Star {
            return None;
        }
        Glob {
            pieces: init.to_vec(),
        }
        .as_literal()
    }

    /// The suffix, when the glob is one `*` then literal characters
    /// (`*.env`): the glob is an `endsWith`.
    pub fn as_suffix(&self) -> Option<String> {
        match self.pieces.split_first()? {
            (GlobPiece::Star, rest) => Glob {
                pieces: rest.to_vec(),
            }
            .as_literal(),
            _ => None,
        }
    }

    /// The needle, when the glob is `*`, literal characters, `*` (`*rm*`):
    /// the glob is a `contains`.
    pub fn as_infix(&self) -> Option<String> {
        match self.pieces.as_slice() {
            [GlobPiece::Star, mid @ .., GlobPiece::Star] => Glob {
                pieces: mid.to_vec(),
            }
            .as_literal(),
            _ => None,
        }
    }
}

/// The glob as canonical source text (for tests and messages): what
/// [`parse`] reads back to the same glob.
impl std::fmt::Display for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lit = |f: &mut std::fmt::Formatter<'_>, c: char, special: &str| {
            if special.contains(c) {
                f.write_char('\\')?;
            }
            f.write_char(c)
        };
        for p in &self.pieces {
            match p {
                GlobPiece::Star => f.write_char('*')?,
                GlobPiece::Any => f.write_char('?')?,
                GlobPiece::Char(c) => lit(f, *c, "*?[\\")?,
                GlobPiece::Class { negated, ranges } => {
                    f.write_char('[')?;
                    if *negated {
                        f.write_char('!')?;
                    }
                    for &(lo, hi) in ranges {
                        lit(f, lo, "]\\-!^")?;
                        if hi != lo {
                            f.write_char('-')?;
                            lit(f, hi, "]\\-!^")?;
                        }
                    }
                    f.write_char(']')?;
                }
            }
        }
        Ok(())
    }
}

/// The IR pattern of the glob `text` written at `span`: its regex
/// translation, with the glob kept for display.
///
/// INVARIANT (glob translation): an [`ir::Regex`] with `glob: Some(g)` in
/// an [`ir::IrExprKind::Matches`] has `pattern == parse(g)?.to_regex()`;
/// only this function builds one ([`path_regex_of`] builds those of
/// `path.match`).
pub fn regex_of(text: &str, span: Span) -> Result<ir::Regex, GlobError> {
    let glob = parse(text)?;
    Ok(ir::Regex {
        pattern: glob.to_regex(),
        span,
        glob: Some(text.to_owned()),
    })
}

/// The IR pattern of the path glob `text` of `path.match(p, text)`
/// (`docs/src/semantics.md#paths`): `/` separates segments and is never
/// matched by `*`, `?` or a class; a segment `**` matches any number of
/// whole segments (none included); the glob matches the whole path. Each
/// other segment is a glob of [`parse`]'s syntax.
pub fn path_regex_of(text: &str, span: Span) -> Result<ir::Regex, GlobError> {
    let segments: Vec<&str> = text.split('/').collect();
    let mut out = String::from(r"(?s)\A");
    let mut offset = 0;
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if *segment == "**" {
            out.push_str(if last { ".*" } else { "(?:.*/)?" });
        } else {
            // Offsets into the whole glob, not the element.
            let glob = parse(segment).map_err(|e| GlobError {
                start: e.start + offset,
                end: e.end + offset,
                ..e
            })?;
            glob.segment_regex(&mut out);
            if !last {
                out.push('/');
            }
        }
        offset += segment.len() + 1;
    }
    out.push_str(r"\z");
    Ok(ir::Regex {
        pattern: out,
        span,
        glob: Some(text.to_owned()),
    })
}

impl Glob {
    /// Appends this glob as one path segment's regex: `*`, `?` and classes
    /// never match `/`.
    fn segment_regex(&self, out: &mut String) {
        for p in &self.pieces {
            p.push_regex(out, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the path glob `glob` matches `path`, through its regex.
    fn path_match(glob: &str, path: &str) -> bool {
        let span = Span::new(crate::span::FileId(0), 0, 0);
        let re = path_regex_of(glob, span).unwrap();
        hookc_runtime::verify::compile_regex(&re.pattern)
            .unwrap()
            .is_match(path)
            .unwrap()
    }

    #[test]
    fn path_globs_match_whole_paths_element_by_element() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "**/.env*",
                &[".env", "a/.env.local", "a/b/.env"],
                &["a/env", "a/.en", "x.env"],
            ),
            ("*.rs", &["main.rs", ".rs"], &["src/main.rs", "main.rsx"]),
            (
                "/proj/**",
                &["/proj/a", "/proj/a/b", "/proj/"],
                &["/proj", "/proj2/a"],
            ),
            ("a/?", &["a/b", "a/é"], &["a/bc", "a//", "a/"]),
            ("**/[a-c]*", &["x/apple", "b"], &["x/dog", "x/"]),
            ("a[!x]b", &["acb"], &["a/b", "axb"]),
            ("a/**/b", &["a/b", "a/x/b", "a/x/y/b"], &["ab", "a/xb"]),
            ("**", &["", "a", "a/b/c"], &[]),
        ];
        for (glob, yes, no) in cases {
            for p in *yes {
                assert!(path_match(glob, p), "{glob} should match {p:?}");
            }
            for p in *no {
                assert!(!path_match(glob, p), "{glob} should not match {p:?}");
            }
        }
    }

    #[test]
    fn a_bad_element_is_reported_at_its_place_in_the_whole_glob() {
        let span = Span::new(crate::span::FileId(0), 0, 0);
        let e = path_regex_of("src/**/[z-a]", span).unwrap_err();
        // The reversed range, found in the third element, at its offset in
        // the whole glob.
        assert_eq!(&"src/**/[z-a]"[e.start..e.end], "z-a");
    }

    /// Matches through the regex translation and directly; both must agree.
    fn m(glob: &str, s: &str) -> bool {
        let g = parse(glob).unwrap();
        let re = hookc_runtime::verify::compile_regex(&g.to_regex()).unwrap();
        let direct = g.is_match(s);
        assert_eq!(
            re.is_match(s),
            Ok(direct),
            "glob {glob:?} (regex {:?}) on {s:?}",
            g.to_regex()
        );
        direct
    }

    fn err(glob: &str) -> GlobError {
        parse(glob).unwrap_err()
    }

    #[test]
    fn the_seed_003_matchers() {
        for tool in ["Bash", "Bash(git:status)", "Bash(npm:install)", "Read", ""] {
            assert_eq!(m("Bash", tool), tool == "Bash", "{tool}");
            assert_eq!(m("Bash(git:*)", tool), tool == "Bash(git:status)", "{tool}");
            assert!(m("*", tool), "{tool}");
        }
        assert!(m("Bash(git:*)", "Bash(git:)"));
        assert!(!m("Bash(git:*)", "Bash(git:status"));
        assert!(!m("Bash(git:*)", "xBash(git:status)"));
        assert!(!m("Bash", "bash"), "case-sensitive");
    }

    #[test]
    fn regex_metacharacters_are_literal() {
        assert!(m("a.b", "a.b"));
        assert!(!m("a.b", "axb"));
        assert!(m("a+b|c", "a+b|c"));
        assert!(!m("a+b|c", "aab"));
        assert!(!m("a+b|c", "c"));
        assert!(m("^$(){}#&~-", "^$(){}#&~-"));
        assert!(!m("a{2}", "aa"));
        assert!(m(r"\*\?\[\\", r"*?[\"));
        assert!(!m(r"\*", "x"));
        assert!(m(r"\a", "a"), "an escaped ordinary character is itself");
    }

    #[test]
    fn wildcards() {
        for s in ["", "x", "a/b", "line\nbreak", "日本"] {
            assert!(m("*", s), "{s:?}");
            assert!(m("**", s), "{s:?}");
        }
        assert!(m("?", "é"), "one scalar, two bytes");
        assert!(m("?", "🎉"));
        assert!(!m("?", ""));
        assert!(!m("?", "ab"));
        assert!(m("?", "\n"));
        assert!(m("a*b*c", "abc"));
        assert!(m("a*b*c", "a/xb\nyc"));
        assert!(!m("a*b*c", "acb"));
        assert!(m("*a*", "banana"));
        assert!(m("*ana", "banana"));
        assert!(!m("*anx", "banana"));
        assert!(m("a?*", "ab"));
        assert!(!m("a?*", "a"));
        assert!(m("*?", "x"));
        assert!(!m("*?", ""));
        assert!(m("", ""));
        assert!(!m("", "a"));
        assert!(m("日?語", "日本語"));
    }

    #[test]
    fn classes() {
        assert!(m("[abc]", "b"));
        assert!(!m("[abc]", "d"));
        assert!(m("[a-z]x", "qx"));
        assert!(!m("[a-z]", "Q"));
        assert!(m("[!a-z]", "Q"));
        assert!(m("[^a-z]", "\n"));
        assert!(!m("[!a-z]", "q"));
        assert!(!m("[!a-z]", ""));
        assert!(m("[-a]", "-"));
        assert!(m("[a-]", "-"));
        assert!(m("[!-]", "a"));
        assert!(m("[--]", "-"));
        assert!(m("[-a-c]", "b"));
        assert!(m("[a-c-]", "-"));
        assert!(!m("[-a]", "b"), "a leading `-` starts no range");
        assert!(m(r"[+-\-]", ","));
        assert!(m(r"[\]]", "]"));
        assert!(m(r"[\-]", "-"));
        assert!(m("[[]", "["));
        assert!(m("[&~^]", "^"));
        assert!(m("[&&]", "&"));
        assert!(m("[é-ë]", "ê"));
        assert!(m("[α-ω]*", "σος"));
        assert!(!m("[α-ω]*", "ίσος"), "U+03AF is below α");
        assert!(m("[#]", "#"));
        assert!(m("[0-9][0-9]", "42"));
        assert!(m(r"[\!]", "!"));
        assert!(!m(r"[\!]", "a"));
    }

    #[test]
    fn translation_is_readable() {
        let re = |g: &str| parse(g).unwrap().to_regex();
        assert_eq!(re("Bash"), r"\ABash\z");
        assert_eq!(re("Bash(git:*)"), r"(?s)\ABash\(git:.*\)\z");
        assert_eq!(re("*"), "");
        assert_eq!(re("*.rs"), r"\.rs\z");
        assert_eq!(re("src/*"), r"\Asrc/");
        assert_eq!(re("[!a-c]?"), r"(?s)\A[^a-c].\z");
    }

    #[test]
    fn invalid_globs_say_where() {
        let e = err("Bash(git:[a-z");
        assert_eq!((e.start, e.end), (9, 13));
        assert_eq!(e.reason, "unclosed `[`");
        let e = err(r"ab\");
        assert_eq!((e.start, e.end), (2, 3));
        assert!(e.reason.contains("escapes nothing"));
        let e = err("x[]");
        assert_eq!((e.start, e.end), (1, 3));
        assert_eq!(e.reason, "empty character class");
        assert_eq!(err("[!]").reason, "empty character class");
        let e = err("[z-a]");
        assert_eq!((e.start, e.end), (1, 4));
        assert!(e.reason.contains("out of order"));
        let e = err("[a-c-e]");
        assert_eq!((e.start, e.end), (4, 5));
        assert_eq!(err("[+--]").reason, "`-` that is not a range");
        assert_eq!(err("[a--x]").start, 2);
        assert_eq!(err(r"[a\").reason, "`\\` at the end escapes nothing");
        assert_eq!(err("[a-").reason, "unclosed `[`");
        assert_eq!(err("[").reason, "unclosed `[`");
        assert_eq!(err("é[").start, 2, "byte offsets");
    }

    #[test]
    fn literal_and_prefix_shapes() {
        let g = |s: &str| parse(s).unwrap();
        assert_eq!(g("Bash").as_literal().as_deref(), Some("Bash"));
        assert_eq!(g(r"a\*").as_literal().as_deref(), Some("a*"));
        assert_eq!(g("").as_literal().as_deref(), Some(""));
        assert_eq!(g("a*").as_literal(), None);
        assert_eq!(g("Bash(git:*)").as_prefix(), None);
        assert_eq!(g("Bash(git:**").as_prefix().as_deref(), Some("Bash(git:"));
        assert_eq!(g("*").as_prefix().as_deref(), Some(""));
        assert_eq!(g("a?*").as_prefix(), None);
        assert_eq!(g("[a]*").as_prefix(), None);
    }

    #[test]
    fn display_reads_back() {
        for s in [
            "Bash(git:*)",
            r"[!\]a-z-]?\*",
            r"\\",
            "[^x]",
            "**a",
            r"[\!]",
            r"[\^]",
        ] {
            let g = parse(s).unwrap();
            assert_eq!(parse(&g.to_string()).unwrap(), g, "{s}");
        }
    }

    #[test]
    fn regex_of_keeps_the_glob() {
        let span = Span::new(crate::span::FileId(0), 3, 9);
        let r = regex_of("a*", span).unwrap();
        assert_eq!(r.glob.as_deref(), Some("a*"));
        assert_eq!(r.pattern, r"\Aa");
        assert_eq!(r.span, span);
    }
}
