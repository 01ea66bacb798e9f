#!/usr/bin/env python3
"""Proves that the hookc policy and the Python script of one generated
guard answer alike: for every payload, `hookc hook --host claude-code
POLICY` and `python3 SCRIPT` give the same decision word, the same reason
(hookc's attribution, ` [hook ID at FILE:L:C]`, set aside) and the same
collected context. Prints a summary; exits 1 on any difference.

    python3 check.py HOOKC POLICY SCRIPT PAYLOAD_DIR
"""

import json
import pathlib
import re
import subprocess
import sys


def answer(cmd, payload: bytes):
    out = subprocess.run(cmd, input=payload, capture_output=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{cmd[0]} exited {out.returncode}: {out.stderr.decode()}")
    text = out.stdout.decode().strip()
    specific = json.loads(text).get("hookSpecificOutput", {}) if text else {}
    reason = specific.get("permissionDecisionReason")
    if reason is not None:
        reason = re.sub(r" \[hook [^\]]*\]$", "", reason)
    return (specific.get("permissionDecision"), reason,
            specific.get("additionalContext"))


def main():
    hookc, policy, script, payloads = sys.argv[1:5]
    files = sorted(pathlib.Path(payloads).glob("*.json"))
    differ, decided = [], 0
    for f in files:
        payload = f.read_bytes()
        ours = answer([hookc, "hook", "--host", "claude-code", policy], payload)
        theirs = answer([sys.executable, script], payload)
        decided += ours != (None, None, None)
        if ours != theirs:
            differ.append((f.name, ours, theirs))
    for name, ours, theirs in differ[:10]:
        print(f"{name}: hookc {ours} python {theirs}")
    print(f"{len(files)} payloads, {decided} decided, {len(differ)} differences")
    sys.exit(1 if differ or not files else 0)


if __name__ == "__main__":
    main()
