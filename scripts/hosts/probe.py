"""`hookc probe` in the end-to-end suite: the command run as a user runs it,
on the real hosts, judged by its report (docs/src/hosts/probe.md).

Each case sets a project up with `hookc init`, gives the run a home of its
own (the "user's" home: what the host trusts lives there), puts the pinned
host and the `hookc` under test on PATH, and runs `hookc probe`. A guard
that holds is reported enforced on every case (exit 0); a folder the host
does not trust is reported as not enforced or unknown, with the host's
trust note (exit 1); and the project is left as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Case, Project, expect, host_command, run  # noqa: E402


def fingerprint(folder: Path) -> dict:
    """Every file under `folder` and a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def probe(project: Project, host: str) -> tuple:
    """`hookc probe --host HOST` in the project, the host on PATH, HOME the
    project's private home; (exit code, report)."""
    env = project.env()
    env["PATH"] = os.pathsep.join([str(host_command(host).parent), env["PATH"]])
    result = run([str(project.bin / "hookc"), "probe", "--host", host, "--timeout", "90"],
                 cwd=project.dir, env=env, timeout=400)
    return result.returncode, result.stdout + result.stderr


def trusted(host: str, project: Project) -> None:
    """Trust the project in the user's home, as each host keeps it."""
    folder = str(project.dir)
    if host == "codex":
        write(project.home / ".codex" / "config.toml",
              f'[projects.{json.dumps(folder)}]\ntrust_level = "trusted"\n')
    elif host == "gemini-cli":
        write(project.home / ".gemini" / "trustedFolders.json", json.dumps({folder: "TRUST_FOLDER"}))
    elif host == "copilot":
        write(project.home / ".copilot" / "config.json", json.dumps({"trusted_folders": [folder]}))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def holds(host: str) -> Callable[[], None]:
    """A trusted project with `init`'s guard: all three cases enforced."""

    def body() -> None:
        with Project(host=host) as project:
            project.init(host)
            trusted(host, project)
            before = fingerprint(project.dir)
            code, report = probe(project, host)
            expect(code == 0, f"exit {code}, expected 0:\n{report}")
            expect("3 of 3 enforced" in report, f"not every case enforced:\n{report}")
            for kind in ("denied", "allowed", "failure"):
                expect(f"ok   {kind}" in report, f"no enforced `{kind}` case:\n{report}")
            expect(fingerprint(project.dir) == before, "the probe changed the project")
            expect(not list(project.root.glob("hookc-probe-*")),
                   "the probe left its throw-away folder")
    return body


def untrusted(host: str, needle: str) -> Callable[[], None]:
    """A project the host does not trust: the guard is not enforced (or
    nothing can be said), exit 1, and the report says the hooks are not
    active and what trust the host needs."""

    def body() -> None:
        with Project(host=host) as project:
            project.init(host)
            code, report = probe(project, host)
            expect(code == 1, f"exit {code}, expected 1:\n{report}")
            expect("ok   denied" not in report, f"the untrusted guard was reported enforced:\n{report}")
            expect("never ran `hookc`" in report, f"no note that the hook never ran:\n{report}")
            expect(needle in report, f"no `{needle}` in the report:\n{report}")
    return body


def missing() -> None:
    """No host on PATH: exit 2 and how to install it."""
    with Project(host="claude-code") as project:
        project.init("claude-code")
        result = run([str(project.bin / "hookc"), "probe", "--host", "claude-code"],
                     cwd=project.dir, env=project.env(), timeout=60)
        said = result.stderr
        expect(result.returncode == 2, f"exit {result.returncode}: {said}")
        expect("`claude` is not on PATH" in said and "npm install -g @anthropic-ai/claude-code" in said,
               f"not said how to install the host: {said}")
        expect(shutil.which("claude", path=project.env()["PATH"]) is None,
               "a `claude` is on the case's PATH")


def cases() -> list:
    out = []
    for host in ("claude-code", "codex", "gemini-cli", "copilot"):
        out.append(Case(host, "probe-holds", holds(host),
                        "hookc probe on a trusted project: all three cases enforced, project untouched"))
    out += [
        Case("gemini-cli", "probe-untrusted", untrusted("gemini-cli", "not running in a trusted directory"),
             "hookc probe in a folder Gemini CLI does not trust: not enforced, the trust note"),
        Case("copilot", "probe-untrusted", untrusted("copilot", "FAIL denied"),
             "hookc probe in a folder the Copilot CLI does not trust: the denied command ran"),
        Case("codex", "probe-untrusted", untrusted("codex", "trust_level"),
             "hookc probe in a project Codex does not trust: not enforced, the trust note"),
        Case("claude-code", "probe-missing", missing, "hookc probe without the host: how to install it"),
    ]
    return out
