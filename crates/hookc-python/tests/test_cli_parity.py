"""Results from Python equal what the `hookc` command prints, for the same
policy and contexts: the seed bench set (evaluate, evaluate_all, explain,
from a dict, JSON str and bytes) and every case of every example test file
(`examples/**/*.test.yaml`, replayed from `hookc test --format json`)."""

import json
import warnings

import pytest

import hookc
from conftest import ROOT, SEED, seed_cases

SEED_POLICY = str(SEED / "policy.yaml")


@pytest.fixture(scope="module")
def seed_policy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile([SEED_POLICY])


def forms(context):
    """The context as a dict, as JSON str and as JSON bytes."""
    text = json.dumps(context)
    return [context, text, text.encode()]


@pytest.mark.parametrize("name,event,context", seed_cases())
def test_seed_contexts_equal_hookc_eval(cli, seed_policy, tmp_path, name, event, context):
    ctx = tmp_path / f"{name}.json"
    ctx.write_text(json.dumps(context))
    args = ["eval", SEED_POLICY, "--event", event, "--context", str(ctx)]
    want = json.loads(cli(*args))
    want_all = json.loads(cli(*args, "--all"))
    lines = cli(*args, "--explain", "--format", "json").splitlines()
    want_trace = json.loads(lines[1])
    for form in forms(context):
        assert seed_policy.evaluate(event, form) == want
        assert seed_policy.evaluate_all(event, form) == want_all
        assert seed_policy.explain(event, form) == want_trace
        assert seed_policy.decide(event, form) == (want["hook"] if want else None)


def test_disable_equals_hookc_eval_disable(cli, seed_policy, tmp_path):
    _, event, context = next(c for c in seed_cases() if c[0] == "error_rate_limited")
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(context))
    first = seed_policy.decide(event, context)
    want = json.loads(
        cli("eval", SEED_POLICY, "--event", event, "--context", str(ctx), "--disable", first)
    )
    for form in forms(context):
        got = seed_policy.evaluate(event, form, disable=[first])
        assert got == want
        assert got is None or got["hook"] != first


def example_test_files():
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in ROOT.glob("examples/**/*.test.yaml")
        if "target" not in p.parts
    )


def test_there_are_example_test_files():
    assert len(example_test_files()) >= 7


@pytest.mark.parametrize("test_file", example_test_files())
def test_example_test_file_replays_through_python(cli, test_file):
    # `hookc test` exits 0 only if every case met its expectation.
    report = json.loads(cli("test", "--format", "json", test_file))
    [entry] = report["files"]
    folder = (ROOT / test_file).parent
    # Named as the test file writes them, so default hook ids agree.
    sources = {name: (folder / name).read_text() for name in entry["policy"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile_sources(sources)
    assert entry["cases"], test_file
    for case in entry["cases"]:
        assert case["outcome"] == "ok", case["name"]
        for form in forms(case["context"]):
            call = lambda: policy.evaluate(
                case["event"],
                form,
                disable=case["disabled"],
                results=case.get("results"),
            )
            if "error" in case["expected"]:
                with pytest.raises(hookc.EvaluationError) as e:
                    call()
                assert str(e.value) == case["actual"]["error"], case["name"]
            else:
                assert call() == case["actual"], case["name"]


def test_artifact_round_trip_evaluates_the_same(seed_policy):
    data = seed_policy.to_artifact()
    assert isinstance(data, bytes)
    loaded = hookc.Policy.from_artifact(data)
    assert loaded.to_artifact() == data
    assert loaded.hook_ids == seed_policy.hook_ids
    for _, event, context in seed_cases():
        assert loaded.evaluate(event, context) == seed_policy.evaluate(event, context)


def test_artifact_from_hookc_compile_loads(cli, seed_policy, tmp_path):
    out = tmp_path / "seed.hkb"
    cli("compile", SEED_POLICY, "-o", str(out))
    loaded = hookc.Policy.from_artifact(out.read_bytes())
    for _, event, context in seed_cases():
        assert loaded.evaluate(event, context) == seed_policy.evaluate(event, context)
