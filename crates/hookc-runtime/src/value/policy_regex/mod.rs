//! [`PolicyRegex`]: a policy's regex as the VM runs it, parsed and compiled
//! on first use and behind a literal prefilter
//! (`docs/src/semantics.md#regular-expressions`, `ARCHITECTURE.md`).
//!
//! Compiling a regex (its NFA, prefilter and engines) costs far more than
//! reading the rest of an artifact, and even parsing one (its syntax tree,
//! for the literals every match contains) was most of a small policy's
//! load: so a load keeps only each pattern's text, and a regex is parsed
//! the first time it is searched or an event's hook index asks for its
//! literal, and compiled the first time a haystack holds all its required
//! literals; both are kept. A pattern that does not parse or compile (bad
//! syntax, nesting past the limit, an unknown Unicode class, the size
//! limit) is an evaluation error (`invalid argument`) wherever it is
//! searched: the compiler parses and compiles every pattern, so only a
//! hand-made artifact carries one, and its hook fails closed as for any
//! other error (`docs/src/reference/artifact.md`, "What loading
//! guarantees").
//!
//! A format 6 artifact records each regex's required literals, as the
//! compiler found them with [`required_literals`] (the same walk as below):
//! a loaded regex tests those first ([`PolicyRegex::with_required`]), so a
//! search of a haystack without one parses nothing. The artifact is
//! trusted for them, as for its code; a pattern that does not parse is
//! then an error only where a search gets past its literals.
//!
//! The prefilter is exact: a literal that every match contains is in every
//! haystack that matches, so a haystack without one cannot match, and the
//! answer is `false` without the regex. The required literals are read from
//! the syntax tree, never guessed: a run of literal characters in a
//! concatenation, and what a group or a repetition of at least one
//! requires; an alternation, a class, an optional part and an assertion
//! require none, and a pattern that sets a flag changing what a literal
//! matches anywhere (`(?i)`, `(?x)`, `(?u)`) requires none at all.
//! (`tests`: random patterns and haystacks against the compiled regex
//! alone.) The flags that leave literals alone (`s`, `m`, `U`, `R`: they
//! change `.`, the anchors and greediness) are read past, so a path glob's
//! `(?s)\A(?:.*/)?\.hookc/.*\z` requires `.hookc/` (artifacts written
//! before 2026-12-07 record no literal for such a pattern; they load and
//! search as before). One more prefilter: a pattern that requires no
//! literal but whose alternatives each do requires one of theirs
//! (`one_of_literals`): a haystack with none of them is no match. The
//! compiler records that set too ([`one_of_literals_in`], the artifact's
//! `one_of` section), tested before the pattern is parsed; where it is not
//! recorded (older artifacts), the parse finds it.
//!
//! Two engines, chosen from the pattern text alone by [`engine`] (the
//! compiler and the runtime both decide there, so they never disagree): a
//! pattern `regex-syntax` parses runs on the `regex` crate, in time linear
//! in the haystack; a pattern it refuses only for a construct that needs
//! backtracking (look-around, a backreference, an atomic group: see
//! [`Construct`]) and that `fancy-regex` parses runs on `fancy-regex`,
//! under [`MAX_REGEX_BACKTRACK_STEPS`](crate::limits::MAX_REGEX_BACKTRACK_STEPS)
//! (past it, the search is [`EvalError::RegexStepLimit`]). Such a pattern
//! is parsed with `fancy-regex`'s parser (which also counts its groups)
//! before it is compiled; it has no required literals (none are derived
//! from `fancy-regex`'s tree, so the prefilter stays exact by testing
//! nothing). Nothing in the artifact names the engine: it is the same
//! pattern string either way. A group that turns Unicode off (`(?-u:\b)`)
//! is written out in ASCII terms for `fancy-regex`, which has no inline
//! switch (`value/ascii_groups.rs`).

//!
//! A first search on a small engine: compiling a pattern on `regex` (its
//! NFAs, prefilters and engine set-up) costs some 300,000 to 700,000
//! instructions, more than the rest of a `hookc hook` call, which searches
//! each pattern only a few times. A pattern whose meaning `regex-lite`
//! shares ([`lite_safe`]: no Unicode class, Perl class, word boundary or
//! flag but `s` and `m`, whose meanings differ there) is searched on
//! `regex-lite`, which compiles in a sixth of that, for its first
//! [`LITE_SEARCHES`] searches of haystacks up to [`LITE_HAYSTACK_BYTES`];
//! later searches, and longer haystacks, compile it on `regex` (where
//! `regex-lite`'s search, without a DFA, would cost more than the compile
//! saves). Both engines find the same leftmost-first match with the same
//! groups, so which one answers changes no result (`tests`: random
//! patterns of that subset on both).

use super::EvalError;
use memchr::memmem::Finder;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// How many searches of one pattern `regex-lite` answers before the
/// pattern is compiled on `regex` (module doc).
pub const LITE_SEARCHES: u32 = 16;
/// The longest haystack, in bytes, searched on `regex-lite`.
pub const LITE_HAYSTACK_BYTES: usize = 2048;

// At most this many required literals are tested before the regex.
use crate::limits::MAX_REGEX_LITERALS as MAX_REQUIRED;
// At most this many literals of a one-of set.
use crate::limits::MAX_REGEX_ONE_OF;

/// A regex of a verified program: parsed and compiled on first use.
#[derive(Debug, Clone)]
pub struct PolicyRegex {
    pattern: String,
    /// The literals every match contains as the compiler found them
    /// ([`required_literals`]), when the artifact records them (format 6):
    /// a haystack without one is answered without parsing the pattern.
    known: Option<KnownLiterals<MAX_REQUIRED>>,
    /// For a pattern that requires no literal, the one-of set the compiler
    /// recorded ([`one_of_literals_in`]; the artifact's `one_of` section):
    /// a haystack with none of them is answered without parsing the
    /// pattern. Boxed: most regexes have none.
    known_one_of: Option<Box<KnownLiterals<MAX_REGEX_ONE_OF>>>,
    /// What parsing found, or the parser's reason (first use, or
    /// [`parse`](Self::parse)).
    parsed: OnceLock<Result<ParsedRegex, String>>,
    compiled: OnceLock<Option<CompiledRegex>>,
    /// The pattern on `regex-lite` (`None` when it does not compile there).
    lite: OnceLock<Option<regex_lite::Regex>>,
    /// Searches answered on `regex-lite` so far.
    lite_searches: LiteSearches,
}

/// A count of searches, shared by the threads that search one regex.
#[derive(Debug, Default)]
struct LiteSearches(AtomicU32);

impl Clone for LiteSearches {
    fn clone(&self) -> LiteSearches {
        LiteSearches(AtomicU32::new(self.0.load(Ordering::Relaxed)))
    }
}

/// What a [`PolicyRegex`]'s parse found.
#[derive(Debug, Clone)]
struct ParsedRegex {
    /// Whether `fancy-regex` runs it (decided by [`engine`]).
    backtracking: bool,
    /// Whether `regex-lite` gives it the same meaning ([`lite_safe`]).
    lite: bool,
    /// Literals every match contains (at most [`MAX_REQUIRED`]).
    required: Vec<Finder<'static>>,
    /// When no literal is required: literals of which every match
    /// contains at least one ([`one_of_literals`]; empty when there is no
    /// such set), so that a haystack with none of them is no match.
    one_of: Box<[String]>,
    /// Capture groups, group 0 (the whole match) included.
    groups: usize,
    /// The named groups' indexes and names, by index (usually empty, so
    /// nothing is allocated for a pattern without names).
    names: Vec<(usize, String)>,
}

/// Literals recorded in the artifact (at most `N`: the required ones, or a
/// one-of set), searched for with finders made on the first search.
// PERF: the literals in one string (one allocation a regex, not one a
// literal: a 60-hook guard's load copied 28 literals of 14 regexes).
#[derive(Debug, Clone)]
struct KnownLiterals<const N: usize> {
    /// The literals, one after another.
    text: Box<str>,
    /// Where each literal ends in `text`, for the first `count`.
    ends: [usize; N],
    count: usize,
    finders: OnceLock<Box<[Finder<'static>]>>,
    /// [`byte_set`] of `text`: the bytes of the literals. Read for the
    /// required literals only ([`PolicyRegex::surely_lacks`]: a missing
    /// byte is a missing literal); a one-of set is lacked only where every
    /// one of its literals is.
    bytes: u64,
}

/// The bytes of `s` as a set: bit `b % 64` for each byte `b` (bytes 64
/// apart share a bit, so a clear bit is a byte surely absent, a set one a
/// byte perhaps present). What [`PolicyRegex::surely_lacks`] compares.
pub fn byte_set(s: &str) -> u64 {
    s.bytes().fold(0, |set, b| set | 1 << (b & 63))
}

impl<const N: usize> KnownLiterals<N> {
    /// The first `N` of `literals` (the verifier allows no more), or
    /// `None` for none.
    fn new(literals: &[String]) -> Option<KnownLiterals<N>> {
        let kept = literals.get(..literals.len().min(N))?;
        let mut text = String::with_capacity(kept.iter().map(String::len).sum());
        let mut ends = [0; N];
        for (end, literal) in ends.iter_mut().zip(kept) {
            text.push_str(literal);
            *end = text.len();
        }
        (!kept.is_empty()).then(|| KnownLiterals {
            bytes: byte_set(&text),
            text: text.into_boxed_str(),
            ends,
            count: kept.len(),
            finders: OnceLock::new(),
        })
    }

    /// The literals in order.
    fn literals(&self) -> impl Iterator<Item = &str> {
        let ends = self.ends.get(..self.count).unwrap_or_default();
        let starts = std::iter::once(0).chain(ends.iter().copied());
        starts
            .zip(ends)
            .filter_map(|(start, &end)| self.text.get(start..end))
    }

    /// The finders, made on the first call.
    fn finders(&self) -> &[Finder<'static>] {
        self.finders.get_or_init(|| {
            self.literals()
                .map(|l| Finder::new(l.as_bytes()).into_owned())
                .collect()
        })
    }

    /// Whether one of the literals is missing from `haystack`.
    fn lacked_by(&self, haystack: &str) -> bool {
        self.finders()
            .iter()
            .any(|f| f.find(haystack.as_bytes()).is_none())
    }

    /// Whether `haystack` holds none of the literals.
    fn none_in(&self, haystack: &str) -> bool {
        !self
            .finders()
            .iter()
            .any(|f| f.find(haystack.as_bytes()).is_some())
    }
}

impl ParsedRegex {
    /// Whether a literal every match contains is missing from `haystack`,
    /// which then cannot match.
    #[inline]
    fn lacks_required(&self, haystack: &str) -> bool {
        let bytes = haystack.as_bytes();
        self.required.iter().any(|f| f.find(bytes).is_none())
    }

    /// Whether `haystack` holds none of the literals one of which every
    /// match contains.
    #[inline]
    fn lacks_one_of(&self, haystack: &str) -> bool {
        !self.one_of.is_empty() && !self.one_of.iter().any(|l| haystack.contains(l.as_str()))
    }
}

impl PolicyRegex {
    /// A regex of `pattern`, neither parsed nor compiled: a load's, which
    /// costs a copy of the text. What is wrong with the pattern is found
    /// on its first use.
    pub fn deferred(pattern: &str) -> PolicyRegex {
        PolicyRegex {
            pattern: pattern.to_owned(),
            known: None,
            known_one_of: None,
            parsed: OnceLock::new(),
            compiled: OnceLock::new(),
            lite: OnceLock::new(),
            lite_searches: LiteSearches::default(),
        }
    }

    /// [`deferred`](Self::deferred), with the literals every match
    /// contains as the compiler recorded them ([`required_literals`]): a
    /// search of a haystack without one answers no match without parsing
    /// the pattern. The artifact is trusted for them as for its code
    /// (`docs/src/reference/artifact.md`, "What loading guarantees").
    pub fn with_required(pattern: &str, literals: &[String]) -> PolicyRegex {
        PolicyRegex::with_literals(pattern, literals, &[])
    }

    /// [`with_required`](Self::with_required), with the one-of set the
    /// compiler recorded for a pattern that requires no literal
    /// ([`one_of_literals_in`]): a haystack with none of them is answered
    /// without parsing the pattern. Trusted as the required literals are.
    pub fn with_literals(pattern: &str, required: &[String], one_of: &[String]) -> PolicyRegex {
        PolicyRegex {
            known: KnownLiterals::new(required),
            known_one_of: KnownLiterals::new(one_of).map(Box::new),
            ..PolicyRegex::deferred(pattern)
        }
    }

    /// Parses `pattern` now, under the nesting limit
    /// ([`MAX_REGEX_NESTING`](crate::limits::MAX_REGEX_NESTING)), on the
    /// engine [`engine`] chooses; the error is the parser's reason.
    pub fn parse(pattern: &str) -> Result<PolicyRegex, String> {
        let regex = PolicyRegex::deferred(pattern);
        regex.parsed().map_err(str::to_owned)?;
        Ok(regex)
    }

    /// The pattern's text.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether a haystack whose [`byte_set`] is `haystack` surely lacks a
    /// recorded required literal, one of whose bytes it has not: then
    /// [`is_match`](Self::is_match) is `Ok(false)` and `captures` `Ok(None)`,
    /// found without a search (a literal is tested before anything else).
    /// `false` when not sure: no literal recorded, or every byte's bit
    /// set. One set answers for every regex tested on one haystack (a
    /// chain of `path.match` on one path, `eval/vm`).
    #[inline]
    pub fn surely_lacks(&self, haystack: u64) -> bool {
        self.known
            .as_ref()
            .is_some_and(|known| known.bytes & !haystack != 0)
    }

    /// Whether `haystack` has a match; an error when the pattern does not
    /// parse or compile (bad syntax, over the size limit, an unknown
    /// Unicode class: only a hand-made artifact has one), or, for a
    /// backtracking pattern, when the search passes the step limit
    /// ([`EvalError::RegexStepLimit`]).
    #[inline]
    pub fn is_match(&self, haystack: &str) -> Result<bool, EvalError> {
        if self.lacks_known_one_of(haystack) || self.lacks_required(haystack)? {
            return Ok(false);
        }
        let parsed = self.parsed().map_err(|_| EvalError::InvalidArgument)?;
        if parsed.lacks_one_of(haystack) {
            return Ok(false);
        }
        if let Some(lite) = self.lite(parsed, haystack) {
            return Ok(lite.is_match(haystack));
        }
        self.compiled(parsed)?.is_match(haystack)
    }

    /// The groups of the first match in `haystack` (the leftmost one, as
    /// [`is_match`](Self::is_match) finds it): `None` when nothing matches,
    /// else one entry per group, group 0 (the whole match) first and then
    /// the groups in the order of their opening parentheses, `None` for a
    /// group that took no part in the match. Errors as `is_match`.
    pub fn captures<'h>(
        &self,
        haystack: &'h str,
    ) -> Result<Option<Vec<Option<&'h str>>>, EvalError> {
        if self.lacks_known_one_of(haystack) || self.lacks_required(haystack)? {
            return Ok(None);
        }
        let parsed = self.parsed().map_err(|_| EvalError::InvalidArgument)?;
        if parsed.lacks_one_of(haystack) {
            return Ok(None);
        }
        if let Some(lite) = self.lite(parsed, haystack) {
            return Ok(lite
                .captures(haystack)
                .map(|caps| caps.iter().map(|m| m.map(|m| m.as_str())).collect()));
        }
        self.compiled(parsed)?.captures(haystack)
    }

    /// How many entries [`captures`](Self::captures) gives: the capture
    /// groups and group 0. Known from the parse, without compiling; the
    /// parser's reason for a pattern that does not parse.
    pub fn group_count(&self) -> Result<usize, &str> {
        self.parsed().map(|p| p.groups)
    }

    /// Each group's name, by index (group 0 and unnamed groups `None`);
    /// the parser's reason for a pattern that does not parse.
    pub fn group_names(&self) -> Result<Vec<Option<String>>, &str> {
        self.parsed().map(|p| group_names(p.groups, &p.names))
    }

    /// The longest literal every match contains, if the pattern has one:
    /// a string without it cannot match (the hook index keys by it). A
    /// pattern that does not parse has none (its searches are errors).
    pub fn required_literal(&self) -> Option<&str> {
        if let Some(known) = &self.known {
            return known.literals().next();
        }
        let first = self.parsed().ok()?.required.first()?;
        std::str::from_utf8(first.needle()).ok()
    }

    /// Whether `fancy-regex` runs this pattern (see [`engine`]); `false`
    /// for a pattern that does not parse.
    pub fn is_backtracking(&self) -> bool {
        self.parsed().is_ok_and(|p| p.backtracking)
    }

    /// Whether a literal every match contains is missing from `haystack`:
    /// the recorded literals when there are, else the parse's (parsing the
    /// pattern now; an error if it does not parse).
    #[inline]
    fn lacks_required(&self, haystack: &str) -> Result<bool, EvalError> {
        match &self.known {
            Some(known) => Ok(known.lacked_by(haystack)),
            None => self
                .parsed()
                .map(|parsed| parsed.lacks_required(haystack))
                .map_err(|_| EvalError::InvalidArgument),
        }
    }

    /// Whether `haystack` holds none of the recorded one-of set (`false`
    /// when none is recorded). Tested first: a regex with a set has no
    /// required literal to record, so [`lacks_required`](Self::lacks_required)
    /// would parse the pattern to find that out.
    #[inline]
    fn lacks_known_one_of(&self, haystack: &str) -> bool {
        self.known_one_of
            .as_ref()
            .is_some_and(|set| set.none_in(haystack))
    }

    /// The parse, done now on first use.
    #[inline]
    fn parsed(&self) -> Result<&ParsedRegex, &str> {
        self.parsed
            .get_or_init(|| {
                analyze(&self.pattern).map(|parsed| ParsedRegex {
                    backtracking: matches!(parsed.engine, Engine::Backtracking(_)),
                    lite: parsed.lite,
                    required: parsed
                        .required
                        .iter()
                        .map(|l| Finder::new(l.as_bytes()).into_owned())
                        .collect(),
                    one_of: parsed.one_of.into_boxed_slice(),
                    groups: parsed.groups,
                    names: parsed.names,
                })
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The pattern on `regex-lite`, when this search is one it answers
    /// (module doc): the pattern means the same there, `haystack` is
    /// short, the pattern is not compiled on `regex` yet, and fewer than
    /// [`LITE_SEARCHES`] searches came before. `None` sends the search to
    /// `regex` (as does a pattern `regex-lite` does not compile).
    #[inline]
    fn lite(&self, parsed: &ParsedRegex, haystack: &str) -> Option<&regex_lite::Regex> {
        if !parsed.lite || haystack.len() > LITE_HAYSTACK_BYTES || self.compiled.get().is_some() {
            return None;
        }
        if self.lite_searches.0.fetch_add(1, Ordering::Relaxed) >= LITE_SEARCHES {
            return None;
        }
        self.lite
            .get_or_init(|| {
                regex_lite::RegexBuilder::new(&self.pattern)
                    .size_limit(crate::limits::MAX_REGEX_SIZE)
                    .nest_limit(crate::limits::MAX_REGEX_NESTING)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The compiled regex, compiled now on first use; a pattern that does
    /// not compile is `invalid argument` at every use.
    #[inline]
    fn compiled(&self, parsed: &ParsedRegex) -> Result<&CompiledRegex, EvalError> {
        self.compiled
            .get_or_init(|| compile_on(&self.pattern, parsed.backtracking).ok())
            .as_ref()
            .ok_or(EvalError::InvalidArgument)
    }
}

/// A compiled regex on the engine [`engine`] chose for its pattern.
#[derive(Debug, Clone)]
pub enum CompiledRegex {
    /// The `regex` crate: linear time.
    Linear(regex::Regex),
    /// `fancy-regex`, under the step limit.
    Backtracking(fancy_regex::Regex),
}

impl CompiledRegex {
    /// Whether `haystack` has a match (an unanchored search on either
    /// engine); [`EvalError::RegexStepLimit`] when a backtracking search
    /// passes the step limit.
    #[inline]
    pub fn is_match(&self, haystack: &str) -> Result<bool, EvalError> {
        match self {
            CompiledRegex::Linear(re) => Ok(re.is_match(haystack)),
            CompiledRegex::Backtracking(re) => re.is_match(haystack).map_err(|e| search_error(&e)),
        }
    }

    /// The groups of the first match, as [`PolicyRegex::captures`].
    pub fn captures<'h>(
        &self,
        haystack: &'h str,
    ) -> Result<Option<Vec<Option<&'h str>>>, EvalError> {
        match self {
            CompiledRegex::Linear(re) => Ok(re
                .captures(haystack)
                .map(|caps| caps.iter().map(|m| m.map(|m| m.as_str())).collect())),
            CompiledRegex::Backtracking(re) => {
                let caps = re.captures(haystack).map_err(|e| search_error(&e))?;
                Ok(caps.map(|caps| {
                    (0..re.captures_len())
                        .map(|i| caps.get(i).map(|m| m.as_str()))
                        .collect()
                }))
            }
        }
    }

    /// The number of groups, group 0 included.
    pub fn group_count(&self) -> usize {
        match self {
            CompiledRegex::Linear(re) => re.captures_len(),
            CompiledRegex::Backtracking(re) => re.captures_len(),
        }
    }
}

/// The evaluation error of a failed `fancy-regex` search: its only
/// runtime errors are its two bounds, the step limit and its stack limit
/// (a bound of the same kind, reached by a search that keeps a million
/// backtracking points open).
fn search_error(error: &fancy_regex::Error) -> EvalError {
    match error {
        fancy_regex::Error::RuntimeError(_) => EvalError::RegexStepLimit,
        _ => EvalError::InvalidArgument,
    }
}

/// What a `matches` test (and a capture) runs on a string: a
/// [`CompiledRegex`] (the compiler's folding, the reference evaluator) or a
/// [`PolicyRegex`] (the VM), which answer alike for the same pattern.
pub trait Matcher {
    /// Whether `haystack` has a match, or why the test cannot say.
    fn test(&self, haystack: &str) -> Result<bool, EvalError>;

    /// The groups of the first match, as [`PolicyRegex::captures`].
    fn captures<'h>(&self, haystack: &'h str) -> Result<Option<Vec<Option<&'h str>>>, EvalError>;
}

impl Matcher for CompiledRegex {
    #[inline]
    fn test(&self, haystack: &str) -> Result<bool, EvalError> {
        self.is_match(haystack)
    }

    fn captures<'h>(&self, haystack: &'h str) -> Result<Option<Vec<Option<&'h str>>>, EvalError> {
        CompiledRegex::captures(self, haystack)
    }
}

impl Matcher for PolicyRegex {
    #[inline]
    fn test(&self, haystack: &str) -> Result<bool, EvalError> {
        self.is_match(haystack)
    }

    fn captures<'h>(&self, haystack: &'h str) -> Result<Option<Vec<Option<&'h str>>>, EvalError> {
        PolicyRegex::captures(self, haystack)
    }
}

mod engine;
mod literals;

pub use engine::*;
pub use literals::*;

#[cfg(test)]
mod tests;
