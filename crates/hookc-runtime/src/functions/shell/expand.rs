//! The expansions of a word that make more words: brace expansion
//! (`rm -{r,f}` is `rm -r -f`, `{rm,-rf,/}` is `rm -rf /`, `a{1..3}`) and
//! the field splitting of an unquoted variable's value set on the line
//! (`X='-rf /'; rm $X`). The scanner marks where in a word's value the
//! unquoted braces and the splitting blanks are ([`BraceMark`]); quoted text
//! never carries a mark, so `'{a,b}'` stays one word. Bash's order is
//! kept: braces first, then the splitting of what variables gave.

use std::borrow::Cow;

/// Where, in a word's value, something unquoted is (byte offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BraceMark {
    /// An unquoted `{`.
    Open(usize),
    /// An unquoted `,`.
    Comma(usize),
    /// An unquoted `}`.
    Close(usize),
    /// A blank of an unquoted variable's value: the word splits there.
    Split(usize),
}

impl BraceMark {
    fn at(self) -> usize {
        match self {
            BraceMark::Open(i)
            | BraceMark::Comma(i)
            | BraceMark::Close(i)
            | BraceMark::Split(i) => i,
        }
    }
}

/// The most words one word expands to; more is [`TooMany`].
pub(super) const MAX_WORDS: usize = crate::limits::MAX_SHELL_BRACE_WORDS;

/// The most unquoted `{` one word may hold; more is [`TooMany`].
const MAX_GROUPS: usize = crate::limits::MAX_SHELL_BRACE_GROUPS;

/// A word expanded to more than [`MAX_WORDS`] words.
#[derive(Debug)]
pub(super) struct TooMany;

/// A piece of an expanded word: a range of the original value, or text a
/// sequence expression (`{1..3}`) made.
#[derive(Debug, Clone)]
enum Piece {
    Range(usize, usize),
    Text(String),
}

/// The words `value` (with its `marks`, in offset order) expands to.
pub(super) fn expand<'s>(
    value: Cow<'s, str>,
    marks: &[BraceMark],
) -> Result<Vec<Cow<'s, str>>, TooMany> {
    let braces: Vec<BraceMark> = marks
        .iter()
        .copied()
        .filter(|m| !matches!(m, BraceMark::Split(_)))
        .collect();
    let splits: Vec<usize> = marks
        .iter()
        .filter_map(|m| match m {
            BraceMark::Split(i) => Some(*i),
            _ => None,
        })
        .collect();
    if braces
        .iter()
        .filter(|m| matches!(m, BraceMark::Open(_)))
        .count()
        > MAX_GROUPS
    {
        return Err(TooMany);
    }
    let words = alternatives(&value, &braces, 0, value.len())?;
    if words.len() == 1 && splits.is_empty() {
        if let Some([Piece::Range(0, end)]) = words.first().map(Vec::as_slice) {
            if *end == value.len() {
                return Ok(vec![value]);
            }
        }
    }
    let mut out: Vec<Cow<'s, str>> = Vec::with_capacity(words.len());
    for pieces in words {
        let mut field = String::new();
        let mut split_seen = false;
        for piece in pieces {
            match piece {
                Piece::Text(t) => field.push_str(&t),
                Piece::Range(lo, hi) => {
                    let mut from = lo;
                    for &s in splits.iter().filter(|&&s| s >= lo && s < hi) {
                        field.push_str(value.get(from..s).unwrap_or_default());
                        split_seen = true;
                        if !field.is_empty() {
                            out.push(Cow::Owned(std::mem::take(&mut field)));
                        }
                        from = s + 1;
                    }
                    field.push_str(value.get(from..hi).unwrap_or_default());
                }
            }
        }
        // An empty field of a split is dropped; an empty brace
        // alternative (`a{,b}` gives `a`, `ab`) is not.
        if !field.is_empty() || !split_seen {
            out.push(Cow::Owned(field));
        }
        if out.len() > MAX_WORDS {
            return Err(TooMany);
        }
    }
    Ok(out)
}

/// The expansions of `value[lo..hi]`, each a list of pieces.
fn alternatives(
    value: &str,
    marks: &[BraceMark],
    lo: usize,
    hi: usize,
) -> Result<Vec<Vec<Piece>>, TooMany> {
    let inside: Vec<BraceMark> = marks
        .iter()
        .copied()
        .filter(|m| m.at() >= lo && m.at() < hi)
        .collect();
    for (k, m) in inside.iter().enumerate() {
        let BraceMark::Open(open) = *m else { continue };
        let Some((close, commas)) = matching(inside.get(k + 1..).unwrap_or_default()) else {
            continue;
        };
        let bodies: Vec<Vec<Vec<Piece>>> = if commas.is_empty() {
            match sequence(value.get(open + 1..close).unwrap_or_default()) {
                Some(items) => vec![items.into_iter().map(|t| vec![Piece::Text(t)]).collect()],
                None => continue,
            }
        } else {
            let mut bounds = vec![open + 1];
            for c in &commas {
                bounds.push(*c);
                bounds.push(c + 1);
            }
            bounds.push(close);
            let mut bodies = Vec::new();
            for pair in bounds.chunks(2) {
                if let [a, b] = pair {
                    bodies.push(alternatives(value, &inside, *a, *b)?);
                }
            }
            bodies
        };
        let suffixes = alternatives(value, &inside, close + 1, hi)?;
        let mut out = Vec::new();
        for body in bodies.iter().flatten() {
            for suffix in &suffixes {
                if out.len() >= MAX_WORDS {
                    return Err(TooMany);
                }
                let mut pieces = vec![Piece::Range(lo, open)];
                pieces.extend(body.iter().cloned());
                pieces.extend(suffix.iter().cloned());
                out.push(pieces);
            }
        }
        return Ok(out);
    }
    Ok(vec![vec![Piece::Range(lo, hi)]])
}

/// The `}` closing a `{` whose marks follow, and the commas at its level.
fn matching(after_open: &[BraceMark]) -> Option<(usize, Vec<usize>)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    for m in after_open {
        match *m {
            BraceMark::Open(_) => depth += 1,
            BraceMark::Close(c) if depth == 0 => return Some((c, commas)),
            BraceMark::Close(_) => depth -= 1,
            BraceMark::Comma(c) if depth == 0 => commas.push(c),
            _ => {}
        }
    }
    None
}

/// A sequence expression's items: `1..3`, `a..c`, `10..0..5`.
fn sequence(body: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = body.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, s] => (*a, *b, Some(*s)),
        _ => return None,
    };
    let step: i64 = match step {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = a.abs_diff(b) / step.unsigned_abs() + 1;
        if count > MAX_WORDS as u64 {
            return None;
        }
        let mut items = Vec::new();
        let mut x = a;
        for _ in 0..count {
            items.push(x.to_string());
            x = if a <= b { x + step } else { x - step };
        }
        return Some(items);
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(x), None, Some(y), None) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => {
            let (x, y) = (x as u8, y as u8);
            let items = if x <= y {
                (x..=y)
                    .step_by(usize::try_from(step).ok()?)
                    .map(|c| char::from(c).to_string())
                    .collect()
            } else {
                (y..=x)
                    .rev()
                    .step_by(usize::try_from(step).ok()?)
                    .map(|c| char::from(c).to_string())
                    .collect()
            };
            Some(items)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks for every `{`, `,`, `}` and `_` (a split) of `s`.
    fn words(s: &str) -> Vec<String> {
        let marks: Vec<BraceMark> = s
            .bytes()
            .enumerate()
            .filter_map(|(i, b)| match b {
                b'{' => Some(BraceMark::Open(i)),
                b',' => Some(BraceMark::Comma(i)),
                b'}' => Some(BraceMark::Close(i)),
                b'_' => Some(BraceMark::Split(i)),
                _ => None,
            })
            .collect();
        match expand(Cow::Borrowed(s), &marks) {
            Ok(w) => w.into_iter().map(Cow::into_owned).collect(),
            Err(TooMany) => vec!["<too many>".into()],
        }
    }

    #[test]
    fn braces_as_bash_expands_them() {
        assert_eq!(words("-{r,f}"), ["-r", "-f"]);
        assert_eq!(words("{rm,-rf,/}"), ["rm", "-rf", "/"]);
        assert_eq!(words("~/.{ssh,aws}/x"), ["~/.ssh/x", "~/.aws/x"]);
        assert_eq!(words("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
        assert_eq!(words("a{,b}"), ["a", "ab"]);
        assert_eq!(words("{a}"), ["{a}"]);
        assert_eq!(words("{}"), ["{}"]);
        assert_eq!(words("{"), ["{"]);
        assert_eq!(words("x{1..3}"), ["x1", "x2", "x3"]);
        assert_eq!(words("{3..1}"), ["3", "2", "1"]);
        assert_eq!(words("{a..c}"), ["a", "b", "c"]);
        assert_eq!(words("{0..10..5}"), ["0", "5", "10"]);
        assert_eq!(words("{a..}"), ["{a..}"]);
        assert_eq!(words("{{a,b}"), ["{a", "{b"]);
    }

    #[test]
    fn splits_after_braces_and_drops_empty_fields() {
        assert_eq!(words("-rf_/"), ["-rf", "/"]);
        assert_eq!(words("_a__b_"), ["a", "b"]);
        assert_eq!(words("{x_y,z}"), ["x", "y", "z"]);
    }

    #[test]
    fn growth_is_bounded() {
        let bomb = "{a,b}".repeat(12);
        assert_eq!(words(&bomb), ["<too many>"]);
        assert_eq!(words("{1..100000000}"), ["{1..100000000}"]);
        assert_eq!(words(&"{a}".repeat(65)), ["<too many>"]);
    }
}
