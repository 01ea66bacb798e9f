"""The decision model from Python: a transform's patch read by the later
hooks and reported in ``patched``, an awaited hook that suspends and
resumes with ``results=``, strictest combining, error policies; from a
dict (the whole dict is converted only when a patch must be applied), from
JSON text, and the same answers as ``hookc eval``."""

import json
import warnings

import pytest

import hookc

POLICY = """
combine: strictest
on_error: {action: {type: deny, reason: "policy error in ${policy_error.hook}"}}
action_types:
  deny: {severity: 30, parameters: {reason: {type: string}}}
  ask: {severity: 20, parameters: {reason: {type: string}}}
  rewrite: {effect: transform, parameters: {patch: {type: object}}}
  git: {effect: await, bind: git.branch, parameters: {argv: {type: array}}}
hooks:
  - id: ask_rm
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('rm ')"
    action: {type: ask, reason: "remove?"}
  - id: use_uv
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('pip ')"
    action: {type: rewrite, patch: {tool_input: {command: "uv ${tool_input.command}"}}}
  - id: branch
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('uv ')"
    action: {type: git, argv: [git, branch, --show-current]}
  - id: on_main
    event: PreToolUse
    when: "has(git.branch) && git.branch == 'main'"
    action: {type: deny, reason: "not on main: ${tool_input.command}"}
  - id: count
    event: Count
    when: "n > 3"
    action: {type: deny, reason: "too many"}
"""


@pytest.fixture(scope="module")
def policy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile_sources({"m.yaml": POLICY})


def forms(ctx):
    return [ctx, json.dumps(ctx), json.dumps(ctx).encode()]


def test_a_transform_then_an_await_suspends(policy):
    for ctx in forms({"tool_input": {"command": "pip install x"}}):
        d = policy.evaluate("PreToolUse", ctx)
        assert d["hook"] is None
        assert d["patched"] == {"tool_input": {"command": "uv pip install x"}}
        assert [t["hook"] for t in d["transforms"]] == ["use_uv"]
        assert d["pending"]["hook"] == "branch"


def test_resuming_binds_the_result_for_the_later_hooks(policy):
    ctx = {"tool_input": {"command": "pip install x"}}
    for form in forms(ctx):
        d = policy.evaluate("PreToolUse", form, results={"branch": "main"})
        assert d["hook"] == "on_main"
        assert d["action"]["reason"] == "not on main: uv pip install x"
        assert "pending" not in d
        d = policy.evaluate("PreToolUse", form, results={"branch": "dev"})
        assert d["hook"] is None and "pending" not in d
    # The caller's dict is not changed by the patch.
    assert ctx == {"tool_input": {"command": "pip install x"}}


def test_a_result_for_no_hook_is_an_error(policy):
    # A typo in `results=` left the decision pending, silently.
    with pytest.raises(ValueError, match="no hook of the policy; did you mean `branch`"):
        policy.evaluate("PreToolUse", {"tool_input": {"command": "pip x"}}, results={"brnch": "main"})
    # A hook that awaits nothing ignores its result.
    assert policy.decide("PreToolUse", {}, results={"ask_rm": 1}) is None


def test_a_failed_evaluation_is_explained():
    # `explain` returns the trace of an evaluation that fails under
    # `on_error: fail`; `evaluate` raises.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        failing = hookc.compile_sources(
            {"p.yaml": 'on_error: fail\nhooks:\n  - {id: count, event: E, when: "n > 3", action: {type: abort}}\n'}
        )
    trace = failing.explain("E", {"n": "many"})
    assert trace["failed"] == "count"
    assert trace["failures"][0]["hook"] == "count"
    with pytest.raises(hookc.EvaluationError, match="policy error in hook `count`"):
        failing.evaluate("E", {"n": "many"})


def test_strictest_and_the_error_action(policy):
    assert policy.evaluate("PreToolUse", {"tool_input": {"command": "rm -rf x"}})["hook"] == "ask_rm"
    d = policy.evaluate("Count", {"n": "many"})
    assert d["hook"] == "count"
    assert d["action"]["reason"] == "policy error in count"
    assert d["errors"][0]["hook"] == "count"


def test_answers_equal_the_cli(policy, cli, tmp_path):
    src = tmp_path / "m.yaml"
    src.write_text(POLICY)
    ctx = {"tool_input": {"command": "pip install x"}}
    ctx_file = tmp_path / "ctx.json"
    ctx_file.write_text(json.dumps(ctx))
    for results in [None, {"branch": "main"}]:
        args = ["eval", str(src), "--event", "PreToolUse", "--context", str(ctx_file)]
        if results:
            args += ["--result", "branch=" + json.dumps(results["branch"])]
        line = cli(*args)
        assert json.loads(line) == policy.evaluate("PreToolUse", ctx, results=results)


def test_results_must_be_a_dict(policy):
    with pytest.raises(TypeError, match="results"):
        policy.evaluate("PreToolUse", {}, results=["branch"])


# ---- random policies: Python (dict and text) against hookc eval --events ----

HEADER = """
action_types:
  deny: {severity: 30, parameters: {reason: {type: string}}}
  ask: {severity: 20, parameters: {reason: {type: string}}}
  allow: {severity: 10, parameters: {n: {type: integer}}}
  note: {effect: collected, parameters: {text: {type: string}, n: {type: integer}}}
  rw: {effect: transform, parameters: {patch: {type: object}}}
  wait: {effect: await, parameters: {what: {type: string}}}
  fetch: {effect: await, bind: {parameter: into}, parameters: {into: {type: [string, "null"]}}}
"""

CONDITIONS = ["", "x == 1", "x > 2", "has(x)", "!has(x)", "y.z == 'b'", "w",
              "has(results.h1) && results.h1 == 1", "results.h2 == 'ok'", "x == 1 || y.z == 'c'"]
ACTIONS = [
    '{type: deny, reason: "d ${x}"}', '{type: ask, reason: a}', '{type: allow, n: "${x}"}',
    '{type: note, text: "saw ${y.z}"}', '{type: note, n: "${x}"}', '{type: rw, patch: {x: 1}}',
    '{type: rw, patch: {y: {z: "b"}, w: null}}', '{type: rw, patch: {x: "${y.z}"}}',
    '{type: wait, what: w}', '{type: fetch, into: w}', '{type: fetch, into: null}',
]


def random_policy(rng):
    out = HEADER + "combine: %s\n" % rng.choice(["first_match", "strictest"])
    out += rng.choice(["on_error: skip\n", "on_error: fail\n",
                       'on_error: {action: {type: deny, reason: "error in ${policy_error.hook}"}}\n'])
    out += "hooks:\n"
    ids = []
    for i in range(rng.randint(1, 7)):
        cond = rng.choice(CONDITIONS)
        out += "  - id: h%d\n    event: %s\n" % (i, rng.choice(["A", "A", '"*"']))
        if cond:
            out += '    when: "%s"\n' % cond
        out += "    action: %s\n" % rng.choice(ACTIONS)
        ids.append("h%d" % i)
    return out, ids


def random_context(rng):
    ctx = {}
    if rng.random() < 0.75:
        ctx["x"] = rng.choice([1, 3, "a", None, 2.5])
    if rng.random() < 0.6:
        ctx["y"] = rng.choice([{"z": "b"}, {"z": "c"}, {"z": 1}, "y"])
    if rng.random() < 0.5:
        ctx["w"] = rng.choice([True, False, "t"])
    return ctx


def test_random_policies_answer_as_the_cli(tmp_path):
    import random
    import subprocess

    from conftest import ROOT, hookc_bin

    rng = random.Random(20)
    compared = 0
    for n in range(25):
        src, ids = random_policy(rng)
        path = tmp_path / ("p%d.yaml" % n)
        path.write_text(src)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hookc.PolicyWarning)
            policy = hookc.compile_sources({str(path): src})
        records = []
        for _ in range(20):
            ctx = random_context(rng)
            results = {i: rng.choice([1, "ok", None, 3]) for i in ids if rng.random() < 0.5}
            records.append({"event": "A", "context": ctx, "results": results})
        log = tmp_path / ("p%d.jsonl" % n)
        log.write_text("\n".join(json.dumps(r) for r in records))
        # Exit 2 when a line's evaluation fails (`on_error: fail`): its
        # line is then `{"error": ...}`.
        run = subprocess.run(
            [str(hookc_bin()), "eval", str(path), "--events", str(log)],
            cwd=ROOT, capture_output=True, text=True,
        )
        assert run.returncode in (0, 2), run.stderr
        lines = run.stdout.splitlines()
        assert len(lines) == len(records), src
        for r, line in zip(records, lines):
            want = json.loads(line)
            for form in (r["context"], json.dumps(r["context"])):
                try:
                    got = policy.evaluate("A", form, results=r["results"])
                except hookc.EvaluationError as e:
                    got = {"error": str(e)}
                if isinstance(want, dict) and "error" in want:
                    assert "error" in got, (src, r, want, got)
                    assert want["error"].endswith(got["error"]), (src, r, want, got)
                else:
                    assert got == want, (src, r)
                compared += 1
    assert compared == 1000
