//! Type checking of conditions against the context schema (`docs/src/semantics.md#static-checking`).
//!
//! Types are sets of JSON kinds ([`crate::check::ty`]). An operation is an error only
//! when no combination of its operands' kinds is valid, so data typed `any`
//! (outside the schema, or in a free-form object) is never an error, while
//! `classification.category > 5` (a string and an int) is. Regex literals are
//! compiled here, under the size limit, so a bad pattern is reported at its
//! place in the source.

use crate::check::raw_argv::FlagWord;
use crate::check::schema::ContextSchema;
use crate::check::shell_as_text::Test;
use crate::check::ty::{Kinds, Type};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{BinaryOp, Builtin, Const, IrExpr, IrExprKind, MacroKind, UnaryOp};
use crate::span::Span;
use hookc_runtime::bytecode::path::{PathTable, Step};
use hookc_runtime::functions::Shape;
use hookc_runtime::verify::{Backtracking, Engine};

/// Regex patterns already compiled successfully in this compilation, with
/// the engine each runs on: each distinct pattern is compiled once, however
/// many hooks use it.
// PERF: compiling a regex costs microseconds to milliseconds; 10,000 hooks
// sharing 9 patterns spent 11% of their compile time here (callgrind).
#[derive(Debug, Default)]
pub struct RegexMemo(std::collections::HashMap<String, CheckedPattern>);

/// What checking a pattern that compiles found, once per pattern.
#[derive(Debug, Clone)]
struct CheckedPattern {
    engine: Engine,
    /// W0024's finding: the part beside a Unicode word boundary that
    /// matches non-ASCII characters, as a message names it.
    boundary_beside: Option<String>,
}

impl RegexMemo {
    /// `compile_regex`'s verdict on `pattern` and its engine, compiling
    /// it only once.
    pub(crate) fn check(&mut self, pattern: &str) -> Result<Engine, String> {
        self.checked(pattern).map(|c| c.engine)
    }

    /// W0024's finding for a pattern that compiles: the part beside a
    /// Unicode word boundary that matches non-ASCII characters.
    pub(crate) fn boundary_beside(&mut self, pattern: &str) -> Option<String> {
        self.checked(pattern).ok()?.boundary_beside
    }

    /// The pattern's check, done on its first use.
    fn checked(&mut self, pattern: &str) -> Result<CheckedPattern, String> {
        if let Some(checked) = self.0.get(pattern) {
            return Ok(checked.clone());
        }
        // The runtime chooses its engine from the pattern alone, here too
        // (one parse for both).
        let (_, engine) = hookc_runtime::verify::compile_regex_on_engine(pattern)?;
        let checked = CheckedPattern {
            engine,
            boundary_beside: crate::check::unicode_boundary::beside_non_ascii(pattern),
        };
        self.0.insert(pattern.to_owned(), checked.clone());
        Ok(checked)
    }
}

/// Checks one condition: every operation, then that the whole is a bool.
/// `guard` says whether the hook denies, asks or blocks: then a path
/// tested as text is warning W0019, and a command of `shell.commands`
/// tested on its raw words W0020.
pub fn check_condition(
    expr: &IrExpr,
    schema: &ContextSchema,
    paths: &PathTable,
    regexes: &mut RegexMemo,
    diags: &mut Diagnostics,
    guard: bool,
) {
    let mut checker = TypeChecker {
        schema,
        paths,
        regexes,
        diags,
        vars: Vec::new(),
        origins: Vec::new(),
        guard,
    };
    let ty = checker.check(expr);
    if !ty.kinds.is_empty() && !ty.kinds.intersects(Kinds::BOOL) {
        checker.diags.push(
            Diagnostic::new(
                Code::NonBoolCondition,
                format!(
                    "a condition must be a bool, but `{}` is {}",
                    checker.show(expr),
                    ty
                ),
            )
            .at(expr.span)
            .label(format!("this is {}", ty.kinds.with_article()))
            .help("compare it with something, e.g. `x == 'value'` or `x > 0`"),
        );
    }
}

/// Checks an expression whose value is used as is (a template's
/// `${...}`): every operation, as in a condition; its type.
pub fn check_value(
    expr: &IrExpr,
    schema: &ContextSchema,
    paths: &PathTable,
    regexes: &mut RegexMemo,
    diags: &mut Diagnostics,
) -> Type {
    TypeChecker {
        schema,
        paths,
        regexes,
        diags,
        vars: Vec::new(),
        origins: Vec::new(),
        guard: false,
    }
    .check(expr)
}

struct TypeChecker<'a> {
    schema: &'a ContextSchema,
    paths: &'a PathTable,
    regexes: &'a mut RegexMemo,
    diags: &'a mut Diagnostics,
    /// Types of macro variables in scope, outermost first.
    vars: Vec<Type>,
    /// What each of `vars` ranges over, beyond its type (W0020).
    origins: Vec<VarOrigin>,
    /// The hook denies, asks or blocks (W0019 and W0020 apply).
    guard: bool,
}

/// What a macro variable is known to range over beyond its type, for
/// W0020. The commands of `shell.commands` are plain objects to the type
/// system (the function's row gives their kind, `object`, and no schema),
/// so the checker follows them through the macros that bind them: it is
/// the binding, not the type, that says `c` is a parsed command.
#[derive(Debug, Clone, PartialEq)]
enum VarOrigin {
    /// Nothing known.
    Other,
    /// A command of `shell.commands(...)`.
    Command,
    /// A word of a command's `argv`: the command's source text (`c`).
    Word(String),
}

const MAX_SHOWN: usize = 48;

impl TypeChecker<'_> {
    /// Short source text of an expression for messages.
    fn show(&self, e: &IrExpr) -> String {
        let text = match &e.kind {
            IrExprKind::SchemaMatch { path, .. } => self
                .paths
                .get(*path)
                .map_or_else(String::new, ToString::to_string),
            _ => e.to_source(self.paths).unwrap_or_default(),
        };
        if text.chars().count() > MAX_SHOWN {
            let cut: String = text.chars().take(MAX_SHOWN - 1).collect();
            format!("{cut}…")
        } else {
            text
        }
    }

    fn mismatch(&mut self, at: crate::span::Span, message: String, label: String) {
        self.diags.push(
            Diagnostic::new(Code::TypeMismatch, message)
                .at(at)
                .label(label),
        );
    }

    /// Requires `e` (of type `ty`) to possibly be one of `want`; reports otherwise.
    fn expect(&mut self, e: &IrExpr, ty: &Type, want: Kinds, what: &str) {
        if !ty.kinds.is_empty() && !ty.kinds.intersects(want) {
            let shown = self.show(e);
            self.mismatch(
                e.span,
                format!(
                    "{what} needs {}, but `{shown}` is {}",
                    want.with_article(),
                    ty.kinds.with_article()
                ),
                format!("this is {}", ty.kinds.with_article()),
            );
        }
    }

    fn check(&mut self, e: &IrExpr) -> Type {
        match &e.kind {
            IrExprKind::Const(c) => const_type(c),
            IrExprKind::List(items) => {
                let elem = items
                    .iter()
                    .map(|i| self.check(i))
                    .reduce(|a, b| a.union(&b))
                    .unwrap_or_else(|| Type::of(Kinds::NONE));
                Type {
                    kinds: Kinds::LIST,
                    schema: None,
                    elem: Some(Box::new(elem)),
                }
            }
            IrExprKind::Path(id) => match self.paths.get(*id) {
                Some(path) => self.schema.type_of_path(path, e.span, self.diags),
                None => Type::any(),
            },
            IrExprKind::Var { depth, .. } => self
                .vars
                .get(*depth as usize)
                .cloned()
                .unwrap_or_else(Type::any),
            // Checked where it is used, against this hook's events; its
            // macro variables are its own (`IrExprKind::Local`).
            IrExprKind::Local { body, .. } => {
                let outer = std::mem::take(&mut self.vars);
                let t = self.check(body);
                self.vars = outer;
                t
            }
            IrExprKind::Field(base, name) => {
                let bt = self.check(base);
                self.field(base, &bt, name, e)
            }
            IrExprKind::Index(base, index) => {
                let bt = self.check(base);
                let it = self.check(index);
                if bt.kinds.is_empty() || it.kinds.is_empty() {
                    return Type::of(Kinds::NONE);
                }
                let list_ok =
                    bt.kinds.intersects(Kinds::LIST) && it.kinds.intersects(Kinds::NUMBER);
                let obj_ok =
                    bt.kinds.intersects(Kinds::OBJECT) && it.kinds.intersects(Kinds::STRING);
                if !list_ok && !obj_ok {
                    let (b, i) = (self.show(base), self.show(index));
                    self.mismatch(
                        index.span,
                        format!("cannot index `{b}` ({bt}) with `{i}` ({it})"),
                        "lists take an int index, objects a string key".to_owned(),
                    );
                    return Type::of(Kinds::NONE);
                }
                match (&bt.elem, bt.schema) {
                    (Some(elem), _) if !obj_ok => (**elem).clone(),
                    (_, Some(id)) => {
                        let items = self.schema.node(id).and_then(|n| n.items);
                        match items.and_then(|i| self.schema.node(i)) {
                            Some(node) if !obj_ok => Type {
                                kinds: node.kinds,
                                schema: items,
                                elem: None,
                            },
                            _ => Type::any(),
                        }
                    }
                    _ => Type::any(),
                }
            }
            IrExprKind::HasPath(id) => {
                if let Some(path) = self.paths.get(*id) {
                    self.schema.type_of_path(path, e.span, self.diags);
                }
                Type::bool()
            }
            IrExprKind::HasField(base, _) => {
                let bt = self.check(base);
                self.expect(base, &bt, Kinds::OBJECT, "`has()`");
                Type::bool()
            }
            IrExprKind::Unary(UnaryOp::Not, operand) => {
                let t = self.check(operand);
                self.expect(operand, &t, Kinds::BOOL, "`!`");
                Type::bool()
            }
            IrExprKind::Unary(UnaryOp::Neg, operand) => {
                let t = self.check(operand);
                self.expect(operand, &t, Kinds::NUMBER, "`-`");
                Type::of(t.kinds.and(Kinds::NUMBER))
            }
            IrExprKind::And(a, b) | IrExprKind::Or(a, b) => {
                let what = if matches!(e.kind, IrExprKind::And(..)) {
                    "`&&`"
                } else {
                    "`||`"
                };
                let (ta, tb) = (self.check(a), self.check(b));
                self.expect(a, &ta, Kinds::BOOL, what);
                self.expect(b, &tb, Kinds::BOOL, what);
                Type::bool()
            }
            IrExprKind::Cond(c, a, b) => {
                let tc = self.check(c);
                self.expect(c, &tc, Kinds::BOOL, "the condition of `?:`");
                let (ta, tb) = (self.check(a), self.check(b));
                ta.union(&tb)
            }
            IrExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => self.binary(*op, *op_span, lhs, rhs),
            IrExprKind::Call(func, args) => self.call(*func, args, e),
            IrExprKind::PatternCall {
                func,
                args,
                pattern,
            } => {
                self.pattern(pattern);
                self.call(*func, args, e)
            }
            IrExprKind::Matches(recv, re) => {
                let t = self.check(recv);
                self.expect(recv, &t, Kinds::STRING, &format!("`{}`", re.func_name()));
                let written = re.glob.as_deref().unwrap_or(&re.pattern);
                if let Some(glob) = &re.glob {
                    self.rule_glob(recv, glob, e.span);
                }
                self.shell_test(recv, &t, e, Test::Matches(written));
                self.program_test(recv, &[written], e.span, |me| (me.show(e), me.source(e)));
                self.pattern(re);
                Type::bool()
            }
            IrExprKind::Macro {
                kind, range, body, ..
            } => {
                let rt = self.check(range);
                self.expect(
                    range,
                    &rt,
                    Kinds::LIST.or(Kinds::OBJECT),
                    &format!("`{}`", kind.name()),
                );
                let var = self.element_type(&rt);
                let origin = if self.is_command_list(range) {
                    VarOrigin::Command
                } else if let Some(cmd) = self.argv_of(range) {
                    VarOrigin::Word(self.source(cmd))
                } else {
                    VarOrigin::Other
                };
                self.vars.push(var);
                self.origins.push(origin);
                let bt = self.check(body);
                self.vars.pop();
                self.origins.pop();
                let what = match kind {
                    MacroKind::Exists => "the predicate of `exists`",
                    MacroKind::All => "the predicate of `all`",
                    MacroKind::ExistsOne => "the predicate of `exists_one`",
                    MacroKind::Filter => "the predicate of `filter`",
                    // Any value: the list's items.
                    MacroKind::Map => {
                        return Type {
                            kinds: Kinds::LIST,
                            schema: None,
                            elem: Some(Box::new(bt)),
                        }
                    }
                };
                self.expect(body, &bt, Kinds::BOOL, what);
                if *kind == MacroKind::Filter {
                    return Type {
                        kinds: Kinds::LIST,
                        schema: None,
                        elem: Some(Box::new(self.element_type(&rt))),
                    };
                }
                Type::bool()
            }
            IrExprKind::TypeIs(inner, _) => {
                self.check(inner);
                Type::bool()
            }
            IrExprKind::SchemaMatch { check, .. } => {
                self.check(check);
                Type::bool()
            }
        }
    }

    /// The type of a macro variable ranging over a value of type `range`:
    /// list elements, or an object's keys.
    fn element_type(&self, range: &Type) -> Type {
        if range.kinds == Kinds::OBJECT {
            return Type::of(Kinds::STRING);
        }
        if let Some(elem) = &range.elem {
            return (**elem).clone();
        }
        let items = range
            .schema
            .and_then(|id| self.schema.node(id))
            .and_then(|n| n.items);
        match items.and_then(|i| self.schema.node(i)) {
            Some(node) if range.kinds == Kinds::LIST => Type {
                kinds: node.kinds,
                schema: items,
                elem: None,
            },
            _ => Type::any(),
        }
    }

    fn field(&mut self, base: &IrExpr, bt: &Type, name: &str, whole: &IrExpr) -> Type {
        if bt.kinds.is_empty() {
            return Type::of(Kinds::NONE);
        }
        if !bt.kinds.intersects(Kinds::OBJECT) {
            let shown = self.show(base);
            self.mismatch(
                whole.span,
                format!(
                    "`{shown}` is {} and has no field `{name}`",
                    bt.kinds.with_article()
                ),
                format!("`{shown}` is {}", bt.kinds.with_article()),
            );
            return Type::of(Kinds::NONE);
        }
        let Some(id) = bt.schema else {
            return Type::any();
        };
        let prefix = self.show(base);
        match self.schema.resolve_from(
            Some(id),
            bt.kinds,
            std::iter::once(Step::Field(name)),
            prefix.clone(),
        ) {
            Ok(r) => {
                if let Some(out) = r.outside {
                    let code = if out.closed {
                        Code::UnknownPath
                    } else {
                        Code::PathNotInSchema
                    };
                    let what = if out.closed {
                        "is not allowed by the schema"
                    } else {
                        "is not in the schema"
                    };
                    let mut d = Diagnostic::new(
                        code,
                        format!("`{prefix}.{name}` {what}: `{prefix}` has no key `{name}`"),
                    )
                    .at(whole.span)
                    .maybe_help(
                        crate::suggest::did_you_mean(
                            name,
                            out.candidates.iter().map(String::as_str),
                        )
                        .map(|b| format!("did you mean `{b}`?")),
                    );
                    if !out.closed {
                        // One warning per undeclared path and file (see
                        // `Diagnostics::fold_repeats`); errors stay per use.
                        d = d.once_per_file(format!("{prefix}.{name}"));
                    }
                    self.diags.push(d);
                }
                r.ty
            }
            Err(_) => Type::any(),
        }
    }

    /// A pattern literal: it compiles, and (a regex) holds no control
    /// character from a string escape.
    fn pattern(&mut self, re: &crate::ir::Regex) {
        let checked = self.regexes.checked(&re.pattern);
        if let Err(msg) = &checked {
            let d = match &re.glob {
                // Valid (checked when translated), but its regex
                // passes a size or nesting limit: say so in glob terms.
                Some(g) => Diagnostic::new(Code::BadGlob, format!("invalid glob `{g}`: {msg}"))
                    .help("split the glob into several conditions, or shorten it"),
                None => Diagnostic::new(Code::BadRegex, format!("invalid regex `{}`: {msg}", re.pattern))
                    .help("patterns use the syntax of Rust's `regex` crate, plus look-around, backreferences and atomic groups (`fancy-regex`)"),
            };
            self.diags
                .push(d.at(re.span).label("this pattern does not compile"));
        } else if let (None, Ok(checked)) = (&re.glob, &checked) {
            self.control_in_regex(re);
            if let Some(part) = &checked.boundary_beside {
                let d = crate::check::unicode_boundary::diagnostic(part, re.span);
                self.diags.push(d);
            }
            if let Engine::Backtracking(first) = &checked.engine {
                self.backtracking_regex(re, first);
            }
        }
    }

    /// A call of the function table: each argument against its parameter's
    /// kinds, the result from the row.
    fn call(&mut self, func: Builtin, args: &[IrExpr], whole: &IrExpr) -> Type {
        let def = func.def();
        let what = format!("`{}`", def.qualified_name());
        let params = def.params.iter().filter(|p| p.pattern.is_none());
        let mut types = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(params) {
            let t = self.check(a);
            self.expect(a, &t, p.kinds, &what);
            types.push(t);
        }
        if let (Some(recv), Some(rt)) = (args.first(), types.first()) {
            let lit = args.get(1).and_then(string_const);
            let test = match func {
                Builtin::Contains => Some(Test::Contains(lit)),
                Builtin::StartsWith => Some(Test::StartsWith(lit)),
                Builtin::EndsWith => Some(Test::EndsWith(lit)),
                _ => None,
            };
            if let Some(test) = test {
                self.shell_test(recv, rt, whole, test);
                if let Some(lit) = lit {
                    self.program_test(recv, &[lit], whole.span, |me| {
                        (me.show(whole), me.source(whole))
                    });
                }
            }
            if func == Builtin::Contains {
                if let (Some(cmd), Some(flag)) = (self.argv_of(recv), lit.and_then(FlagWord::parse))
                {
                    let (shown, cmd) = (self.show(whole), self.source(cmd));
                    self.push_flag_test(&shown, &cmd, &[flag], true, whole.span);
                }
            }
        }
        let elem = match def.shape {
            Shape::Plain => None,
            Shape::Strings => Some(Box::new(Type::of(Kinds::STRING))),
            Shape::ShellCommands => Some(Box::new(Type::of(Kinds::OBJECT))),
        };
        Type {
            kinds: def.result,
            schema: None,
            elem,
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        op_span: crate::span::Span,
        lhs: &IrExpr,
        rhs: &IrExpr,
    ) -> Type {
        let (lt, rt) = (self.check(lhs), self.check(rhs));
        if lt.kinds.is_empty() || rt.kinds.is_empty() {
            return Type::of(Kinds::NONE);
        }
        let (l, r) = (lt.kinds, rt.kinds);
        let sym = op.symbol();
        match op {
            // The resolver rewrites `??`; were it here, its value is the
            // left side's non-null kinds or the right side's.
            BinaryOp::Coalesce => Type::of(l.and(Kinds::from_bits(!Kinds::NULL.bits())).or(r)),
            BinaryOp::Eq | BinaryOp::Ne => {
                let is_null = |e: &IrExpr| matches!(e.kind, IrExprKind::Const(Const::Null));
                // Comparing with `null` is how absent-or-null is tested: always allowed.
                if !is_null(lhs) && !is_null(rhs) && !comparable(l, r) {
                    let (a, b) = (self.show(lhs), self.show(rhs));
                    let outcome = if op == BinaryOp::Eq { "false" } else { "true" };
                    self.diags.push(
                        Diagnostic::new(
                            Code::IncomparableTypes,
                            format!(
                                "`{a}` is {} and `{b}` is {}: `{sym}` is always {outcome}",
                                l.with_article(),
                                r.with_article()
                            ),
                        )
                        .at(op_span)
                        .label(format!("{lt} {sym} {rt}"))
                        .help(format!("compare `{a}` with {}", l.with_article())),
                    );
                }
                self.enum_check(op, lhs, &lt, rhs);
                self.enum_check(op, rhs, &rt, lhs);
                // `== null` tests presence, not the text.
                for (subject, st, other) in [(lhs, &lt, rhs), (rhs, &rt, lhs)] {
                    if self.schema.is_shell_command(st.schema) && !is_null(other) {
                        let shown = format!("{} {sym} {}", self.show(lhs), self.show(rhs));
                        let at = lhs.span.to(rhs.span);
                        let test = Test::Equals(string_const(other));
                        self.push_shell_test(&shown, subject, test, at);
                        break;
                    }
                    if self.guard && self.schema.is_file_path(st.schema) && !is_null(other) {
                        let shown = format!("{} {sym} {}", self.show(lhs), self.show(rhs));
                        let (s, at) = (self.show(subject), lhs.span.to(rhs.span));
                        self.diags
                            .push(crate::check::path_as_text::diagnostic(&shown, &s, at));
                        break;
                    }
                }
                self.raw_word_compare(op, lhs, rhs);
                Type::bool()
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                let ok = (l.intersects(Kinds::NUMBER) && r.intersects(Kinds::NUMBER))
                    || (l.intersects(Kinds::STRING) && r.intersects(Kinds::STRING))
                    || (l.intersects(Kinds::BOOL) && r.intersects(Kinds::BOOL));
                if !ok {
                    let (a, b) = (self.show(lhs), self.show(rhs));
                    self.diags.push(
                        Diagnostic::new(
                            Code::TypeMismatch,
                            format!("cannot order `{a}` ({lt}) and `{b}` ({rt}) with `{sym}`"),
                        )
                        .at(op_span)
                        .label(format!("{lt} {sym} {rt}"))
                        .help("ordering is defined between two numbers, two strings or two bools"),
                    );
                }
                Type::bool()
            }
            BinaryOp::In => {
                if !r.intersects(Kinds::LIST.or(Kinds::OBJECT)) {
                    let b = self.show(rhs);
                    self.mismatch(
                        rhs.span,
                        format!(
                            "`in` needs a list (or an object's keys) on its right, but `{b}` is {}",
                            r.with_article()
                        ),
                        format!("this is {}", r.with_article()),
                    );
                } else if let (Some(elem), IrExprKind::Const(Const::List(items))) =
                    (&rt.elem, &rhs.kind)
                {
                    if !items.is_empty() && !comparable(l, elem.kinds) {
                        let a = self.show(lhs);
                        self.diags.push(
                            Diagnostic::new(
                                Code::IncomparableTypes,
                                format!(
                                    "`{a}` is {} but the list holds values {}: `in` is always false",
                                    l.with_article(),
                                    elem.kinds.with_article()
                                ),
                            )
                            .at(op_span)
                            .label(format!("{lt} in list of {}", elem.kinds)),
                        );
                    }
                }
                self.enum_in_check(lhs, &lt, rhs);
                self.raw_word_in(lhs, rhs);
                Type::bool()
            }
            BinaryOp::Add => {
                let num = l.intersects(Kinds::NUMBER) && r.intersects(Kinds::NUMBER);
                let string = l.intersects(Kinds::STRING) && r.intersects(Kinds::STRING);
                let list = l.intersects(Kinds::LIST) && r.intersects(Kinds::LIST);
                if !(num || string || list) {
                    self.arith_error(
                        op,
                        op_span,
                        lhs,
                        &lt,
                        rhs,
                        &rt,
                        "`+` adds two numbers, or joins two strings or two lists",
                    );
                    return Type::of(Kinds::NONE);
                }
                let mut k = Kinds::NONE;
                if num {
                    k = k.or(arith_result(l, r));
                }
                if string {
                    k = k.or(Kinds::STRING);
                }
                if list {
                    k = k.or(Kinds::LIST);
                }
                Type::of(k)
            }
            BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                if !(l.intersects(Kinds::NUMBER) && r.intersects(Kinds::NUMBER)) {
                    self.arith_error(
                        op,
                        op_span,
                        lhs,
                        &lt,
                        rhs,
                        &rt,
                        "arithmetic is defined on numbers",
                    );
                    return Type::of(Kinds::NONE);
                }
                Type::of(arith_result(l, r))
            }
            BinaryOp::Rem => {
                if !(l.intersects(Kinds::INT) && r.intersects(Kinds::INT)) {
                    self.arith_error(
                        op,
                        op_span,
                        lhs,
                        &lt,
                        rhs,
                        &rt,
                        "`%` is defined on two ints",
                    );
                    return Type::of(Kinds::NONE);
                }
                Type::of(Kinds::INT)
            }
            BinaryOp::And | BinaryOp::Or => Type::bool(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn arith_error(
        &mut self,
        op: BinaryOp,
        op_span: crate::span::Span,
        lhs: &IrExpr,
        lt: &Type,
        rhs: &IrExpr,
        rt: &Type,
        help: &str,
    ) {
        let (a, b, sym) = (self.show(lhs), self.show(rhs), op.symbol());
        self.diags.push(
            Diagnostic::new(
                Code::TypeMismatch,
                format!("cannot apply `{sym}` to `{a}` ({lt}) and `{b}` ({rt})"),
            )
            .at(op_span)
            .label(format!("{lt} {sym} {rt}"))
            .help(help.to_owned()),
        );
    }
}

/// The value of a string constant.
fn string_const(e: &IrExpr) -> Option<&str> {
    match &e.kind {
        IrExprKind::Const(Const::String(s)) => Some(s),
        _ => None,
    }
}

fn list_values(values: &[serde_json::Value]) -> String {
    values.iter().map(literal).collect::<Vec<_>>().join(", ")
}

/// A JSON value as the expression literal that denotes it, in backticks.
fn literal(v: &serde_json::Value) -> String {
    let e = IrExpr::constant(
        Const::from_json(v),
        crate::span::Span::new(crate::span::FileId(0), 0, 0),
    );
    format!(
        "`{}`",
        e.to_source(&PathTable::new())
            .unwrap_or_else(|| v.to_string())
    )
}

/// Whether values of these kinds can ever be equal (ints and doubles compare).
fn comparable(a: Kinds, b: Kinds) -> bool {
    let widen = |k: Kinds| {
        if k.intersects(Kinds::NUMBER) {
            k.or(Kinds::NUMBER)
        } else {
            k
        }
    };
    widen(a).intersects(widen(b))
}

/// The kinds of `a OP b` on numbers: int with int stays int; any double makes
/// a double (`docs/src/semantics.md#arithmetic`: mixing promotes to double).
fn arith_result(a: Kinds, b: Kinds) -> Kinds {
    let mut k = Kinds::NONE;
    if a.intersects(Kinds::INT) && b.intersects(Kinds::INT) {
        k = k.or(Kinds::INT);
    }
    if a.intersects(Kinds::DOUBLE) || b.intersects(Kinds::DOUBLE) {
        k = k.or(Kinds::DOUBLE);
    }
    k
}

fn const_type(c: &Const) -> Type {
    match c {
        Const::List(items) => {
            let elem = items
                .iter()
                .map(const_type)
                .reduce(|a, b| a.union(&b))
                .unwrap_or_else(|| Type::of(Kinds::NONE));
            Type {
                kinds: Kinds::LIST,
                schema: None,
                elem: Some(Box::new(elem)),
            }
        }
        c => Type::of(c.kinds()),
    }
}

mod findings;
