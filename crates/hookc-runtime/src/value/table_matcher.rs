//! A pattern table's rows as one matcher
//! (`docs/src/semantics.md#pattern-tables`): the first row, in order,
//! whose pattern matches a text.
//!
//! The rows the linear engine runs are one `regex::RegexSet`: one scan of
//! the text finds every such row that matches. A row that needs
//! backtracking (look-around, a backreference: [`super::policy_regex::engine`]
//! decides, as for any pattern) cannot be in the set; it is searched on its
//! own, with the program's regex of its pattern, and only when it comes
//! before the first linear row that matched, since a later row cannot be
//! the first. A table without such rows is exactly the set, as before they
//! were allowed.

use super::policy_regex::{compile_regex_set, engine, Engine, PolicyRegex};
use super::EvalError;
use crate::bytecode::{PatternTable, Program, RegexIdx};

/// The matcher of one pattern table, built when a program is verified.
#[derive(Debug, Clone)]
pub struct TableMatcher {
    /// The linear rows' patterns, in row order.
    set: regex::RegexSet,
    /// The row of each pattern of `set` (ascending).
    set_rows: Vec<usize>,
    /// The rows that need backtracking, in row order, with their regex.
    backtracking: Vec<(usize, RegexIdx)>,
}

impl TableMatcher {
    /// The matcher of `table` of `program`; the reason when a pattern
    /// compiles on neither engine.
    pub fn new(program: &Program, table: &PatternTable) -> Result<TableMatcher, String> {
        let pattern = |r: RegexIdx| program.regex(r).unwrap_or("");
        // PERF: nearly every table is linear: one build, no parse per row.
        if let Ok(set) = compile_regex_set(table.patterns.iter().map(|&r| pattern(r))) {
            return Ok(TableMatcher {
                set,
                set_rows: (0..table.patterns.len()).collect(),
                backtracking: Vec::new(),
            });
        }
        let mut set_rows = Vec::new();
        let mut backtracking = Vec::new();
        for (row, &r) in table.patterns.iter().enumerate() {
            match engine(pattern(r)) {
                Ok(Engine::Linear) => set_rows.push(row),
                Ok(Engine::Backtracking(_)) => backtracking.push((row, r)),
                Err(reason) => return Err(format!("row {row}: {reason}")),
            }
        }
        let linear = set_rows
            .iter()
            .filter_map(|&row| table.patterns.get(row))
            .map(|&r| pattern(r));
        Ok(TableMatcher {
            set: compile_regex_set(linear)?,
            set_rows,
            backtracking,
        })
    }

    /// The first row whose pattern matches `text`, searching a row that
    /// needs backtracking with `regexes` (the program's, by index); the
    /// step limit's error when such a search passes it.
    pub fn first_row(
        &self,
        regexes: &[PolicyRegex],
        text: &str,
    ) -> Result<Option<usize>, EvalError> {
        let first_linear = self
            .set
            .matches(text)
            .iter()
            .next()
            .and_then(|k| self.set_rows.get(k).copied());
        for &(row, r) in &self.backtracking {
            if first_linear.is_some_and(|first| first < row) {
                break;
            }
            let Some(regex) = regexes.get(r.as_usize()) else {
                continue;
            };
            if regex.is_match(text)? {
                return Ok(Some(row));
            }
        }
        Ok(first_linear)
    }
}
