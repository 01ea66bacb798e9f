//! W0024: a Unicode word boundary (`\b`, `\B`, `\b{start}`...) next to a
//! part of the pattern that matches non-ASCII characters
//! (`docs/src/semantics.md`, "The dialect").
//!
//! hookc's `\b` is Rust's: Unicode, so `é` is a word character. The
//! JavaScript and grep patterns that policies are ported from have an
//! ASCII `\b`, where it is not. Beside an ASCII part of the pattern the
//! two agree on the pattern's own side; beside a class or a literal that
//! matches non-ASCII characters (`\w`, `.`, `[^\s]`, `é`), where the
//! boundary falls depends on which dialect was meant, and a port silently
//! matches other text. `(?-u:\b)` is the ASCII boundary; `(?u:\b)` says the
//! Unicode one is meant, and is not reported.
//!
//! The pattern is read with `regex-syntax` (what the linear engine
//! parses); a pattern it cannot read (look-around, backreferences) is not
//! reported.

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The part of `pattern` that stands beside a Unicode word boundary and
/// matches non-ASCII characters, as a message names it; `None` when there
/// is none, when the pattern says `(?u` (the Unicode boundary is meant),
/// or when `regex-syntax` cannot read it.
pub(crate) fn beside_non_ascii(pattern: &str) -> Option<String> {
    if pattern.contains("(?u") {
        return None;
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut found = None;
    find(&hir, &mut found);
    found
}

/// W0024 for a pattern written at `span` with `part` (from
/// [`beside_non_ascii`]) beside a Unicode word boundary. The message does
/// not repeat the pattern: the snippet shows it.
pub(crate) fn diagnostic(part: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Code::UnicodeWordBoundary,
        format!(
            "the regex has a Unicode word boundary next to {part}, which matches non-ASCII \
             characters: JavaScript's and grep's `\\b` is ASCII, hookc's (Rust's) is \
             Unicode, so a ported pattern matches other text"
        ),
    )
    .at(span)
    .label("a Unicode `\\b` beside non-ASCII characters")
    .help(
        "write `(?-u:\\b)` for the ASCII boundary of JavaScript and grep, or `(?u:\\b)` \
         to say the Unicode one is meant",
    )
}

/// Whether `look` is a Unicode word assertion.
fn unicode_word(look: Look) -> bool {
    matches!(
        look,
        Look::WordUnicode
            | Look::WordUnicodeNegate
            | Look::WordStartUnicode
            | Look::WordEndUnicode
            | Look::WordStartHalfUnicode
            | Look::WordEndHalfUnicode
    )
}

/// Finds the first concatenation where a Unicode word assertion stands
/// next to a part that can match a non-ASCII character, naming that part.
fn find(hir: &Hir, found: &mut Option<String>) {
    if found.is_some() {
        return;
    }
    match hir.kind() {
        HirKind::Concat(parts) => {
            for (i, part) in parts.iter().enumerate() {
                let HirKind::Look(look) = part.kind() else {
                    continue;
                };
                if !unicode_word(*look) {
                    continue;
                }
                let before = i.checked_sub(1).and_then(|j| parts.get(j));
                let after = parts.get(i + 1);
                let wide = before
                    .filter(|p| non_ascii(p, End::Last))
                    .or(after.filter(|p| non_ascii(p, End::First)));
                if let Some(part) = wide {
                    *found = Some(describe(part));
                    return;
                }
            }
            parts.iter().for_each(|p| find(p, found));
        }
        HirKind::Alternation(alts) => alts.iter().for_each(|p| find(p, found)),
        HirKind::Repetition(r) => find(&r.sub, found),
        HirKind::Capture(c) => find(&c.sub, found),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

/// Which end of a part touches the boundary.
#[derive(Clone, Copy)]
enum End {
    First,
    Last,
}

/// Whether the character of `hir` at `side` can be non-ASCII.
fn non_ascii(hir: &Hir, side: End) -> bool {
    match hir.kind() {
        HirKind::Literal(lit) => {
            let text = String::from_utf8_lossy(&lit.0);
            let c = match side {
                End::First => text.chars().next(),
                End::Last => text.chars().last(),
            };
            c.is_some_and(|c| !c.is_ascii())
        }
        HirKind::Class(Class::Unicode(class)) => class.ranges().iter().any(|r| r.end() > '\x7f'),
        HirKind::Class(Class::Bytes(class)) => class.ranges().iter().any(|r| r.end() > 0x7f),
        HirKind::Repetition(r) => non_ascii(&r.sub, side),
        HirKind::Capture(c) => non_ascii(&c.sub, side),
        HirKind::Concat(parts) => {
            let end = match side {
                End::First => parts.first(),
                End::Last => parts.last(),
            };
            end.is_some_and(|p| non_ascii(p, side))
        }
        HirKind::Alternation(alts) => alts.iter().any(|p| non_ascii(p, side)),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// A part of a pattern as a message names it.
fn describe(hir: &Hir) -> String {
    match hir.kind() {
        HirKind::Literal(lit) => format!("`{}`", String::from_utf8_lossy(&lit.0)),
        HirKind::Class(_) => "a character class".to_owned(),
        HirKind::Repetition(r) => describe(&r.sub),
        HirKind::Capture(c) => describe(&c.sub),
        _ => "a part".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::beside_non_ascii;

    fn reported(pattern: &str) -> bool {
        beside_non_ascii(pattern).is_some()
    }

    #[test]
    fn a_unicode_boundary_beside_non_ascii_is_reported() {
        for p in [
            r"\b\w+",
            r"\w+\b",
            r"\bcafé\b",
            r"é\b",
            r"\b.",
            r"\b[^\s]+",
            r"x|\B\w",
        ] {
            assert!(reported(p), "{p}");
        }
    }

    #[test]
    fn ascii_neighbours_and_explicit_flags_are_not() {
        for p in [
            r"\brm\b",
            r"\b[a-z]+\b",
            r"(?-u:\b)\w+",
            r"(?u:\b)\w+",
            r"(?-u:\w+\b)",
            r"^\w+$",
            r"(?<=a)\b\w",
        ] {
            assert!(!reported(p), "{p}");
        }
    }
}
