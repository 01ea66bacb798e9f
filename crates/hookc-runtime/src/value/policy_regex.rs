//! [`PolicyRegex`]: a policy's regex as the VM runs it, compiled on first
//! use and behind a literal prefilter (`docs/src/semantics.md#regular-expressions`,
//! `ARCHITECTURE.md`).
//!
//! Compiling a regex (its NFA, prefilter and engines) costs far more than
//! reading the rest of an artifact: most of a `hookc hook` call that loads
//! a policy for one payload went there, for regexes that payload never
//! reaches. So loading only *parses* each pattern into its syntax tree
//! (syntax and nesting are checked) and records the literals every match
//! of it contains; the compiled regex is built the first time a haystack
//! holds all of them, and kept. What only compiling finds (an unknown
//! Unicode class, the size limit) is an evaluation error where the pattern
//! is first searched; the compiler compiles every pattern, so only a
//! hand-made artifact carries one.
//!
//! The prefilter is exact: a literal that every match contains is in every
//! haystack that matches, so a haystack without one cannot match, and the
//! answer is `false` without the regex. The required literals are read from
//! the syntax tree, never guessed: a run of literal characters in a
//! concatenation, and what a group or a repetition of at least one
//! requires; an alternation, a class, an optional part and an assertion
//! require none, and a pattern that sets flags anywhere (`(?i)`, ...)
//! requires none at all, as a flag changes what its literals match.
//! (`tests`: random patterns and haystacks against the compiled regex
//! alone.)

use super::EvalError;
use memchr::memmem::Finder;
use regex_syntax::ast::{Ast, GroupKind, RepetitionKind, RepetitionRange};
use std::sync::OnceLock;

/// At most this many required literals are tested before the regex: the
/// longest ones, which are the rarest in practice.
const MAX_REQUIRED: usize = 4;

/// A regex of a verified program: parsed at load, compiled on first use.
#[derive(Debug, Clone)]
pub struct PolicyRegex {
    pattern: String,
    /// Literals every match contains (at most [`MAX_REQUIRED`]).
    required: Vec<Finder<'static>>,
    compiled: OnceLock<Option<regex::Regex>>,
}

impl PolicyRegex {
    /// Parses `pattern` under the nesting limit
    /// ([`MAX_REGEX_NESTING`](crate::limits::MAX_REGEX_NESTING)); the error
    /// is the parser's reason.
    pub fn parse(pattern: &str) -> Result<PolicyRegex, String> {
        let ast = regex_syntax::ast::parse::ParserBuilder::new()
            .nest_limit(crate::limits::MAX_REGEX_NESTING)
            .build()
            .parse(pattern)
            .map_err(|e| regex_reason(&e))?;
        let mut literals = Vec::new();
        if walk(&ast, true, &mut literals).is_err() {
            literals.clear();
        }
        // Longest first (the rarest in practice), equal ones adjacent for
        // `dedup`.
        literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        literals.dedup();
        literals.truncate(MAX_REQUIRED);
        Ok(PolicyRegex {
            pattern: pattern.to_owned(),
            required: literals
                .iter()
                .map(|l| Finder::new(l.as_bytes()).into_owned())
                .collect(),
            compiled: OnceLock::new(),
        })
    }

    /// Whether `haystack` has a match; an error when the pattern does not
    /// compile (over the size limit, an unknown Unicode class: only a
    /// hand-made artifact has one).
    #[inline]
    pub fn is_match(&self, haystack: &str) -> Result<bool, EvalError> {
        let bytes = haystack.as_bytes();
        if self.required.iter().any(|f| f.find(bytes).is_none()) {
            return Ok(false);
        }
        self.compiled
            .get_or_init(|| compile_regex(&self.pattern).ok())
            .as_ref()
            .map(|re| re.is_match(haystack))
            .ok_or(EvalError::InvalidArgument)
    }

    /// The groups of the first match in `haystack` (group 0 the whole
    /// match, `None` for a group that did not take part); `None` when
    /// nothing matches.
    pub fn captures<'h>(
        &self,
        haystack: &'h str,
    ) -> Result<Option<Vec<Option<&'h str>>>, EvalError> {
        if self
            .required
            .iter()
            .any(|f| f.find(haystack.as_bytes()).is_none())
        {
            return Ok(None);
        }
        let re = self
            .compiled
            .get_or_init(|| compile_regex(&self.pattern).ok())
            .as_ref()
            .ok_or(EvalError::InvalidArgument)?;
        Ok(re
            .captures(haystack)
            .map(|caps| caps.iter().map(|m| m.map(|m| m.as_str())).collect()))
    }
}

/// Compiles a regex pattern under the size and nesting limits
/// ([`MAX_REGEX_SIZE`](crate::limits::MAX_REGEX_SIZE),
/// [`MAX_REGEX_NESTING`](crate::limits::MAX_REGEX_NESTING)); the error is
/// the `regex` crate's reason, without its framing. The checker compiles
/// every pattern through here, and a loaded policy compiles through here
/// on first use ([`PolicyRegex`]).
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(crate::limits::MAX_REGEX_SIZE)
        .nest_limit(crate::limits::MAX_REGEX_NESTING)
        .build()
        .map_err(|e| regex_reason(&e))
}

/// Compiles the patterns of a pattern table into one multi-pattern
/// matcher, under the nesting limit and a size limit of
/// [`MAX_REGEX_SIZE`](crate::limits::MAX_REGEX_SIZE) per pattern; the error
/// is the `regex` crate's reason.
pub fn compile_regex_set<'p>(
    patterns: impl IntoIterator<Item = &'p str>,
) -> Result<regex::RegexSet, String> {
    let patterns: Vec<&str> = patterns.into_iter().collect();
    regex::RegexSetBuilder::new(&patterns)
        .size_limit(crate::limits::MAX_REGEX_SIZE.saturating_mul(patterns.len().max(1)))
        .nest_limit(crate::limits::MAX_REGEX_NESTING)
        .build()
        .map_err(|e| regex_reason(&e))
}

/// A regex error's reason without the framing the `regex` crates print
/// around it (the pattern, a caret line, `error: `, a final period).
fn regex_reason(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    let reason = text
        .rsplit_once("error: ")
        .map_or(text.as_str(), |(_, r)| r);
    reason.trim().trim_end_matches('.').to_owned()
}

/// The pattern sets flags: its literals are not known to match themselves.
struct Flagged;

/// Walks `ast`, appending to `out`, when `required`, the literal runs every
/// match of it contains; parts that need not match are walked for flags
/// only.
fn walk(ast: &Ast, required: bool, out: &mut Vec<String>) -> Result<(), Flagged> {
    match ast {
        Ast::Flags(_) => return Err(Flagged),
        Ast::Literal(lit) if required => out.push(lit.c.to_string()),
        Ast::Concat(concat) => {
            let mut run = String::new();
            for part in &concat.asts {
                match part {
                    Ast::Literal(lit) => run.push(lit.c),
                    _ => {
                        if required && !run.is_empty() {
                            out.push(std::mem::take(&mut run));
                        }
                        run.clear();
                        walk(part, required, out)?;
                    }
                }
            }
            if required && !run.is_empty() {
                out.push(run);
            }
        }
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(flags) = &group.kind {
                if !flags.items.is_empty() {
                    return Err(Flagged);
                }
            }
            walk(&group.ast, required, out)?;
        }
        Ast::Repetition(rep) => {
            let min = match &rep.op.kind {
                RepetitionKind::OneOrMore => 1,
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => 0,
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(n, _),
                ) => *n,
            };
            walk(&rep.ast, required && min >= 1, out)?;
        }
        Ast::Alternation(alt) => {
            for branch in &alt.asts {
                walk(branch, false, out)?;
            }
        }
        Ast::Literal(_)
        | Ast::Empty(_)
        | Ast::Dot(_)
        | Ast::Assertion(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => {}
    }
    Ok(())
}

/// What a `matches` test runs on a string: a compiled regex (the compiler's
/// folding, the reference evaluator) or a [`PolicyRegex`] (the VM).
pub trait Matcher {
    /// Whether `haystack` has a match, or why the test cannot say.
    fn test(&self, haystack: &str) -> Result<bool, EvalError>;
}

impl Matcher for regex::Regex {
    #[inline]
    fn test(&self, haystack: &str) -> Result<bool, EvalError> {
        Ok(self.is_match(haystack))
    }
}

impl Matcher for PolicyRegex {
    #[inline]
    fn test(&self, haystack: &str) -> Result<bool, EvalError> {
        self.is_match(haystack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl PolicyRegex {
        /// Whether the regex has been compiled.
        fn is_compiled(&self) -> bool {
            self.compiled.get().is_some()
        }
    }

    fn required(pattern: &str) -> Vec<String> {
        let ast = regex_syntax::ast::parse::Parser::new()
            .parse(pattern)
            .unwrap();
        let mut out = Vec::new();
        match walk(&ast, true, &mut out) {
            Ok(()) => out,
            Err(Flagged) => Vec::new(),
        }
    }

    #[test]
    fn required_literals_are_read_from_the_pattern() {
        assert_eq!(required("git push"), ["git push"]);
        assert_eq!(required(r"(^|;\s*)pip\s(.*\s)?777(\s|$)"), ["pip", "777"]);
        assert_eq!(required(r"(ab)+c"), ["ab", "c"]);
        assert!(required(r"(ab)*c?").is_empty());
        assert!(required(r"a|b").is_empty());
        assert!(required(r"(?i)abc").is_empty());
        assert!(required(r"abc(?i:d)").is_empty());
        assert!(required(r"x|(?i)y").is_empty());
        assert_eq!(required(r"\bfoo\.bar\b"), ["foo.bar"]);
        assert_eq!(required(r"ab?c"), ["a", "c"]);
        assert_eq!(required(r"(?:ab){2,}"), ["ab"]);
        let re = PolicyRegex::parse("ab.cd.ab").unwrap();
        assert_eq!(re.required.len(), 2, "`ab` once, `cd` once");
        assert!(required(r"[a-z]+").is_empty());
    }

    #[test]
    fn a_haystack_without_a_required_literal_never_compiles_the_regex() {
        let re = PolicyRegex::parse(r"\bterraform\s+apply\b").unwrap();
        assert_eq!(re.is_match("ls -la"), Ok(false));
        assert!(!re.is_compiled());
        assert_eq!(re.is_match("terraform  apply -auto"), Ok(true));
        assert!(re.is_compiled());
        assert_eq!(re.is_match("terraform plan; apply"), Ok(false));
    }

    #[test]
    fn a_pattern_over_the_size_limit_is_an_evaluation_error() {
        let re = PolicyRegex::parse("a{1000}{1000}").unwrap();
        assert_eq!(re.is_match("bbb"), Ok(false));
        let haystack = "a".repeat(1000);
        assert_eq!(re.is_match(&haystack), Err(EvalError::InvalidArgument));
    }

    #[test]
    fn what_only_compiling_finds_is_an_evaluation_error() {
        let re = PolicyRegex::parse(r"x\p{NoSuchClass}").unwrap();
        assert_eq!(re.is_match("abc"), Ok(false));
        assert_eq!(re.is_match("x"), Err(EvalError::InvalidArgument));
    }

    #[test]
    fn bad_syntax_and_deep_nesting_are_refused_at_parse() {
        assert!(PolicyRegex::parse("(").is_err());
        let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
        assert!(PolicyRegex::parse(&deep).is_err());
    }

    /// The prefilter never changes an answer: random patterns of literals,
    /// groups, repetitions, alternations and classes against random
    /// haystacks, compared with the compiled regex alone.
    #[test]
    fn the_prefilter_is_exact_on_random_patterns() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let atoms = [
            "ab", "b", "c", "abc", r"\s", "[ab]", ".", "a", "ca", r"\x61", r"\bc", "(?i)a",
            "(?:b)", "A", "a{2}",
        ];
        let mut compared = 0;
        for _ in 0..2000 {
            let mut pattern = String::new();
            for _ in 0..=next(4) {
                let atom = atoms[next(atoms.len() as u64) as usize];
                let piece = match next(6) {
                    0 => format!("({atom})+"),
                    1 => format!("({atom})*"),
                    2 => format!("({atom}|{})", atoms[next(atoms.len() as u64) as usize]),
                    3 => format!("({atom})?"),
                    _ => atom.to_owned(),
                };
                pattern.push_str(&piece);
            }
            let lazy = PolicyRegex::parse(&pattern).unwrap();
            let eager = regex::Regex::new(&pattern).unwrap();
            for _ in 0..20 {
                let haystack: String = (0..next(8))
                    .map(|_| ['a', 'b', 'c', ' ', 'A'][next(5) as usize])
                    .collect();
                assert_eq!(
                    lazy.is_match(&haystack),
                    Ok(eager.is_match(&haystack)),
                    "{pattern:?} on {haystack:?}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 40_000);
    }
}
