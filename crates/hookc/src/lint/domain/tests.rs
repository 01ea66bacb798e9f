//! Tests of the abstract domain: numbers as intervals, strings by exact value
//! and prefix, inclusion and overlap, and value sets keeping kinds apart.

use super::*;

#[test]
fn numbers_compare_as_intervals() {
    let gt5 = NumSet::compare(Cmp::Gt, 5.0);
    let gt10 = NumSet::compare(Cmp::Gt, 10.0);
    assert!(ValueSet::numbers(gt10.clone()).within(&ValueSet::numbers(gt5.clone())));
    assert!(!ValueSet::numbers(gt5.clone()).within(&ValueSet::numbers(gt10.clone())));
    assert_eq!(gt5.describe(), "(5, +inf)");
    let ge5 = NumSet::compare(Cmp::Ge, 5.0);
    assert_eq!(ge5.describe(), "[5, +inf)");
    // x > 5 is inside x >= 5, not the other way.
    assert!(gt5.combine(&ge5, SetOp::AndNot).is_empty());
    assert!(!ge5.combine(&gt5, SetOp::AndNot).is_empty());
    // Over the reals, x > 1 does not imply x >= 2 (1.5 is a double).
    let gt1 = NumSet::compare(Cmp::Gt, 1.0);
    let ge2 = NumSet::compare(Cmp::Ge, 2.0);
    assert!(!gt1.combine(&ge2, SetOp::AndNot).is_empty());
    // Contradictory ranges.
    let lt3 = NumSet::compare(Cmp::Lt, 3.0);
    assert!(lt3.combine(&gt5, SetOp::And).is_empty());
    // x < 5 or x >= 5 is every number; x < 5 or x > 5 misses 5.
    let lt5 = NumSet::compare(Cmp::Lt, 5.0);
    assert!(lt5.combine(&ge5, SetOp::Or).is_full());
    let holed = lt5.combine(&gt5, SetOp::Or);
    assert!(!holed.is_full());
    assert_eq!(holed.describe(), "(-inf, 5) ∪ (5, +inf)");
    assert!(holed.combine(&NumSet::points([5.0]), SetOp::Or).is_full());
    assert_eq!(
        NumSet::points([3.0, 1.0, 1.0]).finite_points(),
        Some(vec![1.0, 3.0])
    );
    assert_eq!(NumSet::points([-0.0]).finite_points(), Some(vec![0.0]));
}

#[test]
fn canonical_number_sets_are_equal() {
    let a = NumSet::compare(Cmp::Lt, 2.0).combine(&NumSet::compare(Cmp::Ge, 2.0), SetOp::Or);
    assert_eq!(a, NumSet::full());
    let b = NumSet::compare(Cmp::Gt, 1.0).combine(&NumSet::compare(Cmp::Lt, 1.0), SetOp::And);
    assert_eq!(b, NumSet::empty());
}

#[test]
fn strings_by_exact_and_prefix() {
    let a = StrSet::of(["a"]);
    let b = StrSet::of(["b"]);
    assert!(a.combine(&b, SetOp::And).is_empty());
    let ab = a.combine(&b, SetOp::Or);
    assert_eq!(ab.finite(), Some(vec!["a", "b"]));
    let auth = StrSet::starting_with("AUTH_");
    assert!(auth.contains("AUTH_X") && !auth.contains("AUT"));
    let exact = StrSet::of(["AUTH_TOKEN"]);
    assert!(exact.combine(&auth, SetOp::AndNot).is_empty());
    assert!(!auth.combine(&exact, SetOp::AndNot).is_empty());
    // Longer prefixes inside shorter ones.
    let authz = StrSet::starting_with("AUTH_Z");
    assert!(authz.combine(&auth, SetOp::AndNot).is_empty());
    // Complements: not 'a' and 'a' cover everything.
    let not_a = StrSet::full().combine(&a, SetOp::AndNot);
    assert!(not_a.combine(&a, SetOp::Or).is_full());
    assert!(!not_a.contains("a") && not_a.contains("b"));
    // Not starting with AUTH_, then add back AUTH_ strings.
    let rest = StrSet::full().combine(&auth, SetOp::AndNot);
    assert!(rest.combine(&auth, SetOp::Or).is_full());
    assert_eq!(rest.combine(&auth, SetOp::Or), StrSet::full());
    assert!(rest.combine(&exact, SetOp::And).is_empty());
    // `startsWith('')` is every string.
    assert!(StrSet::starting_with("").is_full());
}

#[test]
fn inclusion_and_overlap_agree_with_set_operations() {
    let sets = [
        ValueSet::numbers(NumSet::compare(Cmp::Gt, 5.0)),
        ValueSet::numbers(NumSet::compare(Cmp::Ge, 5.0)),
        ValueSet::numbers(NumSet::points([5.0, 7.0])),
        ValueSet::numbers(NumSet::compare(Cmp::Lt, 5.0)),
        ValueSet::strings(StrSet::starting_with("AUTH_")),
        ValueSet::strings(StrSet::of(["AUTH_X", "b"])),
        ValueSet::strings(StrSet::full().minus(&StrSet::of(["b"]))),
        ValueSet::present(),
        ValueSet::bits(Bits::MISSING.or(Bits::NULL)),
        ValueSet::all(),
        ValueSet::none(),
    ];
    for a in &sets {
        for b in &sets {
            assert_eq!(a.within(b), a.minus(b).is_empty(), "{a:?} within {b:?}");
            assert_eq!(a.meets(b), !a.and(b).is_empty(), "{a:?} meets {b:?}");
        }
    }
    assert_eq!(
        ValueSet::union_all(sets.to_vec()),
        sets.iter().fold(ValueSet::none(), |u, s| u.or(s))
    );
}

#[test]
fn value_sets_keep_kinds_apart() {
    let one = ValueSet::of_const(&crate::ir::Const::Int(1)).unwrap();
    let one_d = ValueSet::of_const(&crate::ir::Const::Double(1.0)).unwrap();
    assert_eq!(one, one_d);
    let s = ValueSet::of_const(&crate::ir::Const::String("1".into())).unwrap();
    assert!(!one.meets(&s));
    assert!(ValueSet::present()
        .or(&ValueSet::bits(Bits::MISSING))
        .is_all());
    assert!(ValueSet::all().not().is_empty());
    assert_eq!(
        one.or(&s).finite(),
        Some(vec![Scalar::Num(1f64.to_bits()), Scalar::Str("1".into())])
    );
    assert_eq!(ValueSet::present().finite(), None);
    let list = [
        crate::ir::Const::Int(1),
        crate::ir::Const::String("1".into()),
        crate::ir::Const::Double(1.0),
    ];
    assert_eq!(ValueSet::of_consts(&list), Some(one.or(&s)));
    // Numbers too large to be exact are not taken.
    assert!(ValueSet::of_const(&crate::ir::Const::Int(1 << 53)).is_none());
    assert!(ValueSet::of_const(&crate::ir::Const::Double(f64::NAN)).is_none());
}

/// Every string over `ab` up to `n` characters.
fn small_strings(n: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..n {
        last = last
            .iter()
            .flat_map(|s| ["a", "b"].map(|c| format!("{s}{c}")))
            .collect();
        all.extend(last.iter().cloned());
    }
    all
}

#[test]
fn string_patterns_claim_only_what_holds() {
    let words = small_strings(3);
    let probe = small_strings(7);
    let patterns: Vec<StrPattern> = words
        .iter()
        .flat_map(|w| {
            [
                StrPattern::Suffix(w.clone()),
                StrPattern::Contains(w.clone()),
            ]
        })
        .collect();
    for a in &patterns {
        for b in &patterns {
            if a.implies(b) {
                for s in &probe {
                    assert!(!a.test(s) || b.test(s), "{a:?} ⇒ {b:?} fails on {s:?}");
                }
            }
        }
    }
    // Sets of one or two entries and their complements.
    let mut sets = vec![StrSet::full(), StrSet::empty()];
    for w in &words {
        sets.push(StrSet::of([w.as_str()]));
        sets.push(StrSet::starting_with(w));
        for v in &words {
            sets.push(StrSet::starting_with(w).minus(&StrSet::of([v.as_str()])));
            sets.push(StrSet::starting_with(w).minus(&StrSet::starting_with(v)));
        }
    }
    let mut claims = 0;
    for set in &sets {
        for p in &patterns {
            for expect in [true, false] {
                if set.all_pass(p, expect) {
                    claims += 1;
                    for s in probe.iter().filter(|s| set.contains(s)) {
                        assert_eq!(p.test(s), expect, "{set:?} {p:?} {expect} on {s:?}");
                    }
                }
            }
        }
    }
    assert!(claims > 1000, "{claims}");
}
