//! Did-you-mean: the closest known name to a misspelt one.

/// The candidate closest to `name` by edit distance, if it is close enough to
/// be a plausible typo (at most a third of the longer name, and at most 3 edits).
pub fn did_you_mean<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        if cand == name {
            continue;
        }
        let d = distance(&name.to_lowercase(), &cand.to_lowercase());
        let longest = name.chars().count().max(cand.chars().count());
        let budget = (longest / 3).clamp(1, 3);
        if d <= budget && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// The most names a `help:` lists.
const LISTED_AT_MOST: usize = 20;

/// A `help:` text for a misspelt name: "did you mean `x`?" or, failing that,
/// the valid set when it is short (at most 20 names: a
/// hook file's top-level keys are listed, the function table is not).
pub fn help_for<'a, I>(name: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    if let Some(best) = did_you_mean(name, candidates.clone()) {
        return Some(format!("did you mean `{best}`?"));
    }
    let all: Vec<&str> = candidates.into_iter().collect();
    if !all.is_empty() && all.len() <= LISTED_AT_MOST {
        let list: Vec<String> = all.iter().map(|c| format!("`{c}`")).collect();
        return Some(format!("expected one of {}", list.join(", ")));
    }
    None
}

/// Optimal string alignment distance (Levenshtein plus adjacent transposition),
/// over characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the DP table.
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for (i, &ca) in a.iter().enumerate() {
        cur.clear();
        // `left` is cur[j], `diag` prev[j], `up` prev[j + 1].
        let mut left = i + 1;
        cur.push(left);
        let cells = b.iter().zip(&prev).zip(prev.iter().skip(1)).enumerate();
        for (j, ((&cb, &diag), &up)) in cells {
            let cost = usize::from(ca != cb);
            let mut v = (diag + cost).min(up + 1).min(left + 1);
            if i > 0 && j > 0 && Some(&ca) == b.get(j - 1) && a.get(i - 1) == Some(&cb) {
                v = v.min(prev2.get(j - 1).map_or(usize::MAX, |t| t + 1));
            }
            cur.push(v);
            left = v;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let ops = ["eq", "ne", "gt", "gte", "starts_with", "contains"];
        assert_eq!(did_you_mean("startswith", ops), Some("starts_with"));
        assert_eq!(did_you_mean("contians", ops), Some("contains"));
        assert_eq!(did_you_mean("gtee", ops), Some("gte"));
        assert_eq!(did_you_mean("frobnicate", ops), None);
    }

    #[test]
    fn distance_counts_transpositions_once() {
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }

    #[test]
    fn help_lists_short_sets() {
        assert_eq!(
            help_for("zzzzzz", ["a", "b"]).as_deref(),
            Some("expected one of `a`, `b`")
        );
    }
}
