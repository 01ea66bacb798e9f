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
//! search as before). One more prefilter is read at run time from the
//! parse: a pattern that requires no literal but whose alternatives each
//! do requires one of theirs (`one_of_literals`): a haystack with none of
//! them is no match.
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
use regex_syntax::ast::{Ast, GroupKind, RepetitionKind, RepetitionRange};
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// How many searches of one pattern `regex-lite` answers before the
/// pattern is compiled on `regex` (module doc).
pub const LITE_SEARCHES: u32 = 16;
/// The longest haystack, in bytes, searched on `regex-lite`.
pub const LITE_HAYSTACK_BYTES: usize = 2048;

// At most this many required literals are tested before the regex.
use crate::limits::MAX_REGEX_LITERALS as MAX_REQUIRED;

/// A regex of a verified program: parsed and compiled on first use.
#[derive(Debug, Clone)]
pub struct PolicyRegex {
    pattern: String,
    /// The literals every match contains as the compiler found them
    /// ([`required_literals`]), when the artifact records them (format 6):
    /// a haystack without one is answered without parsing the pattern.
    known: Option<KnownLiterals>,
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

/// Required literals recorded in the artifact, searched for with finders
/// made on the first search.
// PERF: the literals in one string (one allocation a regex, not one a
// literal: a 60-hook guard's load copied 28 literals of 14 regexes).
#[derive(Debug, Clone)]
struct KnownLiterals {
    /// The literals, one after another.
    text: Box<str>,
    /// Where each literal ends in `text`, for the first `count`.
    ends: [usize; MAX_REQUIRED],
    count: usize,
    finders: OnceLock<Box<[Finder<'static>]>>,
}

impl KnownLiterals {
    /// The first [`MAX_REQUIRED`] of `literals` (the verifier allows no
    /// more), or `None` for none.
    fn new(literals: &[String]) -> Option<KnownLiterals> {
        let kept = literals.get(..literals.len().min(MAX_REQUIRED))?;
        let mut text = String::with_capacity(kept.iter().map(String::len).sum());
        let mut ends = [0; MAX_REQUIRED];
        for (end, literal) in ends.iter_mut().zip(kept) {
            text.push_str(literal);
            *end = text.len();
        }
        (!kept.is_empty()).then(|| KnownLiterals {
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

    /// Whether one of the literals is missing from `haystack`.
    fn lacked_by(&self, haystack: &str) -> bool {
        let finders = self.finders.get_or_init(|| {
            self.literals()
                .map(|l| Finder::new(l.as_bytes()).into_owned())
                .collect()
        });
        finders
            .iter()
            .any(|f| f.find(haystack.as_bytes()).is_none())
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
        PolicyRegex {
            known: KnownLiterals::new(literals),
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

    /// Whether `haystack` has a match; an error when the pattern does not
    /// parse or compile (bad syntax, over the size limit, an unknown
    /// Unicode class: only a hand-made artifact has one), or, for a
    /// backtracking pattern, when the search passes the step limit
    /// ([`EvalError::RegexStepLimit`]).
    #[inline]
    pub fn is_match(&self, haystack: &str) -> Result<bool, EvalError> {
        if self.lacks_required(haystack)? {
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
        if self.lacks_required(haystack)? {
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

/// Compiles a regex pattern on the engine [`engine`] chooses, under the
/// size and nesting limits ([`MAX_REGEX_SIZE`](crate::limits::MAX_REGEX_SIZE),
/// [`MAX_REGEX_NESTING`](crate::limits::MAX_REGEX_NESTING); on
/// `fancy-regex`, the size limit bounds each part it hands to `regex`, and
/// its own parser bounds nesting at 64 groups) and, on `fancy-regex`, the
/// step limit ([`MAX_REGEX_BACKTRACK_STEPS`](crate::limits::MAX_REGEX_BACKTRACK_STEPS));
/// the error is the engine's reason, without its framing. The checker
/// compiles every pattern through here, and a loaded policy compiles
/// through here on first use ([`PolicyRegex`]).
pub fn compile_regex(pattern: &str) -> Result<CompiledRegex, String> {
    compile_regex_on_engine(pattern).map(|(compiled, _)| compiled)
}

/// [`compile_regex`], with the engine it chose: the checker's one parse of
/// each pattern.
pub fn compile_regex_on_engine(pattern: &str) -> Result<(CompiledRegex, Engine), String> {
    // PERF: a pattern `regex` compiles is one `regex-syntax` parses, so
    // its engine is `Linear` without parsing it again (the analysis was
    // ~8% of compiling a regex-heavy policy, callgrind); only a pattern it
    // refuses is analyzed, for the engine or for the reason.
    let linear = compile_on(pattern, false);
    if let Ok(compiled) = linear {
        return Ok((compiled, Engine::Linear));
    }
    let engine = engine(pattern)?;
    let compiled = match engine {
        Engine::Linear => linear?,
        Engine::Backtracking(_) => compile_on(pattern, true)?,
    };
    Ok((compiled, engine))
}

/// Compiles `pattern` on the engine already chosen for it by [`engine`]
/// (a loaded [`PolicyRegex`] knows it from its parse, and does not parse
/// again to decide).
fn compile_on(pattern: &str, backtracking: bool) -> Result<CompiledRegex, String> {
    if backtracking {
        fancy_regex::RegexBuilder::new(&super::ascii_groups::for_backtracking(pattern)?)
            .backtrack_limit(crate::limits::MAX_REGEX_BACKTRACK_STEPS)
            .delegate_size_limit(crate::limits::MAX_REGEX_SIZE)
            .build()
            .map(CompiledRegex::Backtracking)
            .map_err(|e| fancy_reason(&e))
    } else {
        regex::RegexBuilder::new(pattern)
            .size_limit(crate::limits::MAX_REGEX_SIZE)
            .nest_limit(crate::limits::MAX_REGEX_NESTING)
            .build()
            .map(CompiledRegex::Linear)
            .map_err(|e| regex_reason(&e))
    }
}

/// Which engine runs a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// The `regex` crate: the pattern parses with `regex-syntax`.
    Linear,
    /// `fancy-regex`, for the first construct `regex-syntax` refused.
    Backtracking(Backtracking),
}

/// The first construct of a pattern that needs the backtracking engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backtracking {
    /// What it is.
    pub construct: Construct,
    /// Its text in the pattern (`(?=`, `\1`, `\k<name>`, `(?>`).
    pub text: String,
    /// Its byte offset in the pattern.
    pub offset: usize,
    /// Its column in the pattern, in characters, from 1.
    pub column: usize,
}

impl fmt::Display for Backtracking {
    /// `a look-ahead `(?=` at column 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} `{}` at column {}",
            self.construct, self.text, self.column
        )
    }
}

/// A construct that needs backtracking: what `regex` refuses and
/// `fancy-regex` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construct {
    /// `(?=...)`.
    LookAhead,
    /// `(?!...)`.
    NegativeLookAhead,
    /// `(?<=...)`.
    LookBehind,
    /// `(?<!...)`.
    NegativeLookBehind,
    /// `\1`, `\k<name>`, `(?P=name)`.
    Backreference,
    /// `(?>...)`.
    AtomicGroup,
}

impl fmt::Display for Construct {
    /// `a look-ahead`, `a backreference`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Construct::LookAhead => "a look-ahead",
            Construct::NegativeLookAhead => "a negative look-ahead",
            Construct::LookBehind => "a look-behind",
            Construct::NegativeLookBehind => "a negative look-behind",
            Construct::Backreference => "a backreference",
            Construct::AtomicGroup => "an atomic group",
        })
    }
}

/// Which engine runs `pattern`, or why neither can: the one place that
/// decides, a function of the pattern text alone (the compiler's checker
/// and folding, its reference evaluator and the runtime all come here).
///
/// `regex-syntax` parses first; a pattern it accepts is
/// [`Engine::Linear`]. A pattern it refuses is backtracking only when its
/// reason is a [`Construct`] (`regex-syntax` stops at the first one) and
/// `fancy-regex` parses the whole pattern without the extensions hookc
/// leaves out (conditionals, subroutine calls, `\K`, `\G`, backtracking
/// verbs, absent operators) and without a backreference to a group that
/// does not exist; any other refusal is the error, `regex-syntax`'s reason
/// first.
pub fn engine(pattern: &str) -> Result<Engine, String> {
    analyze(pattern).map(|parsed| parsed.engine)
}

/// The literals every match of `pattern` contains, longest first, at most
/// four: what a compiler records in the artifact for the runtime's
/// prefilter ([`PolicyRegex::with_required`]). None for a pattern that
/// does not parse, needs backtracking, or sets flags.
pub fn required_literals(pattern: &str) -> Vec<String> {
    analyze(pattern).map_or_else(|_| Vec::new(), |parsed| parsed.required)
}

/// Records in `program` the literals every match of each of its regexes
/// contains ([`required_literals`]), for the artifact (format 6): none for
/// a program without regexes, which keeps its older format.
pub fn record_required_literals(program: &mut crate::bytecode::Program) {
    program.regex_literals = program
        .regexes
        .iter()
        .map(|pattern| required_literals(pattern))
        .collect();
}

/// What parsing a pattern found.
struct RegexParse {
    engine: Engine,
    /// Required literals, longest first, at most [`MAX_REQUIRED`]: what
    /// the compiler records and a search tests.
    required: Vec<String>,
    /// Capture groups, group 0 included.
    groups: usize,
    /// Named groups, by index.
    names: Vec<(usize, String)>,
    /// Whether `regex-lite` gives it the same meaning ([`lite_safe`]).
    lite: bool,
    /// Literals one of which every match contains, when none is required
    /// ([`one_of_literals`]).
    one_of: Vec<String>,
}

/// Parses `pattern` on the engine it needs ([`engine`]).
fn analyze(pattern: &str) -> Result<RegexParse, String> {
    let error = match regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(crate::limits::MAX_REGEX_NESTING)
        .build()
        .parse(pattern)
    {
        Ok(ast) => return Ok(linear(&ast)),
        Err(error) => error,
    };
    let Some(first) = backtracking_construct(pattern, &error) else {
        return Err(regex_reason(&error));
    };
    let written = super::ascii_groups::for_backtracking(pattern)?;
    let tree = fancy_regex::Expr::parse_tree(&written).map_err(|e| fancy_reason(&e))?;
    let mut groups = FancyGroups::default();
    fancy_walk(&tree.expr, &mut groups)
        .map_err(|what| format!("{what} is not supported (of what needs backtracking, only look-around, backreferences and atomic groups are)"))?;
    if let Some(bad) = groups
        .references
        .iter()
        .find(|&&g| g == 0 || g > groups.count)
    {
        return Err(format!(
            "backreference to group {bad}, which does not exist"
        ));
    }
    let mut names: Vec<(usize, String)> = tree
        .named_groups
        .iter()
        .map(|(name, &index)| (index, name.clone()))
        .collect();
    names.sort();
    Ok(RegexParse {
        engine: Engine::Backtracking(first),
        required: Vec::new(),
        groups: groups.count + 1,
        names,
        lite: false,
        one_of: Vec::new(),
    })
}

/// What a pattern `regex-syntax` parsed requires and captures.
fn linear(ast: &Ast) -> RegexParse {
    let literals = required_of(ast);
    // The visitor keeps its own stack (no recursion), and never fails.
    let groups = match regex_syntax::ast::visit(ast, AstGroups::default()) {
        Ok(groups) => groups,
        Err(never) => match never {},
    };
    let one_of = if literals.is_empty() {
        one_of_literals(ast).unwrap_or_default()
    } else {
        Vec::new()
    };
    RegexParse {
        engine: Engine::Linear,
        required: literals,
        groups: groups.count + 1,
        names: groups.names,
        lite: lite_safe(ast),
        one_of,
    }
}

/// The literals every match of `ast` contains: longest first (the rarest
/// in practice), at most [`MAX_REQUIRED`].
fn required_of(ast: &Ast) -> Vec<String> {
    let mut literals = Vec::new();
    if walk(ast, true, &mut literals).is_err() {
        literals.clear();
    }
    // Equal ones adjacent for `dedup`.
    literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    literals.dedup();
    literals.truncate(MAX_REQUIRED);
    literals
}

/// Most literals in a [`one_of_literals`] set: more would cost a search
/// each for little.
const MAX_ONE_OF: usize = 16;

/// Literals of which every match of `ast` contains at least one, when the
/// tree says so: a literal run; a group or a repetition of at least one of
/// something that has such a set; the best set among a concatenation's
/// parts (the one whose shortest literal is longest); and, for an
/// alternation, the union of its branches' sets, when every branch has
/// one. Nothing else has a set (a class, `.`, an optional part), nor a
/// pattern that sets flags anywhere (`(?i)` changes what a literal
/// matches), nor a set past [`MAX_ONE_OF`]. Exact as the required
/// literals are: a haystack with none of the set cannot hold a match
/// (`tests`: random patterns against the compiled regex).
fn one_of_literals(ast: &Ast) -> Option<Vec<String>> {
    let set = one_of(ast).ok()??;
    (!set.is_empty() && set.len() <= MAX_ONE_OF && set.iter().all(|l| !l.is_empty())).then_some(set)
}

/// [`one_of_literals`]'s walk: `Ok(None)` for no set, `Err` for a flag
/// anywhere. Recursion is bounded by the parser's nesting limit.
fn one_of(ast: &Ast) -> Result<Option<Vec<String>>, Flagged> {
    Ok(match ast {
        Ast::Flags(set) if neutral(&set.flags) => None,
        Ast::Flags(_) => return Err(Flagged),
        Ast::Literal(lit) => Some(vec![lit.c.to_string()]),
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(set) = &group.kind {
                if !set.items.is_empty() && !neutral(set) {
                    return Err(Flagged);
                }
            }
            one_of(&group.ast)?
        }
        Ast::Repetition(rep) => {
            let at_least_one = match &rep.op.kind {
                RepetitionKind::OneOrMore => true,
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => false,
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(n, _),
                ) => *n >= 1,
            };
            let inner = one_of(&rep.ast)?;
            inner.filter(|_| at_least_one)
        }
        Ast::Alternation(alt) => {
            let mut union: Vec<String> = Vec::new();
            let mut every = true;
            for branch in &alt.asts {
                match one_of(branch)? {
                    Some(set) => union.extend(set),
                    None => every = false,
                }
            }
            union.sort();
            union.dedup();
            (every && union.len() <= MAX_ONE_OF).then_some(union)
        }
        Ast::Concat(concat) => {
            let mut best: Option<Vec<String>> = None;
            let mut consider = |set: Vec<String>| {
                let shortest = |s: &[String]| s.iter().map(String::len).min().unwrap_or(0);
                if best.as_ref().is_none_or(|b| shortest(&set) > shortest(b)) {
                    best = Some(set);
                }
            };
            let mut run = String::new();
            for part in &concat.asts {
                if let Ast::Literal(lit) = part {
                    run.push(lit.c);
                    continue;
                }
                if !run.is_empty() {
                    consider(vec![std::mem::take(&mut run)]);
                }
                if let Some(set) = one_of(part)? {
                    consider(set);
                }
            }
            if !run.is_empty() {
                consider(vec![run]);
            }
            best
        }
        Ast::Empty(_)
        | Ast::Dot(_)
        | Ast::Assertion(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => None,
    })
}

/// Whether `regex-lite` gives the pattern `ast` the meaning `regex` gives
/// it: built of literals (written, escaped meta characters, `\n` and the
/// like), `.`, bracketed classes of literals and ranges, `^` `$` `\A`
/// `\z`, groups, repetitions and alternations, with no flag but `s` and
/// `m`. Left out, as the two crates read them differently: Perl and
/// Unicode classes (ASCII in `regex-lite`), word boundaries (ASCII there),
/// case folding (ASCII there), and everything else to be safe.
pub fn lite_safe(ast: &Ast) -> bool {
    regex_syntax::ast::visit(ast, LiteSafe).is_ok()
}

/// The visitor of [`lite_safe`]: an error at the first construct outside
/// the subset.
struct LiteSafe;

impl regex_syntax::ast::Visitor for LiteSafe {
    type Output = ();
    type Err = ();

    fn finish(self) -> Result<(), ()> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
        use regex_syntax::ast::{AssertionKind, LiteralKind};
        let flags_ok = |flags: &regex_syntax::ast::Flags| {
            flags.items.iter().all(|item| {
                matches!(
                    item.kind,
                    regex_syntax::ast::FlagsItemKind::Negation
                        | regex_syntax::ast::FlagsItemKind::Flag(
                            regex_syntax::ast::Flag::DotMatchesNewLine
                                | regex_syntax::ast::Flag::MultiLine
                        )
                )
            })
        };
        let ok = match ast {
            Ast::Empty(_)
            | Ast::Dot(_)
            | Ast::Repetition(_)
            | Ast::Alternation(_)
            | Ast::Concat(_) => true,
            Ast::Literal(l) => matches!(
                l.kind,
                LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Special(_)
            ),
            Ast::Assertion(a) => matches!(
                a.kind,
                AssertionKind::StartLine
                    | AssertionKind::EndLine
                    | AssertionKind::StartText
                    | AssertionKind::EndText
            ),
            Ast::Flags(f) => flags_ok(&f.flags),
            Ast::Group(g) => match &g.kind {
                GroupKind::CaptureIndex(_) | GroupKind::CaptureName { .. } => true,
                GroupKind::NonCapturing(flags) => flags_ok(flags),
            },
            Ast::ClassBracketed(_) => true,
            Ast::ClassUnicode(_) | Ast::ClassPerl(_) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(())
        }
    }

    fn visit_class_set_item_pre(
        &mut self,
        item: &regex_syntax::ast::ClassSetItem,
    ) -> Result<(), ()> {
        use regex_syntax::ast::{ClassSetItem, LiteralKind};
        let literal = |l: &regex_syntax::ast::Literal| {
            matches!(
                l.kind,
                LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Special(_)
            )
        };
        let ok = match item {
            ClassSetItem::Empty(_) | ClassSetItem::Union(_) => true,
            ClassSetItem::Literal(l) => literal(l),
            ClassSetItem::Range(r) => literal(&r.start) && literal(&r.end),
            ClassSetItem::Ascii(_)
            | ClassSetItem::Unicode(_)
            | ClassSetItem::Perl(_)
            | ClassSetItem::Bracketed(_) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(())
        }
    }

    fn visit_class_set_binary_op_pre(
        &mut self,
        _op: &regex_syntax::ast::ClassSetBinaryOp,
    ) -> Result<(), ()> {
        Err(())
    }
}

/// The capture groups of a `regex-syntax` tree.
#[derive(Default)]
struct AstGroups {
    count: usize,
    names: Vec<(usize, String)>,
}

impl regex_syntax::ast::Visitor for AstGroups {
    type Output = AstGroups;
    type Err = std::convert::Infallible;

    fn finish(self) -> Result<AstGroups, Self::Err> {
        Ok(self)
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), Self::Err> {
        if let Ast::Group(group) = ast {
            match &group.kind {
                GroupKind::CaptureIndex(_) => self.count += 1,
                GroupKind::CaptureName { name, .. } => {
                    self.count += 1;
                    // `regex` numbers named and unnamed groups together.
                    self.names.push((self.count, name.name.clone()));
                }
                GroupKind::NonCapturing(_) => {}
            }
        }
        Ok(())
    }
}

/// The capture groups and backreferences of a `fancy-regex` tree.
#[derive(Default)]
struct FancyGroups {
    count: usize,
    references: Vec<usize>,
}

/// Walks a `fancy-regex` tree: counts its groups and backreferences, and
/// refuses what hookc leaves out, naming it. Recursion is bounded by
/// `fancy-regex`'s parser, which refuses nesting past 64 groups.
fn fancy_walk(expr: &fancy_regex::Expr, out: &mut FancyGroups) -> Result<(), &'static str> {
    use fancy_regex::Expr;
    match expr {
        Expr::Empty
        | Expr::Any { .. }
        | Expr::Assertion(_)
        | Expr::GeneralNewline { .. }
        | Expr::Literal { .. }
        | Expr::Delegate { .. } => Ok(()),
        Expr::Backref { group, .. } => {
            out.references.push(*group);
            Ok(())
        }
        Expr::Concat(items) | Expr::Alt(items) => {
            items.iter().try_for_each(|item| fancy_walk(item, out))
        }
        Expr::Group(inner) => {
            out.count += 1;
            fancy_walk(inner, out)
        }
        Expr::LookAround(inner, _) | Expr::AtomicGroup(inner) => fancy_walk(inner, out),
        Expr::Repeat { child, .. } => fancy_walk(child, out),
        Expr::KeepOut => Err("`\\K`"),
        Expr::ContinueFromPreviousMatchEnd => Err("`\\G`"),
        Expr::BackrefWithRelativeRecursionLevel { .. } => {
            Err("a backreference with a recursion level")
        }
        Expr::BackrefExistsCondition { .. } | Expr::Conditional { .. } => Err("a conditional"),
        Expr::SubroutineCall(_) | Expr::DefineGroup { .. } => Err("a subroutine"),
        Expr::BacktrackingControlVerb(_) => Err("a backtracking control verb"),
        Expr::Absent(_) => Err("an absent operator"),
        Expr::AstNode(..) => Err("an unresolved group reference"),
    }
}

/// The construct `regex-syntax` refused `pattern` for, when it is one that
/// needs backtracking; `None` for any other error.
fn backtracking_construct(pattern: &str, error: &regex_syntax::ast::Error) -> Option<Backtracking> {
    use regex_syntax::ast::ErrorKind;
    let at = error.span().start.offset;
    let rest = pattern.get(at..)?;
    let (construct, offset, text) = match error.kind() {
        ErrorKind::UnsupportedLookAround => {
            let found = [
                ("(?<=", Construct::LookBehind),
                ("(?<!", Construct::NegativeLookBehind),
                ("(?=", Construct::LookAhead),
                ("(?!", Construct::NegativeLookAhead),
            ]
            .into_iter()
            .find(|(open, _)| rest.starts_with(open))?;
            (found.1, at, found.0.to_owned())
        }
        ErrorKind::UnsupportedBackreference => {
            let digits = rest
                .get(1..)?
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            (
                Construct::Backreference,
                at,
                rest.get(..1 + digits)?.to_owned(),
            )
        }
        // `\k<name>`: `regex-syntax` knows no `\k`.
        ErrorKind::EscapeUnrecognized if rest.starts_with("\\k<") => {
            let end = rest.find('>')?;
            (Construct::Backreference, at, rest.get(..=end)?.to_owned())
        }
        // `(?>` and `(?P=name)`: `regex-syntax` reads what follows `(?` as
        // flags, and refuses the first character that is not one.
        ErrorKind::FlagUnrecognized => {
            let open = pattern.get(..at)?.rfind("(?")?;
            let group = pattern.get(open..)?;
            if group.starts_with("(?>") {
                (Construct::AtomicGroup, open, "(?>".to_owned())
            } else if group.starts_with("(?P=") {
                let end = group.find(')')?;
                (
                    Construct::Backreference,
                    open,
                    group.get(..=end)?.to_owned(),
                )
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(Backtracking {
        construct,
        column: pattern.get(..offset)?.chars().count() + 1,
        offset,
        text,
    })
}

/// Each group's name, by index, from the named groups' `(index, name)`.
fn group_names(groups: usize, names: &[(usize, String)]) -> Vec<Option<String>> {
    let mut out = vec![None; groups];
    for (index, name) in names {
        if let Some(slot) = out.get_mut(*index) {
            *slot = Some(name.clone());
        }
    }
    out
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

/// A `fancy-regex` error's reason: its text has no framing to remove
/// (its position, when it says one, is a byte offset in the pattern).
fn fancy_reason(error: &fancy_regex::Error) -> String {
    let text = error.to_string();
    let reason = text.trim().trim_end_matches('.');
    // Lowercase first letter, as the checker's messages are.
    let mut chars = reason.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

/// The pattern sets flags: its literals are not known to match themselves.
struct Flagged;

/// Whether `flags` leave what a literal matches alone (`s`, `m`, `U`, `R`:
/// they change `.`, the anchors and greediness), so that a literal walk
/// reads past them; `i`, `x` and `u` end the walk.
fn neutral(flags: &regex_syntax::ast::Flags) -> bool {
    use regex_syntax::ast::{Flag, FlagsItemKind};
    flags.items.iter().all(|item| {
        matches!(
            item.kind,
            FlagsItemKind::Negation
                | FlagsItemKind::Flag(
                    Flag::DotMatchesNewLine | Flag::MultiLine | Flag::SwapGreed | Flag::CRLF
                )
        )
    })
}

/// Walks `ast`, appending to `out`, when `required`, the literal runs every
/// match of it contains; parts that need not match are walked for flags
/// only.
fn walk(ast: &Ast, required: bool, out: &mut Vec<String>) -> Result<(), Flagged> {
    match ast {
        Ast::Flags(set) if neutral(&set.flags) => {}
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
            if let GroupKind::NonCapturing(set) = &group.kind {
                if !set.items.is_empty() && !neutral(set) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator from `seed`: `next(n)` is below `n`, the same
    /// sequence on every run.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    impl PolicyRegex {
        /// Whether the regex has been compiled.
        fn is_compiled(&self) -> bool {
            self.compiled.get().is_some()
        }

        /// Whether the pattern has been parsed.
        fn is_parsed(&self) -> bool {
            self.parsed.get().is_some()
        }
    }

    #[test]
    fn recorded_literals_answer_a_search_without_parsing() {
        let pattern = r"(^|;\s*)terraform\s+apply\b";
        let literals = required_literals(pattern);
        assert_eq!(literals, ["terraform", "apply"]);
        let re = PolicyRegex::with_required(pattern, &literals);
        assert_eq!(re.required_literal(), Some("terraform"));
        assert_eq!(re.is_match("ls -la"), Ok(false));
        assert_eq!(re.captures("terraform plan"), Ok(None));
        assert!(!re.is_parsed());
        assert_eq!(re.is_match("x; terraform  apply"), Ok(true));
        assert!(re.is_parsed() && re.is_compiled());
        // A pattern that does not parse (only a hand-made artifact has one)
        // is an error where a search gets past its recorded literals.
        let bad = PolicyRegex::with_required("ab(", &["ab".to_owned()]);
        assert_eq!(bad.is_match("xy"), Ok(false));
        assert_eq!(bad.is_match("xab"), Err(EvalError::InvalidArgument));
        // No literals recorded: the parse finds them, as without a record.
        let none = PolicyRegex::with_required(pattern, &[]);
        assert_eq!(none.is_match("ls"), Ok(false));
        assert!(none.is_parsed() && !none.is_compiled());
        // What is recorded is what the parse finds, for the compiler to write.
        for p in [
            r"^a+$",
            r"(?i)abc",
            r"x(?=y)",
            r"ab|cd",
            r"\bgit\s+push\b.*--force",
        ] {
            let parsed = PolicyRegex::parse(p).unwrap();
            let found: Vec<&str> = parsed
                .parsed()
                .unwrap()
                .required
                .iter()
                .filter_map(|f| std::str::from_utf8(f.needle()).ok())
                .collect();
            assert_eq!(required_literals(p), found, "{p}");
        }
        assert!(required_literals("ab(").is_empty());
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

    /// Flags that leave literals alone are read past, by the compiler and
    /// at run time.
    #[test]
    fn neutral_flags_keep_their_literals() {
        let glob = r"(?s)\A(?:.*/)?\.hookc/.*\z";
        let ast = regex_syntax::ast::parse::Parser::new().parse(glob).unwrap();
        assert_eq!(required_of(&ast), [".hookc/"]);
        assert_eq!(required_literals(glob), [".hookc/"]);
        for flagged in [r"(?i)abc", r"abc(?i:d)", r"(?x)a b", r"(?s-i)x(?i)y"] {
            let ast = regex_syntax::ast::parse::Parser::new()
                .parse(flagged)
                .unwrap();
            assert!(required_of(&ast).is_empty(), "{flagged}");
        }
        let ast = regex_syntax::ast::parse::Parser::new()
            .parse(r"(?m)^ab(?s:.)c$")
            .unwrap();
        assert_eq!(required_of(&ast), ["ab", "c"]);
        let re = PolicyRegex::parse(glob).unwrap();
        assert_eq!(re.is_match("/work/app/build.log"), Ok(false));
        assert!(!re.is_compiled());
        assert_eq!(re.required_literal(), Some(".hookc/"));
        assert_eq!(re.is_match("a/.hookc/guard.yaml"), Ok(true));
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
        assert_eq!(
            re.parsed().unwrap().required.len(),
            2,
            "`ab` once, `cd` once"
        );
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

    #[test]
    fn a_deferred_pattern_is_parsed_on_first_use_and_a_bad_one_is_an_evaluation_error() {
        let re = PolicyRegex::deferred(r"\bterraform\s+apply\b");
        assert!(re.parsed.get().is_none(), "a load parses nothing");
        assert_eq!(re.is_match("ls"), Ok(false));
        assert!(re.parsed.get().is_some() && !re.is_compiled());
        assert_eq!(re.required_literal(), Some("terraform"));
        let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
        for bad in ["(", "[z-a]", deep.as_str(), r"(a)\2"] {
            let re = PolicyRegex::deferred(bad);
            assert_eq!(re.pattern(), bad);
            assert_eq!(re.is_match("a"), Err(EvalError::InvalidArgument), "{bad:?}");
            assert_eq!(re.captures("a"), Err(EvalError::InvalidArgument), "{bad:?}");
            assert_eq!(re.required_literal(), None);
            assert!(re.group_count().is_err() && !re.is_backtracking());
            // The same reason as an eager parse gives.
            assert_eq!(
                re.group_names().unwrap_err(),
                PolicyRegex::parse(bad).unwrap_err()
            );
        }
    }

    fn backtracking(pattern: &str) -> Backtracking {
        match engine(pattern) {
            Ok(Engine::Backtracking(b)) => b,
            other => panic!("{pattern:?}: {other:?}"),
        }
    }

    #[test]
    fn the_engine_is_chosen_from_the_pattern_text() {
        for linear in [
            r"git push",
            r"^a+$",
            r"(a+)+$",
            r"a++",
            r"\bword\b",
            r"(?i)x",
            r"(?<n>a)",
        ] {
            assert_eq!(engine(linear), Ok(Engine::Linear), "{linear:?}");
        }
        let b = backtracking(r"^(?=.*--force)git push");
        assert_eq!(
            (b.construct, b.text.as_str(), b.offset, b.column),
            (Construct::LookAhead, "(?=", 1, 2)
        );
        assert_eq!(b.to_string(), "a look-ahead `(?=` at column 2");
        assert_eq!(
            backtracking(r"a(?!b)").construct,
            Construct::NegativeLookAhead
        );
        assert_eq!(backtracking(r"(?<=a)b").construct, Construct::LookBehind);
        assert_eq!(
            backtracking(r"(?<!sudo )rm").construct,
            Construct::NegativeLookBehind
        );
        let b = backtracking(r"(\w+) \1");
        assert_eq!(
            (b.construct, b.text.as_str(), b.column),
            (Construct::Backreference, r"\1", 7)
        );
        assert_eq!(backtracking(r"(?<w>a)\k<w>").text, r"\k<w>");
        assert_eq!(backtracking(r"(?P<w>a)(?P=w)").text, "(?P=w)");
        let b = backtracking(r"é(?>ab|a)c");
        assert_eq!(
            (b.construct, b.offset, b.column),
            (Construct::AtomicGroup, 2, 2)
        );
        // Only the first construct is named; the rest may be any.
        assert_eq!(
            backtracking(r"(a)\1(?=b)").construct,
            Construct::Backreference
        );
        // Refused: another error first, a construct `fancy-regex` cannot
        // parse, an extension hookc leaves out, a missing group.
        for (bad, reason) in [
            (r"[z-a](?=b)", "class range"),
            (r"x(?=", "parenthesis"),
            (r"(?=a)\K", r"`\K`"),
            (r"(?=a)(?(1)a|b)", "conditional"),
            (r"(a)(?=\g<1>)", "subroutine"),
            (r"(a)\2", "group 2"),
            (r"a\0", "group 0"),
            (r"(?i>a)", "unrecognized flag"),
        ] {
            let err = engine(bad).unwrap_err();
            assert!(err.contains(reason), "{bad:?}: {err}");
            assert!(PolicyRegex::parse(bad).is_err(), "{bad:?}");
            assert!(compile_regex(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn look_around_and_backreferences_match_as_searches() {
        let cases: &[(&str, &str, bool)] = &[
            (r"^(?=.*--force)git push", "git push --force", true),
            (r"^(?=.*--force)git push", "git push", false),
            (r"rm -rf(?! --dry-run)", "rm -rf /", true),
            (r"rm -rf(?! --dry-run)", "rm -rf --dry-run", false),
            (r"(?<!sudo )rm", "sudo rm x", false),
            (r"(?<!sudo )rm", "ls; rm x", true),
            (r"(?<=é)x", "éx", true),
            (r"(?<=ab|c)d", "cd", true),
            (r"(?<=a+)b", "xaab", true),
            (r"\b(\w+) \1\b", "say it it again", true),
            (r"\b(\w+) \1\b", "say it is", false),
            (r"(?<w>日)\k<w>", "x日日", true),
            (r"(?>ab|a)c", "ac", true),
            (r"(?>a|ab)c", "abc", false),
        ];
        for &(pattern, haystack, expect) in cases {
            let re = PolicyRegex::parse(pattern).unwrap();
            assert!(re.is_backtracking(), "{pattern:?}");
            assert_eq!(
                re.is_match(haystack),
                Ok(expect),
                "{pattern:?} on {haystack:?}"
            );
            let compiled = compile_regex(pattern).unwrap();
            assert_eq!(
                compiled.is_match(haystack),
                Ok(expect),
                "{pattern:?} on {haystack:?}"
            );
        }
    }

    #[test]
    fn the_step_limit_stops_a_catastrophic_search_with_an_error() {
        let haystack = format!("{}b", "a".repeat(40));
        let started = std::time::Instant::now();
        // The repetition's body holds a look-ahead, so the backtracking
        // engine explores every split of the `a`s: 2^40 without the limit.
        let re = PolicyRegex::parse(r"^((?=a)a+)+$").unwrap();
        assert_eq!(re.is_match(&haystack), Err(EvalError::RegexStepLimit));
        assert_eq!(re.captures(&haystack), Err(EvalError::RegexStepLimit));
        // An error value through `matches`, like any other.
        let v = super::super::matches(&super::super::Val::Str(haystack.as_str().into()), &re);
        assert!(
            matches!(v, super::super::Val::Error(EvalError::RegexStepLimit)),
            "{v:?}"
        );
        let compiled = compile_regex(r"^((?=a)a+)+$").unwrap();
        assert_eq!(compiled.test(&haystack), Err(EvalError::RegexStepLimit));
        // `fancy-regex` hands a look-ahead with an ordinary body to the
        // linear engine: `^(?=(a+)+$)` answers, quickly.
        let re = PolicyRegex::parse(r"^(?=(a+)+$)").unwrap();
        assert_eq!(re.is_match(&haystack), Ok(false));
        assert_eq!(re.is_match("aaaa"), Ok(true));
        // Quick even unoptimized: four searches of a million steps at most.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        // Well under the limit, the same pattern answers.
        let re = PolicyRegex::parse(r"^((?=a)a+)+$").unwrap();
        assert_eq!(re.is_match("aaaaaaaaaa"), Ok(true));
        assert_eq!(re.is_match("aaaab"), Ok(false));
    }

    #[test]
    fn captures_give_the_first_match_groups_on_both_engines() {
        let caps = |pattern: &str, haystack: &'static str| {
            let re = PolicyRegex::parse(pattern).unwrap();
            let lazy = re.captures(haystack).unwrap();
            let compiled = compile_regex(pattern).unwrap();
            assert_eq!(compiled.captures(haystack).unwrap(), lazy, "{pattern:?}");
            assert_eq!(
                compiled.group_count(),
                re.group_count().unwrap(),
                "{pattern:?}"
            );
            if let Some(groups) = &lazy {
                assert_eq!(groups.len(), re.group_count().unwrap(), "{pattern:?}");
            }
            lazy
        };
        // Linear: nested groups, an optional group that took no part, the
        // leftmost match first, code points.
        assert_eq!(
            caps(r"(\w+)@((\w+)\.(com|org))?", "mail ann@ x@y.org"),
            Some(vec![Some("ann@"), Some("ann"), None, None, None])
        );
        assert_eq!(
            caps(r"(é+)(日)", "aéé日b"),
            Some(vec![Some("éé日"), Some("éé"), Some("日")])
        );
        assert_eq!(
            caps(r"(x)|(y)", "ay"),
            Some(vec![Some("y"), None, Some("y")])
        );
        assert_eq!(caps(r"(a)+", "aaa"), Some(vec![Some("aaa"), Some("a")]));
        assert_eq!(caps(r"z(a)", "abc"), None);
        assert_eq!(caps(r"()", ""), Some(vec![Some(""), Some("")]));
        // Backtracking: the same rules; look-around groups capture too.
        assert_eq!(
            caps(r"(?<=(é))(\w)(?=(x)|(y))", "éay éb"),
            Some(vec![Some("a"), Some("é"), Some("a"), None, Some("y")])
        );
        assert_eq!(
            caps(r"(?<w>\w+) (\k<w>)", "go go"),
            Some(vec![Some("go go"), Some("go"), Some("go")])
        );
        assert_eq!(caps(r"(a)(?!b)", "ab"), None);
        // Counts and names are known from the parse.
        let re = PolicyRegex::parse(r"(?<year>\d+)-(\d+)(?:-(?<day>\d+))?").unwrap();
        assert_eq!(re.group_count(), Ok(4));
        assert_eq!(
            re.group_names().unwrap(),
            [None, Some("year".to_owned()), None, Some("day".to_owned())]
        );
        let re = PolicyRegex::parse(r"(?<a>x)(?=(?<b>y))(z)?").unwrap();
        assert_eq!(re.group_count(), Ok(4));
        assert_eq!(
            re.group_names().unwrap(),
            [None, Some("a".to_owned()), Some("b".to_owned()), None]
        );
        assert_eq!(
            compile_regex(r"(?<a>x)(?=(?<b>y))(z)?")
                .unwrap()
                .group_count(),
            4
        );
        assert_eq!(PolicyRegex::parse("abc").unwrap().group_count(), Ok(1));
        // The prefilter answers for captures too, without compiling.
        let re = PolicyRegex::parse(r"terraform (\w+)").unwrap();
        assert_eq!(re.captures("ls"), Ok(None));
        assert!(!re.is_compiled());
        assert_eq!(
            re.captures("terraform apply"),
            Ok(Some(vec![Some("terraform apply"), Some("apply")]))
        );
    }

    #[test]
    fn both_engines_compile_on_first_use_only() {
        let re = PolicyRegex::parse(r"\bterraform\s+apply\b").unwrap();
        assert!(!re.is_backtracking() && !re.is_compiled());
        let re = PolicyRegex::parse(r"^(?=.*--force)git push").unwrap();
        assert!(re.is_backtracking() && !re.is_compiled());
        assert_eq!(re.group_count(), Ok(1));
        assert_eq!(re.is_match("git push"), Ok(false));
        assert!(re.is_compiled());
        // What only compiling finds is an evaluation error on both.
        let re = PolicyRegex::parse(r"(?=a)\p{NoSuchClass}").unwrap();
        assert_eq!(re.is_match("a"), Err(EvalError::InvalidArgument));
        assert_eq!(re.captures("a"), Err(EvalError::InvalidArgument));
        // The size limit holds for the parts `fancy-regex` hands to `regex`.
        let re = PolicyRegex::parse(r"(?=x)(a{1000}){1000}").unwrap();
        assert_eq!(re.is_match("x"), Err(EvalError::InvalidArgument));
        assert!(compile_regex(r"(?=x)(a{1000}){1000}").is_err());
        assert!(compile_regex(r"(?=x)(a{10}){10}").is_ok());
    }

    /// Every group `fancy-regex` reports is counted by the parse, on random
    /// patterns mixing groups, names and look-around.
    #[test]
    fn group_counts_of_the_parse_agree_with_the_compiled_regex() {
        let parts = [
            "(a)", "(?:b)", "(?<n>c)", "(?=(d))", "(?<!(e))", "((f)|g)", "(?>(h))", "x", r"\d",
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            let mut pattern = String::new();
            for _ in 0..=next(5) {
                pattern.push_str(parts[next(parts.len() as u64) as usize]);
            }
            // Names must be unique.
            if pattern.matches("(?<n>").count() > 1 {
                continue;
            }
            let Ok(re) = PolicyRegex::parse(&pattern) else {
                panic!("{pattern:?}");
            };
            let compiled = compile_regex(&pattern).unwrap();
            assert_eq!(
                re.group_count().unwrap(),
                compiled.group_count(),
                "{pattern:?}"
            );
        }
    }

    /// `regex-lite` answers exactly as `regex` on every pattern
    /// [`lite_safe`] admits: random patterns of literals (non-ASCII ones
    /// too), `.`, classes, anchors, the `s` and `m` flags, groups,
    /// counted and open repetitions and alternations, on random haystacks
    /// of ASCII and non-ASCII letters, `/` and newlines, whole matches and
    /// every group compared; a pattern with a construct the two read
    /// differently is refused.
    #[test]
    fn regex_lite_answers_as_regex_on_the_patterns_it_is_given() {
        let mut next = xorshift(0x2f6b_3a1c_9d4e_8b07);
        let safe = [
            "a",
            "b",
            "é",
            "ß",
            "/",
            r"\.",
            ".",
            "[^/]",
            "[a-c]",
            "[^a]",
            "[é-ü]",
            "^",
            "$",
            r"\A",
            r"\z",
            "(?s)",
            "(?m)",
            "(?s:.)",
            "(a)",
            "(?<n>b)",
            "a{2,3}",
            "[/é]",
            r"\n",
            "(?:ab|é)",
            "x*?",
        ];
        let unsafe_atoms = [
            r"\w",
            r"\d",
            r"\s",
            r"\b",
            r"\B",
            "(?i)a",
            r"\pL",
            "[[:alpha:]]",
            r"[\w]",
            "(?u)",
            "(?x)a",
            "[a&&b]",
        ];
        let letters = ['a', 'b', 'c', 'é', 'ß', 'K', '/', '\n', '.', 'x', 'ü', 'A'];
        let mut compared = 0;
        for round in 0..1500 {
            let mut pattern = String::new();
            for _ in 0..=next(5) {
                let atom = safe[next(safe.len() as u64) as usize];
                let piece = match next(7) {
                    0 => format!("(?:{atom})+"),
                    1 => format!("({atom})*"),
                    2 => format!("({atom}|{})", safe[next(safe.len() as u64) as usize]),
                    3 => format!("(?:{atom})?"),
                    _ => atom.to_owned(),
                };
                pattern.push_str(&piece);
            }
            let tainted = round % 5 == 0;
            if tainted {
                pattern.push_str(unsafe_atoms[next(unsafe_atoms.len() as u64) as usize]);
            }
            let Ok(ast) = regex_syntax::ast::parse::Parser::new().parse(&pattern) else {
                continue;
            };
            let Ok(full) = regex::Regex::new(&pattern) else {
                continue;
            };
            if tainted {
                assert!(
                    !lite_safe(&ast),
                    "{pattern:?} holds a construct regex-lite reads otherwise"
                );
                continue;
            }
            assert!(lite_safe(&ast), "{pattern:?}");
            let lite = regex_lite::Regex::new(&pattern).unwrap();
            for _ in 0..30 {
                let haystack: String = (0..next(10))
                    .map(|_| letters[next(letters.len() as u64) as usize])
                    .collect();
                assert_eq!(
                    lite.is_match(&haystack),
                    full.is_match(&haystack),
                    "{pattern:?} on {haystack:?}"
                );
                let groups = |caps: Option<Vec<Option<(usize, usize)>>>| caps;
                let want = groups(
                    full.captures(&haystack)
                        .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
                );
                let got = groups(
                    lite.captures(&haystack)
                        .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
                );
                assert_eq!(got, want, "{pattern:?} on {haystack:?}");
                compared += 1;
            }
        }
        assert!(compared > 20_000, "{compared}");
    }

    /// A pattern is searched on `regex-lite` for its first searches of
    /// short strings only: past [`LITE_SEARCHES`] searches, or on a longer
    /// string, it is compiled on `regex`, and the answers stay the same.
    #[test]
    fn regex_lite_answers_only_the_first_short_searches() {
        let re = PolicyRegex::parse(r"(?s)\A(?:.*/)?\.env[^/]*\z").unwrap();
        for _ in 0..LITE_SEARCHES {
            assert_eq!(re.is_match("a/.env.local"), Ok(true));
        }
        assert!(
            !re.is_compiled(),
            "the first searches compile nothing on regex"
        );
        assert_eq!(re.is_match("a/.envx/b"), Ok(false));
        assert!(re.is_compiled(), "a later search compiles it");
        let long = PolicyRegex::parse(r"(?s)\A(?:.*/)?\.env[^/]*\z").unwrap();
        let path = format!("{}/.env", "d/".repeat(LITE_HAYSTACK_BYTES));
        assert_eq!(long.is_match(&path), Ok(true));
        assert!(long.is_compiled(), "a long haystack is searched on regex");
        let unicode = PolicyRegex::parse(r"\w+").unwrap();
        assert_eq!(unicode.is_match("é"), Ok(true));
        assert!(
            unicode.is_compiled(),
            "a pattern regex-lite reads otherwise runs on regex"
        );
    }

    /// A pattern of alternatives with no literal in common is searched
    /// only in a haystack holding one of its branches' literals.
    #[test]
    fn one_of_the_branches_literals_is_required() {
        let key = r"(ghp|gho)_[A-Za-z0-9]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[a-z]+|-----BEGIN [A-Z ]*PRIVATE KEY";
        let ast = regex_syntax::ast::parse::Parser::new().parse(key).unwrap();
        let set = one_of_literals(&ast).unwrap();
        assert_eq!(set, ["-----BEGIN ", "AKIA", "gho", "ghp", "xox"]);
        let re = PolicyRegex::parse(key).unwrap();
        assert_eq!(
            re.is_match("cd /work/app && make -j4 build | tee build.log"),
            Ok(false)
        );
        assert_eq!(re.captures("cargo test --locked"), Ok(None));
        assert!(!re.is_compiled());
        assert_eq!(re.is_match("export T=AKIAABCDEFGHIJKLMNOP"), Ok(true));
        for none in [r"a|b?", r"(?i)ab|cd", r"ab|.", r"[ab]|d", "x*|y"] {
            let ast = regex_syntax::ast::parse::Parser::new().parse(none).unwrap();
            assert_eq!(one_of_literals(&ast), None, "{none:?}");
        }
        let ast = regex_syntax::ast::parse::Parser::new()
            .parse(r"169\.254\.169\.254|metadata\.google\.internal")
            .unwrap();
        assert_eq!(one_of_literals(&ast).unwrap().len(), 2);
    }

    /// The prefilter never changes an answer: random patterns of literals,
    /// groups, repetitions, alternations and classes against random
    /// haystacks, compared with the compiled regex alone.
    #[test]
    fn the_prefilter_is_exact_on_random_patterns() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
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
            // Alternatives at the top, whose literals one of which every
            // match holds are tested too (`one_of_literals`).
            if next(3) == 0 {
                let other = atoms[next(atoms.len() as u64) as usize];
                pattern = format!(
                    "{pattern}|{other}{}",
                    atoms[next(atoms.len() as u64) as usize]
                );
            }
            let lazy = PolicyRegex::parse(&pattern).unwrap();
            // As a loaded format 6 artifact has it: the literals recorded.
            let recorded = PolicyRegex::with_required(&pattern, &required_literals(&pattern));
            let eager = regex::Regex::new(&pattern).unwrap();
            for _ in 0..20 {
                let haystack: String = (0..next(8))
                    .map(|_| ['a', 'b', 'c', ' ', 'A'][next(5) as usize])
                    .collect();
                let want = Ok(eager.is_match(&haystack));
                assert_eq!(
                    lazy.is_match(&haystack),
                    want,
                    "{pattern:?} on {haystack:?}"
                );
                assert_eq!(
                    recorded.is_match(&haystack),
                    want,
                    "{pattern:?} on {haystack:?}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 40_000);
    }
}
