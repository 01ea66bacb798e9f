//! The function table's own invariants.

use super::*;
use std::collections::HashSet;

#[test]
fn ids_are_unique_and_round_trip() {
    let mut seen = HashSet::new();
    for &f in Builtin::ALL {
        assert!(seen.insert(f.id()), "id {:#x} given twice", f.id());
        assert_eq!(Builtin::from_id(f.id()), Some(f));
    }
    assert_eq!(Builtin::from_id(0), None);
}

#[test]
fn overloads_differ_in_arity_and_patterns_come_last() {
    let mut seen = HashSet::new();
    for &f in Builtin::ALL {
        let d = f.def();
        assert!(
            seen.insert((d.namespace, d.name, d.params.len())),
            "{} has two rows of {} parameters",
            d.qualified_name(),
            d.params.len()
        );
        let patterns = d.params.iter().filter(|p| p.pattern.is_some()).count();
        assert!(patterns <= 1);
        if patterns == 1 {
            assert!(d.pattern().is_some(), "{}: the pattern is not last", d.name);
            assert!(matches!(d.lowering, Lowering::Call | Lowering::RegexTest));
        }
        if d.lowering == Lowering::RegexTest {
            // `Matches` pops one string and pushes a bool.
            assert_eq!(d.stack_arity(), 1, "{}", d.name);
            assert_eq!(
                d.params.first().map(|p| p.kinds),
                Some(Kinds::STRING),
                "{}",
                d.name
            );
            assert_eq!(d.result, Kinds::BOOL, "{}", d.name);
            assert!(d.pattern().is_some(), "{}", d.name);
        }
        if d.form != Form::Global {
            assert!(
                !d.params.is_empty(),
                "{}: a method needs a receiver",
                d.name
            );
        }
        if let Lowering::Instruction(op) = d.lowering {
            assert_eq!(op.stack_effect(), (d.stack_arity(), 1), "{}", d.name);
        }
        assert!(!d.summary.is_empty(), "{}: no summary", d.name);
    }
}

#[test]
fn errors_propagate_and_wrong_kinds_are_no_such_overload() {
    let mut scratch = Scratch::default();
    let e = Val::Error(EvalError::NoSuchKey);
    let s = Val::Str(Cow::Borrowed("a"));
    assert!(matches!(
        call(Builtin::Contains, &[s.clone(), e], None, &mut scratch),
        Val::Error(EvalError::NoSuchKey)
    ));
    assert!(matches!(
        call(Builtin::Contains, &[s, Val::Int(1)], None, &mut scratch),
        Val::Error(EvalError::NoSuchOverload)
    ));
    assert!(matches!(
        call(Builtin::Size, &[], None, &mut scratch),
        Val::Error(EvalError::NoSuchOverload)
    ));
}

#[test]
fn join_joins_strings_only() {
    let mut scratch = Scratch::default();
    let list = Val::List(vec![Val::Str("a".into()), Val::Str("b".into())]);
    let sep = Val::Str(", ".into());
    assert!(matches!(
        call(Builtin::JoinSep, &[list.clone(), sep], None, &mut scratch),
        Val::Str(s) if s == "a, b"
    ));
    assert!(matches!(
        call(Builtin::Join, &[list], None, &mut scratch),
        Val::Str(s) if s == "ab"
    ));
    let mixed = Val::List(vec![Val::Str("a".into()), Val::Int(1)]);
    assert!(matches!(
        call(Builtin::Join, &[mixed], None, &mut scratch),
        Val::Error(EvalError::NoSuchOverload)
    ));
}

#[test]
fn built_strings_stop_at_the_bound() {
    let mut scratch = Scratch::default();
    let limit = crate::limits::MAX_RESULT_BYTES;
    // `''.replace` inserts `new` before every code point and after the
    // last: n + 1 copies of it.
    let replace = |n: usize, new: &str, scratch: &mut Scratch<'_>| {
        let s = Val::Str(Cow::Owned("a".repeat(n)));
        let args = [s, Val::Str("".into()), Val::Str(Cow::Owned(new.to_owned()))];
        match call(Builtin::Replace, &args, None, scratch) {
            Val::Str(r) => Ok(r.len()),
            Val::Error(e) => Err(e),
            other => panic!("{other:?}"),
        }
    };
    // Exactly at the bound: n + (n + 1) * 3 == limit for n = (limit - 3) / 4.
    let n = (limit - 3) / 4;
    assert_eq!((limit - 3) % 4, 1);
    assert!(replace(n, "bbb", &mut scratch).is_ok_and(|len| len <= limit));
    assert_eq!(
        replace(n + 1, "bbb", &mut scratch),
        Err(EvalError::InvalidArgument)
    );
    // A join is refused before it is built too: 100,000 items joined by a
    // 1 MiB separator.
    let items = Val::List(vec![Val::Str("".into()); 100_000]);
    let sep = Val::Str(Cow::Owned("s".repeat(1 << 20)));
    assert!(matches!(
        call(Builtin::JoinSep, &[items, sep], None, &mut scratch),
        Val::Error(EvalError::InvalidArgument)
    ));
    // Refused before it is built: this result would be 2^46 bytes.
    let big = "b".repeat(1 << 23);
    assert_eq!(
        replace(1 << 23, &big, &mut scratch),
        Err(EvalError::InvalidArgument)
    );
}
