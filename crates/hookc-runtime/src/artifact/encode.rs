//! Program → artifact bytes. Deterministic: the bytes depend only on the
//! program (tables in order, object keys in their stored order, minimal
//! LEB128), never on addresses, hashing or time.

use super::{
    checksum, hook_flags, put_op, Wire, FLAG_ATTRIBUTION_ID, FLAG_ATTRIBUTION_OFF,
    FLAG_ENVIRONMENT, FLAG_LOWER_FIRST, FLAG_ONE_OF, FLAG_SENSITIVE, FORMAT_VERSION,
    FORMAT_VERSION_FIRST_MATCH, FORMAT_VERSION_FUNCTIONS, FORMAT_VERSION_LITERALS,
    FORMAT_VERSION_MODEL, HEADER_LEN, MAGIC, SECTIONS, VALUE_TAG_LIST, VALUE_TAG_STRING,
};
use crate::bytecode::path::Segment;
use crate::bytecode::{Attribution, Binding, Combine, Effect, OnError, PriorityOrder};
use crate::bytecode::{ParamValue, Program, TemplatePart, ValueCheck};
use serde_json::Value;

/// A growing byte buffer with the artifact's integer encodings.
pub(super) struct ByteWriter {
    buf: Vec<u8>,
}

impl ByteWriter {
    pub(super) fn new() -> ByteWriter {
        ByteWriter { buf: Vec::new() }
    }

    /// The bytes written so far.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// One byte.
    pub(super) fn u8(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Unsigned LEB128, minimal.
    pub(super) fn uleb(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(low);
                return;
            }
            self.buf.push(low | 0x80);
        }
    }

    /// A `u32` field (a hook index, a position, a count).
    fn u32(&mut self, v: u32) {
        self.uleb(u64::from(v));
    }

    /// A typed field (a table index).
    fn put<T: Wire>(&mut self, v: T) {
        v.put(self);
    }

    /// A length or count.
    fn len(&mut self, n: usize) {
        self.uleb(n as u64);
    }

    /// A signed integer: zigzag, then LEB128.
    fn sleb(&mut self, v: i64) {
        self.uleb(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A length-prefixed UTF-8 string.
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// A `vec<vec<str>>` (the `literals` and `one_of` sections).
    fn str_lists(&mut self, lists: &[Vec<String>]) {
        self.len(lists.len());
        for list in lists {
            self.len(list.len());
            for s in list {
                self.str(s);
            }
        }
    }

    /// A section: id, a `u32` length patched after the payload, the payload.
    fn section(&mut self, id: u8, payload: impl FnOnce(&mut ByteWriter)) {
        self.u8(id);
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        payload(self);
        let len = self.buf.len().saturating_sub(at + 4);
        // A payload over 4 GiB (far past MAX_ARTIFACT_BYTES) gets a length
        // the decoder rejects; encoding itself cannot fail.
        let len = u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes();
        if let Some(slot) = self.buf.get_mut(at..at + 4) {
            slot.copy_from_slice(&len);
        }
    }
}

/// The artifact bytes of a program (layout in the [module docs](super)).
///
/// The same program always gives the same bytes. Encoding does not verify:
/// [`super::load`] does, on the way back.
pub fn encode(prog: &Program) -> Vec<u8> {
    let mut body = ByteWriter::new();
    let [strings, paths, consts, regexes, sets, code, hooks, actions, events, debug, layers, absent, model, tables, literals, sensitive, one_of] =
        SECTIONS;
    body.section(strings.id, |w| {
        w.len(prog.strings.len());
        for s in prog.strings.iter() {
            w.str(s);
        }
    });
    body.section(paths.id, |w| {
        w.len(prog.paths.len());
        for path in &prog.paths {
            w.str(path.root_name());
            w.len(path.segments().len());
            for seg in path.segments() {
                match seg {
                    Segment::Field(name) => {
                        w.u8(1);
                        w.str(name);
                    }
                    Segment::Index(i) => {
                        w.u8(2);
                        w.sleb(*i);
                    }
                }
            }
        }
    });
    body.section(consts.id, |w| {
        w.len(prog.consts.len());
        for value in prog.consts.iter() {
            put_value(w, value);
        }
    });
    body.section(regexes.id, |w| {
        w.len(prog.regexes.len());
        for re in &prog.regexes {
            w.str(re);
        }
    });
    body.section(sets.id, |w| {
        w.len(prog.sets.len());
        for &k in &prog.sets {
            w.put(k);
        }
    });
    body.section(code.id, |w| {
        w.len(prog.code.len());
        for op in &prog.code {
            put_op(op, w);
        }
    });
    body.section(hooks.id, |w| {
        w.len(prog.hooks.len());
        for h in &prog.hooks {
            w.put(h.id);
            w.sleb(h.priority);
            w.u32(h.layer);
            match h.description {
                None => w.u8(0),
                Some(d) => {
                    w.u8(1);
                    w.put(d);
                }
            }
            w.u32(h.code.0);
            w.u32(h.code.1);
            w.u32(h.max_stack);
            w.put(h.action);
            w.u8(hook_flags(h.replace));
        }
    });
    body.section(actions.id, |w| {
        w.len(prog.actions.len());
        for a in &prog.actions {
            w.put(a.kind);
            w.u8(effect_tag(a.effect));
            w.len(a.params.len());
            for param in &a.params {
                w.put(param.name);
                if let Some(check) = &param.check {
                    w.u8(5);
                    put_check(w, check);
                }
                put_param(w, &param.value);
            }
        }
    });
    body.section(events.id, |w| {
        w.len(prog.events.named.len());
        for (name, hooks) in &prog.events.named {
            w.put(*name);
            put_u32s(w, hooks);
        }
        put_u32s(w, &prog.events.wildcard);
    });
    body.section(debug.id, |w| {
        w.len(prog.debug.hooks.len());
        for h in &prog.debug.hooks {
            w.put(h.at);
            w.len(h.marks.len());
            for m in &h.marks {
                w.u32(m.op);
                w.put(m.text);
                w.put(m.at);
            }
        }
    });
    body.section(layers.id, |w| {
        w.len(prog.layers.len());
        for &name in &prog.layers {
            w.put(name);
        }
    });
    body.section(absent.id, |w| {
        w.len(prog.absent.len());
        for a in &prog.absent {
            w.put(a.id);
            w.u8(hook_flags(a.replace));
        }
    });

    // Format 3 has no `model` section: a first-match program is written
    // exactly as before format 4 existed, and a program without template
    // expressions exactly as before format 5 did.
    let version = format_of(prog);
    if version != FORMAT_VERSION_FIRST_MATCH {
        body.section(model.id, |w| put_model(w, prog));
    }
    if version >= FORMAT_VERSION_FUNCTIONS {
        body.section(tables.id, |w| {
            w.len(prog.tables.len());
            for t in &prog.tables {
                w.put(t.on);
                w.len(t.patterns.len());
                for &r in &t.patterns {
                    w.put(r);
                }
                w.put(t.rows);
            }
        });
    }
    if version >= FORMAT_VERSION_LITERALS {
        body.section(literals.id, |w| w.str_lists(&prog.regex_literals));
    }
    if !prog.sensitive.is_empty() {
        body.section(sensitive.id, |w| {
            w.len(prog.sensitive.len());
            for &p in &prog.sensitive {
                w.put(p);
            }
        });
    }

    if !prog.regex_one_of.is_empty() {
        body.section(one_of.id, |w| w.str_lists(&prog.regex_one_of));
    }

    let mut out = Vec::with_capacity(HEADER_LEN + body.buf.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    let order = match prog.priority_order {
        PriorityOrder::HigherFirst => 0u16,
        PriorityOrder::LowerFirst => FLAG_LOWER_FIRST,
    };
    let attribution = match prog.attribution {
        Attribution::Location => 0u16,
        Attribution::Id => FLAG_ATTRIBUTION_ID,
        Attribution::Off => FLAG_ATTRIBUTION_OFF,
    };
    let environment = if prog.reads_environment {
        FLAG_ENVIRONMENT
    } else {
        0
    };
    let sensitive = if prog.sensitive.is_empty() {
        0
    } else {
        FLAG_SENSITIVE
    };
    let one_of = if prog.regex_one_of.is_empty() {
        0
    } else {
        FLAG_ONE_OF
    };
    let flags = order | attribution | environment | sensitive | one_of;
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&checksum(flags, &body.buf).to_le_bytes());
    out.extend_from_slice(&(body.buf.len() as u64).to_le_bytes());
    out.extend_from_slice(&body.buf);
    out
}

/// The format a program is written in: the oldest that can hold it (7 for
/// kept local values, else 6 for regexes' recorded literals, else 5 for
/// functions, template expressions or pattern tables, else 4 for the
/// decision model, else 3), so that every program has one encoding.
pub(super) fn format_of(prog: &Program) -> u16 {
    if prog.uses_locals() {
        FORMAT_VERSION
    } else if !prog.regex_literals.is_empty() {
        FORMAT_VERSION_LITERALS
    } else if prog.uses_format_5() {
        FORMAT_VERSION_FUNCTIONS
    } else if prog.uses_model() {
        FORMAT_VERSION_MODEL
    } else {
        FORMAT_VERSION_FIRST_MATCH
    }
}

/// An action's effect byte.
fn effect_tag(effect: Effect) -> u8 {
    match effect {
        Effect::Terminal => 1,
        Effect::Collected => 2,
        Effect::Transform => 3,
        Effect::Await => 4,
    }
}

/// The `model` section: combine, the error policy, then each action's
/// severity and binding.
fn put_model(w: &mut ByteWriter, prog: &Program) {
    w.u8(match prog.model.combine {
        Combine::FirstMatch => 1,
        Combine::Strictest => 2,
    });
    match prog.model.on_error {
        OnError::Skip => w.u8(1),
        OnError::Fail => w.u8(2),
        OnError::Action(a) => {
            w.u8(3);
            w.put(a);
        }
    }
    w.len(prog.actions.len());
    for a in &prog.actions {
        w.sleb(a.severity);
        match a.bind {
            None => w.u8(0),
            Some(Binding::Path(path)) => {
                w.u8(1);
                w.put(path);
            }
            Some(Binding::Parameter(name)) => {
                w.u8(2);
                w.put(name);
            }
        }
    }
}

fn put_u32s(w: &mut ByteWriter, items: &[u32]) {
    w.len(items.len());
    for &i in items {
        w.u32(i);
    }
}

/// A constant. Recursion depth is the value's nesting, which the compiler
/// bounds ([`crate::limits::MAX_VALUE_DEPTH`]).
fn put_value(w: &mut ByteWriter, value: &Value) {
    match value {
        Value::Null => w.u8(1),
        Value::Bool(false) => w.u8(2),
        Value::Bool(true) => w.u8(3),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                w.u8(4);
                w.sleb(i);
            } else if let Some(u) = n.as_u64() {
                w.u8(5);
                w.uleb(u);
            } else {
                // serde_json numbers are finite: NaN and infinities have no Number.
                w.u8(6);
                w.buf
                    .extend_from_slice(&n.as_f64().unwrap_or(0.0).to_bits().to_le_bytes());
            }
        }
        Value::String(s) => {
            w.u8(VALUE_TAG_STRING);
            w.str(s);
        }
        Value::Array(items) => {
            w.u8(VALUE_TAG_LIST);
            w.len(items.len());
            for item in items {
                put_value(w, item);
            }
        }
        Value::Object(map) => {
            w.u8(9);
            w.len(map.len());
            for (k, v) in map {
                w.str(k);
                put_value(w, v);
            }
        }
    }
}

/// A parameter's check: kinds, enum, items (see the module doc of
/// `artifact`). Recursion depth is the check's nesting, which the compiler
/// bounds by the depth of its type definitions.
fn put_check(w: &mut ByteWriter, check: &ValueCheck) {
    w.u8(check.kinds.bits());
    match check.allowed {
        Some(k) => {
            w.u8(1);
            w.put(k);
        }
        None => w.u8(0),
    }
    match &check.items {
        Some(items) => {
            w.u8(1);
            put_check(w, items);
        }
        None => w.u8(0),
    }
}

/// An action parameter value.
fn put_param(w: &mut ByteWriter, value: &ParamValue) {
    match value {
        ParamValue::Const(k) => {
            w.u8(1);
            w.put(*k);
        }
        ParamValue::Template(parts) => {
            w.u8(2);
            w.len(parts.len());
            for part in parts {
                match part {
                    TemplatePart::Lit(s) => {
                        w.u8(1);
                        w.put(*s);
                    }
                    TemplatePart::Path(p) => {
                        w.u8(2);
                        w.put(*p);
                    }
                    TemplatePart::Expr { code, max_stack } => {
                        w.u8(3);
                        w.u32(code.0);
                        w.u32(code.1);
                        w.u32(*max_stack);
                    }
                }
            }
        }
        ParamValue::List(items) => {
            w.u8(3);
            w.len(items.len());
            for item in items {
                put_param(w, item);
            }
        }
        ParamValue::Object(entries) => {
            w.u8(4);
            w.len(entries.len());
            for (k, v) in entries {
                w.put(*k);
                put_param(w, v);
            }
        }
    }
}

#[cfg(test)]
mod tests;
