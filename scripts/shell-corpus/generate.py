#!/usr/bin/env python3
"""Builds the shell-parser corpus: real-world commands from tldr-pages with
the argv of each simple command, as bashlex (a port of GNU bash's parser)
parses them.

Dev-time only: CI and the tests read the committed output,
crates/hookc-runtime/tests/data/shell/corpus.jsonl. Nothing here runs a
corpus command: bash is only asked `bash -n` (syntax check, no execution),
and words bashlex decodes wrongly ($'...' and $"...") are quote-removed by
bash's printf only when they hold no expansion that could run anything.

Usage:
    python3 -m venv /tmp/shvenv && /tmp/shvenv/bin/pip install bashlex
    /tmp/shvenv/bin/python scripts/shell-corpus/generate.py \
        --tldr /path/to/tldr/.git --commit <sha> \
        --out crates/hookc-runtime/tests/data/shell/corpus.jsonl

One JSON object a line: {"page", "src", "argvs"} (the argv of every simple
command with a non-empty argv, in the order of the module documentation of
`hookc_runtime::functions::shell`) or {"page", "src", "invalid": true}
(bash -n rejects it). The summary (counts, drops by reason) goes to stderr
and, with --stats, to a JSON file.
"""

import argparse
import collections
import json
import re
import subprocess
import sys

import bashlex

# Selection: every compound command (up to MAX_COMPOUND) and the first
# example of every SIMPLE_EVERY-th page, in page order: deterministic.
MAX_COMPOUND = 900
SIMPLE_EVERY = 8
COMPOUND = re.compile(r"\||&&|;|\$\(|`|<<|<\(|\bsudo\b|\bxargs\b|-c ")

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


def plain(match):
    """A placeholder as a plain word: the first of `[-a|--all]`
    alternatives, else its text with anything but [A-Za-z0-9_./:@,+-] as
    `_`."""
    inner = match.group(1)
    alt = re.match(r"^\[(-[^|\]]*)\|", inner)
    if alt:
        return alt.group(1)
    word = re.sub(r"[^A-Za-z0-9_./:@,+-]", "_", inner)
    return word or "x"


def pages(git_dir, commit):
    names = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit, "pages/common", "pages/linux"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    names = sorted(n for n in names if n.endswith(".md"))
    batch = subprocess.run(
        ["git", "--git-dir", git_dir, "cat-file", "--batch"],
        input="".join(f"{commit}:{n}\n" for n in names).encode(),
        check=True, capture_output=True,
    ).stdout
    out, pos = [], 0
    for name in names:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        body = batch[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
        out.append((name[len("pages/"):], body))
    return out


def examples(body):
    for line in body.splitlines():
        if len(line) > 2 and line.startswith("`") and line.endswith("`"):
            yield PLACEHOLDER.sub(plain, line[1:-1])


def bash_accepts(src):
    """`bash -n`: parse only, execute nothing."""
    r = subprocess.run(["bash", "--norc", "--noprofile", "-n"], input=src.encode(), capture_output=True, timeout=10)
    return r.returncode == 0


class Unfixable(Exception):
    pass


SAFE_QUOTED = re.compile(r"\$(?![\'\"])|`|<\(|>\(|~")


def bash_quote_removal(raw):
    """bash's value of a word holding $'...' or $"...": only when no
    expansion in it could run anything (no `$` but those quotes, no
    backquote, no process substitution, no `~`), with globbing and brace
    expansion off."""
    if SAFE_QUOTED.search(raw):
        raise Unfixable(f"word {raw!r} has expansions")
    r = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "set -f +B; printf '%s\\0' " + raw],
        capture_output=True, timeout=10, cwd="/tmp",
    )
    values = r.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    if r.returncode != 0 or len(values) != 1:
        raise Unfixable(f"word {raw!r}: printf gave {values!r}")
    return values[0]


def word_value(src, node):
    """bashlex's value of a word, or bash's where bashlex is known to
    differ: `$'...'` and `$"..."` (bashlex drops the quotes undecoded) and
    a backslash inside double quotes (bashlex drops it before any
    character; bash only before $ ` " \\ and a newline)."""
    raw = src[node.pos[0]:node.pos[1]]
    if "$'" in raw or '$"' in raw or ("\\" in raw and '"' in raw):
        return bash_quote_removal(raw)
    return node.word


def substitutions(src, node, out):
    """The commands of the substitutions in a word, assignment or
    redirection, in order."""
    for part in getattr(node, "parts", []) or []:
        if part.kind in ("commandsubstitution", "processsubstitution"):
            walk(src, part.command, out)
        else:
            substitutions(src, part, out)
    if node.kind == "redirect" and not isinstance(node.output, int):
        substitutions(src, node.output, out)


def walk(src, node, out):
    kind = node.kind
    if kind == "command":
        argv = []
        for part in node.parts:
            substitutions(src, part, out)
            if part.kind == "word":
                argv.append(word_value(src, part))
        if argv:
            out.append(argv)
    elif kind in ("list", "pipeline", "if", "for", "while", "until", "function"):
        for part in node.parts:
            walk(src, part, out)
    elif kind == "compound" and src[node.pos[0]:node.pos[0] + 2] == "((" and src[node.pos[1] - 2:node.pos[1]] == "))":
        # bashlex reads the arithmetic command `((...))` as two subshells;
        # bash (and the parser) as arithmetic: no command.
        pass
    elif kind == "compound":
        for part in node.list:
            walk(src, part, out)
        for r in getattr(node, "redirects", []) or []:
            substitutions(src, r, out)
    elif kind in ("word", "redirect", "assignment"):
        substitutions(src, node, out)
    elif kind in ("reservedword", "operator", "pipe", "heredoc"):
        pass
    else:
        raise Unfixable(f"node kind {kind}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tldr", required=True, help="the tldr-pages git directory")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stats")
    ap.add_argument("--all", action="store_true", help="every example, not the committed selection (for a wider check)")
    args = ap.parse_args()

    all_pages = pages(args.tldr, args.commit)
    chosen, seen = [], set()
    compound = 0
    for i, (page, body) in enumerate(all_pages):
        for k, src in enumerate(examples(body)):
            if src in seen:
                continue
            if args.all:
                pass
            elif COMPOUND.search(src) and compound < MAX_COMPOUND:
                compound += 1
            elif not (k == 0 and i % SIMPLE_EVERY == 0):
                continue
            seen.add(src)
            chosen.append((page, src))

    stats = collections.Counter()
    dropped = []
    lines = []
    for page, src in chosen:
        stats["selected"] += 1
        try:
            tree = bashlex.parse(src)
            out = []
            for node in tree:
                walk(src, node, out)
        except Unfixable as e:
            stats["dropped: " + str(e).split(" ")[0] + " (bashlex/bash disagree, not safely checkable)"] += 1
            dropped.append(src)
            continue
        except Exception as e:  # bashlex raises several types
            if bash_accepts(src):
                stats[f"dropped: bashlex cannot parse ({type(e).__name__}), bash -n accepts"] += 1
                dropped.append(src)
            else:
                stats["kept: invalid (bashlex and bash -n reject)"] += 1
                lines.append({"page": page, "src": src, "invalid": True})
            continue
        if not bash_accepts(src):
            stats["kept: invalid (bash -n rejects, bashlex accepts)"] += 1
            lines.append({"page": page, "src": src, "invalid": True})
            continue
        stats["kept: valid"] += 1
        lines.append({"page": page, "src": src, "argvs": out})

    with open(args.out, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    summary = {"tldr_commit": args.commit, "pages": len(all_pages), **dict(sorted(stats.items())), "dropped": dropped}
    print(json.dumps(summary, indent=2), file=sys.stderr)
    if args.stats:
        with open(args.stats, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
