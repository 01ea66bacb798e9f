//! String functions of the `when` language, with the semantics of CEL's
//! strings extension (`lowerAscii`, `upperAscii`, `trim`, `split`,
//! `replace`, `substring`, `indexOf`, `lastIndexOf`, `join`), plus hookc's
//! own [`truncate`] for building messages.
//!
//! Every index, offset and length counts Unicode code points (Rust `char`s),
//! never bytes, as CEL does: `'héllo'.indexOf('l')` is 2. Functions that
//! return part of their input borrow it; nothing here allocates unless the
//! result is a new string or a list.
//!
//! Where CEL's reference implementation (cel-go, which cel-java follows)
//! has behaviour its own documentation does not describe, this module
//! follows the documentation and says so on the function: see
//! [`index_of`] and [`last_index_of`].

use crate::value::EvalError;
use std::borrow::Cow;

/// `s.lowerAscii()`: `s` with ASCII letters `A`–`Z` lowered; every other
/// code point, including non-ASCII letters (`Æ`, `É`), is left as it is.
/// Borrows `s` when it has no ASCII capital.
pub fn lower_ascii(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// `s.upperAscii()`: `s` with ASCII letters `a`–`z` raised; every other
/// code point, including non-ASCII letters (`æ`, `é`), is left as it is.
/// Borrows `s` when it has no ASCII small letter.
pub fn upper_ascii(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_lowercase()) {
        Cow::Owned(s.to_ascii_uppercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// `s.trim()`: `s` without leading and trailing whitespace, whitespace
/// being the code points with the Unicode `White_Space` property (space,
/// tab, newlines, NBSP, U+3000 ideographic space, …). Zero-width spaces
/// (U+200B) are not `White_Space` and stay, as in CEL.
pub fn trim(s: &str) -> &str {
    // `str::trim` removes exactly the `White_Space` code points
    // (`char::is_whitespace`), the set Go's `unicode.IsSpace` (cel-go's
    // `strings.TrimSpace`) uses.
    s.trim()
}

/// Converts a CEL limit to a maximum number of parts or replacements:
/// `None` for "no limit" (absent or negative), `Some(n)` otherwise.
fn limit_of(limit: Option<i64>) -> Option<usize> {
    match limit {
        None => None,
        Some(n) if n < 0 => None,
        // An i64 beyond usize (32-bit targets) is as good as no limit.
        Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
    }
}

/// `s.split(sep)` and `s.split(sep, limit)`: the parts of `s` between
/// occurrences of `sep`, left to right.
///
/// As in CEL (Go's `strings.SplitN`):
/// - `limit` absent or negative: every part;
/// - `limit` 0: the empty list;
/// - `limit` n > 0: at most n parts, the last holding the unsplit rest;
/// - an empty `sep` splits `s` into its code points (`'abc'.split('')` is
///   `['a', 'b', 'c']`, and `''.split('')` is `[]`);
/// - a non-empty `sep` on an empty `s` gives `['']`.
pub fn split<'s>(s: &'s str, sep: &str, limit: Option<i64>) -> Vec<&'s str> {
    let max = limit_of(limit);
    if max == Some(0) {
        return Vec::new();
    }
    if sep.is_empty() {
        return split_code_points(s, max.unwrap_or(usize::MAX));
    }
    match max {
        None => s.split(sep).collect(),
        Some(n) => s.splitn(n, sep).collect(),
    }
}

/// Splits `s` into its code points, at most `max` (>= 1) parts, the last
/// holding the rest: Go's `explode`.
fn split_code_points(s: &str, max: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if parts.len().saturating_add(1) >= max {
            parts.push(rest);
            break;
        }
        // Always a char boundary: the length of the first char.
        let Some((head, tail)) = rest.split_at_checked(c.len_utf8()) else {
            parts.push(rest);
            break;
        };
        parts.push(head);
        rest = tail;
    }
    parts
}

/// `s.replace(old, new)` and `s.replace(old, new, limit)`: `s` with the
/// occurrences of `old`, left to right and not overlapping, replaced by
/// `new`.
///
/// As in CEL (Go's `strings.Replace`): `limit` absent or negative replaces
/// every occurrence, 0 none, n the first n. An empty `old` matches at the
/// start and after every code point (`'ab'.replace('', '-')` is `'-a-b-'`).
/// Borrows `s` when nothing is replaced.
pub fn replace<'s>(s: &'s str, old: &str, new: &str, limit: Option<i64>) -> Cow<'s, str> {
    let max = limit_of(limit);
    if max == Some(0) || old == new || !s.contains(old) {
        return Cow::Borrowed(s);
    }
    // Rust's empty pattern matches at every char boundary, start and end
    // included: the same places as Go's empty `old`.
    match max {
        None => Cow::Owned(s.replace(old, new)),
        Some(n) => Cow::Owned(s.replacen(old, new, n)),
    }
}

/// The byte offset of code point `index` of `s` (`s.len()` for the index
/// one past the last code point), or `None` when `index` is negative or
/// beyond that.
fn byte_offset(s: &str, index: i64) -> Option<usize> {
    let index = usize::try_from(index).ok()?;
    s.char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(s.len()))
        .nth(index)
}

/// The number of code points of `s`, as a CEL int.
fn code_points(s: &str) -> i64 {
    // A `&str` is at most isize::MAX bytes, so its count of chars fits.
    i64::try_from(s.chars().count()).unwrap_or(i64::MAX)
}

/// `s.substring(start)` and `s.substring(start, end)`: the code points of
/// `s` from index `start` (inclusive) to `end` (exclusive; the end of `s`
/// when absent).
///
/// As in CEL: `start` and `end` may each be anything from 0 to the length
/// of `s` in code points (so `'abc'.substring(3)` is `''`); a negative or
/// larger index, or `start > end`, is [`EvalError::IndexOutOfRange`].
pub fn substring(s: &str, start: i64, end: Option<i64>) -> Result<&str, EvalError> {
    if let Some(end) = end {
        if start > end {
            return Err(EvalError::IndexOutOfRange);
        }
    }
    let from = byte_offset(s, start).ok_or(EvalError::IndexOutOfRange)?;
    let to = match end {
        None => s.len(),
        Some(end) => byte_offset(s, end).ok_or(EvalError::IndexOutOfRange)?,
    };
    s.get(from..to).ok_or(EvalError::IndexOutOfRange)
}

/// `s.indexOf(sub)` and `s.indexOf(sub, from)`: the code-point index of
/// the first occurrence of `sub` in `s` that starts at or after `from`
/// (0 when absent), or -1 when there is none.
///
/// An empty `sub` is found where the search starts: `from`, or 0. `from`
/// may be anything from 0 to the length of `s` in code points; outside
/// that it is [`EvalError::IndexOutOfRange`].
///
/// This is CEL's documented behaviour. cel-go differs at three edges, on
/// which this follows the documentation instead: it fails when `s` is
/// empty and `sub` is not even without an offset (`''.indexOf('a')`,
/// here -1); it rejects `from` equal to the length (here a search that
/// finds only `''`); and with an empty `sub` it returns `from` unchecked
/// (`'ab'.indexOf('', 9)` is 9 there, an error here).
pub fn index_of(s: &str, sub: &str, from: Option<i64>) -> Result<i64, EvalError> {
    let start = byte_offset(s, from.unwrap_or(0)).ok_or(EvalError::IndexOutOfRange)?;
    let rest = s.get(start..).ok_or(EvalError::IndexOutOfRange)?;
    // Byte search finds the same occurrences as a search over code points:
    // UTF-8 is self-synchronizing, so a match of a valid `sub` starts and
    // ends on char boundaries.
    match rest.find(sub) {
        None => Ok(-1),
        Some(at) => {
            let before = s
                .get(..start.saturating_add(at))
                .ok_or(EvalError::IndexOutOfRange)?;
            Ok(code_points(before))
        }
    }
}

/// `s.lastIndexOf(sub)` and `s.lastIndexOf(sub, from)`: the code-point
/// index of the last occurrence of `sub` in `s` that starts at or before
/// `from` (the length of `s` when absent), or -1 when there is none.
///
/// An empty `sub` is found where the search starts: `from`, or the length
/// of `s` (`'hello'.lastIndexOf('')` is 5). `from` may be anything from 0
/// to the length of `s` in code points; outside that it is
/// [`EvalError::IndexOutOfRange`].
///
/// As for [`index_of`], this follows CEL's documentation where cel-go
/// differs: `''.lastIndexOf('a')` is -1 (an error in cel-go), `from` equal
/// to the length is accepted, and an empty `sub` with `from` out of range
/// is an error (cel-go returns `from`).
pub fn last_index_of(s: &str, sub: &str, from: Option<i64>) -> Result<i64, EvalError> {
    let len = code_points(s);
    let from = from.unwrap_or(len);
    if from < 0 || from > len {
        return Err(EvalError::IndexOutOfRange);
    }
    // An occurrence starting at code point `from` or earlier ends by code
    // point `from + |sub|`: search the prefix up to there (clamped to `s`)
    // from its end. Every occurrence inside that prefix starts at `from`
    // or earlier, so the last one in it is the answer.
    let end_cp = from.saturating_add(code_points(sub)).min(len);
    let end = byte_offset(s, end_cp).ok_or(EvalError::IndexOutOfRange)?;
    let prefix = s.get(..end).ok_or(EvalError::IndexOutOfRange)?;
    match prefix.rfind(sub) {
        None => Ok(-1),
        Some(at) => {
            let before = s.get(..at).ok_or(EvalError::IndexOutOfRange)?;
            Ok(code_points(before))
        }
    }
}

/// `list.join()` and `list.join(sep)`: the items concatenated, with `sep`
/// between each two (CEL's `join`; `join()` is `join('')`). An empty list
/// gives `''`.
pub fn join<I, S>(items: I, sep: &str) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_ref());
    }
    out
}

/// hookc's own, not CEL's: the first `max_chars` code points of `s`, or
/// all of `s` when it is no longer, for messages such as "the command
/// (first 80 chars)". CEL's `substring(0, n)` fails when `s` is shorter
/// than `n`; this does not.
///
/// It cuts between code points, never inside one; a grapheme cluster
/// (an emoji with a modifier, a letter with a combining accent) may be
/// cut. A negative `max_chars` is [`EvalError::InvalidArgument`].
pub fn truncate(s: &str, max_chars: i64) -> Result<&str, EvalError> {
    let max = usize::try_from(max_chars).map_err(|_| EvalError::InvalidArgument)?;
    match s.char_indices().nth(max) {
        None => Ok(s),
        Some((at, _)) => s.get(..at).ok_or(EvalError::InvalidArgument),
    }
}

/// Longest string, in code points, that [`closest`] compares: names are
/// far shorter, and the comparison's cost grows with the square of it.
const MAX_CLOSEST_CHARS: usize = 256;

/// `s.closest(list, max)`: the first item of `items` at the least edit
/// distance from `s` (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours, by code point), if it is at
/// most `max`. A negative `max` is [`EvalError::InvalidArgument`].
pub fn closest<'i, I>(s: &str, items: I, max: i64) -> Result<Option<&'i str>, EvalError>
where
    I: IntoIterator<Item = &'i str>,
{
    let max = usize::try_from(max).map_err(|_| EvalError::InvalidArgument)?;
    let a: Vec<char> = s.chars().take(MAX_CLOSEST_CHARS + 1).collect();
    if a.len() > MAX_CLOSEST_CHARS {
        return Ok(None);
    }
    let mut best: Option<(usize, &str)> = None;
    for item in items {
        let b: Vec<char> = item.chars().take(MAX_CLOSEST_CHARS + 1).collect();
        // Lengths further apart than the bound cannot be within it.
        if b.len() > MAX_CLOSEST_CHARS || a.len().abs_diff(b.len()) > max {
            continue;
        }
        let d = edit_distance(&a, &b);
        if d <= max && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, item));
        }
    }
    Ok(best.map(|(_, item)| item))
}

/// The optimal-string-alignment distance of `a` and `b`: the classic
/// dynamic program, row by row, keeping the two rows before the current
/// one (a swap of neighbours looks two rows back).
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut above: Vec<usize> = (0..=b.len()).collect();
    // The three rows rotate: no allocation per row.
    let mut row: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for (i, ca) in a.iter().enumerate() {
        row.clear();
        row.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            // above[j] is d(i-1, j-1), above[j + 1] is d(i-1, j), row[j] is
            // d(i, j-1), before[j - 1] is d(i-2, j-2).
            let diagonal = above.get(j).copied().unwrap_or(0) + usize::from(ca != cb);
            let up = above.get(j + 1).copied().unwrap_or(0) + 1;
            let left = row.last().copied().unwrap_or(0) + 1;
            let mut d = diagonal.min(up).min(left);
            let swapped = i > 0 && j > 0 && b.get(j - 1) == Some(ca) && a.get(i - 1) == Some(cb);
            if swapped {
                d = d.min(before.get(j - 1).copied().unwrap_or(0) + 1);
            }
            row.push(d);
        }
        std::mem::swap(&mut before, &mut above);
        std::mem::swap(&mut above, &mut row);
    }
    above.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use EvalError::{IndexOutOfRange, InvalidArgument};

    #[test]
    fn closest_finds_a_name_one_typo_away() {
        let known = ["requests", "numpy", "react", "lodash"];
        assert_eq!(closest("reqeusts", known, 1), Ok(Some("requests")));
        assert_eq!(closest("requests", known, 1), Ok(Some("requests")));
        assert_eq!(closest("numpyy", known, 1), Ok(Some("numpy")));
        assert_eq!(closest("lodahs", known, 1), Ok(Some("lodash")));
        assert_eq!(closest("reac", known, 1), Ok(Some("react")));
        assert_eq!(closest("flask", known, 1), Ok(None));
        assert_eq!(closest("rqeuests", known, 1), Ok(Some("requests")));
        assert_eq!(closest("", known, 1), Ok(None));
        assert_eq!(closest("x", known, -1), Err(InvalidArgument));
        assert_eq!(closest(&"a".repeat(300), ["a"], 1000), Ok(None));
        assert_eq!(edit_distance(&['a', 'b'], &['b', 'a']), 1);
        assert_eq!(
            edit_distance(
                &['k', 'i', 't', 't', 'e', 'n'],
                &['s', 'i', 't', 't', 'i', 'n', 'g']
            ),
            3
        );
    }

    #[test]
    fn lower_and_upper_ascii_touch_ascii_letters_only() {
        assert_eq!(lower_ascii("TacoCat"), "tacocat");
        assert_eq!(lower_ascii("TacoCÆt Xii"), "tacocÆt xii");
        assert_eq!(upper_ascii("TacoCat"), "TACOCAT");
        assert_eq!(upper_ascii("TacoCÆt Xii"), "TACOCÆT XII");
        assert_eq!(upper_ascii("éß日本"), "éß日本");
        assert_eq!(lower_ascii("ÉÀ"), "ÉÀ");
        assert_eq!(lower_ascii(""), "");
        assert_eq!(upper_ascii(""), "");
        assert_eq!(lower_ascii("A1-Z_😀"), "a1-z_😀");
    }

    #[test]
    fn lower_and_upper_ascii_borrow_when_nothing_changes() {
        assert!(matches!(lower_ascii("already lower é"), Cow::Borrowed(_)));
        assert!(matches!(upper_ascii("ALREADY UPPER É"), Cow::Borrowed(_)));
        assert!(matches!(lower_ascii("Changed"), Cow::Owned(_)));
        assert!(matches!(upper_ascii("changed"), Cow::Owned(_)));
    }

    #[test]
    fn trim_removes_unicode_white_space_only() {
        assert_eq!(trim("  \ttrim\n    "), "trim");
        assert_eq!(trim(""), "");
        assert_eq!(trim(" \t\n\r\u{b}\u{c} "), "");
        // NEL, NBSP, ideographic space, line separator: White_Space.
        assert_eq!(trim("\u{85}\u{a0}x\u{3000}\u{2028}"), "x");
        // Zero-width space and BOM are not White_Space.
        assert_eq!(trim("\u{200b}x\u{feff}"), "\u{200b}x\u{feff}");
        assert_eq!(trim(" a b "), "a b");
    }

    #[test]
    fn split_follows_cel_examples() {
        let s = "hello hello hello";
        assert_eq!(split(s, " ", None), ["hello", "hello", "hello"]);
        assert_eq!(split(s, " ", Some(0)), Vec::<&str>::new());
        assert_eq!(split(s, " ", Some(1)), ["hello hello hello"]);
        assert_eq!(split(s, " ", Some(2)), ["hello", "hello hello"]);
        assert_eq!(split(s, " ", Some(-1)), ["hello", "hello", "hello"]);
        assert_eq!(split(s, " ", Some(i64::MIN)), ["hello", "hello", "hello"]);
        assert_eq!(split(s, " ", Some(i64::MAX)), ["hello", "hello", "hello"]);
    }

    #[test]
    fn split_edges() {
        assert_eq!(split("", ",", None), [""]);
        assert_eq!(split("", ",", Some(3)), [""]);
        assert_eq!(split(",", ",", None), ["", ""]);
        assert_eq!(split("a,,b,", ",", None), ["a", "", "b", ""]);
        assert_eq!(split("abc", "x", None), ["abc"]);
        // Non-overlapping, left to right (Go: ["", "a"]).
        assert_eq!(split("aaa", "aa", None), ["", "a"]);
        assert_eq!(split("a::b::c", "::", Some(2)), ["a", "b::c"]);
        assert_eq!(split("日本語", "本", None), ["日", "語"]);
    }

    #[test]
    fn split_on_empty_separator_splits_code_points() {
        assert_eq!(split("abc", "", None), ["a", "b", "c"]);
        assert_eq!(split("héé😀", "", None), ["h", "é", "é", "😀"]);
        assert_eq!(split("", "", None), Vec::<&str>::new());
        assert_eq!(split("", "", Some(2)), Vec::<&str>::new());
        assert_eq!(split("abc", "", Some(0)), Vec::<&str>::new());
        assert_eq!(split("abc", "", Some(1)), ["abc"]);
        assert_eq!(split("é😀c", "", Some(2)), ["é", "😀c"]);
        assert_eq!(split("abc", "", Some(3)), ["a", "b", "c"]);
        assert_eq!(split("abc", "", Some(99)), ["a", "b", "c"]);
        assert_eq!(split("abc", "", Some(-5)), ["a", "b", "c"]);
    }

    #[test]
    fn replace_follows_cel_examples() {
        let s = "hello hello";
        assert_eq!(replace(s, "he", "we", None), "wello wello");
        assert_eq!(replace(s, "he", "we", Some(-1)), "wello wello");
        assert_eq!(replace(s, "he", "we", Some(1)), "wello hello");
        assert_eq!(replace(s, "he", "we", Some(0)), "hello hello");
        assert_eq!(replace(s, "he", "we", Some(i64::MAX)), "wello wello");
    }

    #[test]
    fn replace_edges() {
        assert_eq!(replace("ab", "", "-", None), "-a-b-");
        assert_eq!(replace("ab", "", "-", Some(2)), "-a-b");
        assert_eq!(replace("é😀", "", ".", None), ".é.😀.");
        assert_eq!(replace("", "", "x", None), "x");
        assert_eq!(replace("", "a", "x", None), "");
        assert_eq!(replace("aaa", "aa", "b", None), "ba");
        assert_eq!(replace("日本日本", "日", "月", Some(1)), "月本日本");
        assert_eq!(replace("a.b.c", ".", "", None), "abc");
        assert!(matches!(replace("abc", "x", "y", None), Cow::Borrowed(_)));
        assert!(matches!(
            replace("abc", "a", "y", Some(0)),
            Cow::Borrowed(_)
        ));
        assert!(matches!(replace("abc", "a", "a", None), Cow::Borrowed(_)));
    }

    #[test]
    fn substring_follows_cel_examples() {
        assert_eq!(substring("tacocat", 4, None), Ok("cat"));
        assert_eq!(substring("tacocat", 0, Some(4)), Ok("taco"));
        assert_eq!(substring("tacocat", -1, None), Err(IndexOutOfRange));
        assert_eq!(substring("tacocat", 2, Some(1)), Err(IndexOutOfRange));
    }

    #[test]
    fn substring_counts_code_points() {
        let s = "ta©o©αT";
        assert_eq!(substring(s, 2, None), Ok("©o©αT"));
        assert_eq!(substring(s, 2, Some(5)), Ok("©o©"));
        assert_eq!(substring(s, 7, None), Ok(""));
        assert_eq!(substring(s, 7, Some(7)), Ok(""));
        assert_eq!(substring(s, 8, None), Err(IndexOutOfRange));
        assert_eq!(substring(s, 0, Some(8)), Err(IndexOutOfRange));
        assert_eq!(substring("😀日本", 1, Some(2)), Ok("日"));
        assert_eq!(substring("", 0, None), Ok(""));
        assert_eq!(substring("", 0, Some(0)), Ok(""));
        assert_eq!(substring("", 1, None), Err(IndexOutOfRange));
        assert_eq!(substring("abc", -2, Some(-1)), Err(IndexOutOfRange));
        assert_eq!(substring("abc", 0, Some(i64::MAX)), Err(IndexOutOfRange));
        assert_eq!(substring("abc", i64::MIN, None), Err(IndexOutOfRange));
        assert_eq!(substring("abc", 1, Some(1)), Ok(""));
    }

    #[test]
    fn index_of_follows_cel_examples() {
        let s = "hello mellow";
        assert_eq!(index_of(s, "", None), Ok(0));
        assert_eq!(index_of(s, "ello", None), Ok(1));
        assert_eq!(index_of(s, "jello", None), Ok(-1));
        assert_eq!(index_of(s, "", Some(2)), Ok(2));
        assert_eq!(index_of(s, "ello", Some(2)), Ok(7));
        assert_eq!(index_of(s, "ello", Some(20)), Err(IndexOutOfRange));
    }

    #[test]
    fn index_of_counts_code_points() {
        let s = "ta©o©αT";
        assert_eq!(index_of(s, "©", None), Ok(2));
        assert_eq!(index_of(s, "©", Some(3)), Ok(4));
        assert_eq!(index_of(s, "©αT", Some(3)), Ok(4));
        assert_eq!(index_of(s, "©α", Some(5)), Ok(-1));
        assert_eq!(index_of(s, "T", Some(6)), Ok(6));
        assert_eq!(index_of("😀😀x", "x", None), Ok(2));
        assert_eq!(index_of("héllo", "l", None), Ok(2));
        assert_eq!(index_of("日本語日本語", "語", Some(3)), Ok(5));
    }

    #[test]
    fn index_of_edges() {
        // Deliberately not cel-go's errors: no offset, nothing to be out
        // of range.
        assert_eq!(index_of("", "a", None), Ok(-1));
        assert_eq!(index_of("", "", None), Ok(0));
        // The end of the string is a valid place to start.
        assert_eq!(index_of("abc", "c", Some(3)), Ok(-1));
        assert_eq!(index_of("abc", "", Some(3)), Ok(3));
        // An empty sub does not skip the range check.
        assert_eq!(index_of("abc", "", Some(4)), Err(IndexOutOfRange));
        assert_eq!(index_of("abc", "", Some(-1)), Err(IndexOutOfRange));
        assert_eq!(index_of("abc", "a", Some(-1)), Err(IndexOutOfRange));
        assert_eq!(index_of("abc", "a", Some(i64::MIN)), Err(IndexOutOfRange));
        assert_eq!(index_of("abc", "a", Some(i64::MAX)), Err(IndexOutOfRange));
        assert_eq!(index_of("abc", "abcd", None), Ok(-1));
        assert_eq!(index_of("aaa", "aa", Some(1)), Ok(1));
    }

    #[test]
    fn last_index_of_follows_cel_examples() {
        let s = "hello mellow";
        assert_eq!(last_index_of(s, "", None), Ok(12));
        assert_eq!(last_index_of(s, "ello", None), Ok(7));
        assert_eq!(last_index_of(s, "jello", None), Ok(-1));
        assert_eq!(last_index_of(s, "ello", Some(6)), Ok(1));
        assert_eq!(last_index_of(s, "ello", Some(-1)), Err(IndexOutOfRange));
    }

    #[test]
    fn last_index_of_counts_code_points() {
        let s = "ta©o©αT";
        assert_eq!(last_index_of(s, "©", None), Ok(4));
        assert_eq!(last_index_of(s, "©", Some(3)), Ok(2));
        assert_eq!(last_index_of(s, "©o", Some(2)), Ok(2));
        assert_eq!(last_index_of(s, "©o", Some(1)), Ok(-1));
        assert_eq!(last_index_of(s, "αT", Some(6)), Ok(5));
        assert_eq!(last_index_of("😀x😀x", "x", None), Ok(3));
        assert_eq!(last_index_of("😀x😀x", "x", Some(2)), Ok(1));
        assert_eq!(last_index_of("日本語", "", Some(1)), Ok(1));
    }

    #[test]
    fn last_index_of_edges() {
        assert_eq!(last_index_of("", "a", None), Ok(-1));
        assert_eq!(last_index_of("", "", None), Ok(0));
        assert_eq!(last_index_of("", "", Some(0)), Ok(0));
        assert_eq!(last_index_of("", "", Some(1)), Err(IndexOutOfRange));
        assert_eq!(last_index_of("abc", "c", Some(3)), Ok(2));
        assert_eq!(last_index_of("abc", "a", Some(0)), Ok(0));
        assert_eq!(last_index_of("abc", "b", Some(0)), Ok(-1));
        assert_eq!(last_index_of("abc", "a", Some(4)), Err(IndexOutOfRange));
        assert_eq!(last_index_of("abc", "", Some(-1)), Err(IndexOutOfRange));
        assert_eq!(
            last_index_of("abc", "a", Some(i64::MAX)),
            Err(IndexOutOfRange)
        );
        assert_eq!(last_index_of("abc", "abcd", None), Ok(-1));
        // Overlapping occurrences: the last start, not the last
        // non-overlapping match.
        assert_eq!(last_index_of("aaaa", "aa", None), Ok(2));
        assert_eq!(last_index_of("aaaa", "aa", Some(1)), Ok(1));
    }

    #[test]
    fn join_follows_cel_examples() {
        assert_eq!(join(["hello", "mellow"], ""), "hellomellow");
        assert_eq!(join(["hello", "mellow"], " "), "hello mellow");
        assert_eq!(join(Vec::<&str>::new(), ""), "");
        assert_eq!(join(Vec::<String>::new(), "/"), "");
        assert_eq!(join(["a"], ", "), "a");
        assert_eq!(join(["", ""], ","), ",");
        assert_eq!(
            join(vec![String::from("日"), String::from("本")], "·"),
            "日·本"
        );
    }

    #[test]
    fn truncate_keeps_at_most_max_code_points() {
        assert_eq!(truncate("hello", 3), Ok("hel"));
        assert_eq!(truncate("hello", 5), Ok("hello"));
        assert_eq!(truncate("hello", 80), Ok("hello"));
        assert_eq!(truncate("hello", i64::MAX), Ok("hello"));
        assert_eq!(truncate("hello", 0), Ok(""));
        assert_eq!(truncate("", 0), Ok(""));
        assert_eq!(truncate("", 3), Ok(""));
        assert_eq!(truncate("é😀日本", 2), Ok("é😀"));
        assert_eq!(truncate("hello", -1), Err(InvalidArgument));
        assert_eq!(truncate("hello", i64::MIN), Err(InvalidArgument));
    }
}
