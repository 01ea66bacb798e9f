//! The byte-level helpers of the scanner: operator, name and assignment
//! lengths, where arithmetic and balanced parentheses end, `$'...'`
//! escapes, and what a command's words say of its program.

use super::*;

/// Appends `$'...'`'s text, escapes decoded, to `out`.
pub(super) fn decode_ansi_c(inner: &str, out: &mut String) {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max, first) = match e {
            '0'..='7' => (8, 3, Some(e)),
            'x' => (16, 2, None),
            'u' => (16, 4, None),
            'U' => (16, 8, None),
            'c' => {
                // `\cX`: the control character of X.
                match chars.next() {
                    Some(x) => out.push(char::from((x as u32 & 0x1f) as u8)),
                    None => out.push_str("\\c"),
                }
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut digits = String::new();
        if let Some(f) = first {
            digits.push(f);
        }
        while digits.len() < max {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        match u32::from_str_radix(&digits, radix) {
            // Octal and `\x` give a byte; as text, its Latin-1 character.
            Ok(v) if e == 'x' || first.is_some() => out.push(char::from((v & 0xff) as u8)),
            Ok(v) => out.push(char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER)),
            Err(_) => {
                out.push('\\');
                out.push(e);
            }
        }
    }
}

/// How a `((` ends.
pub(super) enum ArithEnd {
    /// At `))`; the position after it.
    End(usize),
    /// At a `)` not followed by `)`: not arithmetic.
    NotArithmetic,
    /// Never.
    Eof,
}

/// Scans arithmetic from `from` (after `((` or `$((`) to the `))` at
/// nesting zero.
/// The length of an unquoted `$IFS` or `${IFS}` at the start of `rest`
/// (`$IFS` not followed by a name character: `$IFSX` is another
/// variable); 0 when there is none.
pub(super) fn ifs_len(rest: &[u8]) -> usize {
    if rest.starts_with(b"${IFS}") {
        return 6;
    }
    match rest.strip_prefix(b"$IFS") {
        Some(after)
            if !after
                .first()
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
        {
            4
        }
        _ => 0,
    }
}

pub(super) fn arithmetic_end(bytes: &[u8], from: usize) -> ArithEnd {
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => {
                return if bytes.get(i + 1) == Some(&b')') {
                    ArithEnd::End(i + 2)
                } else {
                    ArithEnd::NotArithmetic
                };
            }
            b')' => depth -= 1,
            b'\\' => i += 1,
            b'\'' | b'"' => match memchr::memchr(b, bytes.get(i + 1..).unwrap_or_default()) {
                Some(len) => i += len + 1,
                None => return ArithEnd::Eof,
            },
            _ => {}
        }
        i += 1;
    }
    ArithEnd::Eof
}

/// The position after the `)` closing a `(` whose inside starts at `from`.
pub(super) fn balanced_paren_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(i + 1),
            b')' => depth -= 1,
            b'\\' => i += 1,
            b'\'' | b'"' => i += memchr::memchr(b, bytes.get(i + 1..).unwrap_or_default())? + 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The length of the operator at the start of `rest` inside `[[ ]]`
/// (where operators are words), 0 if none.
pub(super) fn operator_len(rest: &[u8]) -> usize {
    match rest {
        [b'&', b'&', ..] | [b'|', b'|', ..] | [b'<', b'<', ..] | [b'>', b'>', ..] => 2,
        [b'(' | b')' | b'<' | b'>' | b'&' | b'|' | b';', ..] => 1,
        _ => 0,
    }
}

/// The length of `NAME` when `raw` starts with `NAME=` or `NAME+=`.
/// The length of the shell name (`[A-Za-z_][A-Za-z0-9_]*`) at the start of
/// `bytes`, 0 when none.
pub(super) fn name_len(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count(),
        _ => 0,
    }
}

pub(super) fn assignment_name_len(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let first = b.first()?;
    if !(first.is_ascii_alphabetic() || *first == b'_') {
        return None;
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    match (b.get(n), b.get(n + 1)) {
        (Some(b'='), _) | (Some(b'+'), Some(b'=')) => Some(n),
        _ => None,
    }
}

/// Whether `raw` is exactly `NAME=` or `NAME+=`.
pub(super) fn is_assignment_prefix(raw: &str) -> bool {
    assignment_name_len(raw)
        .is_some_and(|n| raw.len() == n + 1 || raw.len() == n + 2 && raw.ends_with("+="))
}

/// `argv[0]` without its directory.
/// The text `printf FORMAT` prints for a format without `%`: its `\n`,
/// `\t` and `\\` decoded; `None` for any other escape, which is not
/// guessed.
pub(super) fn printf_text<'s>(format: &Cow<'s, str>) -> Option<Cow<'s, str>> {
    if !format.contains('\\') {
        return Some(format.clone());
    }
    let mut out = String::with_capacity(format.len());
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            '\\' => out.push('\\'),
            _ => return None,
        }
    }
    Some(Cow::Owned(out))
}

/// Whether a command's program name is only known when it runs: a `$` or
/// `` ` `` is left in it (an expansion not known on the line) or a glob
/// character (`/bin/r?`, `/???/rm`).
pub(super) fn is_dynamic(argv: &[Cow<'_, str>]) -> bool {
    argv.first().is_some_and(|p| {
        p.contains(['$', '`', '*', '?']) || p.contains('[') && !matches!(&**p, "[" | "[[")
    })
}

pub(super) fn program_of<'s>(argv: &[Cow<'s, str>]) -> Cow<'s, str> {
    match argv.first() {
        None => Cow::Borrowed(""),
        Some(Cow::Borrowed(a)) => Cow::Borrowed(unwrap::basename(a)),
        Some(Cow::Owned(a)) => Cow::Owned(unwrap::basename(a).to_owned()),
    }
}
