//! Redirections and here-documents, and the expansions (`$(...)`,
//! `$((...))`, backquotes) a command's text holds.

use super::lexical::*;
use super::*;

impl<'s> ShellParser<'s> {
    /// Digits right before `<` or `>` (not `<(`/`>(`): a redirection's
    /// descriptor. Leaves `pos` on the operator.
    pub(super) fn fd_prefix(&mut self) -> Option<u32> {
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
    pub(super) fn redirect(&mut self, fd: Option<u32>, cmd: &mut CommandBuilder<'s>) -> ScanStep {
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
    pub(super) fn read_heredocs(&mut self) -> ScanStep {
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
            // The substitutions of a body the delimiter does not quote run
            // in this shell, before whatever reads the body (a shell it
            // feeds too): single quotes do not quote in a body, so
            // `bash <<EOF` of `echo '`rm -rf /`'` runs `rm` here.
            if h.expand {
                let body = self.bytes.get(body_start..body_end).unwrap_or_default();
                if memchr::memchr2(b'$', b'`', body).is_some() {
                    let after = self.pos;
                    let mut p = ShellParser::new(
                        self.slice(body_start, body_end),
                        self.base + body_start,
                        self.depth,
                        self.unwrap,
                        self.expansion.clone(),
                    );
                    let r = p.expansions();
                    self.out.append(&mut p.out);
                    if let (Err(ListStop), Some(e)) = (r, p.error) {
                        return Err(self.fail(e));
                    }
                    self.pos = after;
                }
            }
            if self.unwrap == Unwrap::Yes {
                // The body is also the code of the interpreters of the line
                // it feeds, and a shell's body is parsed as its script.
                self.heredoc_code(&h, body_start, body_end)?;
            }
        }
        Ok(())
    }

    /// Gives the body `start..end` of the here-document `h` to the
    /// interpreters of the line it feeds (their `code`); a shell's body is
    /// parsed as its script, its commands listed after the line's. Whether
    /// it was parsed so.
    pub(super) fn heredoc_code(
        &mut self,
        h: &PendingHeredoc<'s>,
        start: usize,
        end: usize,
    ) -> ScanStep<bool> {
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
    pub(super) fn expansions(&mut self) -> ScanStep {
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
    pub(super) fn arithmetic_command(&mut self) -> ScanStep<bool> {
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
    pub(super) fn scan_expansions(&mut self, start: usize, end: usize) -> ScanStep {
        let inner = self.bytes.get(start..end).unwrap_or_default();
        if memchr::memchr2(b'$', b'`', inner).is_none() {
            return Ok(());
        }
        let text = self.slice(start, end);
        let base = self.base + start;
        self.nested(|p| {
            let mut sub = ShellParser::new(text, base, p.depth, p.unwrap, p.expansion.clone());
            let r = sub.expansions();
            p.out.append(&mut sub.out);
            match (r, sub.error) {
                (Err(ListStop), Some(e)) => Err(p.fail(e)),
                _ => Ok(()),
            }
        })
    }
}
