//! The disassembler: a readable, deterministic listing of a [`Program`]
//! (`hookc disasm`).
//!
//! Layout: a header with the table sizes; then each hook (id, priority,
//! layer, events, description), its code as `ip  Op  operands  ; resolved`
//! with absolute instruction positions, and its action; then every table and
//! the event index, and the absent hooks' ids if any. Operands that index a table are shown with what they
//! resolve to (the path text, the constant as JSON, the regex pattern, the
//! jump target).
//!
//! The listing works on any `Program`, verified or not: a bad index prints
//! as `<bad index N>` and a bad code range as `<bad code range A..B>`; it
//! never panics.

use crate::bytecode::{
    ConstIdx, HookEntry, Op, Operand, ParamValue, PathIdx, Program, RegexIdx, SetIdx, StrIdx,
    TemplatePart, ValueCheck,
};
use crate::bytecode::{Kinds, Spelled};
use std::fmt::{self, Write};

/// Longest constant shown inline in a code listing (the tables show it all).
const MAX_INLINE: usize = 60;

/// The listing of a program.
pub fn disassemble(prog: &Program) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = write_program(&mut out, prog);
    out
}

fn write_program(out: &mut String, prog: &Program) -> fmt::Result {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    writeln!(
        out,
        "program: {}, {}, {}, {}, {}, {}, {}, {}",
        plural(prog.hooks.len(), "hook", "hooks"),
        plural(prog.code.len(), "instruction", "instructions"),
        plural(prog.strings.len(), "string", "strings"),
        plural(prog.paths.len(), "path", "paths"),
        plural(prog.consts.len(), "constant", "constants"),
        plural(prog.regexes.len(), "regex", "regexes"),
        plural(prog.sets.len(), "set", "sets"),
        plural(prog.actions.len(), "action", "actions"),
    )?;
    if prog.priority_order == crate::bytecode::PriorityOrder::LowerFirst {
        writeln!(out, "priority order: lower first")?;
    }
    if prog.reads_environment {
        writeln!(out, "environment: read")?;
    }
    if !prog.sensitive.is_empty() {
        let members: Vec<String> = prog
            .sensitive
            .iter()
            .map(|&i| {
                prog.paths
                    .get(i.as_usize())
                    .map_or_else(|| format!("<bad path {}>", i.as_u32()), ToString::to_string)
            })
            .collect();
        writeln!(out, "sensitive: {}", members.join(", "))?;
    }
    if prog.attribution != crate::bytecode::Attribution::default() {
        use crate::bytecode::Spelled;
        writeln!(out, "attribution: {}", prog.attribution.name())?;
    }
    // The decision model, when not the first-match default (whose
    // listings read as before).
    if prog.model.combine != crate::bytecode::Combine::FirstMatch {
        writeln!(out, "combine: {}", prog.model.combine.name())?;
    }
    match prog.model.on_error {
        crate::bytecode::OnError::Skip => {}
        crate::bytecode::OnError::Fail => writeln!(out, "on error: fail")?,
        crate::bytecode::OnError::Action(a) => {
            let kind = prog
                .action(a)
                .map_or_else(|| "?".to_owned(), |e| raw_string(prog, e.kind));
            writeln!(out, "on error: action {a} {kind}")?;
        }
    }
    for (i, hook) in prog.hooks.iter().enumerate() {
        out.push('\n');
        write_hook(out, prog, i, hook)?;
    }
    write_tables(out, prog)
}

fn write_hook(out: &mut String, prog: &Program, index: usize, hook: &HookEntry) -> fmt::Result {
    let layer = prog.layer(hook.layer).map_or("?", |name| prog.string(name));
    let replace = if hook.replace { ", replace" } else { "" };
    writeln!(
        out,
        "hook {index} {} (priority {}, layer {layer}{replace}, events {})",
        string(prog, hook.id),
        hook.priority,
        hook_events(prog, index)
    )?;
    if let Some(d) = hook.description {
        writeln!(out, "  description {}", string(prog, d))?;
    }
    let (start, end) = hook.code;
    match prog.code.get(start as usize..end as usize) {
        Some([]) => writeln!(out, "  code: none (always matches)")?,
        Some(code) => {
            writeln!(out, "  code {start}..{end}, max stack {}", hook.max_stack)?;
            for (k, op) in code.iter().enumerate() {
                write_op(out, prog, start as usize + k, op)?;
            }
        }
        None => writeln!(out, "  code <bad code range {start}..{end}>")?,
    }
    match prog.action(hook.action) {
        Some(action) => {
            // Terminal is the default and stays unmarked, so listings of
            // policies without collected actions read as before.
            let effect = match action.effect {
                crate::bytecode::Effect::Terminal => String::new(),
                other => format!(" ({})", other.name()),
            };
            let mut severity = match action.severity {
                0 => String::new(),
                s => format!(" severity {s}"),
            };
            match action.bind {
                None => {}
                Some(crate::bytecode::Binding::Path(path)) => {
                    let path = prog.path(path).map_or("?".to_owned(), ToString::to_string);
                    severity.push_str(&format!(" binds {path}"));
                }
                Some(crate::bytecode::Binding::Parameter(name)) => {
                    let name = raw_string(prog, name);
                    severity.push_str(&format!(" binds at parameter {name}"));
                }
            }
            writeln!(
                out,
                "  action {} {}{effect}{severity}",
                hook.action,
                raw_string(prog, action.kind)
            )?;
            for param in &action.params {
                write!(out, "    {} = ", raw_string(prog, param.name))?;
                write_param(out, prog, &param.value)?;
                if let Some(check) = &param.check {
                    out.push_str("  ; checked: ");
                    write_check(out, prog, check)?;
                }
                out.push('\n');
            }
            // The code of the template expressions, after the parameters
            // that name it.
            let mut exprs = Vec::new();
            for param in &action.params {
                template_exprs(&param.value, &mut exprs);
            }
            for (start, end, max_stack) in exprs {
                match prog.code.get(start as usize..end as usize) {
                    Some(code) => {
                        writeln!(
                            out,
                            "    template code {start}..{end}, max stack {max_stack}"
                        )?;
                        for (k, op) in code.iter().enumerate() {
                            write_op(out, prog, start as usize + k, op)?;
                        }
                    }
                    None => writeln!(out, "    template code <bad code range {start}..{end}>")?,
                }
            }
        }
        None => writeln!(out, "  action <bad index {}>", hook.action)?,
    }
    Ok(())
}

/// The events a hook is listed under: `*`, or the event names.
fn hook_events(prog: &Program, hook: usize) -> String {
    let Ok(h) = u32::try_from(hook) else {
        return "none".to_owned();
    };
    if prog.events.wildcard.contains(&h) {
        return "*".to_owned();
    }
    let names: Vec<String> = prog
        .events
        .named
        .iter()
        .filter(|(_, hooks)| hooks.contains(&h))
        .map(|(name, _)| raw_string(prog, *name))
        .collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// One instruction line: `  ip  Name  operands  ; resolved`.
fn write_op(out: &mut String, prog: &Program, ip: usize, op: &Op) -> fmt::Result {
    let (name, operands, note) = describe(prog, op);
    let line = if note.is_empty() {
        format!("{ip:>6}  {name:<14}{operands}")
    } else {
        format!("{ip:>6}  {name:<14}{operands:<22}; {note}")
    };
    writeln!(out, "{}", line.trim_end())
}

/// An instruction's name, its operands, and what they resolve to: each
/// operand rendered by its kind, laid out as the instruction table says.
fn describe(prog: &Program, op: &Op) -> (&'static str, String, String) {
    let (operands, note) = op.layout(|operand| match operand {
        Operand::Str(i) => (i.to_string(), string(prog, i)),
        Operand::Path(i) => (i.to_string(), path(prog, i)),
        Operand::Const(i) => (i.to_string(), konst(prog, i, true)),
        Operand::Set(i) => (i.to_string(), set(prog, i)),
        Operand::Regex(i) => (i.to_string(), regex(prog, i)),
        Operand::Jump(t) | Operand::Exit(t) => (format!("-> {t}"), String::new()),
        Operand::Depth(d) | Operand::Slot(d) => (d.to_string(), String::new()),
        Operand::Count(n) => (n.to_string(), String::new()),
        Operand::Cmp(c) => (c.symbol().to_owned(), c.symbol().to_owned()),
        Operand::Macro(m) => (m.name().to_owned(), m.name().to_owned()),
        Operand::Kinds(bits) => (bits.to_string(), Kinds::from_bits(bits).to_string()),
        Operand::Func(f) => (
            crate::functions::Builtin::of(f).map_or_else(
                || format!("<unknown function {:#x}>", f.id()),
                |b| b.def().qualified_name(),
            ),
            String::new(),
        ),
        Operand::Table(t) => (
            t.to_string(),
            prog.table(t).map_or_else(
                || bad(t),
                |table| {
                    format!(
                        "on {} ({} rows)",
                        path(prog, table.on),
                        table.patterns.len()
                    )
                },
            ),
        ),
    });
    (op.name(), operands, note)
}

fn bad(i: impl fmt::Display) -> String {
    format!("<bad index {i}>")
}

/// A string of the table, quoted as JSON (so control characters show).
fn string(prog: &Program, i: StrIdx) -> String {
    prog.get_string(i).map_or_else(
        || bad(i),
        |s| json_text(&serde_json::Value::String(s.to_owned())),
    )
}

/// A string of the table as it is (names, kinds, event names).
fn raw_string(prog: &Program, i: StrIdx) -> String {
    prog.get_string(i).map_or_else(|| bad(i), str::to_owned)
}

fn path(prog: &Program, i: PathIdx) -> String {
    prog.path(i).map_or_else(|| bad(i), ToString::to_string)
}

fn regex(prog: &Program, i: RegexIdx) -> String {
    prog.regex(i).map_or_else(
        || bad(i),
        |r| json_text(&serde_json::Value::String(r.to_owned())),
    )
}

/// Constant `i` as compact JSON, cut short for inline use.
fn konst(prog: &Program, i: ConstIdx, inline: bool) -> String {
    let Some(v) = prog.konst(i) else {
        return bad(i);
    };
    let text = json_text(v);
    if inline && text.chars().count() > MAX_INLINE {
        let cut: String = text.chars().take(MAX_INLINE - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// Set `i`: its constant and item count.
fn set(prog: &Program, i: SetIdx) -> String {
    let Some(k) = prog.set(i) else {
        return bad(i);
    };
    match prog.konst(k) {
        Some(serde_json::Value::Array(items)) => {
            let n = items.len();
            format!(
                "set {i} (const {k}, {n} item{})",
                if n == 1 { "" } else { "s" }
            )
        }
        Some(_) => format!("set {i} (const {k}, not a list)"),
        None => format!("set {i} (const {})", bad(k)),
    }
}

fn json_text(v: &serde_json::Value) -> String {
    // Serializing a `Value` cannot fail (its keys are strings).
    serde_json::to_string(v).unwrap_or_default()
}

/// An action parameter: constants as JSON, templates in backticks with
/// references as `${path}` (a literal `${` written `$${`, as in the source).
/// A parameter's check: `null | string`, `string in ["a","b"]`, `list of
/// (int)`. Recursion follows the check's items (bounded by the decoder).
fn write_check(out: &mut String, prog: &Program, check: &ValueCheck) -> fmt::Result {
    write!(out, "{}", check.kinds)?;
    if let Some(k) = check.allowed {
        write!(out, " in {}", konst(prog, k, true))?;
    }
    if let Some(items) = &check.items {
        out.push_str(" of (");
        write_check(out, prog, items)?;
        out.push(')');
    }
    Ok(())
}

/// The code ranges and max stacks of the template expressions in a value,
/// in order.
fn template_exprs(value: &ParamValue, out: &mut Vec<(u32, u32, u32)>) {
    match value {
        ParamValue::Const(_) => {}
        ParamValue::Template(parts) => {
            for part in parts {
                if let TemplatePart::Expr { code, max_stack } = part {
                    out.push((code.0, code.1, *max_stack));
                }
            }
        }
        ParamValue::List(items) => items.iter().for_each(|v| template_exprs(v, out)),
        ParamValue::Object(entries) => entries.iter().for_each(|(_, v)| template_exprs(v, out)),
    }
}

fn write_param(out: &mut String, prog: &Program, value: &ParamValue) -> fmt::Result {
    match value {
        ParamValue::Const(i) => out.push_str(&konst(prog, *i, false)),
        ParamValue::Template(parts) => {
            out.push('`');
            for part in parts {
                match part {
                    TemplatePart::Lit(s) => match prog.get_string(*s) {
                        Some(text) => out.push_str(&crate::bytecode::escape_template_literal(text)),
                        None => out.push_str(&bad(*s)),
                    },
                    TemplatePart::Path(p) => write!(out, "${{{}}}", path(prog, *p))?,
                    TemplatePart::Expr { code, .. } => {
                        write!(out, "${{<code {}..{}>}}", code.0, code.1)?;
                    }
                }
            }
            out.push('`');
        }
        ParamValue::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_param(out, prog, item)?;
            }
            out.push(']');
        }
        ParamValue::Object(entries) => {
            out.push('{');
            for (k, (name, item)) in entries.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write!(out, "{}: ", string(prog, *name))?;
                write_param(out, prog, item)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn write_tables(out: &mut String, prog: &Program) -> fmt::Result {
    fn section<T>(
        out: &mut String,
        title: &str,
        items: &[T],
        show: impl Fn(&T) -> String,
    ) -> fmt::Result {
        writeln!(out, "\n{title} ({})", items.len())?;
        for (i, item) in items.iter().enumerate() {
            writeln!(out, "{i:>6}  {}", show(item))?;
        }
        Ok(())
    }
    let strings: Vec<&str> = prog.strings.iter().collect();
    section(out, "strings", &strings, |s| {
        json_text(&serde_json::Value::String((*s).to_owned()))
    })?;
    section(out, "paths", &prog.paths, ToString::to_string)?;
    let consts: Vec<&serde_json::Value> = prog.consts.iter().collect();
    section(out, "constants", &consts, |v| json_text(v))?;
    // Each pattern, then the literals recorded for its prefilter (format
    // 6): those every match contains, or the one-of set.
    let regexes: Vec<(usize, &String)> = prog.regexes.iter().enumerate().collect();
    section(out, "regexes", &regexes, |&(i, r)| {
        let pattern = json_text(&serde_json::Value::String(r.clone()));
        let shown = |l: &[String]| {
            l.iter()
                .map(|l| json_text(&serde_json::Value::String(l.clone())))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let i = RegexIdx::from_usize(i);
        match (prog.required_literals_of(i), prog.one_of_literals_of(i)) {
            ([], []) => pattern,
            ([], one_of) => format!("{pattern}  requires one of {}", shown(one_of)),
            (required, _) => format!("{pattern}  requires {}", shown(required)),
        }
    })?;
    let sets: Vec<SetIdx> = (0..prog.sets.len()).map(SetIdx::from_usize).collect();
    section(out, "sets", &sets, |&i| set(prog, i))?;
    writeln!(out, "\nevents")?;
    let list = |hooks: &[u32]| {
        if hooks.is_empty() {
            "(none)".to_owned()
        } else {
            hooks
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    for (name, hooks) in &prog.events.named {
        writeln!(out, "  {} -> {}", raw_string(prog, *name), list(hooks))?;
    }
    writeln!(out, "  * -> {}", list(&prog.events.wildcard))?;
    // Only when there are some, so listings without them read as before.
    if !prog.absent.is_empty() {
        section(out, "absent hooks", &prog.absent, |a| {
            let replace = if a.replace { " (replace)" } else { "" };
            format!("{}{replace}", string(prog, a.id))
        })?;
    }
    Ok(())
}
