//! Tests of the hook index: keys, tables, and candidates against a scan.

use super::*;
use serde_json::json;

#[test]
fn equal_numbers_share_a_key() {
    let k = |v: Value| IndexKey::of(&v).map(|k| format!("{k:?}"));
    assert_eq!(k(json!(1)), k(json!(1.0)));
    assert_eq!(k(json!(0)), k(json!(-0.0)));
    assert_ne!(k(json!(1)), k(json!(1.5)));
    assert_ne!(k(json!(1)), k(json!("1")));
    assert_eq!(k(json!(null)), None);
    assert_eq!(k(json!(u64::MAX)), k(json!(u64::MAX as f64)));
}

fn interval(lo: f64, hi: f64) -> Interval {
    Interval { lo, hi }
}

#[test]
fn a_number_finds_every_range_that_allows_it() {
    let inf = f64::INFINITY;
    let hooks = [
        (0, interval(-inf, 1.0)),
        (1, interval(1.0, 1.0)),
        (2, interval(2.0, 5.0)),
        (3, interval(5.0, inf)),
        (4, interval(3.0, 2.0)),
    ];
    let table = RangeTable::new(&hooks);
    assert_eq!(table.cuts, [1.0, 2.0, 3.0, 5.0]);
    for x in [
        -10.0, 0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, inf, -inf,
    ] {
        let got = table.candidates(x);
        for &(pos, i) in &hooks {
            if i.lo <= x && x <= i.hi {
                assert!(got.contains(&pos), "{x}: {pos} missing from {got:?}");
            }
        }
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{x}: {got:?}");
        // The empty interval is in no cell.
        assert!(!got.contains(&4), "{x}");
    }
    assert_eq!(table.candidates(0.0), [0]);
    // 5 and 6 share a cell: the hook ending at 5 is a candidate.
    assert_eq!(table.candidates(6.0), [2, 3]);
}

#[test]
fn wide_ranges_get_fewer_cuts() {
    // 1,000 one-sided ranges with distinct bounds: each spans about half
    // the cells, so the table thins its cuts to stay in budget.
    let hooks: Vec<(u32, Interval)> = (0..1000)
        .map(|i| (i, interval(f64::from(i), f64::INFINITY)))
        .collect();
    let table = RangeTable::new(&hooks);
    let entries: usize = table.cells.iter().map(Vec::len).sum();
    assert!(table.cuts.len() <= MAX_CUTS);
    assert!(
        entries <= hooks.len() * RANGE_ENTRIES_PER_HOOK + MAX_CUTS,
        "{entries} entries"
    );
    for x in [0.0, 10.5, 500.0, 999.0, 1e9] {
        let got = table.candidates(x);
        let want = hooks.iter().filter(|(_, i)| i.lo <= x).count();
        assert!(got.len() >= want, "{x}");
    }
}

#[test]
fn or_chains_key_by_the_union_on_one_probe() {
    let p = PathIdx::new(0);
    let probe = |kind| Probe { path: p, kind };
    let keys = |ks: &[&'static str]| Allowed::Keys(ks.iter().map(|k| IndexKey::Str(k)).collect());
    // Prefixes at the shortest; an equality by its first bytes.
    let got = union(vec![
        (probe(ProbeKind::Prefix(3)), keys(&["abc"])),
        (probe(ProbeKind::Prefix(1)), keys(&["x"])),
        (probe(ProbeKind::Value), keys(&["yz"])),
    ]);
    assert_eq!(
        got,
        Some((probe(ProbeKind::Prefix(1)), keys(&["a", "x", "y"])))
    );
    // A string shorter than the prefix, or cut inside a character.
    let short = union(vec![
        (probe(ProbeKind::Prefix(2)), keys(&["ab"])),
        (probe(ProbeKind::Value), keys(&["a"])),
    ]);
    assert_eq!(short, None);
    let split = union(vec![
        (probe(ProbeKind::Prefix(1)), keys(&["a"])),
        (probe(ProbeKind::Prefix(2)), keys(&["é"])),
    ]);
    assert_eq!(split, None);
    // Intervals by their hull; no mixing of kinds or paths.
    let got = union(vec![
        (probe(ProbeKind::Range), Allowed::Range(interval(1.0, 2.0))),
        (probe(ProbeKind::Range), Allowed::Range(interval(5.0, 6.0))),
    ]);
    assert_eq!(
        got,
        Some((probe(ProbeKind::Range), Allowed::Range(interval(1.0, 6.0))))
    );
    let mixed = union(vec![
        (probe(ProbeKind::Range), Allowed::Range(interval(1.0, 2.0))),
        (probe(ProbeKind::Value), keys(&["a"])),
    ]);
    assert_eq!(mixed, None);
    let other = Probe {
        path: PathIdx::new(1),
        kind: ProbeKind::Value,
    };
    assert_eq!(
        union(vec![
            (probe(ProbeKind::Value), keys(&["a"])),
            (other, keys(&["b"]))
        ]),
        None
    );
}

#[test]
fn candidates_span_windows_in_order_once_each() {
    // 5,000 hooks: windows of 1,024 positions; two columns listing
    // some positions twice (an `||` across paths), always-candidates
    // in every window.
    let n = 5000u32;
    let hooks: Vec<u32> = (0..n).map(|h| h + 100).collect();
    let mut a = KeyTable::default();
    let mut b = KeyTable::default();
    let mut always = vec![0u64; (n as usize).div_ceil(64)];
    let mut want = Vec::new();
    for pos in 0..n {
        let (in_a, in_b, alw) = (pos % 7 == 0, pos % 11 == 0, pos % 13 == 5);
        if in_a {
            a.insert(IndexKey::Str("x"), pos);
        }
        if in_b {
            b.insert(IndexKey::Str("x"), pos);
        }
        if alw {
            always[pos as usize / 64] |= 1 << (pos % 64);
        }
        if in_a || in_b || alw {
            want.push(pos + 100);
        }
    }
    let probe = |i| Probe {
        path: PathIdx::new(i),
        kind: ProbeKind::Value,
    };
    let index = HookIndex {
        hooks,
        has_always: true,
        always,
        paths: vec![(probe(0), Column::Keys(a)), (probe(1), Column::Keys(b))],
    };
    let x = json!("x");
    let got: Vec<u32> = index.candidates(|_| Some(&x));
    assert_eq!(got, want);
    let got: Vec<u32> = index.candidates(|_| None);
    let only_always: Vec<u32> = (0..n).filter(|p| p % 13 == 5).map(|p| p + 100).collect();
    assert_eq!(got, only_always);
}

#[test]
fn a_substring_column_of_more_than_64_literals_lists_a_superset() {
    // 200 hooks, each keyed by its own literal: masks fold literal
    // numbers modulo 64, so a literal's lookup lists its hook and a
    // few that share its bit (numbers 64 apart), never fewer.
    let keyed: Vec<(u32, Vec<Box<str>>)> = (0..200)
        .map(|i| (i, vec![format!("<{i}>").into()]))
        .collect();
    let table = SubstringTable::new(&keyed).unwrap();
    let index = HookIndex {
        hooks: (0..200).collect(),
        always: vec![0; 4],
        has_always: false,
        paths: vec![(
            Probe {
                path: PathIdx::new(0),
                kind: ProbeKind::Substring,
            },
            Column::Substrings(table),
        )],
    };
    for i in 0..200u32 {
        let s = json!(format!("a <{i}> b"));
        let got: Vec<u32> = index.candidates(|_| Some(&s));
        let want: Vec<u32> = (0..200).filter(|j| j % 64 == i % 64).collect();
        assert_eq!(got, want, "<{i}>");
    }
    let two = json!("<3><130>");
    let got: Vec<u32> = index.candidates(|_| Some(&two));
    let want: Vec<u32> = (0..200).filter(|j| j % 64 == 3 || j % 64 == 2).collect();
    assert_eq!(got, want);
    let none = json!("no literal here");
    assert!(index.candidates(|_| Some(&none)).is_empty());
}

#[test]
fn candidates_merge_in_order() {
    let mut a = KeyTable::default();
    for (key, pos) in [("x", 0), ("x", 4), ("y", 2)] {
        a.insert(IndexKey::Str(key), pos);
    }
    let index = HookIndex {
        hooks: vec![10, 11, 12, 13, 14, 15],
        always: vec![1 << 1 | 1 << 5],
        has_always: true,
        paths: vec![(
            Probe {
                path: PathIdx::new(0),
                kind: ProbeKind::Value,
            },
            Column::Keys(a),
        )],
    };
    let x = json!("x");
    let got: Vec<u32> = index.candidates(|_| Some(&x));
    assert_eq!(got, [10, 11, 14, 15]);
    let got: Vec<u32> = index.candidates(|_| None);
    assert_eq!(got, [11, 15]);
}
