"""Benchmark: hookc from Python (from a dict, from JSON text) against seed
000's own Python evaluator, on the seed set and on 1,000 hooks, plus the
call overhead. Prints a Markdown table with the targets' verdicts.

    python crates/hookc-python/bench/bench_eval.py [--hookc PATH] [--quick]

Every evaluator is first checked to pick the same hook on every context;
then each is timed with `timeit` (best of 5 repeats, per call). The seed
evaluator is written from seed 000's listing (`sorted` by priority,
`matches_condition`, `apply_operator`), with two deviations that only make
it faster or keep it running: it is a plain function rather than a
coroutine, and an operator that raises (`None > 0.8` on a missing path)
counts as no match, as in hookc (see docs/semantics.md#errors).
The hooks it runs are the policy's own, as `hookc compile --emit json`
prints them, in hookc's evaluation order.
"""

import argparse
import json
import os
import pathlib
import platform
import re
import subprocess
import timeit
import warnings

import hookc

ROOT = pathlib.Path(__file__).resolve().parents[3]
SEED = ROOT / "crates" / "hookc" / "benches" / "data" / "seed"


# ---- seed 000's evaluator, from its listing ---------------------------------------


def evaluate_hooks(event, context, hooks):
    """Evaluate hooks in priority order, return first matching action."""
    sorted_hooks = sorted(hooks, key=lambda h: h.get("priority", 0), reverse=True)
    for hook in sorted_hooks:
        if hook["event"] != event:
            continue
        if matches_condition(context, hook["condition"]):
            return hook["action"]
    return None


def matches_condition(context, condition):
    if "all" in condition:
        return all(matches_condition(context, c) for c in condition["all"])
    if "any" in condition:
        return any(matches_condition(context, c) for c in condition["any"])
    if "not" in condition:
        return not matches_condition(context, condition["not"])
    path = condition["path"]
    op = condition["op"]
    expected = condition.get("value")
    actual = resolve_path(context, path)
    return apply_operator(actual, op, expected)


def resolve_path(context, path):
    # Not in the listing: dotted fields of nested dicts, None when missing.
    cur = context
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def apply_operator(actual, op, expected):
    operators = {
        "eq": lambda a, e: a == e,
        "ne": lambda a, e: a != e,
        "gt": lambda a, e: a > e,
        "gte": lambda a, e: a >= e,
        "lt": lambda a, e: a < e,
        "lte": lambda a, e: a <= e,
        "in": lambda a, e: a in e,
        "contains": lambda a, e: e in str(a),
        "starts_with": lambda a, e: str(a).startswith(e),
        "ends_with": lambda a, e: str(a).endswith(e),
        "regex": lambda a, e: re.search(e, str(a)) is not None,
        "exists": lambda a, e: a is not None,
    }
    try:
        return operators[op](actual, expected)
    except TypeError:
        return False


# ---- inputs -----------------------------------------------------------------------------


def seed_hooks(hookc_bin, policy_path):
    out = subprocess.run(
        [hookc_bin, "compile", "--emit", "json", policy_path],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    doc = json.loads(out.stdout)
    # hookc's evaluation order at equal priority: the directive layer
    # (`hooks`), then `builtin_hooks`.
    return doc.get("hooks", []) + doc.get("builtin_hooks", [])


def scale_policy(n):
    """n hooks on one event, each `classification.category == cat_i`, with
    every 7th a membership test and every 5th a two-part `all`; as seed
    000 YAML (written as JSON, which YAML reads) and as the hook list."""
    hooks = []
    for i in range(n):
        eq = {"path": "classification.category", "op": "eq", "value": f"cat_{i}"}
        if i % 7 == 3:
            cond = {"path": "classification.category", "op": "in",
                    "value": [f"cat_{i}", f"alias_{i}"]}
        elif i % 5 == 1:
            cond = {"all": [{"path": "cost.spend", "op": "gte", "value": 0}, eq]}
        else:
            cond = eq
        hooks.append({"id": f"h{i}", "event": "error", "priority": 0,
                      "condition": cond, "action": {"type": "retry", "max_attempts": 3}})
    text = json.dumps({"hooks": hooks})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile_sources({"scale.yaml": text})
    return policy, hooks


# ---- timing ------------------------------------------------------------------------------


def per_call_ns(stmt, env, quick):
    timer = timeit.Timer(stmt, globals=env)
    number, _ = timer.autorange()
    if quick:
        number = max(1, number // 10)
    best = min(timer.repeat(repeat=3 if quick else 5, number=number))
    return best / number * 1e9


def fmt(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def row(name, event, ctx, policy, hooks, quick):
    text = json.dumps(ctx)
    by_action = {id(h["action"]): h["id"] for h in hooks}
    want = by_action.get(id(evaluate_hooks(event, ctx, hooks)))
    got = (policy.decide(event, ctx), policy.decide(event, text))
    assert got == (want, want), f"{name}: hookc picks {got}, the seed evaluator {want}"
    env = {"p": policy, "e": event, "c": ctx, "t": text, "h": hooks,
           "evaluate_hooks": evaluate_hooks}
    py = per_call_ns("evaluate_hooks(e, c, h)", env, quick)
    d = per_call_ns("p.evaluate(e, c)", env, quick)
    j = per_call_ns("p.evaluate(e, t)", env, quick)
    k = per_call_ns("p.decide(e, c)", env, quick)
    return name, want, py, d, j, k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hookc", default=None, help="the hookc binary (for --emit json)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = ap.parse_args()
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    hookc_bin = args.hookc or next(
        str(p) for p in (target / "release" / "hookc", target / "debug" / "hookc") if p.exists()
    )
    policy_path = "crates/hookc/benches/data/seed/policy.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        seed_policy = hookc.compile([str(ROOT / policy_path)])
    hooks = seed_hooks(hookc_bin, policy_path)
    # Hooks without an id are named by the policy path as given.
    hooks = [dict(h, id=str(ROOT / h["id"]) if "#" in h["id"] else h["id"]) for h in hooks]
    assert [h["id"] for h in hooks] == seed_policy.hook_ids

    rows = []
    for path in sorted((SEED / "contexts").glob("*.json")):
        doc = json.loads(path.read_text())
        rows.append(("seed/" + path.stem,) + row(path.stem, doc["event"], doc["context"],
                                                  seed_policy, hooks, args.quick)[1:])
    scale, scale_hooks = scale_policy(1000)
    last = {"classification": {"category": "cat_999"}, "cost": {"spend": 1.0}}
    none = {"classification": {"category": "other"}, "cost": {"spend": 1.0}}
    for label, ctx in (("1000/last", last), ("1000/none", none)):
        rows.append((label,) + row(label, "error", ctx, scale, scale_hooks, args.quick)[1:])
    overhead = per_call_ns("p.evaluate('no_such_event', c)", {"p": seed_policy, "c": {}}, args.quick)
    overhead_decide = per_call_ns("p.decide('no_such_event', c)", {"p": seed_policy, "c": {}}, args.quick)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
          f"{platform.python_version()}, hookc {hookc.__version__}")
    print()
    print("| case | hook | seed 000 Python | hookc evaluate, dict | hookc evaluate, JSON str "
          "| hookc decide, dict | speed-up evaluate / decide, dict |")
    print("|---|---|---|---|---|---|---|")
    for label, hook, py, d, j, k in rows:
        short = hook.rsplit("/", 1)[-1] if hook else "none"
        print(f"| {label} | {short} | {fmt(py)} | {fmt(d)} | {fmt(j)} | {fmt(k)} "
              f"| {py / d:.1f}× / {py / k:.1f}× |")
    seed_min = min(py / d for label, _, py, d, _, _ in rows if label.startswith("seed/"))
    seed_min_decide = min(py / k for label, _, py, _, _, k in rows if label.startswith("seed/"))
    scale_min = min(py / d for label, _, py, d, _, _ in rows if label.startswith("1000/"))
    print()
    print(f"call overhead (evaluate, an event with no hooks, `{{}}`): {fmt(overhead)}; "
          f"decide: {fmt(overhead_decide)}")
    print()
    ok = lambda b: "met" if b else "MISSED"
    print(f"- ≥ 10× the Python evaluator on every seed context, from a dict: "
          f"{ok(seed_min >= 10)} with evaluate (lowest {seed_min:.1f}×), "
          f"{ok(seed_min_decide >= 10)} with decide (lowest {seed_min_decide:.1f}×)")
    print(f"- ≥ 1,000× at 1,000 hooks, from a dict: {ok(scale_min >= 1000)} (lowest {scale_min:.0f}×)")
    print(f"- call overhead ≤ 300 ns: {ok(overhead <= 300)} ({fmt(overhead)})")


if __name__ == "__main__":
    main()
