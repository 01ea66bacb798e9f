//! Which engine runs a pattern ([`engine`], from its text alone: `regex`,
//! or `fancy-regex` for a construct that needs backtracking), compiling it
//! there, and the groups each parser counts.

use super::*;
use regex_syntax::ast::{Ast, GroupKind};
use std::fmt;

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
pub(super) fn compile_on(pattern: &str, backtracking: bool) -> Result<CompiledRegex, String> {
    if backtracking {
        fancy_regex::RegexBuilder::new(&super::super::ascii_groups::for_backtracking(pattern)?)
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

/// The capture groups of a `regex-syntax` tree.
#[derive(Default)]
pub(super) struct AstGroups {
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
pub(super) struct FancyGroups {
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
pub(super) fn backtracking_construct(
    pattern: &str,
    error: &regex_syntax::ast::Error,
) -> Option<Backtracking> {
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
pub(super) fn group_names(groups: usize, names: &[(usize, String)]) -> Vec<Option<String>> {
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
pub(super) fn regex_reason(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    let reason = text
        .rsplit_once("error: ")
        .map_or(text.as_str(), |(_, r)| r);
    reason.trim().trim_end_matches('.').to_owned()
}

/// A `fancy-regex` error's reason: its text has no framing to remove
/// (its position, when it says one, is a byte offset in the pattern).
pub(super) fn fancy_reason(error: &fancy_regex::Error) -> String {
    let text = error.to_string();
    let reason = text.trim().trim_end_matches('.');
    // Lowercase first letter, as the checker's messages are.
    let mut chars = reason.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

/// The literals every match of `pattern` contains, longest first, at most
/// four: what a compiler records in the artifact for the runtime's
/// prefilter ([`PolicyRegex::with_required`]). None for a pattern that
/// does not parse, needs backtracking, or sets flags.
pub fn required_literals(pattern: &str) -> Vec<String> {
    analyze(pattern).map_or_else(|_| Vec::new(), |parsed| parsed.required)
}

/// Literals of which every match of `pattern` contains one, for a
/// pattern that requires none but whose alternatives each do
/// (`(ghp|gho)_...|AKIA...`: `["AKIA", "gh"]`), at most
/// [`MAX_REGEX_ONE_OF`](crate::limits::MAX_REGEX_ONE_OF); empty for any
/// other pattern, as for one that does not parse, needs backtracking or
/// sets a flag that changes what a literal matches.
pub fn one_of_literals_in(pattern: &str) -> Vec<String> {
    analyze(pattern).map_or_else(|_| Vec::new(), |parsed| parsed.one_of)
}

/// Records in `program` the literals every match of each of its regexes
/// contains ([`required_literals`]), for the artifact (format 6): none for
/// a program without regexes, which keeps its older format; and the
/// one-of sets of those that require none ([`one_of_literals_in`]), when
/// any has one (the artifact's `one_of` section).
pub fn record_required_literals(program: &mut crate::bytecode::Program) {
    let parses: Vec<Option<RegexParse>> = program
        .regexes
        .iter()
        .map(|pattern| analyze(pattern).ok())
        .collect();
    program.regex_literals = parses
        .iter()
        .map(|p| p.as_ref().map_or_else(Vec::new, |p| p.required.clone()))
        .collect();
    program.regex_one_of = parses
        .into_iter()
        .map(|p| p.map_or_else(Vec::new, |p| p.one_of))
        .collect();
    if program.regex_one_of.iter().all(Vec::is_empty) {
        program.regex_one_of.clear();
    }
}

/// What parsing a pattern found.
pub(super) struct RegexParse {
    pub(super) engine: Engine,
    /// Required literals, longest first, at most [`MAX_REQUIRED`]: what
    /// the compiler records and a search tests.
    pub(super) required: Vec<String>,
    /// Capture groups, group 0 included.
    pub(super) groups: usize,
    /// Named groups, by index.
    pub(super) names: Vec<(usize, String)>,
    /// Whether `regex-lite` gives it the same meaning ([`lite_safe`]).
    pub(super) lite: bool,
    /// Literals one of which every match contains, when none is required
    /// ([`one_of_literals`]).
    pub(super) one_of: Vec<String>,
}

/// Parses `pattern` on the engine it needs ([`engine`]).
pub(super) fn analyze(pattern: &str) -> Result<RegexParse, String> {
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
    let written = super::super::ascii_groups::for_backtracking(pattern)?;
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
pub(super) fn linear(ast: &Ast) -> RegexParse {
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
