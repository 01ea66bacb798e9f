//! ASCII groups on the backtracking engine
//! (`docs/src/semantics.md#regular-expressions`): `fancy-regex` has no
//! inline switch of Unicode mode, so a pattern that needs backtracking and
//! turns Unicode off in a group (`(?-u:\b)`, the word boundary of
//! JavaScript and grep) is handed to it with each such group written out in
//! ASCII terms, meaning for meaning:
//!
//! | in a group that turns Unicode off | written as |
//! |---|---|
//! | `\b` | `(?:(?<=W)(?!W)\|(?<!W)(?=W))`, W = `[0-9A-Za-z_]` |
//! | `\B` | `(?:(?<=W)(?=W)\|(?<!W)(?!W))` |
//! | `\w`, `\W` | `[0-9A-Za-z_]`, `[^0-9A-Za-z_]` |
//! | `\d`, `\D` | `[0-9]`, `[^0-9]` |
//! | `\s`, `\S` | `[\t\n\x0B\x0C\r ]`, its negation |
//! | `\w`, `\d`, `\s` in a class | their ASCII ranges |
//!
//! and the group's `-u` dropped (`(?-u:` is `(?:`, `(?s-u:` is `(?s:`, a
//! bare `(?-u)` switches the rest of its group). Everything else is copied
//! as written. What has no such writing is refused with its reason rather
//! than run with Unicode meaning: a negated class escape in a class
//! (`[\W]`), a Unicode class (`\p{L}`, which `regex` refuses without
//! Unicode too), and case-insensitive matching in a pattern with an ASCII
//! group (ASCII case folding differs from Unicode's for `k`, `s`).
//! A pattern the linear engine runs never comes here: `regex` has the
//! switch itself.

use std::borrow::Cow;

/// An ASCII word character, as a class.
const WORD: &str = "[0-9A-Za-z_]";

/// `pattern` with each group that turns Unicode off written in ASCII terms
/// (see the module docs); the pattern itself when it has none.
pub(crate) fn for_backtracking(pattern: &str) -> Result<Cow<'_, str>, String> {
    if !pattern.contains("-u") {
        return Ok(Cow::Borrowed(pattern));
    }
    let mut out = String::with_capacity(pattern.len() + 32);
    // Whether each open group is ASCII, innermost last; the pattern's own
    // level first.
    let mut ascii = vec![false];
    let mut class_depth = 0usize;
    let mut case_insensitive = false;
    let mut rewritten = false;
    let mut chars = pattern.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let in_ascii = ascii.last().copied().unwrap_or(false);
        match c {
            '\\' => {
                let Some((_, e)) = chars.next() else {
                    out.push(c);
                    break;
                };
                let escape = if in_ascii {
                    ascii_escape(e, class_depth > 0)?
                } else {
                    None
                };
                match escape {
                    Some(text) => {
                        out.push_str(text);
                        rewritten = true;
                    }
                    None => {
                        out.push('\\');
                        out.push(e);
                        // `\p{..}`, `\x{..}`: copied to the brace.
                        if matches!(e, 'p' | 'P' | 'x' | 'u' | 'U')
                            && chars.peek().is_some_and(|(_, n)| *n == '{')
                        {
                            if in_ascii && matches!(e, 'p' | 'P') {
                                return Err(format!(
                                    "a Unicode class `\\{e}{{..}}` in a group that turns Unicode off"
                                ));
                            }
                            for (_, b) in chars.by_ref() {
                                out.push(b);
                                if b == '}' {
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            '[' => {
                class_depth += 1;
                out.push(c);
                // A `]` (or `^]`) first in a class is a literal.
                if chars.peek().is_some_and(|(_, n)| *n == '^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek().is_some_and(|(_, n)| *n == ']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                out.push(c);
            }
            '(' if class_depth == 0 => {
                let rest = pattern.get(at + 1..).unwrap_or("");
                match flags_of(rest) {
                    Some(flags) => {
                        case_insensitive |= flags.on.contains('i');
                        // Skip the header as written; write it without `u`.
                        for _ in 0..flags.len {
                            chars.next();
                        }
                        let switched = if flags.off.contains('u') {
                            Some(true)
                        } else if flags.on.contains('u') {
                            Some(false)
                        } else {
                            None
                        };
                        rewritten |= switched.is_some();
                        out.push_str(&flags.written());
                        let mode = switched.unwrap_or(in_ascii);
                        if flags.group {
                            ascii.push(mode);
                        } else if let Some(top) = ascii.last_mut() {
                            // `(?-u)`: the rest of the enclosing group.
                            *top = mode;
                        }
                    }
                    None => {
                        out.push(c);
                        ascii.push(in_ascii);
                    }
                }
            }
            ')' if class_depth == 0 => {
                if ascii.len() > 1 {
                    ascii.pop();
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if !rewritten {
        return Ok(Cow::Borrowed(pattern));
    }
    if case_insensitive {
        return Err(
            "case-insensitive matching (`(?i)`) with a group that turns Unicode off, in \
                    a pattern that needs backtracking: ASCII case folding is not Unicode's"
                .to_owned(),
        );
    }
    Ok(Cow::Owned(out))
}

/// The ASCII writing of escape `\e` in an ASCII group (inside a class when
/// `in_class`), or `None` when it is copied as written.
fn ascii_escape(e: char, in_class: bool) -> Result<Option<&'static str>, String> {
    Ok(Some(match (e, in_class) {
        ('b', false) => "(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))",
        ('B', false) => "(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))",
        ('w', false) => WORD,
        ('W', false) => "[^0-9A-Za-z_]",
        ('d', false) => "[0-9]",
        ('D', false) => "[^0-9]",
        ('s', false) => "[\\t\\n\\x0B\\x0C\\r ]",
        ('S', false) => "[^\\t\\n\\x0B\\x0C\\r ]",
        ('w', true) => "0-9A-Za-z_",
        ('d', true) => "0-9",
        ('s', true) => "\\t\\n\\x0B\\x0C\\r ",
        ('W' | 'D' | 'S', true) => {
            return Err(format!(
                "`\\{e}` in a class of a group that turns Unicode off, in a pattern that needs \
                 backtracking: write the class out (`[^0-9A-Za-z_]`)"
            ))
        }
        _ => return Ok(None),
    }))
}

/// The flags of a group header `?FLAGS:` or `?FLAGS)` after a `(`.
struct Flags<'p> {
    /// The flags set (`i`, `s`, ...).
    on: &'p str,
    /// The flags cleared, after `-`.
    off: &'p str,
    /// Whether it opens a group (`:`) rather than switching the rest of
    /// the enclosing one (`)`).
    group: bool,
    /// The header's length in characters, after the `(`: `?`, the flags,
    /// the `:` or `)`.
    len: usize,
}

impl Flags<'_> {
    /// The header as `fancy-regex` reads it: the `(`, and the flags
    /// without `u`; no flags left is a plain group (or nothing, for a bare
    /// switch).
    fn written(&self) -> String {
        let on: String = self.on.chars().filter(|&c| c != 'u').collect();
        let off: String = self.off.chars().filter(|&c| c != 'u').collect();
        let flags = if off.is_empty() {
            on
        } else {
            format!("{on}-{off}")
        };
        match (flags.is_empty(), self.group) {
            (true, true) => "(?:".to_owned(),
            (true, false) => String::new(),
            (false, true) => format!("(?{flags}:"),
            (false, false) => format!("(?{flags})"),
        }
    }
}

/// The flag header at the start of `rest` (the text after a `(`), if it is
/// one: `?`, flag letters with at most one `-`, then `:` or `)`.
fn flags_of(rest: &str) -> Option<Flags<'_>> {
    let body = rest.strip_prefix('?')?;
    let end = body.find([':', ')'])?;
    let flags = body.get(..end)?;
    if flags.is_empty() || !flags.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
        return None;
    }
    let (on, off) = flags.split_once('-').unwrap_or((flags, ""));
    if off.contains('-') {
        return None;
    }
    Some(Flags {
        on,
        off,
        group: body.get(end..).is_some_and(|t| t.starts_with(':')),
        len: 1 + flags.chars().count() + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_groups_are_written_out_and_the_rest_is_kept() {
        let w = |p: &str| for_backtracking(p).unwrap().into_owned();
        assert_eq!(w(r"a(?=b)"), r"a(?=b)");
        assert_eq!(w(r"(?-u:\w+)(?=x)"), r"(?:[0-9A-Za-z_]+)(?=x)");
        assert_eq!(w(r"(?s-u:.\d)(?!y)"), r"(?s:.[0-9])(?!y)");
        assert_eq!(w(r"(?-u:[\w.])(?=x)"), r"(?:[0-9A-Za-z_.])(?=x)");
        // A bare switch: the rest of its group, not past it.
        assert_eq!(w(r"(a(?-u)\d)\d(?=x)"), r"(a[0-9])\d(?=x)");
        // Escapes elsewhere are copied, `\p{..}` whole.
        assert_eq!(
            w(r"\p{L}(?-u:\s)(?<=a)"),
            r"\p{L}(?:[\t\n\x0B\x0C\r ])(?<=a)"
        );
        // Unicode back on inside an ASCII group.
        assert_eq!(w(r"(?-u:\d(?u:\d))(?=x)"), r"(?:[0-9](?:\d))(?=x)");
    }

    /// Random patterns of ASCII-group pieces against random haystacks
    /// with non-ASCII characters: `fancy-regex` on the written-out pattern
    /// (made to need backtracking by an empty look-ahead, which always
    /// holds) answers as `regex` on the pattern as written.
    #[test]
    fn written_out_groups_mean_what_regex_means() {
        const PIECES: &[&str] = &[
            r"\b",
            r"\B",
            r"\w",
            r"\W",
            r"\d",
            r"\D",
            r"\s",
            r"\S",
            r"[\w.]",
            r"[\d\s]",
            "a",
            "é",
            "1",
            "_",
            " ",
            r"\w+",
            r"(?:\b|x)",
        ];
        const CHARS: &[char] = &['a', 'é', '1', '_', ' ', '-', '\n', 'ß', 'Z', '٣', '\u{a0}'];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut compared = 0;
        for _ in 0..400 {
            let body: String = (0..1 + next(4))
                .map(|_| PIECES[next(PIECES.len())])
                .collect();
            let pattern = format!("(?-u:{body})");
            let Ok(linear) = regex::Regex::new(&pattern) else {
                continue;
            };
            let backtracking = format!("{pattern}(?=)");
            let written = for_backtracking(&backtracking).unwrap();
            let fancy =
                fancy_regex::Regex::new(&written).unwrap_or_else(|e| panic!("{written}: {e}"));
            for _ in 0..20 {
                let hay: String = (0..next(6)).map(|_| CHARS[next(CHARS.len())]).collect();
                assert_eq!(
                    fancy.is_match(&hay).unwrap(),
                    linear.is_match(&hay),
                    "{pattern} on {hay:?} (written {written})"
                );
            }
            compared += 1;
        }
        // `regex` refuses a negated class without Unicode on a `str`
        // (it could match half a character): most patterns remain.
        assert!(compared > 150, "only {compared} patterns compared");
    }

    #[test]
    fn what_has_no_ascii_writing_is_refused() {
        let e = |p: &str| for_backtracking(p).unwrap_err();
        assert!(e(r"(?-u:[\W])(?=x)").contains("write the class out"));
        assert!(e(r"(?-u:\p{L})(?=x)").contains("Unicode class"));
        assert!(e(r"(?i)(?-u:\b)k(?=x)").contains("case-insensitive"));
    }

    #[test]
    fn the_backtracking_engine_matches_ascii_word_boundaries() {
        let re = |p: &str| {
            fancy_regex::Regex::new(&for_backtracking(p).unwrap())
                .unwrap_or_else(|e| panic!("{p}: {e}"))
        };
        // JavaScript's `\b`: `é` is no word character for it, so `caf`
        // ends at a boundary in `café`; for Unicode `é` is one.
        let ascii = re(r"(?-u:\b)caf(?-u:\b)(?!x)");
        let unicode = re(r"\bcaf\b(?!x)");
        assert!(ascii.is_match("café").unwrap());
        assert!(!unicode.is_match("café").unwrap());
        assert!(ascii.is_match("a caf b").unwrap());
        assert!(!ascii.is_match("cafe").unwrap());
        // The same answers as `regex` on the ASCII group alone.
        let linear = regex::Regex::new(r"(?-u:\b)caf(?-u:\b)").unwrap();
        for hay in ["café", "caf", "xcaf", "caf_", "caf-", "é caf é", "cafe"] {
            assert_eq!(
                re(r"(?-u:\b)caf(?-u:\b)(?!zz)").is_match(hay).unwrap(),
                linear.is_match(hay),
                "{hay}"
            );
        }
    }
}
