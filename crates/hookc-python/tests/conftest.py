"""Shared fixtures of the hookc Python package's tests: the repository, the
`hookc` command to compare with, and the seed policy."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SEED = ROOT / "crates" / "hookc" / "benches" / "data" / "seed"


def hookc_bin() -> pathlib.Path:
    """The `hookc` command: $HOOKC_BIN, else the cargo target dir's build."""
    if "HOOKC_BIN" in os.environ:
        return pathlib.Path(os.environ["HOOKC_BIN"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        exe = target / profile / "hookc"
        if exe.exists():
            return exe
    raise RuntimeError(
        f"no hookc binary under {target}: run `cargo build -p hookc-cli` or set HOOKC_BIN"
    )


@pytest.fixture(scope="session")
def cli():
    """Runs `hookc ARGS...`, returning its standard output (exit 0 required)."""
    exe = hookc_bin()

    def run(*args: str) -> str:
        out = subprocess.run(
            [str(exe), *args], cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    return run


def seed_cases():
    """(name, event, context) of every seed bench context."""
    out = []
    for path in sorted((SEED / "contexts").glob("*.json")):
        doc = json.loads(path.read_text())
        out.append((path.stem, doc["event"], doc["context"]))
    return out
