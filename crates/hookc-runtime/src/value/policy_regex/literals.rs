//! What a pattern requires of a haystack, read from its syntax tree: the
//! literals every match contains ([`required_literals`]), one-of-several
//! literals of an alternation, and whether `regex-lite` means what `regex`
//! does for it ([`lite_safe`]).

use super::*;
use regex_syntax::ast::{Ast, GroupKind, RepetitionKind, RepetitionRange};

/// The literals every match of `ast` contains: longest first (the rarest
/// in practice), at most [`MAX_REQUIRED`].
pub(super) fn required_of(ast: &Ast) -> Vec<String> {
    let mut literals = Vec::new();
    if walk(ast, true, &mut literals).is_err() {
        literals.clear();
    }
    // Equal ones adjacent for `dedup`.
    literals.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    literals.dedup();
    literals.truncate(MAX_REQUIRED);
    literals
}

// Most literals in a [`one_of_literals`] set: more would cost a search
// each for little.
use crate::limits::MAX_REGEX_ONE_OF as MAX_ONE_OF;

/// Literals of which every match of `ast` contains at least one, when the
/// tree says so: a literal run; a group or a repetition of at least one of
/// something that has such a set; the best set among a concatenation's
/// parts (the one whose shortest literal is longest); and, for an
/// alternation, the union of its branches' sets, when every branch has
/// one. Nothing else has a set (a class, `.`, an optional part), nor a
/// pattern that sets flags anywhere (`(?i)` changes what a literal
/// matches), nor a set past [`MAX_ONE_OF`]. Exact as the required
/// literals are: a haystack with none of the set cannot hold a match
/// (`tests`: random patterns against the compiled regex).
pub(super) fn one_of_literals(ast: &Ast) -> Option<Vec<String>> {
    let set = one_of(ast).ok()??;
    (!set.is_empty() && set.len() <= MAX_ONE_OF && set.iter().all(|l| !l.is_empty())).then_some(set)
}

/// [`one_of_literals`]'s walk: `Ok(None)` for no set, `Err` for a flag
/// anywhere. Recursion is bounded by the parser's nesting limit.
fn one_of(ast: &Ast) -> Result<Option<Vec<String>>, Flagged> {
    Ok(match ast {
        Ast::Flags(set) if neutral(&set.flags) => None,
        Ast::Flags(_) => return Err(Flagged),
        Ast::Literal(lit) => Some(vec![lit.c.to_string()]),
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(set) = &group.kind {
                if !set.items.is_empty() && !neutral(set) {
                    return Err(Flagged);
                }
            }
            one_of(&group.ast)?
        }
        Ast::Repetition(rep) => {
            let at_least_one = match &rep.op.kind {
                RepetitionKind::OneOrMore => true,
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => false,
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(n, _),
                ) => *n >= 1,
            };
            let inner = one_of(&rep.ast)?;
            inner.filter(|_| at_least_one)
        }
        Ast::Alternation(alt) => {
            let mut union: Vec<String> = Vec::new();
            let mut every = true;
            for branch in &alt.asts {
                match one_of(branch)? {
                    Some(set) => union.extend(set),
                    None => every = false,
                }
            }
            union.sort();
            union.dedup();
            (every && union.len() <= MAX_ONE_OF).then_some(union)
        }
        Ast::Concat(concat) => {
            let mut best: Option<Vec<String>> = None;
            let mut consider = |set: Vec<String>| {
                let shortest = |s: &[String]| s.iter().map(String::len).min().unwrap_or(0);
                if best.as_ref().is_none_or(|b| shortest(&set) > shortest(b)) {
                    best = Some(set);
                }
            };
            let mut run = String::new();
            for part in &concat.asts {
                if let Ast::Literal(lit) = part {
                    run.push(lit.c);
                    continue;
                }
                if !run.is_empty() {
                    consider(vec![std::mem::take(&mut run)]);
                }
                if let Some(set) = one_of(part)? {
                    consider(set);
                }
            }
            if !run.is_empty() {
                consider(vec![run]);
            }
            best
        }
        Ast::Empty(_)
        | Ast::Dot(_)
        | Ast::Assertion(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => None,
    })
}

/// Whether `regex-lite` gives the pattern `ast` the meaning `regex` gives
/// it: built of literals (written, escaped meta characters, `\n` and the
/// like), `.`, bracketed classes of literals and ranges, `^` `$` `\A`
/// `\z`, groups, repetitions and alternations, with no flag but `s` and
/// `m`. Left out, as the two crates read them differently: Perl and
/// Unicode classes (ASCII in `regex-lite`), word boundaries (ASCII there),
/// case folding (ASCII there), and everything else to be safe.
pub fn lite_safe(ast: &Ast) -> bool {
    regex_syntax::ast::visit(ast, LiteSafe).is_ok()
}

/// The visitor of [`lite_safe`]: an error at the first construct outside
/// the subset.
struct LiteSafe;

impl regex_syntax::ast::Visitor for LiteSafe {
    type Output = ();
    type Err = ();

    fn finish(self) -> Result<(), ()> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
        use regex_syntax::ast::{AssertionKind, LiteralKind};
        let flags_ok = |flags: &regex_syntax::ast::Flags| {
            flags.items.iter().all(|item| {
                matches!(
                    item.kind,
                    regex_syntax::ast::FlagsItemKind::Negation
                        | regex_syntax::ast::FlagsItemKind::Flag(
                            regex_syntax::ast::Flag::DotMatchesNewLine
                                | regex_syntax::ast::Flag::MultiLine
                        )
                )
            })
        };
        let ok = match ast {
            Ast::Empty(_)
            | Ast::Dot(_)
            | Ast::Repetition(_)
            | Ast::Alternation(_)
            | Ast::Concat(_) => true,
            Ast::Literal(l) => matches!(
                l.kind,
                LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Special(_)
            ),
            Ast::Assertion(a) => matches!(
                a.kind,
                AssertionKind::StartLine
                    | AssertionKind::EndLine
                    | AssertionKind::StartText
                    | AssertionKind::EndText
            ),
            Ast::Flags(f) => flags_ok(&f.flags),
            Ast::Group(g) => match &g.kind {
                GroupKind::CaptureIndex(_) | GroupKind::CaptureName { .. } => true,
                GroupKind::NonCapturing(flags) => flags_ok(flags),
            },
            Ast::ClassBracketed(_) => true,
            Ast::ClassUnicode(_) | Ast::ClassPerl(_) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(())
        }
    }

    fn visit_class_set_item_pre(
        &mut self,
        item: &regex_syntax::ast::ClassSetItem,
    ) -> Result<(), ()> {
        use regex_syntax::ast::{ClassSetItem, LiteralKind};
        let literal = |l: &regex_syntax::ast::Literal| {
            matches!(
                l.kind,
                LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Special(_)
            )
        };
        let ok = match item {
            ClassSetItem::Empty(_) | ClassSetItem::Union(_) => true,
            ClassSetItem::Literal(l) => literal(l),
            ClassSetItem::Range(r) => literal(&r.start) && literal(&r.end),
            ClassSetItem::Ascii(_)
            | ClassSetItem::Unicode(_)
            | ClassSetItem::Perl(_)
            | ClassSetItem::Bracketed(_) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(())
        }
    }

    fn visit_class_set_binary_op_pre(
        &mut self,
        _op: &regex_syntax::ast::ClassSetBinaryOp,
    ) -> Result<(), ()> {
        Err(())
    }
}

/// The pattern sets flags: its literals are not known to match themselves.
pub(super) struct Flagged;

/// Whether `flags` leave what a literal matches alone (`s`, `m`, `U`, `R`:
/// they change `.`, the anchors and greediness), so that a literal walk
/// reads past them; `i`, `x` and `u` end the walk.
pub(super) fn neutral(flags: &regex_syntax::ast::Flags) -> bool {
    use regex_syntax::ast::{Flag, FlagsItemKind};
    flags.items.iter().all(|item| {
        matches!(
            item.kind,
            FlagsItemKind::Negation
                | FlagsItemKind::Flag(
                    Flag::DotMatchesNewLine | Flag::MultiLine | Flag::SwapGreed | Flag::CRLF
                )
        )
    })
}

/// Walks `ast`, appending to `out`, when `required`, the literal runs every
/// match of it contains; parts that need not match are walked for flags
/// only.
pub(super) fn walk(ast: &Ast, required: bool, out: &mut Vec<String>) -> Result<(), Flagged> {
    match ast {
        Ast::Flags(set) if neutral(&set.flags) => {}
        Ast::Flags(_) => return Err(Flagged),
        Ast::Literal(lit) if required => out.push(lit.c.to_string()),
        Ast::Concat(concat) => {
            let mut run = String::new();
            for part in &concat.asts {
                match part {
                    Ast::Literal(lit) => run.push(lit.c),
                    _ => {
                        if required && !run.is_empty() {
                            out.push(std::mem::take(&mut run));
                        }
                        run.clear();
                        walk(part, required, out)?;
                    }
                }
            }
            if required && !run.is_empty() {
                out.push(run);
            }
        }
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(set) = &group.kind {
                if !set.items.is_empty() && !neutral(set) {
                    return Err(Flagged);
                }
            }
            walk(&group.ast, required, out)?;
        }
        Ast::Repetition(rep) => {
            let min = match &rep.op.kind {
                RepetitionKind::OneOrMore => 1,
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => 0,
                RepetitionKind::Range(
                    RepetitionRange::Exactly(n)
                    | RepetitionRange::AtLeast(n)
                    | RepetitionRange::Bounded(n, _),
                ) => *n,
            };
            walk(&rep.ast, required && min >= 1, out)?;
        }
        Ast::Alternation(alt) => {
            for branch in &alt.asts {
                walk(branch, false, out)?;
            }
        }
        Ast::Literal(_)
        | Ast::Empty(_)
        | Ast::Dot(_)
        | Ast::Assertion(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => {}
    }
    Ok(())
}
