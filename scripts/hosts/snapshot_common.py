"""What the snapshot scripts (`snapshot_*.py`) share: reading TypeScript
text (comments stripped, splitting where no bracket is open, a braced
block) and writing a snapshot in the format the profiles' test reads
(`crates/hookc/tests/suite/host_snapshots.rs`: sorted keys, two-space
indent, a newline at the end). See docs/src/hosts/profiles.md.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from common import REPO, SuiteError


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", text)


def split_top(text: str, sep: str) -> list:
    """`text` split on `sep` where no bracket is open."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{([<":
            depth += 1
        elif ch in "})]>" and not (ch == ">" and text[i - 1] == "="):
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def braced(text: str, start: int) -> str:
    """The text of the brace-balanced block that opens at `text[start]`,
    without the braces."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    raise SuiteError("unbalanced braces")


def out_argument(host: str, description: str) -> Path:
    """The `--out` argument of a snapshot script: the host's snapshot in
    the repository unless given."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path,
                        default=REPO / "crates/hookc/src/hosts/snapshots" / f"{host}.json")
    return parser.parse_args().out


def write(out: Path, data: dict) -> None:
    """Writes the snapshot `data` to `out` and says so."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out}: {len(data['events'])} events, {len(data['tools'])} tools")
