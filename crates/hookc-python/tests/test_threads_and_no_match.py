"""A policy shared between threads, the no-match path, and the examples
(the asyncio agent loop, the guide's usage example) run once."""

import json
import pathlib
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

import hookc
from conftest import ROOT, SEED, seed_cases


@pytest.fixture(scope="module")
def policy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile([str(SEED / "policy.yaml")])


def test_threads_share_one_policy(policy):
    cases = seed_cases()
    want = {name: policy.evaluate(event, ctx) for name, event, ctx in cases}
    texts = {name: json.dumps(ctx) for name, _, ctx in cases}

    def work(i):
        wrong = []
        for n in range(300):
            name, event, ctx = cases[(i + n) % len(cases)]
            form = (ctx, texts[name], texts[name].encode())[n % 3]
            if policy.evaluate(event, form) != want[name]:
                wrong.append((name, n))
        return wrong

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(16)))
    assert results == [[]] * 16


def test_no_match_path(policy):
    ctx = {"classification": {"category": "content_filter"}}
    for form in (ctx, json.dumps(ctx), json.dumps(ctx).encode()):
        assert policy.evaluate("error", form) is None
        assert policy.decide("error", form) is None
        assert policy.evaluate_all("error", form) == []
    # An event no hook names, and an empty context.
    assert policy.evaluate("no_such_event", {}) is None
    trace = policy.explain("no_such_event", "{}")
    assert trace["hooks"] == [] and trace["winner"] is None


def test_every_seed_hook_id_is_listed(policy):
    assert len(policy.hook_ids) == 7
    assert "default_transient_retry" in policy.hook_ids
    assert repr(policy) == "<hookc.Policy: 7 hooks>"


def test_the_example_agent_loop_runs():
    script = ROOT / "examples" / "python" / "agent_loop.py"
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "retry" in out.stdout and "done" in out.stdout


def test_unnamed_events_reach_wildcard_hooks_only():
    src = (
        "hooks:\n"
        "  - {id: named, event: error, when: 'x == 1', action: {type: abort}}\n"
        "  - {id: any, event: '*', when: 'x == 1', action: {type: fail}}\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        wild = hookc.compile_sources({"w.yaml": src})
        plain = hookc.compile_sources({"p.yaml": src.split("  - {id: any")[0]})
    for form in ({"x": 1}, '{"x": 1}'):
        assert wild.decide("other", form) == "any"
        assert wild.evaluate_all("other", form) == [{"hook": "any", "action": {"type": "fail"}}]
        assert plain.evaluate("other", form) is None
        assert plain.evaluate_all("other", form) == []
    # Text for an event no hook names is still read: it must be JSON.
    with pytest.raises(ValueError, match="not valid JSON"):
        plain.evaluate("other", "{")


def test_the_guide_usage_example_runs():
    section = (ROOT / "docs" / "src" / "embedding" / "python.md").read_text()
    code = section[section.index("```python\n") + len("```python\n"):]
    code = code[:code.index("```")]
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "custom_backoff" in out.stdout
