//! What a finished command does to the parse: the variables a builtin
//! sets, the directory `cd` enters, handing it on to be unwrapped
//! ([`super::unwrap`]), and the script text it runs.

use super::lexical::*;
use super::*;

impl<'s> ShellParser<'s> {
    /// The variables a builtin sets or unsets: `export X=v`, `declare`,
    /// `local`, `readonly`, `typeset` set; `unset X` and `read X` leave
    /// `X` unknown.
    pub(super) fn declarations(&mut self, words: &[Cow<'s, str>]) {
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
    pub(super) fn set_var(&mut self, name: Cow<'s, str>, value: Cow<'s, str>) {
        let certain = !self.branched && self.depth == self.base_depth;
        match self.vars.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = None,
            None => self.vars.push((name, certain.then_some(value))),
        }
    }

    /// `name` is not known from here on (`unset`, `read`, a loop).
    pub(super) fn forget(&mut self, name: &str) {
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = None,
            None => self.vars.push((Cow::Owned(name.to_owned()), None)),
        }
    }

    /// The value set on the line for the variable `name`, when known.
    pub(super) fn var(&self, name: &str) -> Option<&Cow<'s, str>> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_ref())
    }

    /// The program of the last command listed that has one: what a `|`
    /// feeds from (`{ curl x; X=1; } | sh` pipes curl's output).
    pub(super) fn last_program(&self) -> Cow<'s, str> {
        self.out
            .iter()
            .rev()
            .find(|c| !c.program.is_empty())
            .map_or(Cow::Borrowed(""), |c| c.program.clone())
    }

    /// Unwraps `command` and lists what it runs.
    pub(super) fn emit(&mut self, mut command: SimpleCommand<'s>, at: usize) -> ScanStep {
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
    pub(super) fn settle(&mut self, mut command: SimpleCommand<'s>, at: usize) -> ScanStep {
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
    pub(super) fn change_dir(&mut self, argv: &[Cow<'s, str>]) {
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
    pub(super) fn script_after(
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
    pub(super) fn printed(&self, program: &str) -> Option<Cow<'s, str>> {
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

    /// A word of a simple command: an assignment before the program, or
    /// an argument.
    pub(super) fn word_or_assignment(
        &mut self,
        cmd: &mut CommandBuilder<'s>,
        w: Word<'s>,
    ) -> ScanStep {
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
    pub(super) fn finish(&mut self, cmd: &mut CommandBuilder<'s>) -> ScanStep {
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
}
