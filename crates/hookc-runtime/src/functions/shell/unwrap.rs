//! Peeling wrappers off a simple command: `sudo`, `env`, `xargs`, ...
//! (table-driven, [`WRAPPERS`]) and the script runners `bash -c`, `su -c`,
//! `eval`, `env -S`, whose script the parser parses recursively.

use std::borrow::Cow;

use super::SimpleCommand;

/// One step of unwrapping.
pub(super) enum Unwrapped<'s> {
    /// One wrapper removed (and recorded); unwrap again.
    Inner(SimpleCommand<'s>),
    /// Nothing (more) to unwrap.
    Done(SimpleCommand<'s>),
    /// A script to parse; its commands replace `outer`, getting its
    /// wrappers (then `label`), env and redirections in front of theirs.
    Script {
        outer: SimpleCommand<'s>,
        script: Cow<'s, str>,
        label: &'static str,
    },
}

/// A program that runs its operand as a command after options.
struct Wrapper {
    name: &'static str,
    /// Single-letter options that take an argument (attached or next).
    short_arg: &'static [u8],
    /// Letters whose argument can only be attached (`xargs -i{}`).
    attached_only: &'static [u8],
    /// `--long` options that take the next argument (without `=`).
    long_arg: &'static [&'static str],
    /// Letters that make it a query, not a run (`command -v x`).
    query: &'static [u8],
    /// `NAME=VALUE` arguments after the options go to `env`.
    assignments: bool,
    /// Operands before the command (`timeout DURATION`).
    operands: usize,
    /// `-S STRING`/`--split-string` is a script (`env`).
    split: bool,
    /// A lone `-` is an option (`env -`).
    dash_option: bool,
}

const PLAIN: Wrapper = Wrapper {
    name: "",
    short_arg: b"",
    attached_only: b"",
    long_arg: &[],
    query: b"",
    assignments: false,
    operands: 0,
    split: false,
    dash_option: false,
};

/// The wrappers, with the options of each that take an argument.
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "sudo",
        short_arg: b"ughpCDrtTUR",
        long_arg: &[
            "user",
            "group",
            "host",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
        ],
        query: b"lveVK",
        assignments: true,
        ..PLAIN
    },
    Wrapper {
        name: "doas",
        short_arg: b"u",
        query: b"C",
        ..PLAIN
    },
    Wrapper {
        name: "env",
        short_arg: b"uC",
        long_arg: &["unset", "chdir"],
        assignments: true,
        split: true,
        dash_option: true,
        ..PLAIN
    },
    Wrapper {
        name: "command",
        query: b"vV",
        ..PLAIN
    },
    Wrapper {
        name: "builtin",
        ..PLAIN
    },
    Wrapper {
        name: "exec",
        short_arg: b"a",
        ..PLAIN
    },
    Wrapper {
        name: "nice",
        short_arg: b"n",
        long_arg: &["adjustment"],
        ..PLAIN
    },
    Wrapper {
        name: "nohup",
        ..PLAIN
    },
    Wrapper {
        name: "setsid",
        ..PLAIN
    },
    Wrapper {
        name: "timeout",
        short_arg: b"sk",
        long_arg: &["signal", "kill-after"],
        operands: 1,
        ..PLAIN
    },
    Wrapper {
        name: "time",
        short_arg: b"fo",
        long_arg: &["format", "output"],
        ..PLAIN
    },
    Wrapper {
        name: "stdbuf",
        short_arg: b"ioe",
        long_arg: &["input", "output", "error"],
        ..PLAIN
    },
    Wrapper {
        name: "ionice",
        short_arg: b"cn",
        long_arg: &["class", "classdata"],
        query: b"pPu",
        ..PLAIN
    },
    Wrapper {
        name: "chroot",
        long_arg: &["userspec", "groups"],
        operands: 1,
        ..PLAIN
    },
    // Multi-call binaries: `busybox rm -rf x` runs their applet `rm`.
    // `--list`, `--help` and `--install [-s] [DIR]` run none: nothing is
    // left to run, so the command stays as it is.
    Wrapper {
        name: "busybox",
        long_arg: &["install"],
        ..PLAIN
    },
    Wrapper {
        name: "toybox",
        ..PLAIN
    },
    Wrapper {
        name: "xargs",
        short_arg: b"InPLsdEa",
        attached_only: b"iel",
        long_arg: &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
        ..PLAIN
    },
];

/// Shells whose `-c SCRIPT` runs a script, with the label recorded.
const SHELLS: &[(&str, &str)] = &[
    ("bash", "bash -c"),
    ("sh", "sh -c"),
    ("zsh", "zsh -c"),
    ("dash", "dash -c"),
    ("ksh", "ksh -c"),
    ("mksh", "mksh -c"),
    ("ash", "ash -c"),
    ("fish", "fish -c"),
];

/// `path` without its directory.
pub(super) fn basename(path: &str) -> &str {
    // A reverse byte scan: program names are short, and `rsplit`'s
    // generic searcher showed up in profiles.
    match path.bytes().rposition(|b| b == b'/') {
        Some(i) => path.get(i + 1..).unwrap_or_default(),
        None => path,
    }
}

/// Whether a program (named without its directory) is unwrapped by
/// [`step`]: the fast test every command passes through.
pub(super) fn is_wrapper(program: &str) -> bool {
    matches!(
        program,
        "sudo"
            | "doas"
            | "env"
            | "command"
            | "builtin"
            | "exec"
            | "nice"
            | "nohup"
            | "setsid"
            | "timeout"
            | "time"
            | "stdbuf"
            | "ionice"
            | "chroot"
            | "xargs"
            | "busybox"
            | "toybox"
            | "bash"
            | "sh"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "fish"
            | "su"
            | "eval"
    )
}

/// Whether the tables unwrap `program` (named without its directory): what
/// [`is_wrapper`] must say, checked by the tests.
#[cfg(test)]
pub(super) fn unwraps(program: &str) -> bool {
    !matches!(kind(program), Kind::Other)
}

/// What the program is.
enum Kind {
    Wrapper(&'static Wrapper),
    Shell(&'static str),
    Su,
    Eval,
    Other,
}

fn kind(program: &str) -> Kind {
    let name = basename(program);
    if let Some(w) = WRAPPERS.iter().find(|w| w.name == name) {
        return Kind::Wrapper(w);
    }
    if let Some((_, label)) = SHELLS.iter().find(|(n, _)| *n == name) {
        return Kind::Shell(label);
    }
    match name {
        "su" => Kind::Su,
        "eval" => Kind::Eval,
        _ => Kind::Other,
    }
}

/// Removes one wrapper from `cmd`, if its program is one.
pub(super) fn step(cmd: SimpleCommand<'_>) -> Unwrapped<'_> {
    let Some(first) = cmd.argv.first() else {
        return Unwrapped::Done(cmd);
    };
    match kind(first) {
        Kind::Wrapper(w) => wrapper(cmd, w),
        Kind::Shell(label) => match shell_script(&cmd.argv) {
            Some(script) => Unwrapped::Script {
                outer: cmd,
                script,
                label,
            },
            None => Unwrapped::Done(cmd),
        },
        Kind::Su => match su_script(&cmd.argv) {
            Some(script) => Unwrapped::Script {
                outer: cmd,
                script,
                label: "su -c",
            },
            None => Unwrapped::Done(cmd),
        },
        Kind::Eval => {
            let script = match cmd.argv.get(1..) {
                Some([one]) => one.clone(),
                Some(args) if !args.is_empty() => Cow::Owned(args.join(" ")),
                _ => return Unwrapped::Done(cmd),
            };
            Unwrapped::Script {
                outer: cmd,
                script,
                label: "eval",
            }
        }
        Kind::Other => Unwrapped::Done(cmd),
    }
}

/// `text[from..]` as a Cow of the same kind.
fn tail<'s>(text: &Cow<'s, str>, from: usize) -> Cow<'s, str> {
    match text {
        Cow::Borrowed(t) => Cow::Borrowed(t.get(from..).unwrap_or_default()),
        Cow::Owned(t) => Cow::Owned(t.get(from..).unwrap_or_default().to_owned()),
    }
}

/// `text[..to]` as a Cow of the same kind.
fn head<'s>(text: &Cow<'s, str>, to: usize) -> Cow<'s, str> {
    match text {
        Cow::Borrowed(t) => Cow::Borrowed(t.get(..to).unwrap_or_default()),
        Cow::Owned(t) => Cow::Owned(t.get(..to).unwrap_or_default().to_owned()),
    }
}

/// Whether `arg` is `NAME=VALUE`; the position of `=`.
fn assignment(arg: &str) -> Option<usize> {
    let eq = arg.find('=')?;
    let name = arg.get(..eq)?;
    let mut bytes = name.bytes();
    let first = bytes.next()?;
    ((first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    .then_some(eq)
}

fn wrapper<'s>(mut cmd: SimpleCommand<'s>, w: &'static Wrapper) -> Unwrapped<'s> {
    let argv = &cmd.argv;
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        let a: &str = arg;
        if a == "--" {
            i += 1;
            break;
        }
        if a == "-" && w.dash_option {
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, _)) => (n, Some(2 + n.len() + 1)),
                None => (long, None),
            };
            if w.split && name == "split-string" {
                let script = match value {
                    Some(at) => tail(arg, at),
                    None => match argv.get(i + 1) {
                        Some(s) => s.clone(),
                        None => return Unwrapped::Done(cmd),
                    },
                };
                return Unwrapped::Script {
                    outer: cmd,
                    script,
                    label: "env -S",
                };
            }
            i += if value.is_none() && w.long_arg.contains(&name) {
                2
            } else {
                1
            };
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let letters = a.as_bytes().get(1..).unwrap_or_default();
            let mut takes_next = false;
            for (k, l) in letters.iter().enumerate() {
                let last = k + 1 == letters.len();
                if w.query.contains(l) {
                    return Unwrapped::Done(cmd);
                }
                if w.split && *l == b'S' {
                    let script = if last {
                        match argv.get(i + 1) {
                            Some(s) => s.clone(),
                            None => return Unwrapped::Done(cmd),
                        }
                    } else {
                        tail(arg, k + 2)
                    };
                    return Unwrapped::Script {
                        outer: cmd,
                        script,
                        label: "env -S",
                    };
                }
                if w.short_arg.contains(l) {
                    takes_next = last;
                    break;
                }
                if w.attached_only.contains(l) {
                    break;
                }
            }
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        break;
    }
    let mut env = Vec::new();
    if w.assignments {
        while let Some(arg) = argv.get(i) {
            let Some(eq) = assignment(arg) else { break };
            env.push((head(arg, eq), tail(arg, eq + 1)));
            i += 1;
        }
    }
    i += w.operands;
    if i >= cmd.argv.len() {
        // Nothing left to run: `sudo -s`, `env`, `xargs` alone.
        return Unwrapped::Done(cmd);
    }
    cmd.argv.drain(..i);
    cmd.env.append(&mut env);
    cmd.wrappers.push(Cow::Borrowed(w.name));
    Unwrapped::Inner(cmd)
}

/// The commands `find` runs: each `-exec`/`-execdir`/`-ok`/`-okdir`'s
/// words up to `;` or `+`, with find's wrappers and env, then
/// `"find -exec"`.
pub(super) fn find_execs<'s>(find: &SimpleCommand<'s>) -> Vec<SimpleCommand<'s>> {
    let mut execs = Vec::new();
    let mut args = find.argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if !matches!(&**arg, "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let argv: Vec<Cow<'s, str>> = args
            .by_ref()
            .take_while(|a| !matches!(&***a, ";" | "+"))
            .cloned()
            .collect();
        if argv.is_empty() {
            continue;
        }
        let mut wrappers = find.wrappers.clone();
        wrappers.push(Cow::Borrowed("find -exec"));
        execs.push(SimpleCommand {
            argv,
            program: Cow::Borrowed(""),
            env: find.env.clone(),
            wrappers,
            ..SimpleCommand::default()
        });
    }
    execs
}

/// The script of `SHELL [options] -c SCRIPT [name [args]]`, if any.
fn shell_script<'s>(argv: &[Cow<'s, str>]) -> Option<Cow<'s, str>> {
    let mut i = 1;
    let mut has_c = false;
    while let Some(arg) = argv.get(i) {
        let a: &str = arg;
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if a.len() > 1 && (a.starts_with('-') || a.starts_with('+')) {
            let letters = a.get(1..).unwrap_or_default();
            has_c |= a.starts_with('-') && letters.contains('c');
            // `-o OPTION`, `-O SHOPT` take the next argument.
            i += if letters.contains(['o', 'O']) { 2 } else { 1 };
            continue;
        }
        break;
    }
    if has_c {
        argv.get(i).cloned()
    } else {
        None
    }
}

/// The command of `su [options] -c COMMAND [user]`, if any.
fn su_script<'s>(argv: &[Cow<'s, str>]) -> Option<Cow<'s, str>> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        match &**arg {
            "-c" | "--command" => return args.next().cloned(),
            a if a.starts_with("--command=") => return Some(tail(arg, "--command=".len())),
            _ => {}
        }
    }
    None
}
