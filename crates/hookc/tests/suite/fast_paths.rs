//! The load-time fast paths apply where they should: on the bench policies
//! (the seed policy and the generated scale policies), a fixed number of
//! hooks gets equality dispatch and a fixed number the flat-conjunction
//! path, and the mixed scale policies get a hook index. A change to the lowering's code shapes that made either stop
//! applying fails here, instead of only slowing the benches down.

#[path = "../../benches/common/mod.rs"]
mod bench;

use hookc_runtime::bytecode::shape::HookShape;
use hookc_runtime::bytecode::Program;
use hookc_runtime::internals::dispatch::{PlanStep, Plans};
use std::collections::BTreeSet;

/// What the fast paths make of a program.
#[derive(Debug, PartialEq, Eq)]
struct FastPaths {
    /// Equality-dispatch tables (one per run of hooks requiring
    /// `path == 'string'` on the same path).
    tables: usize,
    /// Hooks in those tables.
    dispatched: usize,
    /// Hooks whose condition is one context leaf.
    single_leaf: usize,
    /// Hooks whose condition is an `&&` chain of two or more leaves.
    conjunctions: usize,
    /// Hooks that run in the interpreter.
    interpreted: usize,
}

fn fast_paths(program: &Program) -> FastPaths {
    let plans = Plans::new(program);
    let dispatched: BTreeSet<u32> = plans.tables().iter().flat_map(|t| t.hooks()).collect();
    let (mut single_leaf, mut conjunctions, mut interpreted) = (0, 0, 0);
    // The shapes the runtime decodes at load: a hook with a flat
    // conjunction is evaluated leaf by leaf, without the interpreter.
    for (hook, shape) in program.hooks.iter().zip(HookShape::of_hooks(program)) {
        let code = &program.code[hook.code.0 as usize..hook.code.1 as usize];
        match shape.conjunction.map(|leaves| leaves.len()) {
            Some(1) => single_leaf += 1,
            Some(_) => conjunctions += 1,
            None if code.is_empty() => {}
            None => interpreted += 1,
        }
    }
    FastPaths {
        tables: plans.tables().len(),
        dispatched: dispatched.len(),
        single_leaf,
        conjunctions,
        interpreted,
    }
}

fn program(inputs: &[hookc::compile::Input]) -> Program {
    bench::runtime(inputs).program().clone()
}

#[test]
fn the_seed_policy_takes_the_fast_paths() {
    let p = program(&bench::seed_inputs());
    assert_eq!(
        fast_paths(&p),
        // Each `eq` leaf is `p == v && has(p)` and `exists` is
        // `has(p) && p != null` (`docs/src/semantics.md#condition-trees`):
        // the comparison implies the `has`, so each is one leaf to test,
        // like a `gt`; the `all` of `eq` and `gt` is two.
        FastPaths {
            tables: 1,
            dispatched: 3,
            single_leaf: 6,
            conjunctions: 1,
            interpreted: 0,
        }
    );
}

#[test]
fn the_scale_policies_take_the_fast_paths() {
    for n in [10, 100, 1_000] {
        let p = program(&bench::scale_inputs(n));
        assert_eq!(
            fast_paths(&p),
            // Every hook requires its own category (one table for the
            // run), and also `startsWith`, which is no context leaf.
            FastPaths {
                tables: 1,
                dispatched: n,
                single_leaf: 0,
                conjunctions: 0,
                interpreted: n,
            },
            "scale_policy({n})"
        );
    }
}

#[test]
fn the_mixed_scale_policies_take_the_hook_index() {
    for n in [10, 100, 1_000] {
        let p = program(&bench::mixed_inputs(n));
        let plans = Plans::new(&p);
        assert_eq!(plans.for_event(bench::SCALE_EVENT), [PlanStep::Index(0)]);
        assert!(plans.tables().is_empty(), "mixed_policy({n})");
        let [index] = plans.indexes() else {
            panic!("mixed_policy({n}): {} indexes", plans.indexes().len())
        };
        // Keyed on the category (equality at any place, membership), on
        // the shard (a number) and, once there are enough of them to be
        // worth a lookup, the prefix-only hooks on their message prefix.
        let prefix_only = (0..n)
            .filter(|&i| bench::mixed_shape(i) == bench::MixedShape::Prefix)
            .count();
        let (columns, always) = if prefix_only >= 3 {
            (3, 0)
        } else {
            (2, prefix_only)
        };
        assert_eq!(index.paths().count(), columns, "mixed_policy({n})");
        assert_eq!(index.always(), always, "mixed_policy({n})");
        assert_eq!(index.keyed_hooks(), n - always, "mixed_policy({n})");
    }
}

#[test]
fn seed_tree_alls_take_the_fast_paths() {
    use bench::SeedTreeShape;
    // `all: [{cost.spend gte 0}, {category eq cat_i}]` is `spend >= 0 ?
    // (category == cat_i && has(category)) : false`: keyed by the equality
    // after the `?`, which a condition error cannot make `false` instead of
    // an error, so only because this program has no decision model.
    for (n, with_in) in [(1_000, false), (1_000, true), (100, true)] {
        let p = program(&bench::seed_tree_inputs(n, with_in));
        let at = format!("seed_tree_policy({n}, {with_in})");
        let plans = Plans::new(&p);
        assert!(plans.keys_sequenced(), "{at}");
        let alls: BTreeSet<u32> = (0..n)
            .filter(|&i| bench::seed_tree_shape(i, with_in) == SeedTreeShape::All)
            .map(|i| i as u32)
            .collect();
        assert!(!alls.is_empty(), "{at}");
        for &h in &alls {
            let shape = &HookShape::of_hooks(&p)[h as usize];
            assert_eq!(shape.conjuncts.len(), 1, "{at}: hook {h}");
            assert_eq!(shape.sequenced_conjuncts.len(), 2, "{at}: hook {h}");
        }
        if with_in {
            // Memberships break the runs of equalities: one hook index, on
            // the category, keys every hook.
            assert_eq!(
                plans.for_event(bench::SCALE_EVENT),
                [PlanStep::Index(0)],
                "{at}"
            );
            let [index] = plans.indexes() else {
                panic!("{at}: {} indexes", plans.indexes().len())
            };
            assert_eq!(index.paths().count(), 1, "{at}");
            assert_eq!((index.keyed_hooks(), index.always()), (n, 0), "{at}");
        } else {
            // One run of equalities: one dispatch table holds every hook,
            // the `all`s included.
            assert_eq!(
                plans.for_event(bench::SCALE_EVENT).len(),
                1,
                "{at}: {:?}",
                plans.for_event(bench::SCALE_EVENT)
            );
            let [table] = plans.tables() else {
                panic!("{at}: {} tables", plans.tables().len())
            };
            let dispatched: BTreeSet<u32> = table.hooks().collect();
            assert_eq!(dispatched.len(), n, "{at}");
            assert!(alls.is_subset(&dispatched), "{at}");
        }
        // The context matching the last hook decides it, through the plan.
        let policy = bench::runtime(&bench::seed_tree_inputs(n, with_in));
        let ctx = bench::seed_tree_context(n);
        let hook = policy.query(bench::SCALE_EVENT, &ctx).decide().unwrap();
        assert_eq!(hook, Some(format!("h{}", n - 1).as_str()), "{at}");
    }
}

#[test]
fn under_the_decision_model_seed_tree_alls_are_not_keyed_by_their_equality() {
    // The same hooks under `on_error: fail`: an error in `cost.spend >= 0`
    // fails the evaluation, so the equality after it keys nothing.
    let n = 100;
    let src = format!("on_error: fail\n{}", bench::seed_tree_policy(n, false));
    let p = program(&[hookc::compile::Input::new("fail.yaml", src)]);
    let plans = Plans::new(&p);
    assert!(!plans.keys_sequenced());
    let dispatched: BTreeSet<u32> = plans.tables().iter().flat_map(|t| t.hooks()).collect();
    let keyed = dispatched.len()
        + plans
            .indexes()
            .iter()
            .map(|i| i.keyed_hooks())
            .sum::<usize>();
    let alls = (0..n)
        .filter(|&i| bench::seed_tree_shape(i, false) == bench::SeedTreeShape::All)
        .count();
    assert_eq!(keyed, n - alls);
}
