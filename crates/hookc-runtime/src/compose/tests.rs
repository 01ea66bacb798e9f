//! Unit tests of the linker on the verifier's sample program (every
//! instruction, every table); the differential test against the same
//! hooks compiled as layers is the compiler's (`crates/hookc/tests/suite/compose.rs`).

use super::*;
use crate::verify::tests::sample;

/// The sample with its ids, layer names and (when `replace`) marks
/// renamed by `f`.
fn renamed(f: impl Fn(&str) -> String) -> Program {
    let mut p = sample();
    let renames: Vec<StrIdx> = p
        .hooks
        .iter()
        .map(|h| h.id)
        .chain(p.layers.iter().copied())
        .chain(p.absent.iter().map(|a| a.id))
        .collect();
    let mut strings: Vec<String> = p.strings.iter().map(str::to_owned).collect();
    for i in renames {
        strings[i.as_usize()] = f(p.string(i));
    }
    p.strings = strings.into();
    p
}

fn ids(p: &Program) -> Vec<&str> {
    p.hooks.iter().map(|h| p.string(h.id)).collect()
}

#[test]
fn a_program_linked_over_another_verifies_with_both_hooks() {
    let overlay = renamed(|s| format!("o_{s}"));
    let linked = link(&sample(), &overlay).unwrap();
    let v = crate::verify::verify(linked.clone()).unwrap();
    let p = v.program();
    assert_eq!(p.hooks.len(), 8);
    let layers: Vec<&str> = p.layers.iter().map(|&l| p.string(l)).collect();
    assert_eq!(layers, ["builtin", "directive", "o_builtin", "o_directive"]);
    // At equal priority the overlay's hooks first, each program's own
    // order kept.
    let base = sample();
    let mut expected: Vec<(i64, u32, String)> = base
        .hooks
        .iter()
        .map(|h| (h.priority, h.layer, base.string(h.id).to_owned()))
        .chain(
            overlay
                .hooks
                .iter()
                .map(|h| (h.priority, h.layer + 2, overlay.string(h.id).to_owned())),
        )
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let expected: Vec<&str> = expected.iter().map(|(_, _, id)| id.as_str()).collect();
    assert_eq!(ids(p), expected);
    // Strings and paths are interned once: no path twice (verified), and
    // the tables are no larger than both programs' together.
    assert!(p.strings.len() < base.strings.len() + overlay.strings.len());
    assert_eq!(p.paths.len(), base.paths.len());
    assert_eq!(p.absent.len(), 2);
}

#[test]
fn linking_over_an_empty_program_keeps_the_program() {
    let empty = Program::default();
    let linked = link(&sample(), &empty).unwrap();
    let v = crate::verify::verify(linked).unwrap();
    assert_eq!(ids(v.program()), ids(&sample()));
    assert_eq!(
        crate::disasm::disassemble(v.program())
            .lines()
            .filter(|l| l.starts_with("hook "))
            .collect::<Vec<_>>(),
        crate::disasm::disassemble(&sample())
            .lines()
            .filter(|l| l.starts_with("hook "))
            .collect::<Vec<_>>()
    );
}

#[test]
fn shared_ids_layers_and_directions_are_typed_errors() {
    let same_layers = renamed(|s| {
        if s.starts_with('h') {
            format!("o_{s}")
        } else {
            s.to_owned()
        }
    });
    assert!(matches!(
        link(&sample(), &same_layers),
        Err(ComposeError::LayerClash { name }) if name == "builtin"
    ));
    let same_ids = renamed(|s| {
        if s.starts_with('h') {
            s.to_owned()
        } else {
            format!("o_{s}")
        }
    });
    assert!(matches!(
        link(&sample(), &same_ids),
        Err(ComposeError::DuplicateId { id }) if id == "h0"
    ));
    let mut lower = renamed(|s| format!("o_{s}"));
    lower.priority_order = PriorityOrder::LowerFirst;
    let e = link(&sample(), &lower).unwrap_err().to_string();
    assert!(
        e.contains("`higher_first`") && e.contains("`lower_first`"),
        "{e}"
    );
}

#[test]
fn a_marked_hook_replaces_and_the_replaced_id_stays_known() {
    // The overlay's hook `h1` replaces the sample's; its absent `k`
    // (marked `replace`) is the sample's absent `k` again.
    let mut overlay = renamed(|s| {
        if s == "h1" || s == "k" {
            s.to_owned()
        } else {
            format!("o_{s}")
        }
    });
    for h in &mut overlay.hooks {
        h.replace = overlay.strings.get(h.id.as_usize()) == Some("h1");
    }
    let linked = link(&sample(), &overlay).unwrap();
    let v = crate::verify::verify(linked).unwrap();
    let p = v.program();
    assert_eq!(p.hooks.len(), 7);
    assert_eq!(ids(p).iter().filter(|&&id| id == "h1").count(), 1);
    let h1 = p.hooks.iter().find(|h| p.string(h.id) == "h1").unwrap();
    assert!(h1.replace && p.string(p.layers[h1.layer as usize]).starts_with("o_"));
    let absent: Vec<&str> = p.absent.iter().map(|a| p.string(a.id)).collect();
    assert_eq!(absent, ["k"]);
    // Unmarked, the same overlay is a duplicate.
    for h in &mut overlay.hooks {
        h.replace = false;
    }
    assert!(matches!(
        link(&sample(), &overlay),
        Err(ComposeError::DuplicateId { .. })
    ));
}

#[test]
fn the_debug_section_is_kept_only_when_both_have_one() {
    let mut base = sample();
    base.debug.hooks = base
        .hooks
        .iter()
        .map(|h| HookDebug {
            at: StrIdx::new(10),
            marks: if h.code.0 < h.code.1 {
                vec![Mark {
                    op: h.code.1 - 1,
                    text: StrIdx::new(9),
                    at: StrIdx::new(10),
                }]
            } else {
                Vec::new()
            },
        })
        .collect();
    crate::verify::verify(base.clone()).unwrap();
    let mut overlay = base.clone();
    overlay.strings = overlay
        .strings
        .iter()
        .map(|s| {
            if ["h0", "h1", "h2", "h3", "builtin", "directive", "k"].contains(&s) {
                format!("o_{s}")
            } else {
                s.to_owned()
            }
        })
        .collect();
    let both = crate::verify::verify(link(&base, &overlay).unwrap()).unwrap();
    assert_eq!(both.program().debug.hooks.len(), 8);
    overlay.debug = crate::bytecode::DebugInfo::default();
    let one = crate::verify::verify(link(&base, &overlay).unwrap()).unwrap();
    assert!(one.program().debug.hooks.is_empty());
}

/// The layered program records every regex's required literals: the ones
/// a side recorded are carried as they are (not parsed again), and a side
/// from an older artifact, which recorded none, has its regexes parsed.
/// What `lists` (one list per regex of `p`) holds for regex `pattern`.
fn list_of(p: &Program, lists: &[Vec<String>], pattern: &str) -> Vec<String> {
    let i = p.regexes.iter().position(|r| r == pattern).unwrap();
    lists[i].clone()
}

#[test]
fn regex_literals_are_carried_or_found() {
    let mut recorded = renamed(|s| format!("o_{s}"));
    recorded.regexes = vec!["^o_rate".to_owned()];
    // Not what the pattern requires: only a copy gives it back.
    recorded.regex_literals = vec![vec!["carried".to_owned()]];
    let unrecorded = sample();
    assert!(unrecorded.regex_literals.is_empty());
    let linked = link(&unrecorded, &recorded).unwrap();
    assert_eq!(linked.regexes.len(), linked.regex_literals.len());
    let of = |pattern: &str| list_of(&linked, &linked.regex_literals, pattern);
    assert_eq!(of("^o_rate"), ["carried"]);
    assert_eq!(of("^rate"), ["rate"]);
    // No regex has a one-of set: none is recorded.
    assert!(linked.regex_one_of.is_empty());
    crate::verify::verify(linked).unwrap();
}

/// One-of sets are carried from a side that records them (a side that
/// records literals but no set has none), found by parsing for a side that
/// records nothing, and kept one list per regex of the layered program.
#[test]
fn one_of_sets_are_carried_or_found() {
    let mut recorded = renamed(|s| format!("o_{s}"));
    recorded.regexes = vec!["o_cat|o_dog".to_owned()];
    recorded.regex_literals = vec![Vec::new()];
    // Not what the pattern has: only a copy gives it back.
    recorded.regex_one_of = vec![vec!["carried".to_owned()]];
    let mut unrecorded = sample();
    unrecorded.regexes = vec!["cat|dog".to_owned()];
    assert!(unrecorded.regex_literals.is_empty());
    let linked = link(&unrecorded, &recorded).unwrap();
    assert_eq!(linked.regexes.len(), linked.regex_one_of.len());
    let of = |pattern: &str| list_of(&linked, &linked.regex_one_of, pattern);
    assert_eq!(of("o_cat|o_dog"), ["carried"]);
    assert_eq!(of("cat|dog"), ["cat", "dog"]);
    crate::verify::verify(linked).unwrap();
    // A side with literals recorded but no one-of section has no set.
    let mut older = recorded.clone();
    older.regex_one_of.clear();
    let linked = link(&older, &renamed(|s| format!("p_{s}"))).unwrap();
    assert!(linked.regex_one_of.iter().all(Vec::is_empty));
}

#[test]
fn the_attribution_chosen_by_one_side_is_the_layered_programs() {
    use crate::bytecode::Attribution;
    let with = |attribution| Program {
        attribution,
        ..renamed(|s| format!("o_{s}"))
    };
    let mut base = sample();
    // The overlay's choice when the base keeps the default; below too.
    let over = link(&base, &with(Attribution::Off)).unwrap();
    assert_eq!(over.attribution, Attribution::Off);
    let below = link_below(&base, &with(Attribution::Id)).unwrap();
    assert_eq!(below.attribution, Attribution::Id);
    // The base's when the overlay keeps the default, and when both agree.
    base.attribution = Attribution::Id;
    let kept = link(&base, &with(Attribution::Location)).unwrap();
    assert_eq!(kept.attribution, Attribution::Id);
    assert_eq!(
        link(&base, &with(Attribution::Id)).unwrap().attribution,
        Attribution::Id
    );
    // Two different choices are a clash, named.
    let e = link(&base, &with(Attribution::Off)).unwrap_err();
    assert!(
        e.to_string()
            .contains("`attribution: id` (the lower) and `attribution: off` (the upper)"),
        "{e}"
    );
}
