#!/usr/bin/env python3
"""Generates a Claude Code Bash-and-files guard of N hooks twice, from one
list of rules: as a hookc policy (`guard-N.yaml`, `host: claude-code`) and
as the Python hook script a user writes by hand (`guard-N.py`: read the
payload, try every rule, answer Claude Code's JSON). Also writes payloads
that exercise the rules (`payloads/NAME.json`).

The rules are randomly shaped and interleaved (seeded, so a run is
reproducible): regex searches, prefixes, substrings and equality on the
Bash command, suffixes and folders of file paths, tool-name lists; their
answers are deny, ask, defer, allow and context. Both forms combine the
answers as Claude Code does and as `combine: strictest` specifies: the
strictest word wins (deny > defer > ask > allow; the first of equal words),
the first deny ends the evaluation, and the contexts matched until then are
collected in order.
`check.py` proves the two forms answer every payload alike.

    python3 gen.py N OUT_DIR [--seed S] [--payloads K]
"""

import argparse
import json
import pathlib
import random

# Words of the command vocabulary: rules are made of them, and payloads
# of them and of noise, so that some payloads match and most do not.
TOOLS = ["git", "npm", "cargo", "docker", "kubectl", "terraform", "curl",
         "pip", "make", "python", "rm", "chmod", "ssh", "scp", "helm", "aws",
         "gcloud", "psql", "redis-cli", "systemctl"]
ARGS = ["push", "install", "run", "build", "apply", "delete", "exec",
        "publish", "deploy", "reset", "clean", "login", "--force", "-rf",
        "--all", "--prod", "-y", "--no-verify", "main", "prod", "777"]
EXTS = [".env", ".pem", ".key", ".lock", ".sqlite", ".tfstate", ".p12",
        ".kube", ".npmrc", ".pypirc", ".crt", ".secret"]
DIRS = ["/.ssh/", "/generated/", "/vendor/", "/.git/", "/dist/",
        "/migrations/", "/secrets/", "/node_modules/", "/.aws/", "/build/"]
FILE_TOOLS = ["Read", "Write", "Edit"]
WORDS = ["deny", "ask", "defer", "allow"]
SEVERITY = {"allow": 10, "ask": 20, "defer": 30, "deny": 40}


def yaml_str(s: str) -> str:
    """A YAML double-quoted scalar."""
    return json.dumps(s)


def cel_str(s: str) -> str:
    """A `when` string literal (single quotes)."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def make_rule(rng: random.Random, i: int) -> dict:
    """One rule: a condition in both languages and an answer."""
    kind = rng.choice(["regex", "prefix", "prefix_contains", "equal",
                       "suffix", "folder", "context"])
    tool, arg = rng.choice(TOOLS), rng.choice(ARGS)
    if kind == "regex":
        # The tool as a command of its own (first, or after ; & |), the
        # argument as a word of its own after it.
        pattern = rf"(^|[;&|]\s*){tool}\s(.*\s)?{arg}(\s|$)"
        when = ("tool_name == 'Bash' && tool_input.command.matches("
                f"{cel_str(pattern)})")
        py = f"tool == 'Bash' and re.search({pattern!r}, command)"
    elif kind == "prefix":
        when = (f"tool_name == 'Bash' && tool_input.command.startsWith("
                f"{cel_str(tool + ' ' + arg)})")
        py = f"tool == 'Bash' and command.startswith({tool + ' ' + arg!r})"
    elif kind == "prefix_contains":
        flag = rng.choice(["--force", "-rf", "--prod", "--no-verify", "-y"])
        when = (f"tool_name == 'Bash' && tool_input.command.startsWith("
                f"{cel_str(tool + ' ')}) && tool_input.command.contains("
                f"{cel_str(flag)})")
        py = (f"tool == 'Bash' and command.startswith({tool + ' '!r}) "
              f"and {flag!r} in command")
    elif kind == "equal":
        when = (f"tool_name == 'Bash' && tool_input.command == "
                f"{cel_str(tool + ' ' + arg)}")
        py = f"tool == 'Bash' and command == {tool + ' ' + arg!r}"
    elif kind == "suffix":
        tools = rng.sample(FILE_TOOLS, rng.randint(1, 3))
        ext = rng.choice(EXTS)
        listed = ", ".join(cel_str(t) for t in tools)
        when = (f"tool_name in [{listed}] && "
                f"tool_input.file_path.endsWith({cel_str(ext)})")
        py = f"tool in {tools!r} and path.endswith({ext!r})"
    elif kind == "folder":
        tools = rng.sample(FILE_TOOLS, rng.randint(1, 3))
        folder = rng.choice(DIRS)
        listed = ", ".join(cel_str(t) for t in tools)
        when = (f"tool_name in [{listed}] && "
                f"tool_input.file_path.contains({cel_str(folder)})")
        py = f"tool in {tools!r} and {folder!r} in path"
    else:
        when = (f"tool_name == 'Bash' && tool_input.command.startsWith("
                f"{cel_str(tool + ' ')})")
        py = f"tool == 'Bash' and command.startswith({tool + ' '!r})"
        return {"id": f"r{i}_context", "when": when, "py": py,
                "word": "context", "text": f"{tool}: see docs/{tool}.md"}
    word = rng.choices(WORDS, weights=[5, 3, 1, 1])[0]
    return {"id": f"r{i}_{kind}", "when": when, "py": py, "word": word,
            "reason": f"rule {i}: {kind} {tool} {arg}"}


def policy_yaml(rules) -> str:
    out = ["# Generated by bench-hook/gen.py: do not edit.",
           "host: claude-code", "hooks:"]
    for r in rules:
        out.append(f"  - id: {r['id']}")
        out.append("    event: PreToolUse")
        out.append(f"    when: {yaml_str(r['when'])}")
        if r["word"] == "context":
            out.append(f"    action: {{type: context, text: {yaml_str(r['text'])}}}")
        else:
            out.append(f"    action: {{type: {r['word']}, reason: {yaml_str(r['reason'])}}}")
    return "\n".join(out) + "\n"


PY_HEAD = '''#!/usr/bin/env python3
"""A Claude Code PreToolUse guard as a Python hook script (generated by
bench-hook/gen.py from the same rules as the hookc policy beside it)."""
import json
import re
import sys

SEVERITY = {"allow": 10, "ask": 20, "defer": 30, "deny": 40}


def decide(tool, command, path):
    """The strictest answer of the rules and the contexts they add; the
    first deny ends it, as nothing outranks it."""
    best = None
    contexts = []
'''

PY_TAIL = '''    return best, contexts


def main():
    payload = json.load(sys.stdin)
    tool = payload.get("tool_name", "")
    tool_input = payload.get("tool_input") or {}
    command = tool_input.get("command", "") if tool == "Bash" else ""
    path = tool_input.get("file_path", "")
    best, contexts = decide(tool, command, path)
    specific = {}
    if best is not None:
        specific["permissionDecision"] = best[0]
        specific["permissionDecisionReason"] = best[1]
    if contexts:
        specific["additionalContext"] = "\\n".join(contexts)
    if specific:
        specific["hookEventName"] = "PreToolUse"
        print(json.dumps({"hookSpecificOutput": specific}))


main()
'''


def python_script(rules) -> str:
    body = []
    for r in rules:
        body.append(f"    if {r['py']}:")
        if r["word"] == "context":
            body.append(f"        contexts.append({r['text']!r})")
        elif r["word"] == "deny":
            body.append(f"        return ('deny', {r['reason']!r}), contexts")
        else:
            body.append(f"        if best is None or SEVERITY[{r['word']!r}] > SEVERITY[best[0]]:")
            body.append(f"            best = ({r['word']!r}, {r['reason']!r})")
    return PY_HEAD + "\n".join(body) + "\n" + PY_TAIL


def payloads(rng: random.Random, k: int):
    """K payloads: Bash commands and file operations, some matching."""
    for n in range(k):
        common = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl",
                  "cwd": "/work/project", "permission_mode": "default",
                  "hook_event_name": "PreToolUse"}
        if rng.random() < 0.65:
            words = [rng.choice(TOOLS)] + [
                rng.choice(ARGS + ["src", "a.txt", "-v", "x"])
                for _ in range(rng.randint(0, 4))]
            if rng.random() < 0.3:
                words = ["ls", "-la"] + words[1:]
            yield f"bash_{n:03}", dict(common, tool_name="Bash",
                                       tool_input={"command": " ".join(words),
                                                   "description": "run it"})
        else:
            tool = rng.choice(FILE_TOOLS + ["Glob"])
            path = "/work/project" + rng.choice(DIRS + ["/src/"]) + "f" + rng.choice(EXTS + [".rs", ".py"])
            yield f"file_{n:03}", dict(common, tool_name=tool,
                                       tool_input={"file_path": path})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--seed", type=int, default=60)
    ap.add_argument("--payloads", type=int, default=200)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rules = [make_rule(rng, i) for i in range(a.n)]
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / f"guard-{a.n}.yaml").write_text(policy_yaml(rules))
    (a.out / f"guard-{a.n}.py").write_text(python_script(rules))
    pdir = a.out / "payloads"
    pdir.mkdir(exist_ok=True)
    for old in pdir.glob("*.json"):
        old.unlink()
    for name, p in payloads(random.Random(a.seed + 1), a.payloads):
        (pdir / f"{name}.json").write_text(json.dumps(p) + "\n")


if __name__ == "__main__":
    main()
