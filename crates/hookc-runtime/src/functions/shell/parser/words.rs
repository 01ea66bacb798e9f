//! One word at a time: quote removal as it is read (`'...'`, `"..."`,
//! `$'...'`), and the parameters and substitutions inside it.

use super::lexical::*;
use super::*;

impl<'s> ShellParser<'s> {
    /// A word at `pos`, quotes removed, its substitutions parsed. Empty
    /// (`start == end`) when `pos` is on an operator or the end.
    pub(super) fn word(&mut self) -> Result<Word<'s>, ListStop> {
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
    pub(super) fn char_len(&self, at: usize) -> usize {
        self.src
            .get(at..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    /// `"..."` at `pos`.
    pub(super) fn double_quoted(&mut self, buf: &mut WordBuf) -> ScanStep {
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
    pub(super) fn dollar(&mut self, buf: &mut WordBuf, in_double_quotes: bool) -> ScanStep {
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
                    self.substitute(value.len())?;
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
                    self.substitute(value.len())?;
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
    pub(super) fn known(&self, name: &str) -> Option<Cow<'s, str>> {
        match name {
            "" => None,
            "@" | "*" => Some(Cow::Borrowed("")),
            _ if name_len(name.as_bytes()) == name.len() => self.var(name).cloned(),
            _ => None,
        }
    }

    /// The rest of `${...}` (opened at `open`), kept verbatim; its
    /// substitutions are parsed.
    pub(super) fn parameter(&mut self, open: usize, in_double_quotes: bool) -> ScanStep {
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
    pub(super) fn backquote(&mut self, buf: &mut WordBuf) -> ScanStep {
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
                parse_owned(&text, at, depth, self.unwrap, &self.expansion)
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
    pub(super) fn ansi_c(&mut self, buf: &mut WordBuf) -> ScanStep {
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

    /// Puts a word where it belongs in the command or the compound syntax.
    pub(super) fn take_word(
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
}
