"""Runs the end-to-end cases of every host (`scripts/test-hosts`).

Each host's module (`claude_code.py`, `codex.py`, `gemini_cli.py`,
`copilot.py`, and `probe.py` for `hookc probe` on them) has `cases()`, the
list of its `common.Case`s; this file only gathers them and hands them to
`common.main`.
"""

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

HOST_MODULES = ["claude_code", "codex", "gemini_cli", "copilot", "probe"]


def all_cases() -> list:
    cases = []
    for name in HOST_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        cases.extend(module.cases())
    return cases


if __name__ == "__main__":
    sys.exit(common.main(all_cases()))
