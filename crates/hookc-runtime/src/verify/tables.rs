//! Checks of the program's tables: paths, regex literals, constants,
//! pattern tables and constant sets.

use super::*;

pub(super) fn check_paths(p: &Program) -> Result<(), VerifyError> {
    let mut seen = std::collections::HashSet::with_capacity(p.paths.len());
    for (i, path) in p.paths.iter().enumerate() {
        if !crate::bytecode::path::is_identifier(path.root_name()) {
            return Err(VerifyError::BadPathRoot {
                path: index_u32(i),
                root: path.root_name().to_owned(),
            });
        }
        if path.segments().len() > MAX_PATH_SEGMENTS {
            return Err(VerifyError::TableTooLarge {
                table: "segments in one path",
                len: path.segments().len(),
                limit: MAX_PATH_SEGMENTS,
            });
        }
        // INVARIANT (interned paths): `context::PathPlan` gives each distinct
        // path one slot; a second equal path would never be filled.
        if !seen.insert(path) {
            return Err(VerifyError::Duplicate {
                at: Location::Path(index_u32(i)),
                what: "path",
                name: path.to_string(),
            });
        }
    }
    Ok(())
}

/// The sensitive members ([`Program::sensitive`]): path indexes in
/// bounds, each once.
pub(super) fn check_sensitive(p: &Program) -> Result<(), VerifyError> {
    let mut seen = std::collections::HashSet::with_capacity(p.sensitive.len());
    for &path in &p.sensitive {
        in_bounds(p, path, || Location::Program)?;
        if !seen.insert(path) {
            return Err(VerifyError::Duplicate {
                at: Location::Program,
                what: "sensitive member",
                name: p
                    .paths
                    .get(path.as_usize())
                    .map_or_else(String::new, ToString::to_string),
            });
        }
    }
    Ok(())
}

/// The regexes' recorded literals: none, or one list per regex of at most
/// [`MAX_REGEX_LITERALS`] each. (That each literal is one every match
/// contains is the compiler's to say, as what the code computes is: the
/// verifier does not parse the patterns.)
pub(super) fn check_regex_literals(p: &Program) -> Result<(), VerifyError> {
    let bad = |reason: String| Err(VerifyError::BadRegexLiterals { reason });
    if !p.regex_literals.is_empty() && p.regex_literals.len() != p.regexes.len() {
        return bad(format!(
            "are {} lists for {} regexes",
            p.regex_literals.len(),
            p.regexes.len()
        ));
    }
    if let Some(i) = p
        .regex_literals
        .iter()
        .position(|l| l.len() > MAX_REGEX_LITERALS)
    {
        return bad(format!("of regex {i} are more than {MAX_REGEX_LITERALS}"));
    }
    Ok(())
}

/// The regexes' recorded one-of sets: none, or one list per regex, each of
/// at most [`MAX_REGEX_ONE_OF`] literals, none empty (an empty literal is in
/// every haystack, which is no set), and empty where the regex has
/// required literals (the compiler records a set only where there are
/// none). That every match contains one is the compiler's to say, as for
/// the required literals.
pub(super) fn check_regex_one_of(p: &Program) -> Result<(), VerifyError> {
    let bad = |reason: String| Err(VerifyError::BadRegexOneOf { reason });
    if p.regex_one_of.is_empty() {
        return Ok(());
    }
    if p.regex_one_of.len() != p.regexes.len() {
        return bad(format!(
            "are {} lists for {} regexes",
            p.regex_one_of.len(),
            p.regexes.len()
        ));
    }
    for (i, set) in p.regex_one_of.iter().enumerate() {
        if set.len() > MAX_REGEX_ONE_OF {
            return bad(format!("of regex {i} are more than {MAX_REGEX_ONE_OF}"));
        }
        if set.iter().any(String::is_empty) {
            return bad(format!("of regex {i} hold an empty literal"));
        }
        let required = p.regex_literals.get(i).is_some_and(|l| !l.is_empty());
        if required && !set.is_empty() {
            return bad(format!(
                "are recorded for regex {i}, which has required literals"
            ));
        }
    }
    Ok(())
}

pub(super) fn check_consts(p: &Program) -> Result<(), VerifyError> {
    // One explicit stack for all constants: no recursion over the values.
    let mut stack: Vec<(&serde_json::Value, usize)> = Vec::new();
    // The constants built so far hold every object and every list but the
    // lists of strings kept as texts; those are two levels deep and a
    // string one, and building them here would undo the pool's laziness.
    for (i, value) in p.consts.built() {
        stack.push((value, 1));
        while let Some((v, depth)) = stack.pop() {
            if depth > MAX_VALUE_DEPTH {
                return Err(VerifyError::TooDeep {
                    at: Location::Const(index_u32(i)),
                    limit: MAX_VALUE_DEPTH,
                });
            }
            match v {
                serde_json::Value::Array(items) => {
                    stack.extend(items.iter().map(|item| (item, depth + 1)));
                }
                serde_json::Value::Object(map) => {
                    stack.extend(map.values().map(|item| (item, depth + 1)));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

pub(super) fn check_tables(p: &Program) -> Result<(), VerifyError> {
    for (index, table) in p.tables.iter().enumerate() {
        let at = || Location::Program;
        let bad = |reason: &str| VerifyError::BadTable {
            index,
            reason: reason.to_owned(),
        };
        in_bounds(p, table.on, at)?;
        in_bounds(p, table.rows, at)?;
        for &r in &table.patterns {
            in_bounds(p, r, at)?;
        }
        if table.patterns.is_empty() {
            return Err(bad("has no rows"));
        }
        match p.konst(table.rows) {
            Some(serde_json::Value::Array(rows))
                if rows.len() == table.patterns.len() && rows.iter().all(|r| r.is_object()) => {}
            _ => {
                return Err(bad(
                    "has a rows constant that is not a list of one object per pattern",
                ))
            }
        }
    }
    Ok(())
}

pub(super) fn check_sets(p: &Program) -> Result<(), VerifyError> {
    for (index, &konst) in p.sets.iter().enumerate() {
        in_bounds(p, konst, || Location::Set(index_u32(index)))?;
        // (A list of strings kept as texts stays unbuilt.)
        if !p.consts.is_list(konst.as_usize()) {
            return Err(VerifyError::BadSet {
                index,
                konst: konst.as_u32(),
            });
        }
    }
    Ok(())
}
