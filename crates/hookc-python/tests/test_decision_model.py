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
