//! The scanner and parser behind [`super::parse`]: one pass over the bytes,
//! words scanned with quote removal as they are read, commands handed to
//! [`super::unwrap`] as each ends.
//!
//! There is no separate token stream: the list loop ([`ShellParser::list`])
//! looks at the next byte, handles an operator in place or scans a word, so
//! a word that needs no quote removal is a slice of the input. Every
//! recursion (subshell, substitution, `${`, script) goes through
//! [`ShellParser::nested`], which stops at [`MAX_NESTING`]; a scan never goes
//! back except for `((`/`$((` that turn out not to be arithmetic, which
//! rescans only that construct once per nesting level.
//!
//! This file holds the parser's state and the list loop; `words.rs` scans
//! words, `commands.rs` finishes commands, `redirects.rs` reads
//! redirections, here-documents and expansions, `lexical.rs` the byte-level
//! helpers.

use crate::limits::MAX_SHELL_EXPANSION_BYTES;
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use super::expand::{self, BraceMark};
use super::interp::{self, CodeArg};
use super::unwrap::{self, Unwrapped};
use super::{CodeFrom, Redirect, RedirectOp, ShellError, SimpleCommand, MAX_NESTING};

/// Whether wrappers are unwrapped (and scripts parsed).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unwrap {
    Yes,
    No,
}

/// How many commands the outermost list has room for before it grows.
const OUTER_COMMANDS: usize = 16;

/// Parses `src` (found at byte `base` of the outermost input, for error
/// positions) at nesting `depth`.
pub(super) fn parse_script<'s>(
    src: &'s str,
    base: usize,
    depth: usize,
    unwrap: Unwrap,
    expansion: &ExpansionBudget,
) -> (Vec<SimpleCommand<'s>>, Option<ShellError>) {
    let mut p = ShellParser::new(src, base, depth, unwrap, expansion.clone());
    if depth > MAX_NESTING {
        p.error = Some(ShellError::NestingTooDeep);
    } else if p.list(Term::Eof).is_ok() {
        if let Some(h) = p.heredocs.first() {
            // The text ended on the line of the `<<`: no body at all.
            p.error = Some(ShellError::UnterminatedHeredoc {
                at: base + h.at,
                delimiter: h.delimiter.to_string(),
            });
        }
    }
    (p.out, p.error)
}

/// Parses text that does not live in the input (decoded backquotes, a
/// joined `eval`): the commands own their text.
fn parse_owned(
    src: &str,
    base: usize,
    depth: usize,
    unwrap: Unwrap,
    expansion: &ExpansionBudget,
) -> (Vec<SimpleCommand<'static>>, Option<ShellError>) {
    let (commands, error) = parse_script(src, base, depth, unwrap, expansion);
    let error = error.map(|e| e.relocated(base));
    (
        commands
            .into_iter()
            .map(SimpleCommand::into_owned)
            .collect(),
        error,
    )
}

impl ShellError {
    /// Errors from text that is not the input itself all point at the
    /// construct that held the text.
    fn relocated(self, at: usize) -> ShellError {
        match self {
            ShellError::UnterminatedQuote { quote, .. } => {
                ShellError::UnterminatedQuote { at, quote }
            }
            ShellError::UnterminatedSubstitution { .. } => {
                ShellError::UnterminatedSubstitution { at }
            }
            ShellError::UnbalancedParen { .. } => ShellError::UnbalancedParen { at },
            ShellError::UnterminatedHeredoc { delimiter, .. } => {
                ShellError::UnterminatedHeredoc { at, delimiter }
            }
            ShellError::MissingRedirectTarget { .. } => ShellError::MissingRedirectTarget { at },
            ShellError::UnbalancedCompound { keyword, .. } => {
                ShellError::UnbalancedCompound { at, keyword }
            }
            ShellError::NestingTooDeep => ShellError::NestingTooDeep,
            ShellError::TooLarge => ShellError::TooLarge,
            ShellError::MissingFunctionBody { .. } => ShellError::MissingFunctionBody { at },
        }
    }
}

/// What is left of [`MAX_SHELL_EXPANSION_BYTES`] for one command string:
/// one counter for its parser and every parser of a script nested in it.
#[derive(Clone)]
pub(super) struct ExpansionBudget(Rc<Cell<usize>>);

impl ExpansionBudget {
    /// The whole budget, for the outermost parser.
    pub(super) fn new() -> ExpansionBudget {
        ExpansionBudget(Rc::new(Cell::new(MAX_SHELL_EXPANSION_BYTES)))
    }
}

/// Words a parser may copy between commands beyond one per byte of its
/// text ([`ShellParser::spend`]).
const COPY_ALLOWANCE: usize = 1024;

/// Parsing stopped; the error is in [`ShellParser::error`].
struct ListStop;

type ScanStep<T = ()> = Result<T, ListStop>;

/// Which bytes end a literal run inside an unquoted word: blanks,
/// operators, quotes and the starts of expansions. A table, as the scan's
/// inner loop looks every byte up.
static WORD_STOPS: [bool; 256] = word_stops(b" \t\n;&|()<>'\"\\$`");

// Indexing in a `const fn` runs at compile time: an index out of bounds
// fails the build, never a run.
#[allow(clippy::indexing_slicing)]
const fn word_stops(stops: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < stops.len() {
        table[stops[i] as usize] = true;
        i += 1;
    }
    table
}

/// Whether `b` is one of [`WORD_STOPS`].
#[inline]
fn is_word_stop(b: u8) -> bool {
    WORD_STOPS.get(usize::from(b)).copied().unwrap_or(false)
}

/// What ends a list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    /// The end of the text.
    Eof,
    /// A `)`: of a subshell or (when `subst`) of a `$(`, `<(`, `>(`.
    Paren { open: usize, subst: bool },
}

/// Where the list loop is in a compound command's syntax.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Commands.
    Normal,
    /// After `for`/`select`: the variable name.
    ForVar,
    /// After the name: `in` or `do`.
    ForAfterVar,
    /// The word list after `in`, up to a separator.
    ForIn,
    /// After `case`: the word.
    CaseWord,
    /// After the word: `in`.
    CaseIn,
    /// A branch's patterns, up to `)`; `started` once a pattern was read.
    CasePattern { started: bool },
    /// Inside `[[ ... ]]`.
    DoubleBracket,
    /// After `function`: the name.
    FuncName,
    /// After a function's name (and `()`): its body, a compound command.
    FuncBody { at: usize },
}

impl Mode {
    /// The mode after `;`, `&`, `|`, `&&`, `||` or a newline.
    fn after_separator(self) -> Mode {
        match self {
            Mode::CaseWord | Mode::CaseIn | Mode::FuncName | Mode::FuncBody { .. } => self,
            _ => Mode::Normal,
        }
    }
}

/// A compound command whose end keyword is still to come.
#[derive(Clone, Copy, PartialEq, Eq)]
struct OpenConstruct {
    /// The keyword that opened it.
    keyword: &'static str,
    /// The keyword that closes it.
    closer: &'static str,
    at: usize,
}

/// The simple command being read.
#[derive(Default)]
struct CommandBuilder<'s> {
    words: Vec<Cow<'s, str>>,
    env: Vec<(Cow<'s, str>, Cow<'s, str>)>,
    redirects: Vec<Redirect<'s>>,
}

impl CommandBuilder<'_> {
    /// At the start of a command, where reserved words count.
    fn at_start(&self) -> bool {
        self.words.is_empty() && self.env.is_empty() && self.redirects.is_empty()
    }
}

/// A here-document whose body starts after the current line.
struct PendingHeredoc<'s> {
    at: usize,
    delimiter: Cow<'s, str>,
    strip_tabs: bool,
    expand: bool,
}

/// A scanned word.
struct Word<'s> {
    value: Cow<'s, str>,
    start: usize,
    end: usize,
    /// Any quoting or escaping in it (then it is no reserved word, and a
    /// here-document delimiter is quoted).
    quoted: bool,
    /// Its unquoted braces and splitting blanks ([`expand`]).
    marks: Vec<BraceMark>,
}

impl Word<'_> {
    fn is(&self, reserved: &str) -> bool {
        !self.quoted && self.value == reserved
    }
}

/// A word's value as it is built: a slice of the input as long as the
/// pieces are contiguous in it, an owned string once they are not.
#[derive(Default)]
struct WordBuf {
    /// The slice `start..end` while `owned` is `None` (empty when equal).
    slice: (usize, usize),
    owned: Option<String>,
    /// Unquoted braces and splitting blanks, at offsets of the value.
    marks: Vec<BraceMark>,
    /// Whether an unquoted `{` was seen (commas and `}` count after it).
    brace_open: bool,
}

impl WordBuf {
    /// The value's length so far.
    fn len(&self) -> usize {
        self.owned
            .as_ref()
            .map_or(self.slice.1 - self.slice.0, String::len)
    }

    /// Pushes an unquoted literal run `start..end` of `src`, marking its
    /// braces.
    fn push_unquoted(&mut self, src: &str, start: usize, end: usize) {
        let run = src.as_bytes().get(start..end).unwrap_or_default();
        if self.brace_open || memchr::memchr(b'{', run).is_some() {
            let base = self.len();
            for (i, b) in run.iter().enumerate() {
                match b {
                    b'{' => {
                        self.brace_open = true;
                        self.marks.push(BraceMark::Open(base + i));
                    }
                    b',' if self.brace_open => self.marks.push(BraceMark::Comma(base + i)),
                    b'}' if self.brace_open => self.marks.push(BraceMark::Close(base + i)),
                    _ => {}
                }
            }
        }
        self.push_src(src, start, end);
    }

    /// Pushes a variable's value; unquoted, its blanks split the word.
    fn push_value(&mut self, src: &str, value: &str, quoted: bool) {
        let base = self.len();
        if !quoted {
            for (i, b) in value.bytes().enumerate() {
                if matches!(b, b' ' | b'\t' | b'\n') {
                    self.marks.push(BraceMark::Split(base + i));
                }
            }
        }
        self.owned(src).push_str(value);
    }

    /// Whether nothing has been pushed.
    fn is_empty(&self) -> bool {
        self.owned
            .as_ref()
            .map_or(self.slice.0 == self.slice.1, String::is_empty)
    }

    fn push_src(&mut self, src: &str, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let (s, e) = self.slice;
        match &mut self.owned {
            Some(o) => o.push_str(src.get(start..end).unwrap_or_default()),
            None if s == e => self.slice = (start, end),
            None if e == start => self.slice.1 = end,
            None => {
                let mut o = String::with_capacity(e - s + end - start + 8);
                o.push_str(src.get(s..e).unwrap_or_default());
                o.push_str(src.get(start..end).unwrap_or_default());
                self.owned = Some(o);
            }
        }
    }

    /// The value as an owned string, to push decoded text to.
    fn owned(&mut self, src: &str) -> &mut String {
        let (s, e) = self.slice;
        self.owned
            .get_or_insert_with(|| src.get(s..e).unwrap_or_default().to_owned())
    }

    fn finish(self, src: &str) -> (Cow<'_, str>, Vec<BraceMark>) {
        let value = match self.owned {
            Some(o) => Cow::Owned(o),
            None => Cow::Borrowed(src.get(self.slice.0..self.slice.1).unwrap_or_default()),
        };
        (value, self.marks)
    }
}

struct ShellParser<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
    /// Where `src` starts in the outermost input.
    base: usize,
    depth: usize,
    out: Vec<SimpleCommand<'s>>,
    error: Option<ShellError>,
    heredocs: Vec<PendingHeredoc<'s>>,
    unwrap: Unwrap,
    /// See [`ShellParser::spend`].
    copy_budget: usize,
    /// See [`ShellParser::substitute`]: shared with the parsers of the
    /// scripts nested in this one.
    expansion: ExpansionBudget,
    /// The variables set on the line so far, with their values (quotes
    /// removed): `X=rm; $X` runs `rm`. A name set from what only running
    /// tells keeps that text (`X=$(cmd)`), so its uses stay dynamic. A
    /// name whose value depends on the path taken (set twice, in a branch,
    /// a loop, a subshell, after `&&`/`||`/`&`; unset, read, looped over)
    /// is `None`, not known, for the rest of the line.
    vars: Vec<(Cow<'s, str>, Option<Cow<'s, str>>)>,
    /// Whether a construct that runs conditionally or apart has been seen
    /// (`&&`, `||`, `&`, `if`, `while`, `until`, `for`, `select`, `case`, a
    /// function body): an assignment after it may not run, or not here.
    branched: bool,
    /// The nesting this parser starts at: deeper, an assignment is in a
    /// subshell or a substitution and does not outlive it.
    base_depth: usize,
    /// After a `|`: the program of the command whose output the next
    /// command reads.
    pipe_from: Option<Cow<'s, str>>,
    /// Where the current line's commands start in `out` (their
    /// here-documents' bodies come after the line).
    line_out: usize,
    /// Where the commands run, as `cd` on the line moved ([`SimpleCommand::dir`]).
    dir: Cow<'s, str>,
}

impl<'s> ShellParser<'s> {
    fn new(
        src: &'s str,
        base: usize,
        depth: usize,
        unwrap: Unwrap,
        expansion: ExpansionBudget,
    ) -> Self {
        ShellParser {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            base,
            depth,
            // PERF: the outermost list sized for a typical agent's line
            // (a 200-character one runs 9 commands): growing a list of
            // these large values 4 -> 8 -> 16 copied it twice, 9,000
            // instructions of a 200-character command's decision by the
            // bundled Claude Code guard (callgrind).
            out: Vec::with_capacity(if depth == 0 { OUTER_COMMANDS } else { 0 }),
            error: None,
            heredocs: Vec::new(),
            unwrap,
            copy_budget: src.len() + COPY_ALLOWANCE,
            expansion,
            vars: Vec::new(),
            branched: false,
            base_depth: depth,
            pipe_from: None,
            line_out: 0,
            dir: Cow::Borrowed(""),
        }
    }

    /// Takes `copies` from the budget of words copied between commands
    /// (an outer command's env into each command of its `bash -c` script,
    /// find's arguments into its `-exec` commands), so that the output
    /// stays linear in the input.
    fn spend(&mut self, copies: usize) -> ScanStep {
        match self.copy_budget.checked_sub(copies) {
            Some(left) => {
                self.copy_budget = left;
                Ok(())
            }
            None => Err(self.fail(ShellError::TooLarge)),
        }
    }

    /// Takes `bytes`, a variable's value about to be substituted, from the
    /// budget of the whole command string's analysis
    /// ([`MAX_SHELL_EXPANSION_BYTES`]).
    fn substitute(&mut self, bytes: usize) -> ScanStep {
        let left = self.expansion.0.get();
        match left.checked_sub(bytes) {
            Some(left) => {
                self.expansion.0.set(left);
                Ok(())
            }
            None => Err(self.fail(ShellError::TooLarge)),
        }
    }

    fn fail(&mut self, e: ShellError) -> ListStop {
        if self.error.is_none() {
            self.error = Some(e);
        }
        ListStop
    }

    /// An absolute position for an error.
    fn at(&self, pos: usize) -> usize {
        self.base + pos
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.pos + k).copied()
    }

    fn slice(&self, start: usize, end: usize) -> &'s str {
        self.src.get(start..end).unwrap_or_default()
    }

    /// Runs `f` one nesting level deeper, or fails past [`MAX_NESTING`].
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> ScanStep) -> ScanStep {
        if self.depth >= MAX_NESTING {
            return Err(self.fail(ShellError::NestingTooDeep));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Parses `text`, a slice of this parser's input starting at `start`,
    /// as a script one level deeper, and takes its commands.
    fn parse_slice(&mut self, start: usize, end: usize) -> ScanStep {
        let text = self.slice(start, end);
        let (commands, error) = parse_script(
            text,
            self.base + start,
            self.depth + 1,
            self.unwrap,
            &self.expansion,
        );
        self.out.extend(commands);
        match error {
            Some(e) => Err(self.fail(e)),
            None => Ok(()),
        }
    }

    /// Parses a script given as a word (`bash -c`, `eval`) one level deeper.
    fn parse_text(
        &mut self,
        text: Cow<'s, str>,
        at: usize,
    ) -> (Vec<SimpleCommand<'s>>, Option<ShellError>) {
        match text {
            Cow::Borrowed(t) => {
                let (c, e) = parse_script(t, at, self.depth + 1, self.unwrap, &self.expansion);
                (c, e.map(|e| e.relocated(at)))
            }
            Cow::Owned(t) => {
                let (c, e) = parse_owned(&t, at, self.depth + 1, self.unwrap, &self.expansion);
                (c, e)
            }
        }
    }

    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// A list of commands up to `term`.
    fn list(&mut self, term: Term) -> ScanStep {
        let mut cmd = CommandBuilder::default();
        let mut mode = Mode::Normal;
        // The compound commands open in this list, innermost last.
        let mut open: Vec<OpenConstruct> = Vec::new();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                self.finish(&mut cmd)?;
                self.all_closed(&open)?;
                if let Mode::FuncBody { at } = mode {
                    return Err(self.fail(ShellError::MissingFunctionBody { at: self.at(at) }));
                }
                return match term {
                    Term::Eof => Ok(()),
                    Term::Paren { open, subst: true } => {
                        Err(self.fail(ShellError::UnterminatedSubstitution { at: self.at(open) }))
                    }
                    Term::Paren { open, subst: false } => {
                        Err(self.fail(ShellError::UnbalancedParen { at: self.at(open) }))
                    }
                };
            };
            if c == b'\n' {
                self.pos += 1;
                if !matches!(mode, Mode::DoubleBracket | Mode::CasePattern { .. }) {
                    self.finish(&mut cmd)?;
                    mode = mode.after_separator();
                }
                self.read_heredocs()?;
                self.line_out = self.out.len();
                continue;
            }
            if c == b'#' {
                // At a word's start: a comment to the end of the line.
                self.pos = memchr::memchr(b'\n', self.bytes.get(self.pos..).unwrap_or_default())
                    .map_or(self.bytes.len(), |i| self.pos + i);
                continue;
            }
            if let Mode::FuncBody { at } = mode {
                if c == b'(' {
                    // `function f ()`: its parentheses; else a subshell body.
                    let open = self.pos;
                    self.pos += 1;
                    self.skip_blanks();
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        continue;
                    }
                    self.pos = open;
                    mode = Mode::Normal;
                } else if matches!(c, b';' | b'&' | b'|' | b')' | b'<' | b'>') {
                    return Err(self.fail(ShellError::MissingFunctionBody { at: self.at(at) }));
                }
            }
            match mode {
                Mode::DoubleBracket => {
                    let len = operator_len(self.bytes.get(self.pos..).unwrap_or_default());
                    if len > 0 {
                        // `&&`, `<`, `(` are words of the test.
                        cmd.words
                            .push(Cow::Borrowed(self.slice(self.pos, self.pos + len)));
                        self.pos += len;
                        continue;
                    }
                    let w = self.word()?;
                    if w.start == w.end {
                        self.pos += 1;
                        continue;
                    }
                    if w.is("]]") {
                        open.pop();
                        mode = Mode::Normal;
                    }
                    cmd.words.push(w.value);
                    continue;
                }
                Mode::CasePattern { started } => {
                    match c {
                        b'(' | b'|' | b';' | b'&' | b'<' | b'>' => self.pos += 1,
                        b')' => {
                            self.pos += 1;
                            mode = Mode::Normal;
                        }
                        _ => {
                            let w = self.word()?;
                            if w.start == w.end {
                                self.pos += 1;
                            } else if !started && w.is("esac") {
                                self.close(&mut open, "esac", w.start)?;
                                mode = Mode::Normal;
                            } else {
                                mode = Mode::CasePattern { started: true };
                            }
                        }
                    }
                    continue;
                }
                _ => {}
            }
            match c {
                b';' => {
                    let branch_end = match (self.peek_at(1), self.peek_at(2)) {
                        (Some(b';'), Some(b'&')) => {
                            self.pos += 3;
                            true
                        }
                        (Some(b';' | b'&'), _) => {
                            self.pos += 2;
                            true
                        }
                        _ => {
                            self.pos += 1;
                            false
                        }
                    };
                    self.finish(&mut cmd)?;
                    mode = if branch_end && open.last().is_some_and(|o| o.keyword == "case") {
                        Mode::CasePattern { started: false }
                    } else {
                        mode.after_separator()
                    };
                    continue;
                }
                b'&' => match self.peek_at(1) {
                    Some(b'>') => {
                        self.redirect(None, &mut cmd)?;
                        continue;
                    }
                    next => {
                        // `&` runs the command before it apart (its
                        // assignments stay there); what follows `&&` may
                        // not run.
                        self.branched |= next != Some(b'&');
                        self.pos += if next == Some(b'&') { 2 } else { 1 };
                        self.finish(&mut cmd)?;
                        self.branched = true;
                        mode = mode.after_separator();
                        continue;
                    }
                },
                b'|' => {
                    let or = self.peek_at(1) == Some(b'|');
                    // Each side of a pipe runs in a subshell.
                    self.branched |= !or;
                    self.pos += if matches!(self.peek_at(1), Some(b'|' | b'&')) {
                        2
                    } else {
                        1
                    };
                    self.finish(&mut cmd)?;
                    if or {
                        self.branched = true;
                    } else {
                        // A pipe: the next command reads this one's output.
                        self.pipe_from = Some(self.last_program());
                    }
                    mode = mode.after_separator();
                    continue;
                }
                b')' => {
                    if let Term::Paren { .. } = term {
                        self.pos += 1;
                        self.finish(&mut cmd)?;
                        return self.all_closed(&open);
                    }
                    return Err(self.fail(ShellError::UnbalancedParen {
                        at: self.at(self.pos),
                    }));
                }
                b'(' => {
                    if mode == Mode::ForVar && self.peek_at(1) == Some(b'(') {
                        // `for ((i = 0; i < n; i++))`
                        if self.arithmetic_command()? {
                            mode = Mode::Normal;
                            continue;
                        }
                    }
                    if cmd.at_start() {
                        if self.peek_at(1) == Some(b'(') && self.arithmetic_command()? {
                            continue;
                        }
                        let open = self.pos;
                        self.pos += 1;
                        self.nested(|p| p.list(Term::Paren { open, subst: false }))?;
                        mode = Mode::Normal;
                        continue;
                    }
                    if cmd.words.len() == 1 && cmd.env.is_empty() {
                        // `name ()`: a function definition; its body follows.
                        self.branched = true;
                        let open = self.pos;
                        self.pos += 1;
                        self.skip_blanks();
                        if self.peek() == Some(b')') {
                            self.pos += 1;
                            cmd.words.clear();
                            mode = Mode::FuncBody { at: open };
                            continue;
                        }
                        return Err(self.fail(ShellError::UnbalancedParen { at: self.at(open) }));
                    }
                    return Err(self.fail(ShellError::UnbalancedParen {
                        at: self.at(self.pos),
                    }));
                }
                b'<' | b'>' if self.peek_at(1) != Some(b'(') => {
                    self.redirect(None, &mut cmd)?;
                    continue;
                }
                b'0'..=b'9' => {
                    if let Some(fd) = self.fd_prefix() {
                        self.redirect(Some(fd), &mut cmd)?;
                        continue;
                    }
                }
                _ => {}
            }
            let w = self.word()?;
            if w.start == w.end {
                // Not reachable (every byte that ends a word was handled
                // above), but the loop must always advance.
                self.pos += 1;
                continue;
            }
            if w.value.is_empty() && !w.quoted {
                // Only `$IFS` (or a line continuation): no word, as in Bash.
                continue;
            }
            if w.marks.is_empty()
                || !matches!(mode, Mode::Normal)
                || cmd.words.is_empty() && assignment_name_len(self.slice(w.start, w.end)).is_some()
            {
                self.take_word(&mut cmd, w, &mut mode, &mut open)?;
                continue;
            }
            let Word {
                value,
                start,
                end,
                quoted,
                marks,
            } = w;
            let Ok(words) = expand::expand(value, &marks) else {
                return Err(self.fail(ShellError::TooLarge));
            };
            self.spend(words.len())?;
            for value in words {
                let w = Word {
                    value,
                    start,
                    end,
                    quoted,
                    marks: Vec::new(),
                };
                self.take_word(&mut cmd, w, &mut mode, &mut open)?;
            }
        }
    }

    /// Whether a compound command starts after the blanks at `pos`: `(`,
    /// `{`, `[[`, `!` or a compound keyword, followed by a blank.
    fn compound_follows(&self) -> bool {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let rest = rest
            .get(
                rest.iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count()..,
            )
            .unwrap_or_default();
        if rest.first() == Some(&b'(') {
            return true;
        }
        [
            "{", "[[", "!", "if", "while", "until", "for", "select", "case",
        ]
        .iter()
        .any(|k| {
            rest.starts_with(k.as_bytes())
                && rest
                    .get(k.len())
                    .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n'))
        })
    }

    /// Fails on a compound command of `open` left open at a list's end.
    fn all_closed(&mut self, open: &[OpenConstruct]) -> ScanStep {
        match open.last() {
            Some(o) => Err(self.fail(ShellError::UnbalancedCompound {
                at: self.at(o.at),
                keyword: o.keyword,
            })),
            None => Ok(()),
        }
    }

    /// `closer` (at `at`) ends the innermost compound command, which must
    /// be one it closes.
    fn close(
        &mut self,
        open: &mut Vec<OpenConstruct>,
        closer: &'static str,
        at: usize,
    ) -> ScanStep {
        match open.last() {
            Some(o) if o.closer == closer => {
                open.pop();
                Ok(())
            }
            _ => Err(self.fail(ShellError::UnbalancedCompound {
                at: self.at(at),
                keyword: closer,
            })),
        }
    }
}

mod commands;
mod lexical;
mod redirects;
mod words;

use lexical::*;
