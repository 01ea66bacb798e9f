//! Interpreters and the code they are given on the command line: `python
//! -c CODE`, `node -e CODE`, `perl -ne CODE`, `awk PROGRAM`, `deno eval
//! CODE`, and whether an interpreter (or a shell) reads its program from
//! standard input (`python`, `python -`, `bash -s`), so that a heredoc, a
//! here-string or a pipe feeding it is code (docs: the module
//! documentation of [`super`], "Interpreters").

use std::borrow::Cow;

/// An interpreter: how its command line carries code.
struct Interpreter {
    /// Its names (without a directory); `python3.12`-style versions match
    /// the name before the digits (see [`interpreter`]).
    names: &'static [&'static str],
    /// Options whose next argument is the code (`-c`, `--eval`), or whose
    /// attached value is (`-e'print 1'`, `--eval=CODE`).
    code_options: &'static [&'static str],
    /// A letter that may end a cluster of flags and take the code next
    /// (`python -Bc CODE`, `perl -lne CODE`).
    cluster_letter: Option<u8>,
    /// Options that take the next argument as their value (not code, not
    /// a script): `python -m MODULE` runs a module.
    value_options: &'static [&'static str],
    /// Options after which no code comes from the command line nor stdin
    /// (`python -m mod`, `awk -f prog.awk`: a file or a module is the
    /// program).
    program_options: &'static [&'static str],
    /// Letters whose value is attached in a cluster (`perl -i.bak`,
    /// `python -Wignore`): the cluster's flags end there.
    attached_letters: &'static [u8],
    /// A letter that makes a shell read its commands from stdin (`bash -s`).
    stdin_letter: Option<u8>,
    /// The first operand is the program text (`awk '{print}'`).
    operand_is_code: bool,
    /// A subcommand whose next argument is code (`deno eval CODE`).
    eval_subcommand: Option<&'static str>,
    /// Reads its program from stdin when it has no operand (or `-`).
    reads_stdin: bool,
}

const NONE: Interpreter = Interpreter {
    names: &[],
    code_options: &[],
    cluster_letter: None,
    value_options: &[],
    program_options: &[],
    attached_letters: b"",
    stdin_letter: None,
    operand_is_code: false,
    eval_subcommand: None,
    reads_stdin: true,
};

/// The interpreters, one row a family.
const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: &["python", "python2", "python3", "pypy", "pypy3"],
        code_options: &["-c"],
        cluster_letter: Some(b'c'),
        value_options: &["-W", "-X", "-Q"],
        program_options: &["-m"],
        attached_letters: b"WXQ",
        ..NONE
    },
    Interpreter {
        names: &["node", "nodejs", "bun"],
        code_options: &["-e", "--eval", "-p", "--print"],
        value_options: &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "-C",
            "--conditions",
        ],
        ..NONE
    },
    Interpreter {
        names: &["deno"],
        eval_subcommand: Some("eval"),
        reads_stdin: false,
        ..NONE
    },
    Interpreter {
        names: &["perl"],
        code_options: &["-e", "-E"],
        cluster_letter: Some(b'e'),
        value_options: &["-I", "-M", "-m"],
        attached_letters: b"MmIixC0",
        ..NONE
    },
    Interpreter {
        names: &["ruby", "jruby"],
        code_options: &["-e"],
        cluster_letter: Some(b'e'),
        value_options: &["-I", "-r"],
        attached_letters: b"IrCEFixKTW0",
        ..NONE
    },
    Interpreter {
        names: &["php"],
        code_options: &["-r"],
        value_options: &["-d", "-c"],
        ..NONE
    },
    Interpreter {
        names: &["lua", "luajit"],
        code_options: &["-e"],
        value_options: &["-l"],
        ..NONE
    },
    Interpreter {
        names: &["osascript"],
        code_options: &["-e"],
        value_options: &["-l"],
        ..NONE
    },
    Interpreter {
        names: &["pwsh", "powershell"],
        code_options: &["-c", "-Command", "-command", "--command"],
        value_options: &["-File", "-f"],
        ..NONE
    },
    Interpreter {
        names: &["Rscript", "R"],
        code_options: &["-e"],
        reads_stdin: false,
        ..NONE
    },
    Interpreter {
        names: &["awk", "gawk", "mawk", "nawk"],
        value_options: &["-F", "-v"],
        program_options: &["-f", "--file"],
        attached_letters: b"Fvf",
        operand_is_code: true,
        reads_stdin: false,
        ..NONE
    },
    Interpreter {
        names: &["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish"],
        value_options: &["-o", "-O", "+o", "+O", "--rcfile", "--init-file"],
        attached_letters: b"oO",
        stdin_letter: Some(b's'),
        ..NONE
    },
];

/// The row of `program` (a name without its directory): by name, or a
/// versioned name (`python3.12`, `ruby3.3`) by its name before the digits.
fn interpreter(program: &str) -> Option<&'static Interpreter> {
    let unversioned = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    // PERF: whether a version was trimmed, decided once: compared with
    // each name, the two equal strings were a `memcmp` a name, most of the
    // parse of a command that runs no interpreter (callgrind, bundled
    // Claude Code guard on a 200-character command).
    let versioned = unversioned.len() != program.len();
    INTERPRETERS.iter().find(|i| {
        i.names
            .iter()
            .any(|n| *n == program || (versioned && *n == unversioned))
    })
}

/// Whether `program` is one of the shells (whose code is commands).
pub(super) fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish"
    )
}

/// What an interpreter's command line says about its code.
pub(super) enum CodeArg<'s> {
    /// The code, given as an argument.
    Inline(Cow<'s, str>),
    /// The program comes from standard input.
    Stdin,
    /// Not an interpreter, or one running a file or a module.
    None,
}

/// The code `argv` gives its interpreter (`program` is `argv[0]` without
/// its directory).
pub(super) fn code_arg<'s>(program: &str, argv: &[Cow<'s, str>]) -> CodeArg<'s> {
    let Some(it) = interpreter(program) else {
        return CodeArg::None;
    };
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        let a: &str = arg;
        if a == "--" {
            i += 1;
            break;
        }
        if a == "-" {
            // `python -`: the program is stdin.
            return if it.reads_stdin {
                CodeArg::Stdin
            } else {
                CodeArg::None
            };
        }
        if it.code_options.contains(&a) {
            return argv
                .get(i + 1)
                .map_or(CodeArg::None, |c| CodeArg::Inline(c.clone()));
        }
        if let Some((name, value)) = a.split_once('=') {
            if name.starts_with("--") && it.code_options.contains(&name) {
                return CodeArg::Inline(Cow::Owned(value.to_owned()));
            }
        }
        if it.program_options.contains(&a) {
            return CodeArg::None;
        }
        if it.value_options.contains(&a) {
            i += 2;
            continue;
        }
        if a.len() > 1 && a.starts_with('-') && !a.starts_with("--") {
            let letters = a.as_bytes().get(1..).unwrap_or_default();
            if it
                .program_options
                .iter()
                .any(|o| o.len() == 2 && a.starts_with(o))
            {
                // `-mjson.tool`, `-fprog.awk`: a module or a file.
                return CodeArg::None;
            }
            // A cluster: `-Bc CODE`, `-lne CODE`, `-eCODE`; its letters
            // stop at one whose value is attached (`-i.bak`, `-Mstrict`).
            for (k, l) in letters.iter().enumerate() {
                if it.stdin_letter == Some(*l) {
                    return CodeArg::Stdin;
                }
                if it.cluster_letter == Some(*l) {
                    let attached = a.get(k + 2..).unwrap_or_default();
                    return if attached.is_empty() {
                        argv.get(i + 1)
                            .map_or(CodeArg::None, |c| CodeArg::Inline(c.clone()))
                    } else {
                        CodeArg::Inline(Cow::Owned(attached.to_owned()))
                    };
                }
                if it.attached_letters.contains(l) || !l.is_ascii_alphabetic() {
                    break;
                }
            }
            if it.cluster_letter.is_none() {
                // `-rCODE`: a code option with its value attached.
                if let Some(code) = it
                    .code_options
                    .iter()
                    .filter(|o| o.len() == 2)
                    .find_map(|o| a.strip_prefix(o))
                {
                    return CodeArg::Inline(Cow::Owned(code.to_owned()));
                }
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') {
            i += 1;
            continue;
        }
        break;
    }
    match argv.get(i) {
        Some(op) if it.eval_subcommand == Some(&**op) => argv
            .get(i + 1)
            .map_or(CodeArg::None, |c| CodeArg::Inline(c.clone())),
        Some(op) if it.operand_is_code => CodeArg::Inline(op.clone()),
        Some(op) if &**op == "-" && it.reads_stdin => CodeArg::Stdin,
        Some(_) => CodeArg::None,
        None if it.reads_stdin => CodeArg::Stdin,
        None => CodeArg::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(words: &[&str]) -> Option<String> {
        let argv: Vec<Cow<'_, str>> = words.iter().map(|w| Cow::Borrowed(*w)).collect();
        let program = super::super::unwrap::basename(words.first().copied().unwrap_or(""));
        match code_arg(program, &argv) {
            CodeArg::Inline(c) => Some(c.into_owned()),
            CodeArg::Stdin => Some("<stdin>".into()),
            CodeArg::None => None,
        }
    }

    #[test]
    fn inline_code_in_each_spelling() {
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["python3", "-c", "print(1)"], Some("print(1)")),
            (&["python3.12", "-Bc", "x"], Some("x")),
            (&["/usr/bin/python", "-W", "ignore", "-c", "y"], Some("y")),
            (&["python", "-m", "http.server"], None),
            (&["python", "script.py"], None),
            (&["python"], Some("<stdin>")),
            (&["python", "-"], Some("<stdin>")),
            (&["node", "-e", "1"], Some("1")),
            (&["node", "--eval=2"], Some("2")),
            (&["node", "-p", "3"], Some("3")),
            (&["node", "app.js"], None),
            (&["perl", "-ne", "print"], Some("print")),
            (&["perl", "-eexec q(x)"], Some("exec q(x)")),
            (&["perl", "-i.bak", "-pe", "s/a/b/"], Some("s/a/b/")),
            (&["perl", "-Mfeature=say", "-e", "say 1"], Some("say 1")),
            (&["python", "-mjson.tool"], None),
            (&["php", "-rsystem(1);"], Some("system(1);")),
            (&["perl", "-lane", "z"], Some("z")),
            (&["ruby", "-e", "r"], Some("r")),
            (&["php", "-r", "p"], Some("p")),
            (&["deno", "eval", "d"], Some("d")),
            (&["deno", "run", "x.ts"], None),
            (&["awk", "-F:", "{print $1}", "f"], Some("{print $1}")),
            (&["awk", "-F", ":", "{print}"], Some("{print}")),
            (&["awk", "-f", "p.awk", "f"], None),
            (&["bash"], Some("<stdin>")),
            (&["bash", "-s", "--", "x"], Some("<stdin>")),
            (&["bash", "run.sh"], None),
            (&["osascript", "-e", "o"], Some("o")),
            (&["ls", "-c", "x"], None),
        ];
        for (argv, want) in cases {
            assert_eq!(code(argv).as_deref(), *want, "{argv:?}");
        }
    }
}
