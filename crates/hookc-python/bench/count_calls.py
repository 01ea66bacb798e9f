"""Instruction counts per call, for callgrind: runs one evaluator N times on
one seed context in a loop of local names (as `timeit` does), so that two
runs under `valgrind --tool=callgrind` with different N give the
instructions of one call by difference (start-up, compiling the policy and
reading the files cancel out).

    for n in 1000 11000; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python crates/hookc-python/bench/count_calls.py decide error_rate_limited $n 2>&1 | grep Collected
    done   # (second - first) / 10000 = instructions per call

EVALUATOR is `seed` (seed 000's evaluator, as `bench_eval.py` has it),
`decide` or `evaluate` (hookc from a dict); CASE a seed context's name
(`crates/hookc/benches/data/seed/contexts/CASE.json`) or `empty` (an event
no hook names, from `{}`: the call alone). Needs a `hookc` binary in the
target directory for the seed evaluator's hook list (`hookc compile
--emit json`), as `bench_eval.py` does.
"""

import json
import os
import pathlib
import sys
import warnings

import hookc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_eval  # noqa: E402  (the seed evaluator and its inputs)


def main():
    evaluator, case, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    policy_path = "crates/hookc/benches/data/seed/policy.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile([str(bench_eval.ROOT / policy_path)])
    if case == "empty":
        event, ctx = "no_such_event", {}
    else:
        doc = json.loads((bench_eval.SEED / "contexts" / f"{case}.json").read_text())
        event, ctx = doc["event"], doc["context"]
    if evaluator == "seed":
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", bench_eval.ROOT / "target"))
        binary = next(str(p) for p in (target / "release" / "hookc", target / "debug" / "hookc")
                      if p.exists())
        hooks = bench_eval.seed_hooks(binary, policy_path)
        loop3(bench_eval.evaluate_hooks, event, ctx, hooks, n)
    elif evaluator in ("decide", "evaluate"):
        loop2(getattr(policy, evaluator), event, ctx, n)
    else:
        sys.exit(f"unknown evaluator {evaluator!r}: seed, decide or evaluate")


def loop2(call, a, b, n):
    for _ in range(n):
        call(a, b)


def loop3(call, a, b, c, n):
    for _ in range(n):
        call(a, b, c)


if __name__ == "__main__":
    main()
