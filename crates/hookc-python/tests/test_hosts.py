"""``Policy.hook(host, payload)`` answers exactly what ``hookc hook --host
HOST`` writes and exits with, on every case of the CLI's host test data
(``crates/hookc-cli/tests/data/hosts/HOST/cases``), from a dict, a str and
bytes; failures and fail-open too."""

import json
import subprocess
import warnings

import pytest

import hookc
from conftest import ROOT, hookc_bin

HOSTS = ["claude-code", "codex", "gemini-cli", "cursor", "copilot"]
CASES = ROOT / "crates" / "hookc-cli" / "tests" / "data" / "hosts"


def cli(host, guard, payload_file, *extra):
    out = subprocess.run(
        [str(hookc_bin()), "hook", "--host", host, *extra, "--payload", str(payload_file), guard],
        cwd=ROOT, capture_output=True, text=True,
    )
    return {"stdout": out.stdout, "stderr": out.stderr, "exit_code": out.returncode}


def compiled(guard):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile([str(ROOT / guard)])


@pytest.mark.parametrize("host", HOSTS)
def test_every_host_case_answers_as_hookc_hook(host, monkeypatch):
    # Reasons name where hooks are written: the same relative path as the CLI's.
    monkeypatch.chdir(ROOT)
    guard = f"examples/hosts/{host}/guard.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile([guard])
    files = sorted((CASES / host / "cases").glob("*.json"))
    assert len(files) >= 5
    for f in files:
        event = f.stem.split(".")[0] if host == "copilot" else None
        want = cli(host, guard, f, *(["--event", event] if event else []))
        raw = f.read_bytes()
        for payload in (raw, raw.decode(), json.loads(raw)):
            got = policy.hook(host, payload, event=event)
            assert {k: got[k] for k in ("stdout", "stderr", "exit_code")} == want, f.name
            assert got["output"] == (json.loads(want["stdout"]) if want["stdout"] else None)


def test_failures_block_or_fail_open_as_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    guard = "examples/hosts/claude-code/guard.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile([guard])
    for text in ["{not json", "[1]", '{"tool_name": "Bash"}']:
        f = tmp_path / "p.json"
        f.write_text(text)
        for fail_open in (False, True):
            want = cli("claude-code", guard, f, *(["--fail-open"] if fail_open else []))
            got = policy.hook("claude-code", text, fail_open=fail_open)
            assert {k: got[k] for k in ("stdout", "stderr", "exit_code")} == want
            assert got["exit_code"] == (0 if fail_open else 2)


def test_arguments_are_checked():
    policy = compiled("examples/hosts/claude-code/guard.yaml")
    with pytest.raises(ValueError, match="one of claude-code"):
        policy.hook("claud-code", {})
    with pytest.raises(TypeError, match="hook payload"):
        policy.hook("claude-code", 3)
    with pytest.raises(TypeError, match="no JSON form"):
        policy.hook("claude-code", {"x": {1, 2}})
