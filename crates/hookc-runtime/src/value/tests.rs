//! Unit tests of the value semantics (`value/mod.rs`).

use super::*;
use serde_json::json;

fn s(x: &str) -> Val<'_> {
    Val::Str(Cow::Borrowed(x))
}

#[test]
fn same_str_is_string_equality_at_every_length_and_position() {
    for len in 0..40 {
        let a: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        assert!(same_str(&a, &a.clone()), "len {len}");
        assert!(!same_str(&a, &format!("{a}x")), "len {len}");
        for at in 0..len {
            let mut b = a.clone().into_bytes();
            b[at] = b'#';
            let b = String::from_utf8(b).unwrap();
            assert!(!same_str(&a, &b), "len {len}, differs at {at}");
        }
    }
}

#[test]
fn equality_is_heterogeneous_and_numeric() {
    assert!(eq(&Val::Int(1), &Val::Double(1.0)));
    assert!(!eq(&Val::Int(1), &s("1")));
    assert!(!eq(&Val::Double(f64::NAN), &Val::Double(f64::NAN)));
    let a = json!([1, "dos"]);
    let b = json!([1.0, "dos"]);
    assert!(eq(&Val::from_json(&a), &Val::from_json(&b)));
    let built = Val::List(vec![Val::Int(1), s("dos")]);
    assert!(eq(&built, &Val::from_json(&a)));
    let o1 = json!({"a": 1, "b": [true]});
    let o2 = json!({"b": [true], "a": 1.0});
    assert!(eq(&Val::from_json(&o1), &Val::from_json(&o2)));
}

#[test]
fn ordering_is_defined_on_numbers_strings_and_bools_only() {
    assert!(matches!(
        compare(Order::Lt, &Val::Int(1), &Val::Double(1.5)),
        Val::Bool(true)
    ));
    assert!(matches!(
        compare(Order::Lt, &s("a"), &s("b")),
        Val::Bool(true)
    ));
    assert!(matches!(
        compare(Order::Lt, &Val::Bool(false), &Val::Bool(true)),
        Val::Bool(true)
    ));
    assert!(matches!(
        compare(Order::Lt, &Val::Null, &Val::Null),
        Val::Error(EvalError::NoSuchOverload)
    ));
    assert!(matches!(
        compare(Order::Gt, &s("a"), &Val::Int(1)),
        Val::Error(_)
    ));
    // The int converts to double: i64::MAX and 2^63 compare equal.
    assert!(matches!(
        compare(
            Order::Lt,
            &Val::Int(i64::MAX),
            &Val::Double(9223372036854775808.0)
        ),
        Val::Bool(false)
    ));
}

#[test]
fn int_arithmetic_checks_and_mixing_promotes() {
    assert!(matches!(
        arith(Arith::Add, &Val::Int(i64::MAX), &Val::Int(1)),
        Val::Error(EvalError::Overflow)
    ));
    assert!(matches!(
        arith(Arith::Div, &Val::Int(1), &Val::Int(0)),
        Val::Error(EvalError::DivisionByZero)
    ));
    assert!(matches!(
        arith(Arith::Rem, &Val::Int(-7), &Val::Int(2)),
        Val::Int(-1)
    ));
    assert!(matches!(
        arith(Arith::Div, &Val::Int(-7), &Val::Int(2)),
        Val::Int(-3)
    ));
    assert!(
        matches!(arith(Arith::Add, &Val::Int(1), &Val::Double(0.5)), Val::Double(d) if d == 1.5)
    );
    assert!(matches!(
        arith(Arith::Rem, &Val::Double(4.5), &Val::Double(2.0)),
        Val::Error(_)
    ));
    assert!(
        matches!(arith(Arith::Div, &Val::Double(0.0), &Val::Double(0.0)), Val::Double(d) if d.is_nan())
    );
    assert!(matches!(arith(Arith::Add, &s("a"), &s("b")), Val::Str(x) if x == "ab"));
    assert!(matches!(
        negate(&Val::Int(i64::MIN)),
        Val::Error(EvalError::Overflow)
    ));
}

#[test]
fn logic_absorbs_errors_commutatively() {
    let e = || Val::Error(EvalError::NoSuchKey);
    assert!(matches!(and(Val::Bool(false), e()), Val::Bool(false)));
    assert!(matches!(and(e(), Val::Bool(false)), Val::Bool(false)));
    assert!(matches!(and(Val::Bool(true), e()), Val::Error(_)));
    assert!(matches!(or(e(), Val::Bool(true)), Val::Bool(true)));
    assert!(matches!(or(Val::Bool(false), e()), Val::Error(_)));
    assert!(matches!(and(s("x"), Val::Bool(true)), Val::Error(_)));
    assert!(matches!(and(s("x"), Val::Bool(false)), Val::Bool(false)));
}

#[test]
fn indexing_and_fields() {
    let l = json!([7, 8, 9]);
    let list = Val::from_json(&l);
    assert!(matches!(index(&list, &Val::Double(0.0)), Val::Int(7)));
    assert!(matches!(
        index(&list, &Val::Double(0.1)),
        Val::Error(EvalError::InvalidArgument)
    ));
    assert!(matches!(
        index(&list, &Val::Int(3)),
        Val::Error(EvalError::IndexOutOfRange)
    ));
    assert!(matches!(
        index(&list, &Val::Int(-1)),
        Val::Error(EvalError::IndexOutOfRange)
    ));
    assert!(matches!(
        index(&list, &s("")),
        Val::Error(EvalError::NoSuchOverload)
    ));
    let o = json!({"a": {"b": null}});
    let obj = Val::from_json(&o);
    assert!(matches!(field(&field(&obj, "a"), "b"), Val::Null));
    assert!(matches!(field(&obj, "x"), Val::Error(EvalError::NoSuchKey)));
    assert!(matches!(
        field(&Val::Int(15), "x"),
        Val::Error(EvalError::NoSuchOverload)
    ));
    assert!(has_field(&field(&obj, "a"), "b"));
}

#[test]
fn const_sets_agree_with_list_membership() {
    let l = json!(["a", 1, 2.0, 2.5, null, [1], {"k": true}, 9007199254740993_i64]);
    let set = ConstSet::new(l.as_array().unwrap());
    let probes = json!(["a", "b", 1, 1.0, 2, 2.0, 2.5, 3, null, false, [1.0], [2], {"k": true},
            9007199254740992.0, 9007199254740993_i64]);
    for p in probes.as_array().unwrap() {
        let v = Val::from_json(p);
        let by_list = contains_elem(&v, &Val::from_json(&l));
        let by_set = set.contains(&v);
        assert!(
            matches!((&by_list, &by_set), (Val::Bool(a), Val::Bool(b)) if a == b),
            "{p}: {by_list:?} vs {by_set:?}"
        );
    }
}

/// A xorshift generator from `seed`: each call a number below its argument.
fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

#[test]
fn const_sets_of_random_strings_agree_with_list_membership() {
    // Strings of a small alphabet and of lengths 0 to 9, so that members
    // share lengths and prefixes, repeat, and probes hit and miss both.
    let mut next = below(0x9e37_79b9_7f4a_7c15_u64);
    fn word(next: &mut dyn FnMut(u64) -> u64) -> String {
        let len = next(10);
        (0..len)
            .map(|_| ['a', 'b', 'é', '/'][next(4) as usize])
            .collect()
    }
    for _ in 0..300 {
        let items: Vec<Value> = (0..next(24)).map(|_| json!(word(&mut next))).collect();
        let list = Value::Array(items.clone());
        let set = ConstSet::new(&items);
        for _ in 0..40 {
            let probe = word(&mut next);
            let v = s(&probe);
            let by_list = contains_elem(&v, &Val::from_json(&list));
            let by_set = set.contains(&v);
            assert!(
                matches!((&by_list, &by_set), (Val::Bool(a), Val::Bool(b)) if a == b),
                "{probe:?} in {list}: {by_list:?} vs {by_set:?}"
            );
        }
    }
}

/// `in` of a string in a JSON list and in a command's words (answered on
/// the strings where they lie) is the walk by `eq` that any other list
/// takes: on random lists of strings mixed with other kinds.
#[test]
fn string_membership_is_the_walk_by_equality() {
    let mut next = below(0x2545_f491_4f6c_dd1d_u64);
    let words = [
        "",
        "a",
        "ab",
        "rm",
        "tee",
        "é",
        "a/b",
        "ab/",
        "-rf",
        "0123456789abcdefg",
    ];
    for _ in 0..400 {
        let items: Vec<Value> = (0..next(12))
            .map(|_| match next(6) {
                0 => json!(1),
                1 => json!(null),
                2 => json!([words[next(10) as usize]]),
                _ => json!(words[next(10) as usize]),
            })
            .collect();
        let strings: Vec<Cow<'_, str>> = items
            .iter()
            .filter_map(|i| i.as_str().map(Cow::Borrowed))
            .collect();
        let list = Value::Array(items.clone());
        for probe in words {
            let v = s(probe);
            let walk = |l: &Val<'_>| {
                let n = l.list_len().unwrap_or(0);
                (0..n).any(|i| l.list_item(i).is_some_and(|item| eq(&v, &item)))
            };
            for l in [Val::from_json(&list), Val::Words(&strings)] {
                let got = contains_elem(&v, &l);
                assert!(
                    matches!(got, Val::Bool(b) if b == walk(&l)),
                    "{probe:?} in {l:?}: {got:?}"
                );
            }
        }
    }
}

#[test]
fn membership_size_and_strings() {
    let l = json!([5, 4, 3]);
    assert!(matches!(
        contains_elem(&Val::Double(3.0), &Val::from_json(&l)),
        Val::Bool(true)
    ));
    let o = json!({"k": 1});
    assert!(matches!(
        contains_elem(&s("k"), &Val::from_json(&o)),
        Val::Bool(true)
    ));
    assert!(matches!(size(&s("ίσος")), Val::Int(4)));
    assert!(matches!(
        str_pred(StrPred::StartsWith, &s("hello"), &s("he")),
        Val::Bool(true)
    ));
    assert!(matches!(
        str_pred(StrPred::Contains, &Val::Int(1), &s("1")),
        Val::Error(_)
    ));
}
