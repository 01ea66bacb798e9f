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

use std::borrow::Cow;

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

/// Parses `src` (found at byte `base` of the outermost input, for error
/// positions) at nesting `depth`.
pub(super) fn parse_script(
    src: &str,
    base: usize,
    depth: usize,
    unwrap: Unwrap,
) -> (Vec<SimpleCommand<'_>>, Option<ShellError>) {
    let mut p = ShellParser::new(src, base, depth, unwrap);
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
) -> (Vec<SimpleCommand<'static>>, Option<ShellError>) {
    let (commands, error) = parse_script(src, base, depth, unwrap);
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
    fn new(src: &'s str, base: usize, depth: usize, unwrap: Unwrap) -> Self {
        ShellParser {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            base,
            depth,
            out: Vec::new(),
            error: None,
            heredocs: Vec::new(),
            unwrap,
            copy_budget: src.len() + COPY_ALLOWANCE,
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
        let (commands, error) = parse_script(text, self.base + start, self.depth + 1, self.unwrap);
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
                let (c, e) = parse_script(t, at, self.depth + 1, self.unwrap);
                (c, e.map(|e| e.relocated(at)))
            }
            Cow::Owned(t) => {
                let (c, e) = parse_owned(&t, at, self.depth + 1, self.unwrap);
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

    /// Puts a word where it belongs in the command or the compound syntax.
    fn take_word(
        &mut self,
        cmd: &mut CommandBuilder<'s>,
        w: Word<'s>,
        mode: &mut Mode,
        open: &mut Vec<OpenConstruct>,
    ) -> ScanStep {
        match *mode {
            Mode::ForVar => {
                // The loop sets it to each item in turn: not one value.
                self.forget(&w.value);
                *mode = Mode::ForAfterVar;
                return Ok(());
            }
            Mode::ForAfterVar => {
                *mode = if w.is("in") {
                    Mode::ForIn
                } else {
                    Mode::Normal
                };
                return Ok(());
            }
            Mode::ForIn => return Ok(()),
            Mode::CaseWord => {
                *mode = Mode::CaseIn;
                return Ok(());
            }
            Mode::CaseIn => {
                *mode = if w.is("in") {
                    Mode::CasePattern { started: false }
                } else {
                    Mode::Normal
                };
                return Ok(());
            }
            Mode::FuncName => {
                *mode = Mode::FuncBody { at: w.start };
                return Ok(());
            }
            Mode::FuncBody { at } => {
                if w.quoted
                    || !matches!(
                        &*w.value,
                        "{" | "if" | "while" | "until" | "for" | "select" | "case" | "[["
                    )
                {
                    return Err(self.fail(ShellError::MissingFunctionBody { at: self.at(at) }));
                }
                *mode = Mode::Normal;
            }
            Mode::Normal | Mode::DoubleBracket | Mode::CasePattern { .. } => {}
        }
        if cmd.at_start() && !w.quoted {
            let opened = |keyword, closer| OpenConstruct {
                keyword,
                closer,
                at: w.start,
            };
            match &*w.value {
                "then" | "elif" | "else" | "do" | "!" | "coproc" => return Ok(()),
                "if" => {
                    self.branched = true;
                    open.push(opened("if", "fi"));
                }
                "while" => {
                    self.branched = true;
                    open.push(opened("while", "done"));
                }
                "until" => {
                    self.branched = true;
                    open.push(opened("until", "done"));
                }
                "{" => open.push(opened("{", "}")),
                "fi" => self.close(open, "fi", w.start)?,
                "done" => self.close(open, "done", w.start)?,
                "}" => self.close(open, "}", w.start)?,
                "esac" => self.close(open, "esac", w.start)?,
                "for" | "select" => {
                    self.branched = true;
                    open.push(opened(
                        if w.value == "for" { "for" } else { "select" },
                        "done",
                    ));
                    *mode = Mode::ForVar;
                }
                "case" => {
                    self.branched = true;
                    open.push(opened("case", "esac"));
                    *mode = Mode::CaseWord;
                }
                "function" => {
                    self.branched = true;
                    *mode = Mode::FuncName;
                }
                // `time` before a compound command is Bash's reserved word
                // (nothing to record); before a simple one, a wrapper.
                "time" if self.compound_follows() => {}
                "[[" => {
                    open.push(opened("[[", "]]"));
                    *mode = Mode::DoubleBracket;
                    cmd.words.push(w.value);
                }
                _ => return self.word_or_assignment(cmd, w),
            }
            return Ok(());
        }
        self.word_or_assignment(cmd, w)
    }

    /// A word of a simple command: an assignment before the program, or
    /// an argument.
    fn word_or_assignment(&mut self, cmd: &mut CommandBuilder<'s>, w: Word<'s>) -> ScanStep {
        if cmd.words.is_empty() {
            if let Some(name_len) = assignment_name_len(self.slice(w.start, w.end)) {
                let name = self.slice(w.start, w.start + name_len);
                // The name (and `=` or `+=`) has no quoting, so the value
                // starts at the same offset of the quote-removed word.
                let skip = name_len
                    + if self.bytes.get(w.start + name_len) == Some(&b'+') {
                        2
                    } else {
                        1
                    };
                let value = match w.value {
                    Cow::Borrowed(v) => Cow::Borrowed(v.get(skip..).unwrap_or_default()),
                    Cow::Owned(v) => Cow::Owned(v.get(skip..).unwrap_or_default().to_owned()),
                };
                cmd.env.push((Cow::Borrowed(name), value));
                return Ok(());
            }
        }
        if cmd.words.is_empty() {
            // Most commands have a few words: one allocation, not 4 then 8.
            cmd.words.reserve(6);
        }
        cmd.words.push(w.value);
        Ok(())
    }

    /// Ends the command being read: unwraps it and lists it.
    fn finish(&mut self, cmd: &mut CommandBuilder<'s>) -> ScanStep {
        if cmd.at_start() {
            return Ok(());
        }
        let b = std::mem::take(cmd);
        if b.words.is_empty() {
            // `X=rm`: set for the rest of the line.
            for (name, value) in &b.env {
                self.set_var(name.clone(), value.clone());
            }
        } else {
            self.declarations(&b.words);
        }
        let command = SimpleCommand {
            argv: b.words,
            env: b.env,
            redirects: b.redirects,
            piped_from: self.pipe_from.take().unwrap_or_default(),
            ..SimpleCommand::default()
        };
        self.emit(command, self.at(self.pos))
    }

    /// The variables a builtin sets or unsets: `export X=v`, `declare`,
    /// `local`, `readonly`, `typeset` set; `unset X` and `read X` leave
    /// `X` unknown.
    fn declarations(&mut self, words: &[Cow<'s, str>]) {
        let Some(program) = words.first() else { return };
        match &**program {
            "export" | "declare" | "local" | "readonly" | "typeset" => {
                for w in words.get(1..).unwrap_or_default() {
                    if let Some(eq) = w.find('=') {
                        let name = w.get(..eq).unwrap_or_default();
                        if assignment_name_len(w).is_some() {
                            let (name, value) = match w {
                                Cow::Borrowed(b) => (
                                    Cow::Borrowed(b.get(..eq).unwrap_or_default()),
                                    Cow::Borrowed(b.get(eq + 1..).unwrap_or_default()),
                                ),
                                Cow::Owned(o) => (
                                    Cow::Owned(name.to_owned()),
                                    Cow::Owned(o.get(eq + 1..).unwrap_or_default().to_owned()),
                                ),
                            };
                            self.set_var(name, value);
                        }
                    }
                }
            }
            "unset" | "read" | "mapfile" | "readarray" | "getopts" | "printf" => {
                for w in words.get(1..).unwrap_or_default() {
                    self.forget(w);
                }
            }
            _ => {}
        }
    }

    /// Records `name=value`: known when it is the name's only assignment
    /// and it surely runs here (no branch before it, not in a subshell or
    /// a substitution); otherwise the name is not known from here on.
    fn set_var(&mut self, name: Cow<'s, str>, value: Cow<'s, str>) {
        let certain = !self.branched && self.depth == self.base_depth;
        match self.vars.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = None,
            None => self.vars.push((name, certain.then_some(value))),
        }
    }

    /// `name` is not known from here on (`unset`, `read`, a loop).
    fn forget(&mut self, name: &str) {
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = None,
            None => self.vars.push((Cow::Owned(name.to_owned()), None)),
        }
    }

    /// The value set on the line for the variable `name`, when known.
    fn var(&self, name: &str) -> Option<&Cow<'s, str>> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_ref())
    }

    /// The program of the last command listed that has one: what a `|`
    /// feeds from (`{ curl x; X=1; } | sh` pipes curl's output).
    fn last_program(&self) -> Cow<'s, str> {
        self.out
            .iter()
            .rev()
            .find(|c| !c.program.is_empty())
            .map_or(Cow::Borrowed(""), |c| c.program.clone())
    }

    /// Unwraps `command` and lists what it runs.
    fn emit(&mut self, mut command: SimpleCommand<'s>, at: usize) -> ScanStep {
        if self.unwrap == Unwrap::No {
            command.program = program_of(&command.argv);
            command.dynamic = is_dynamic(&command.argv);
            self.out.push(command);
            return Ok(());
        }
        // Each step drains the argv's front: a bound on the steps keeps a
        // string of 100,000 `sudo`s linear.
        let mut steps = 0;
        loop {
            let program = program_of(&command.argv);
            if !unwrap::is_wrapper(&program) {
                let execs = if program == "find" {
                    unwrap::find_execs(&command)
                } else {
                    Vec::new()
                };
                self.spend(
                    execs
                        .iter()
                        .map(|e| e.argv.len() + e.env.len() + e.wrappers.len())
                        .sum(),
                )?;
                command.program = program;
                self.settle(command, at)?;
                for exec in execs {
                    self.nested(|p| p.emit(exec, at))?;
                }
                return Ok(());
            }
            match unwrap::step(command) {
                Unwrapped::Inner(inner) => {
                    steps += 1;
                    if steps > MAX_NESTING {
                        return Err(self.fail(ShellError::NestingTooDeep));
                    }
                    command = inner;
                }
                Unwrapped::Done(mut done) => {
                    done.program = program_of(&done.argv);
                    return self.settle(done, at);
                }
                Unwrapped::Script {
                    outer,
                    script,
                    label,
                } => {
                    let (inner, error) = self.parse_text(script, at);
                    let copies = inner.len()
                        * (outer.wrappers.len() + outer.env.len() + outer.redirects.len());
                    self.spend(copies)?;
                    for mut c in inner {
                        if c.piped_from.is_empty() {
                            // The script's commands read the shell's input.
                            c.piped_from = outer.piped_from.clone();
                        }
                        let mut wrappers = outer.wrappers.clone();
                        wrappers.push(Cow::Borrowed(label));
                        wrappers.append(&mut c.wrappers);
                        c.wrappers = wrappers;
                        if !outer.env.is_empty() {
                            let mut env = outer.env.clone();
                            env.append(&mut c.env);
                            c.env = env;
                        }
                        if !outer.redirects.is_empty() {
                            let mut redirects = outer.redirects.clone();
                            redirects.append(&mut c.redirects);
                            c.redirects = redirects;
                        }
                        self.out.push(c);
                    }
                    return match error {
                        Some(e) => Err(self.fail(e)),
                        None => Ok(()),
                    };
                }
            }
        }
    }

    /// Lists `command`, unwrapped, with what the reader knows of it: whether
    /// its program is dynamic, the code it runs if it is an interpreter,
    /// and for a shell fed a here-string or a literal through a pipe, the
    /// commands of that script after it (a heredoc's body comes after the
    /// line: [`ShellParser::read_heredocs`]).
    fn settle(&mut self, mut command: SimpleCommand<'s>, at: usize) -> ScanStep {
        command.dynamic = is_dynamic(&command.argv);
        command.dir = self.dir.clone();
        if matches!(&*command.program, "cd" | "pushd") {
            self.change_dir(&command.argv);
        }
        match interp::code_arg(&command.program, &command.argv) {
            CodeArg::Inline(code) => {
                command.code = code;
                command.code_from = CodeFrom::Argument;
            }
            CodeArg::Stdin => {
                let stdin = command.redirects.iter().rev().find(|r| {
                    r.fd.is_none_or(|fd| fd == 0)
                        && matches!(
                            r.op,
                            RedirectOp::In
                                | RedirectOp::Heredoc
                                | RedirectOp::HeredocStripTabs
                                | RedirectOp::HereString
                        )
                });
                match stdin.map(|r| (r.op, &r.target)) {
                    Some((RedirectOp::HereString, text)) => {
                        command.code = text.clone();
                        command.code_from = CodeFrom::HereString;
                    }
                    Some((RedirectOp::Heredoc | RedirectOp::HeredocStripTabs, _)) => {
                        command.code_from = CodeFrom::Heredoc;
                    }
                    // A script file: not known here.
                    Some(_) => {}
                    None if !command.piped_from.is_empty() => {
                        command.code_from = CodeFrom::Pipe;
                        if let Some(text) = self.printed(&command.piped_from) {
                            command.code = text;
                        }
                    }
                    None => command.code_from = CodeFrom::Stdin,
                }
            }
            CodeArg::None => {}
        }
        let script = (interp::is_shell(&command.program)
            && matches!(command.code_from, CodeFrom::HereString | CodeFrom::Pipe)
            && !command.code.is_empty())
        .then(|| command.code.clone());
        let label = match command.code_from {
            CodeFrom::Pipe => "| sh",
            _ => "sh <<<",
        };
        let outer = script.as_ref().map(|_| command.wrappers.clone());
        self.out.push(command);
        if let (Some(script), Some(outer)) = (script, outer) {
            self.script_after(script, at, &outer, label)?;
        }
        Ok(())
    }

    /// Follows `cd DIR` (`cd` alone goes home; `cd -` and a dynamic
    /// directory leave it unknown).
    fn change_dir(&mut self, argv: &[Cow<'s, str>]) {
        let target = argv
            .iter()
            .skip(1)
            .find(|a| !matches!(&***a, "-L" | "-P" | "-e" | "-@" | "--"))
            .cloned()
            .unwrap_or(Cow::Borrowed("~"));
        self.dir = if &*target == "-" || target.contains(['$', '`']) {
            Cow::Borrowed("")
        } else if target.starts_with('/') || target.starts_with('~') || self.dir.is_empty() {
            target
        } else {
            Cow::Owned(crate::functions::paths::join(&self.dir, &target))
        };
    }

    /// Parses `script`, fed to a shell listed last, and lists its commands
    /// after it with the shell's wrappers and `label`.
    fn script_after(
        &mut self,
        script: Cow<'s, str>,
        at: usize,
        outer: &[Cow<'s, str>],
        label: &'static str,
    ) -> ScanStep {
        let (inner, error) = self.parse_text(script, at);
        self.spend(inner.len() * (outer.len() + 1))?;
        for mut c in inner {
            let mut wrappers = outer.to_vec();
            wrappers.push(Cow::Borrowed(label));
            wrappers.append(&mut c.wrappers);
            c.wrappers = wrappers;
            self.out.push(c);
        }
        match error {
            Some(e) => Err(self.fail(e)),
            None => Ok(()),
        }
    }

    /// What the command before a pipe prints, when the line says: the
    /// arguments of `echo` or the one format of `printf` (`printf 'rm -rf
    /// /' | sh`), if that command is `program`, the last listed. Escapes
    /// are not guessed: `printf`'s `\n`, `\t` and `\\` are decoded and
    /// any other backslash makes the text unknown (`printf 'rm\x20-rf /'`
    /// prints `rm -rf /`), as does any backslash given to `echo`, whose
    /// escapes depend on the shell.
    fn printed(&self, program: &str) -> Option<Cow<'s, str>> {
        let before = self.out.last().filter(|c| c.program == program)?;
        let args = before.argv.get(1..)?;
        match &*before.program {
            "echo" => {
                let args: Vec<&str> = args
                    .iter()
                    .map(|a| &**a)
                    .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                    .collect();
                if args.iter().any(|a| a.contains('\\')) {
                    return None;
                }
                Some(Cow::Owned(args.join(" ")))
            }
            "printf" => match args {
                [format] if !format.contains('%') => printf_text(format),
                _ => None,
            },
            _ => None,
        }
    }

    /// Digits right before `<` or `>` (not `<(`/`>(`): a redirection's
    /// descriptor. Leaves `pos` on the operator.
    fn fd_prefix(&mut self) -> Option<u32> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        match (rest.get(n), rest.get(n + 1)) {
            (Some(b'<' | b'>'), next) if next != Some(&b'(') => {
                let fd = self.slice(self.pos, self.pos + n).parse().ok()?;
                self.pos += n;
                Some(fd)
            }
            _ => None,
        }
    }

    /// A redirection at `pos` (on its operator).
    fn redirect(&mut self, fd: Option<u32>, cmd: &mut CommandBuilder<'s>) -> ScanStep {
        let at = self.pos;
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let (op, len) = match rest {
            [b'<', b'<', b'<', ..] => (RedirectOp::HereString, 3),
            [b'<', b'<', b'-', ..] => (RedirectOp::HeredocStripTabs, 3),
            [b'<', b'<', ..] => (RedirectOp::Heredoc, 2),
            [b'<', b'&', ..] => (RedirectOp::DupIn, 2),
            [b'<', b'>', ..] => (RedirectOp::ReadWrite, 2),
            [b'<', ..] => (RedirectOp::In, 1),
            [b'>', b'>', ..] => (RedirectOp::Append, 2),
            [b'>', b'&', ..] => (RedirectOp::DupOut, 2),
            [b'>', b'|', ..] => (RedirectOp::Clobber, 2),
            [b'&', b'>', b'>', ..] => (RedirectOp::AppendOutErr, 3),
            [b'&', b'>', ..] => (RedirectOp::OutErr, 2),
            _ => (RedirectOp::Out, 1),
        };
        self.pos += len;
        self.skip_blanks();
        let w = self.word()?;
        if w.start == w.end {
            return Err(self.fail(ShellError::MissingRedirectTarget { at: self.at(at) }));
        }
        if matches!(op, RedirectOp::Heredoc | RedirectOp::HeredocStripTabs) {
            self.heredocs.push(PendingHeredoc {
                at,
                delimiter: w.value.clone(),
                strip_tabs: op == RedirectOp::HeredocStripTabs,
                expand: !w.quoted,
            });
        }
        cmd.redirects.push(Redirect {
            fd,
            op,
            target: w.value,
        });
        Ok(())
    }

    /// After a newline: the bodies of the here-documents opened on the line.
    fn read_heredocs(&mut self) -> ScanStep {
        for h in std::mem::take(&mut self.heredocs) {
            let body_start = self.pos;
            let body_end = loop {
                let line_start = self.pos;
                if line_start >= self.bytes.len() {
                    return Err(self.fail(ShellError::UnterminatedHeredoc {
                        at: self.at(h.at),
                        delimiter: h.delimiter.into_owned(),
                    }));
                }
                let rest = self.bytes.get(line_start..).unwrap_or_default();
                let line_end =
                    memchr::memchr(b'\n', rest).map_or(self.bytes.len(), |i| line_start + i);
                self.pos = (line_end + 1).min(self.bytes.len());
                let mut line = self.slice(line_start, line_end);
                if h.strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line == h.delimiter {
                    break line_start;
                }
            };
            if self.unwrap == Unwrap::Yes && self.heredoc_code(&h, body_start, body_end)? {
                // Parsed as the script of the shell it feeds.
                continue;
            }
            if h.expand {
                let body = self.bytes.get(body_start..body_end).unwrap_or_default();
                if memchr::memchr2(b'$', b'`', body).is_some() {
                    let after = self.pos;
                    let mut p = ShellParser::new(
                        self.slice(body_start, body_end),
                        self.base + body_start,
                        self.depth,
                        self.unwrap,
                    );
                    let r = p.expansions();
                    self.out.append(&mut p.out);
                    if let (Err(ListStop), Some(e)) = (r, p.error) {
                        return Err(self.fail(e));
                    }
                    self.pos = after;
                }
            }
        }
        Ok(())
    }

    /// Gives the body `start..end` of the here-document `h` to the
    /// interpreters of the line it feeds (their `code`); a shell's body is
    /// parsed as its script, its commands listed after the line's. Whether
    /// it was parsed so.
    fn heredoc_code(&mut self, h: &PendingHeredoc<'s>, start: usize, end: usize) -> ScanStep<bool> {
        let body: Cow<'s, str> = if h.strip_tabs {
            let mut text = String::new();
            for line in self.slice(start, end).split_inclusive('\n') {
                text.push_str(line.trim_start_matches('\t'));
            }
            Cow::Owned(text)
        } else {
            Cow::Borrowed(self.slice(start, end))
        };
        let mut shell: Option<Vec<Cow<'s, str>>> = None;
        let from = self.line_out.min(self.out.len());
        for c in self.out.get_mut(from..).unwrap_or_default() {
            let feeds = c.code_from == CodeFrom::Heredoc
                && c.code.is_empty()
                && c.redirects.iter().any(|r| {
                    matches!(r.op, RedirectOp::Heredoc | RedirectOp::HeredocStripTabs)
                        && r.target == h.delimiter
                });
            if feeds {
                c.code = body.clone();
                if shell.is_none() && interp::is_shell(&c.program) {
                    shell = Some(c.wrappers.clone());
                }
            }
        }
        let Some(outer) = shell else {
            return Ok(false);
        };
        let after = self.pos;
        let at = self.at(h.at);
        self.script_after(body, at, &outer, "sh <<")?;
        self.pos = after;
        Ok(true)
    }

    /// The substitutions in text where only expansions count (a
    /// here-document's body, an arithmetic expression): `$(`, `` ` ``,
    /// `${`, `$((`.
    fn expansions(&mut self) -> ScanStep {
        let mut sink = WordBuf::default();
        while let Some(i) = memchr::memchr3(
            b'\\',
            b'$',
            b'`',
            self.bytes.get(self.pos..).unwrap_or_default(),
        ) {
            self.pos += i;
            match self.peek() {
                Some(b'\\') => self.pos += 2,
                Some(b'`') => self.backquote(&mut sink)?,
                _ => self.dollar(&mut sink, true)?,
            }
        }
        Ok(())
    }

    /// `((...))` at a command's start. `Ok(false)` (nothing consumed) when
    /// it does not end in `))`: then it is `(` and a subshell.
    fn arithmetic_command(&mut self) -> ScanStep<bool> {
        match arithmetic_end(self.bytes, self.pos + 2) {
            ArithEnd::End(end) => {
                self.scan_expansions(self.pos + 2, end - 2)?;
                self.pos = end;
                Ok(true)
            }
            ArithEnd::NotArithmetic | ArithEnd::Eof => Ok(false),
        }
    }

    /// Parses the substitutions in `start..end` of the input.
    fn scan_expansions(&mut self, start: usize, end: usize) -> ScanStep {
        let inner = self.bytes.get(start..end).unwrap_or_default();
        if memchr::memchr2(b'$', b'`', inner).is_none() {
            return Ok(());
        }
        let text = self.slice(start, end);
        let base = self.base + start;
        self.nested(|p| {
            let mut sub = ShellParser::new(text, base, p.depth, p.unwrap);
            let r = sub.expansions();
            p.out.append(&mut sub.out);
            match (r, sub.error) {
                (Err(ListStop), Some(e)) => Err(p.fail(e)),
                _ => Ok(()),
            }
        })
    }

    /// A word at `pos`, quotes removed, its substitutions parsed. Empty
    /// (`start == end`) when `pos` is on an operator or the end.
    fn word(&mut self) -> Result<Word<'s>, ListStop> {
        let start = self.pos;
        let mut buf = WordBuf::default();
        let mut quoted = false;
        // Process substitution opens a word.
        if matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) == Some(b'(') {
            let open = self.pos;
            self.pos += 2;
            self.nested(|p| p.list(Term::Paren { open, subst: true }))?;
            buf.push_src(self.src, open, self.pos);
        }
        while let Some(c) = self.peek() {
            match c {
                b'\'' => {
                    quoted = true;
                    let open = self.pos;
                    let rest = self.bytes.get(open + 1..).unwrap_or_default();
                    let Some(len) = memchr::memchr(b'\'', rest) else {
                        return Err(self.fail(ShellError::UnterminatedQuote {
                            at: self.at(open),
                            quote: '\'',
                        }));
                    };
                    buf.push_src(self.src, open + 1, open + 1 + len);
                    self.pos = open + len + 2;
                }
                b'"' => {
                    quoted = true;
                    self.double_quoted(&mut buf)?;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    None => {
                        buf.push_src(self.src, self.pos, self.pos + 1);
                        self.pos += 1;
                    }
                    Some(_) => {
                        quoted = true;
                        let len = self.char_len(self.pos + 1);
                        buf.push_src(self.src, self.pos + 1, self.pos + 1 + len);
                        self.pos += 1 + len;
                    }
                },
                // An unquoted `$IFS` splits words, as Bash's default IFS
                // (blank, tab, newline) does: `rm${IFS}-rf${IFS}/` is three
                // words. Leading, it is nothing; after text, the word ends
                // there and the next word skips it. Not in an assignment's
                // value, which Bash does not split (`X=1${IFS}rm` sets X).
                b'$' if ifs_len(self.bytes.get(self.pos..).unwrap_or_default()) > 0
                    && assignment_name_len(self.slice(start, self.pos)).is_none() =>
                {
                    if !buf.is_empty() || quoted {
                        break;
                    }
                    self.pos += ifs_len(self.bytes.get(self.pos..).unwrap_or_default());
                }
                b'$' => match self.peek_at(1) {
                    Some(b'\'') => {
                        quoted = true;
                        self.ansi_c(&mut buf)?;
                    }
                    Some(b'"') => {
                        quoted = true;
                        self.pos += 1;
                        self.double_quoted(&mut buf)?;
                    }
                    _ => self.dollar(&mut buf, false)?,
                },
                b'`' => self.backquote(&mut buf)?,
                b'(' if is_assignment_prefix(self.slice(start, self.pos)) => {
                    // `NAME=(a b c)`: an array assignment, one word.
                    let open = self.pos;
                    let Some(end) = balanced_paren_end(self.bytes, open + 1) else {
                        return Err(self.fail(ShellError::UnbalancedParen { at: self.at(open) }));
                    };
                    self.scan_expansions(open + 1, end - 1)?;
                    buf.push_src(self.src, open, end);
                    self.pos = end;
                }
                _ if is_word_stop(c) => break,
                _ => {
                    let run_start = self.pos;
                    let rest = self.bytes.get(run_start..).unwrap_or_default();
                    let len = rest
                        .iter()
                        .position(|&b| is_word_stop(b))
                        .unwrap_or(rest.len());
                    self.pos += len;
                    buf.push_unquoted(self.src, run_start, self.pos);
                }
            }
        }
        let (value, marks) = buf.finish(self.src);
        Ok(Word {
            value,
            start,
            end: self.pos,
            quoted,
            marks,
        })
    }

    /// The length of the UTF-8 character at byte `at` (1 at the end).
    fn char_len(&self, at: usize) -> usize {
        self.src
            .get(at..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    /// `"..."` at `pos`.
    fn double_quoted(&mut self, buf: &mut WordBuf) -> ScanStep {
        let open = self.pos;
        self.pos += 1;
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            let Some(i) = rest
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | b'$' | b'`'))
            else {
                return Err(self.fail(ShellError::UnterminatedQuote {
                    at: self.at(open),
                    quote: '"',
                }));
            };
            buf.push_src(self.src, self.pos, self.pos + i);
            self.pos += i;
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        buf.push_src(self.src, self.pos + 1, self.pos + 2);
                        self.pos += 2;
                    }
                    _ => {
                        buf.push_src(self.src, self.pos, self.pos + 1);
                        self.pos += 1;
                    }
                },
                Some(b'`') => self.backquote(buf)?,
                _ => self.dollar(buf, true)?,
            }
        }
    }

    /// A `$` at `pos` that is not `$'` or `$"`: `$(`, `$((`, `${`, or a
    /// literal `$` (a parameter's name is ordinary text after it).
    fn dollar(&mut self, buf: &mut WordBuf, in_double_quotes: bool) -> ScanStep {
        let open = self.pos;
        match self.peek_at(1) {
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(') {
                    match arithmetic_end(self.bytes, open + 3) {
                        ArithEnd::End(end) => {
                            self.scan_expansions(open + 3, end - 2)?;
                            self.pos = end;
                            buf.push_src(self.src, open, end);
                            return Ok(());
                        }
                        ArithEnd::Eof => {
                            return Err(self
                                .fail(ShellError::UnterminatedSubstitution { at: self.at(open) }))
                        }
                        ArithEnd::NotArithmetic => {}
                    }
                }
                self.pos += 2;
                self.nested(|p| p.list(Term::Paren { open, subst: true }))?;
                buf.push_src(self.src, open, self.pos);
                Ok(())
            }
            Some(b'{') => {
                self.pos += 2;
                self.nested(|p| p.parameter(open, in_double_quotes))?;
                // `${X}` of a variable set on the line is its value.
                let name = self.slice(open + 2, self.pos.saturating_sub(1));
                if let Some(value) = self.known(name) {
                    buf.push_value(self.src, &value, in_double_quotes);
                } else {
                    buf.push_src(self.src, open, self.pos);
                }
                Ok(())
            }
            _ => {
                let rest = self.bytes.get(open + 1..).unwrap_or_default();
                let len = match rest.first() {
                    Some(b'@' | b'*') => 1,
                    _ => name_len(rest),
                };
                let name = self.slice(open + 1, open + 1 + len);
                if let Some(value) = self.known(name) {
                    buf.push_value(self.src, &value, in_double_quotes);
                    self.pos = open + 1 + len;
                    return Ok(());
                }
                buf.push_src(self.src, open, open + 1);
                self.pos += 1;
                Ok(())
            }
        }
    }

    /// The value of `$name`, when the line tells it: a variable set on the
    /// line, or `$@`/`$*`, which are empty in a command string a host runs
    /// (it has no positional parameters).
    fn known(&self, name: &str) -> Option<Cow<'s, str>> {
        match name {
            "" => None,
            "@" | "*" => Some(Cow::Borrowed("")),
            _ if name_len(name.as_bytes()) == name.len() => self.var(name).cloned(),
            _ => None,
        }
    }

    /// The rest of `${...}` (opened at `open`), kept verbatim; its
    /// substitutions are parsed.
    fn parameter(&mut self, open: usize, in_double_quotes: bool) -> ScanStep {
        let mut sink = WordBuf::default();
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            let Some(i) = rest
                .iter()
                .position(|&b| matches!(b, b'}' | b'\'' | b'"' | b'\\' | b'$' | b'`'))
            else {
                return Err(self.fail(ShellError::UnterminatedSubstitution { at: self.at(open) }));
            };
            self.pos += i;
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\'') if !in_double_quotes => {
                    let q = self.pos;
                    let rest = self.bytes.get(q + 1..).unwrap_or_default();
                    let Some(len) = memchr::memchr(b'\'', rest) else {
                        return Err(self.fail(ShellError::UnterminatedQuote {
                            at: self.at(q),
                            quote: '\'',
                        }));
                    };
                    self.pos = q + len + 2;
                }
                Some(b'\'') => self.pos += 1,
                Some(b'"') => self.double_quoted(&mut sink)?,
                Some(b'\\') => self.pos += 2,
                Some(b'`') => self.backquote(&mut sink)?,
                _ => self.dollar(&mut sink, in_double_quotes)?,
            }
        }
    }

    /// `` `...` `` at `pos`: the inner text, unescaped, parsed as a script.
    fn backquote(&mut self, buf: &mut WordBuf) -> ScanStep {
        let open = self.pos;
        let mut i = open + 1;
        let mut escaped = false;
        loop {
            match self.bytes.get(i) {
                None => {
                    return Err(
                        self.fail(ShellError::UnterminatedSubstitution { at: self.at(open) })
                    )
                }
                Some(b'`') => break,
                Some(b'\\') => {
                    escaped = true;
                    i += 2;
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i + 1;
        if escaped {
            let inner = self.slice(open + 1, i);
            let mut text = String::with_capacity(inner.len());
            let mut chars = inner.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' && matches!(chars.peek(), Some('$' | '`' | '\\')) {
                    continue;
                }
                text.push(c);
            }
            let at = self.at(open);
            let depth = self.depth + 1;
            let (commands, error) = if depth > MAX_NESTING {
                (Vec::new(), Some(ShellError::NestingTooDeep))
            } else {
                parse_owned(&text, at, depth, self.unwrap)
            };
            self.out.extend(commands);
            if let Some(e) = error {
                return Err(self.fail(e));
            }
        } else {
            self.parse_slice(open + 1, i)?;
        }
        buf.push_src(self.src, open, self.pos);
        Ok(())
    }

    /// `$'...'` at `pos`, decoded.
    fn ansi_c(&mut self, buf: &mut WordBuf) -> ScanStep {
        let open = self.pos;
        let mut i = open + 2;
        loop {
            match self.bytes.get(i) {
                None => {
                    return Err(self.fail(ShellError::UnterminatedQuote {
                        at: self.at(open),
                        quote: '\'',
                    }))
                }
                Some(b'\'') => break,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
            }
        }
        let inner = self.slice(open + 2, i);
        self.pos = i + 1;
        if !inner.contains('\\') {
            buf.push_src(self.src, open + 2, i);
            return Ok(());
        }
        let out = buf.owned(self.src);
        decode_ansi_c(inner, out);
        Ok(())
    }
}

/// Appends `$'...'`'s text, escapes decoded, to `out`.
fn decode_ansi_c(inner: &str, out: &mut String) {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max, first) = match e {
            '0'..='7' => (8, 3, Some(e)),
            'x' => (16, 2, None),
            'u' => (16, 4, None),
            'U' => (16, 8, None),
            'c' => {
                // `\cX`: the control character of X.
                match chars.next() {
                    Some(x) => out.push(char::from((x as u32 & 0x1f) as u8)),
                    None => out.push_str("\\c"),
                }
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut digits = String::new();
        if let Some(f) = first {
            digits.push(f);
        }
        while digits.len() < max {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        match u32::from_str_radix(&digits, radix) {
            // Octal and `\x` give a byte; as text, its Latin-1 character.
            Ok(v) if e == 'x' || first.is_some() => out.push(char::from((v & 0xff) as u8)),
            Ok(v) => out.push(char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER)),
            Err(_) => {
                out.push('\\');
                out.push(e);
            }
        }
    }
}

/// How a `((` ends.
enum ArithEnd {
    /// At `))`; the position after it.
    End(usize),
    /// At a `)` not followed by `)`: not arithmetic.
    NotArithmetic,
    /// Never.
    Eof,
}

/// Scans arithmetic from `from` (after `((` or `$((`) to the `))` at
/// nesting zero.
/// The length of an unquoted `$IFS` or `${IFS}` at the start of `rest`
/// (`$IFS` not followed by a name character: `$IFSX` is another
/// variable); 0 when there is none.
fn ifs_len(rest: &[u8]) -> usize {
    if rest.starts_with(b"${IFS}") {
        return 6;
    }
    match rest.strip_prefix(b"$IFS") {
        Some(after)
            if !after
                .first()
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
        {
            4
        }
        _ => 0,
    }
}

fn arithmetic_end(bytes: &[u8], from: usize) -> ArithEnd {
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => {
                return if bytes.get(i + 1) == Some(&b')') {
                    ArithEnd::End(i + 2)
                } else {
                    ArithEnd::NotArithmetic
                };
            }
            b')' => depth -= 1,
            b'\\' => i += 1,
            b'\'' | b'"' => match memchr::memchr(b, bytes.get(i + 1..).unwrap_or_default()) {
                Some(len) => i += len + 1,
                None => return ArithEnd::Eof,
            },
            _ => {}
        }
        i += 1;
    }
    ArithEnd::Eof
}

/// The position after the `)` closing a `(` whose inside starts at `from`.
fn balanced_paren_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(i + 1),
            b')' => depth -= 1,
            b'\\' => i += 1,
            b'\'' | b'"' => i += memchr::memchr(b, bytes.get(i + 1..).unwrap_or_default())? + 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The length of the operator at the start of `rest` inside `[[ ]]`
/// (where operators are words), 0 if none.
fn operator_len(rest: &[u8]) -> usize {
    match rest {
        [b'&', b'&', ..] | [b'|', b'|', ..] | [b'<', b'<', ..] | [b'>', b'>', ..] => 2,
        [b'(' | b')' | b'<' | b'>' | b'&' | b'|' | b';', ..] => 1,
        _ => 0,
    }
}

/// The length of `NAME` when `raw` starts with `NAME=` or `NAME+=`.
/// The length of the shell name (`[A-Za-z_][A-Za-z0-9_]*`) at the start of
/// `bytes`, 0 when none.
fn name_len(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count(),
        _ => 0,
    }
}

fn assignment_name_len(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let first = b.first()?;
    if !(first.is_ascii_alphabetic() || *first == b'_') {
        return None;
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    match (b.get(n), b.get(n + 1)) {
        (Some(b'='), _) | (Some(b'+'), Some(b'=')) => Some(n),
        _ => None,
    }
}

/// Whether `raw` is exactly `NAME=` or `NAME+=`.
fn is_assignment_prefix(raw: &str) -> bool {
    assignment_name_len(raw)
        .is_some_and(|n| raw.len() == n + 1 || raw.len() == n + 2 && raw.ends_with("+="))
}

/// `argv[0]` without its directory.
/// The text `printf FORMAT` prints for a format without `%`: its `\n`,
/// `\t` and `\\` decoded; `None` for any other escape, which is not
/// guessed.
fn printf_text<'s>(format: &Cow<'s, str>) -> Option<Cow<'s, str>> {
    if !format.contains('\\') {
        return Some(format.clone());
    }
    let mut out = String::with_capacity(format.len());
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            '\\' => out.push('\\'),
            _ => return None,
        }
    }
    Some(Cow::Owned(out))
}

/// Whether a command's program name is only known when it runs: a `$` or
/// `` ` `` is left in it (an expansion not known on the line) or a glob
/// character (`/bin/r?`, `/???/rm`).
fn is_dynamic(argv: &[Cow<'_, str>]) -> bool {
    argv.first().is_some_and(|p| {
        p.contains(['$', '`', '*', '?']) || p.contains('[') && !matches!(&**p, "[" | "[[")
    })
}

fn program_of<'s>(argv: &[Cow<'s, str>]) -> Cow<'s, str> {
    match argv.first() {
        None => Cow::Borrowed(""),
        Some(Cow::Borrowed(a)) => Cow::Borrowed(unwrap::basename(a)),
        Some(Cow::Owned(a)) => Cow::Owned(unwrap::basename(a).to_owned()),
    }
}
