//! The warnings the type checker gives as it walks a condition, beside its
//! errors: a comparison with a value outside the schema's `enum` or open
//! `vocabulary` (W0002, W0018), a control character in a regex (W0013), a
//! string test on a shell command or a path (W0016, W0019), raw `argv`
//! words (W0020), a permission rule as a glob (W0021), a pattern that needs
//! backtracking (W0017) and a Unicode `\b` beside non-ASCII (W0024).

use super::*;

impl TypeChecker<'_> {
    /// `x == c` where `x`'s schema has an `enum` without `c`: never true.
    pub(super) fn enum_check(&mut self, op: BinaryOp, subject: &IrExpr, st: &Type, other: &IrExpr) {
        let IrExprKind::Const(c) = &other.kind else {
            return;
        };
        if let Const::String(name) = c {
            let outcome = if op == BinaryOp::Eq {
                "this comparison is never true"
            } else {
                "this comparison is always true"
            };
            if self.vocabulary_check(subject, st, name, other.span, outcome) {
                return;
            }
        }
        let Some(allowed) = self.schema.allowed(st.schema) else {
            return;
        };
        if matches!(c, Const::Null) || allowed.iter().any(|v| c.equals_json(v)) {
            return;
        }
        let (s, shown) = (self.show(subject), self.show(other));
        let outcome = if op == BinaryOp::Eq {
            "never true"
        } else {
            "always true"
        };
        let close = match c {
            Const::String(text) => {
                crate::suggest::did_you_mean(text, allowed.iter().filter_map(|v| v.as_str()))
            }
            _ => None,
        };
        let help = match close {
            Some(best) => format!("did you mean {}?", literal(&serde_json::Value::from(best))),
            None => format!("`{s}` is one of {}", list_values(allowed)),
        };
        self.diags.push(
            Diagnostic::new(
                Code::OutsideEnum,
                format!("`{shown}` is not a value the schema allows for `{s}`: this comparison is {outcome}"),
            )
            .at(other.span)
            .label("not in the schema's enum")
            .help(help),
        );
    }

    /// W0013 for a pattern holding a control character other than a tab or
    /// a line break: a string escape (`\b`, `\a`, `\f`, `\v`, an octal
    /// `\1`) turned what was meant as a regex escape into a character the
    /// text never holds, and the regex quietly never matches.
    pub(super) fn control_in_regex(&mut self, re: &crate::ir::Regex) {
        let Some(c) = re
            .pattern
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        else {
            return;
        };
        let (name, meant) = match c {
            '\u{8}' => (
                "a backspace",
                " (`\\b` in a non-raw string or in YAML double quotes; a word boundary was meant?)",
            ),
            '\u{7}' => (
                "a bell character",
                " (`\\a` in a non-raw string or in YAML double quotes)",
            ),
            '\u{b}' => (
                "a vertical tab",
                " (`\\v` in a non-raw string or in YAML double quotes)",
            ),
            '\u{c}' => (
                "a form feed",
                " (`\\f` in a non-raw string or in YAML double quotes)",
            ),
            _ => ("a control character", ""),
        };
        self.diags.push(
            Diagnostic::new(
                Code::ControlInRegex,
                format!(
                    "the regex holds {name}, U+{:04X}{meant}: it matches only text with that character",
                    u32::from(c)
                ),
            )
            .at(re.span)
            .label("a control character in this pattern")
            .help(
                "keep the backslash for the regex, through both layers that read escapes: YAML \
                 double quotes read `\\b` before the expression does (write the value in \
                 single quotes or as a block scalar), and a non-raw string in `when` reads it \
                 again (write a raw string, `r'^grep\\b'`)",
            ),
        );
    }

    /// W0016 when `subject` (of type `st`) is a shell command line and
    /// `whole` tests its text.
    pub(super) fn shell_test(
        &mut self,
        subject: &IrExpr,
        st: &Type,
        whole: &IrExpr,
        test: Test<'_>,
    ) {
        if self.schema.is_shell_command(st.schema) {
            let shown = self.show(whole);
            self.push_shell_test(&shown, subject, test, whole.span);
        } else if self.guard && self.schema.is_file_path(st.schema) {
            let (shown, s) = (self.show(whole), self.show(subject));
            self.diags.push(crate::check::path_as_text::diagnostic(
                &shown, &s, whole.span,
            ));
        }
    }

    pub(super) fn push_shell_test(
        &mut self,
        shown: &str,
        subject: &IrExpr,
        test: Test<'_>,
        at: Span,
    ) {
        let s = self.show(subject);
        self.diags
            .push(crate::check::shell_as_text::diagnostic(shown, &s, test, at));
    }

    /// Full source text of an expression, for a help that rewrites it
    /// (`show` shortens it).
    pub(super) fn source(&self, e: &IrExpr) -> String {
        e.to_source(self.paths).unwrap_or_default()
    }

    /// Whether `e` is the list `shell.commands(...)` gives, or a `filter`
    /// of it.
    pub(super) fn is_command_list(&self, e: &IrExpr) -> bool {
        match &e.kind {
            IrExprKind::Call(Builtin::ShellCommands, _) => true,
            IrExprKind::Macro {
                kind: MacroKind::Filter,
                range,
                ..
            } => self.is_command_list(range),
            _ => false,
        }
    }

    /// Whether `e` is one command of `shell.commands(...)`: a macro
    /// variable over the list, or an item of it.
    pub(super) fn is_command(&self, e: &IrExpr) -> bool {
        match &e.kind {
            IrExprKind::Var { depth, .. } => {
                self.origins.get(*depth as usize) == Some(&VarOrigin::Command)
            }
            IrExprKind::Index(base, _) => self.is_command_list(base),
            _ => false,
        }
    }

    /// The command `c` when `e` is its `c.argv`.
    pub(super) fn argv_of<'e>(&self, e: &'e IrExpr) -> Option<&'e IrExpr> {
        match &e.kind {
            IrExprKind::Field(base, name) if name == "argv" && self.is_command(base) => Some(base),
            _ => None,
        }
    }

    /// The command `c` when `e` is `c.argv[0]`, its program as written.
    pub(super) fn program_word<'e>(&self, e: &'e IrExpr) -> Option<&'e IrExpr> {
        match &e.kind {
            IrExprKind::Index(base, index)
                if matches!(index.kind, IrExprKind::Const(Const::Int(0))) =>
            {
                self.argv_of(base)
            }
            _ => None,
        }
    }

    /// The command's source text when `e` is one of its arguments: `c.argv[n]`
    /// for `n >= 1`, or a macro variable over `c.argv` (`c.argv.exists(a, ...)`).
    pub(super) fn argument_word(&self, e: &IrExpr) -> Option<String> {
        match &e.kind {
            IrExprKind::Index(base, index) if matches!(index.kind, IrExprKind::Const(Const::Int(n)) if n >= 1) => {
                self.argv_of(base).map(|cmd| self.source(cmd))
            }
            IrExprKind::Var { depth, .. } => match self.origins.get(*depth as usize) {
                Some(VarOrigin::Word(cmd)) => Some(cmd.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// W0020 when `subject` is `c.argv[0]`, tested against `literals` (the
    /// names, or the pattern) in a guarding hook. A literal with a `/`
    /// tests the directory, which only `argv[0]` holds: not warned. `text`
    /// gives the whole test, shown (shortened) and written out; it is
    /// called only for a warning, as it allocates.
    pub(super) fn program_test(
        &mut self,
        subject: &IrExpr,
        literals: &[&str],
        at: Span,
        text: impl FnOnce(&Self) -> (String, String),
    ) {
        if !self.guard || literals.is_empty() {
            return;
        }
        let Some(cmd) = self.program_word(subject) else {
            return;
        };
        if literals.iter().any(|l| l.is_empty() || l.contains('/')) {
            return;
        }
        let (shown, written) = text(self);
        let subject_src = self.source(subject);
        let program = format!("{}.program", self.source(cmd));
        // The same test with `program` in place of `c.argv[0]`.
        let fixed = if subject_src.is_empty() || !written.contains(&subject_src) {
            program
        } else {
            written.replacen(&subject_src, &program, 1)
        };
        let name = literals.first().copied().filter(|l| {
            l.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
        });
        self.diags.push(crate::check::raw_argv::program_diagnostic(
            &shown, &fixed, name, at,
        ));
    }

    /// W0020 for `flags` looked for as exact words among the arguments of
    /// the command `cmd` (`contains`: by `c.argv.contains(...)`).
    pub(super) fn push_flag_test(
        &mut self,
        shown: &str,
        cmd: &str,
        flags: &[FlagWord<'_>],
        contains: bool,
        at: Span,
    ) {
        if self.guard {
            self.diags.push(crate::check::raw_argv::flag_diagnostic(
                shown, cmd, flags, contains, at,
            ));
        }
    }

    /// W0020 for `==`/`!=` of a command's raw word with a literal: the
    /// program (`c.argv[0] == 'rm'`) or a flag (`c.argv[1] == '-rf'`,
    /// `c.argv.exists(a, a == '-rf')`).
    pub(super) fn raw_word_compare(&mut self, op: BinaryOp, lhs: &IrExpr, rhs: &IrExpr) {
        if !self.guard {
            return;
        }
        let sym = op.symbol();
        let text = |me: &Self| {
            let shown = format!("{} {sym} {}", me.show(lhs), me.show(rhs));
            let written = format!("{} {sym} {}", me.source(lhs), me.source(rhs));
            (shown, written)
        };
        let at = lhs.span.to(rhs.span);
        for (subject, other) in [(lhs, rhs), (rhs, lhs)] {
            let Some(lit) = string_const(other) else {
                continue;
            };
            if self.program_word(subject).is_some() {
                self.program_test(subject, &[lit], at, text);
                return;
            }
            if let (Some(cmd), Some(flag)) = (self.argument_word(subject), FlagWord::parse(lit)) {
                let (shown, _) = text(self);
                self.push_flag_test(&shown, &cmd, &[flag], false, at);
                return;
            }
        }
    }

    /// W0020 for `in` on a command's raw words: `c.argv[0] in ['rm',
    /// 'rmdir']`, `'-rf' in c.argv`, `c.argv.exists(a, a in ['-rf', '-fr'])`.
    pub(super) fn raw_word_in(&mut self, lhs: &IrExpr, rhs: &IrExpr) {
        if !self.guard {
            return;
        }
        let at = lhs.span.to(rhs.span);
        let text = |me: &Self| {
            let shown = format!("{} in {}", me.show(lhs), me.show(rhs));
            let written = format!("{} in {}", me.source(lhs), me.source(rhs));
            (shown, written)
        };
        if let (Some(word), Some(cmd)) = (string_const(lhs), self.argv_of(rhs)) {
            if let Some(flag) = FlagWord::parse(word) {
                let (shown, cmd) = (text(self).0, self.source(cmd));
                self.push_flag_test(&shown, &cmd, &[flag], false, at);
            }
            return;
        }
        let IrExprKind::Const(Const::List(items)) = &rhs.kind else {
            return;
        };
        let words: Option<Vec<&str>> = items
            .iter()
            .map(|c| match c {
                Const::String(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        let Some(words) = words.filter(|w| !w.is_empty()) else {
            return;
        };
        if self.program_word(lhs).is_some() {
            self.program_test(lhs, &words, at, text);
        } else if let Some(cmd) = self.argument_word(lhs) {
            // Only a list of flags: a list that also holds other words
            // (`a in ['-f', 'install']`) tests more than flags.
            let flags: Option<Vec<FlagWord<'_>>> =
                words.iter().map(|w| FlagWord::parse(w)).collect();
            if let Some(flags) = flags {
                let (shown, _) = text(self);
                self.push_flag_test(&shown, &cmd, &flags, false, at);
            }
        }
    }

    /// W0017 for a pattern that runs on the backtracking engine (it has
    /// look-around, a backreference or an atomic group, `first` the first
    /// of them): its time is not linear in the text, and a search past the
    /// step limit is an error value, so the hook does not match.
    pub(super) fn backtracking_regex(&mut self, re: &crate::ir::Regex, first: &Backtracking) {
        let limit = hookc_runtime::limits::MAX_REGEX_BACKTRACK_STEPS;
        self.diags.push(
            Diagnostic::new(
                Code::BacktrackingRegex,
                format!(
                    "the regex needs backtracking for {first}: its matching time is not linear \
                     in the text but bounded by a step limit of {} (past it, the search is an \
                     evaluation error and the hook does not match)",
                    crate::diag::thousands(limit as u64)
                ),
            )
            .at(re.span)
            .label("matched by the backtracking engine")
            .help(
                "keep it if the construct is needed; otherwise rewrite the pattern without \
                 look-around and backreferences (e.g. two conditions, one with `!`), \
                 which runs in linear time",
            ),
        );
    }

    /// W0021 for a glob spelt as a permission rule (`Bash(git:*)`) on a
    /// tool's name.
    pub(super) fn rule_glob(&mut self, subject: &IrExpr, glob: &str, at: Span) {
        let s = self.source(subject);
        if crate::check::rule_glob::is_tool_name(&s) {
            if let Some(d) = crate::check::rule_glob::diagnostic(glob, &s, at) {
                self.diags.push(d);
            }
        }
    }

    /// E0310 (W0018 for an open vocabulary) for a string `name` compared
    /// with `subject`, whose schema has a `vocabulary` without it; whether
    /// it was reported as an error.
    pub(super) fn vocabulary_check(
        &mut self,
        subject: &IrExpr,
        st: &Type,
        name: &str,
        span: Span,
        outcome: &str,
    ) -> bool {
        let Some(vocabulary) = self.schema.vocabulary(st.schema) else {
            return false;
        };
        if vocabulary.has(name) {
            return false;
        }
        let s = self.show(subject);
        let close =
            crate::suggest::did_you_mean(name, vocabulary.values.iter().map(String::as_str));
        let mut known: Vec<String> = vocabulary.values.iter().map(|v| format!("`{v}`")).collect();
        known.extend(vocabulary.prefixes.iter().map(|p| format!("`{p}...`")));
        let help = match close {
            Some(best) => format!("did you mean `'{best}'`?"),
            None => format!("`{s}` is one of {}", known.join(", ")),
        };
        if vocabulary.open {
            self.diags.push(
                Diagnostic::new(
                    Code::OutsideOpenVocabulary,
                    format!("`'{name}'` is not a name `{s}` is known to take"),
                )
                .at(span)
                .label("not among the known names")
                .help(help)
                .note("the host adds names in new versions and plugins: if it has this one, the comparison works; if not, it is never true"),
            );
            return false;
        }
        self.diags.push(
            Diagnostic::new(
                Code::OutsideVocabulary,
                format!("`'{name}'` is not a name `{s}` takes: {outcome}"),
            )
            .at(span)
            .label("not in the vocabulary")
            .help(help),
        );
        true
    }

    /// `x in [..]` where no listed value is in `x`'s schema enum.
    pub(super) fn enum_in_check(&mut self, subject: &IrExpr, st: &Type, list: &IrExpr) {
        let IrExprKind::Const(Const::List(items)) = &list.kind else {
            return;
        };
        let mut outside = false;
        for item in items {
            if let Const::String(name) = item {
                outside |=
                    self.vocabulary_check(subject, st, name, list.span, "`in` never finds it");
            }
        }
        if outside {
            return;
        }
        let Some(allowed) = self.schema.allowed(st.schema) else {
            return;
        };
        if items.is_empty()
            || items
                .iter()
                .any(|c| allowed.iter().any(|v| c.equals_json(v)))
        {
            return;
        }
        let s = self.show(subject);
        self.diags.push(
            Diagnostic::new(
                Code::OutsideEnum,
                format!(
                    "no value of this list is one the schema allows for `{s}`: `in` is never true"
                ),
            )
            .at(list.span)
            .label("none of these is in the schema's enum")
            .help(format!("`{s}` is one of {}", list_values(allowed))),
        );
    }
}
