"""Writes `crates/hookc/src/hosts/snapshots/claude-code.json`: what the
pinned Claude Code says about its hooks, read from its typed sources.

Claude Code's CLI package ships a native binary; its typed hook contract is
in the Agent SDK package of the same release (`@anthropic-ai/claude-agent-sdk`,
installed beside it in the hosts' cache, never fetched here):

- `sdk.d.ts` `HOOK_EVENTS`: the events; `<Event>HookInput` (an intersection
  of `BaseHookInput` and an object type): each event's payload members;
  the members of `BaseHookInput` plus `hook_event_name` are the common ones;
- `SyncHookJSONOutput`: the answer's top-level members (`common_answers`)
  and, in the union its `hookSpecificOutput` takes, one
  `<Event>HookSpecificOutput` per event that has one, whose members (but
  `hookEventName`) are that event's `answers`;
- `BUILTIN_TOOL_NAMES`: the built-in tools, as a payload's `tool_name`
  spells them;
- the MCP tool name pattern, `mcp__{server}__{tool}`: checked against the
  doc comment "Fully-qualified MCP tool name, e.g. mcp__server__tool_name"
  (a comment, so read, not parsed).

Only by reading (the binary's code and the hooks reference, not the
types): which events act on the top-level `decision: "block"` and `reason`
(the types allow them on every event; Claude Code 2.1.332 acts on them on
PostToolUse, UserPromptSubmit, Stop, SubagentStop and a few more), so they
are listed under `common_answers` as the types give them.

Usage: python3 scripts/hosts/snapshot_claude_code.py [--out PATH]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PINNED, SuiteError, package_dir  # noqa: E402
from snapshot_common import out_argument, split_top, strip_comments, write  # noqa: E402

HOST = "claude-code"
# The Agent SDK release that ships Claude Code 2.1.332's types.
SDK = {"package": "@anthropic-ai/claude-agent-sdk", "version": "0.3.337"}
SDK_FILE = "sdk.d.ts"


class Declarations:
    """The `export declare type NAME = ...;` and `export declare const NAME:
    readonly [...]` declarations of a .d.ts file."""

    def __init__(self, text: str):
        self.text = strip_comments(text)
        self.types = {}
        for m in re.finditer(r"export declare type (\w+)(?:<[^=]*>)? = ", self.text):
            self.types[m.group(1)] = self._until_semicolon(m.end())

    def _until_semicolon(self, start: int) -> str:
        depth = 0
        for i in range(start, len(self.text)):
            ch = self.text[i]
            if ch in "{([":
                depth += 1
            elif ch in "})]":
                depth -= 1
            elif ch == ";" and depth == 0:
                return self.text[start:i].strip()
        raise SuiteError(f"unterminated declaration at {start}")

    def const_list(self, name: str) -> list:
        m = re.search(rf"export declare const {name}: readonly \[(.*?)\];", self.text, re.S)
        if m is None:
            raise SuiteError(f"{SDK_FILE} has no `{name}`")
        return re.findall(r"'([^']+)'", m.group(1))

    def members(self, type_text: str) -> dict:
        """The members of an object type, an intersection of object types
        and type names, or a parenthesised one: name -> type text."""
        out: dict = {}
        for part in split_top(type_text, "&"):
            while part.startswith("(") and part.endswith(")"):
                part = part[1:-1].strip()
            if part.startswith("{"):
                for member in split_top(part[1:-1], ";"):
                    m = re.match(r"(\w+)\??\s*:\s*(.*)$", member, re.S)
                    if m:
                        out[m.group(1)] = m.group(2).strip()
            elif "&" in part:
                out.update(self.members(part))
            elif part in self.types:
                out.update(self.members(self.types[part]))
        return out

    def json_type(self, type_text: str, seen: frozenset = frozenset()) -> str:
        """The JSON-Schema type word(s) of a TypeScript type."""
        words: list = []
        for alt in split_top(type_text, "|"):
            alt = alt.strip()
            while alt.startswith("(") and alt.endswith(")"):
                alt = alt[1:-1].strip()
            if re.fullmatch(r"'[^']*'|\"[^\"]*\"|string", alt):
                word = "string"
            elif re.fullmatch(r"-?\d+(\.\d+)?|number", alt):
                word = "number"
            elif alt in ("true", "false", "boolean"):
                word = "boolean"
            elif alt in ("null", "undefined"):
                word = "null"
            elif alt in ("unknown", "any"):
                word = "any"
            elif alt.endswith("[]") or alt.startswith(("Array<", "readonly ")):
                word = "array"
            elif alt.startswith(("{", "Record<")) or len(split_top(alt, "&")) > 1:
                word = "object"
            elif alt in self.types and alt not in seen:
                word = self.json_type(self.types[alt], seen | {alt})
            else:
                raise SuiteError(f"{SDK_FILE}: no JSON type for `{alt}`")
            for w in word.split("|"):
                if w not in words:
                    words.append(w)
        if "any" in words:
            return "any"
        # `null` last, as in "string|null".
        words.sort(key=lambda w: w == "null")
        return "|".join(words)


def snapshot(sdk_dir: Path) -> dict:
    d = Declarations((sdk_dir / SDK_FILE).read_text())
    events = d.const_list("HOOK_EVENTS")
    base = d.members(d.types["BaseHookInput"])
    common = {name: d.json_type(t) for name, t in base.items()}
    common["hook_event_name"] = "string"

    sync = d.members(d.types["SyncHookJSONOutput"])
    specific: dict = {}
    for name in split_top(sync.pop("hookSpecificOutput"), "|"):
        members = d.members(d.types[name])
        event = re.fullmatch(r"'(\w+)'", members.pop("hookEventName")).group(1)
        # `hookEventName` names the event the object answers; it is read
        # (a mismatch is refused), so it is one of the event's answers.
        specific[event] = sorted(f"hookSpecificOutput.{m}" for m in [*members, "hookEventName"])

    out_events = {}
    for event in events:
        fields = d.members(d.types[f"{event}HookInput"])
        out_events[event] = {
            "fields": {name: d.json_type(t) for name, t in sorted(fields.items())
                       if name not in common},
            "answers": specific.get(event, []),
        }
    unknown = set(specific) - set(events)
    if unknown:
        raise SuiteError(f"hookSpecificOutput for events not in HOOK_EVENTS: {sorted(unknown)}")

    # The doc comment of the MCP tool name: "Fully-qualified MCP tool name,
    # e.g. mcp__server__tool_name."
    if not re.search(r"Fully-qualified MCP tool name, e\.g\. mcp__server__tool_name\b",
                     (sdk_dir / SDK_FILE).read_text()):
        raise SuiteError(f"{SDK_FILE} no longer spells an MCP tool's name mcp__server__tool_name")
    return {
        "host": HOST,
        "source": {"package": SDK["package"], "version": SDK["version"], "files": [SDK_FILE]},
        "common_fields": dict(sorted(common.items())),
        "events": out_events,
        "common_answers": sorted(sync),
        "tools": d.const_list("BUILTIN_TOOL_NAMES"),
        "mcp_tool_name": "mcp__{server}__{tool}",
    }


def main() -> int:
    out = out_argument(HOST, __doc__.splitlines()[0])
    sdk_dir = package_dir(SDK["package"], SDK["version"]) / "node_modules" / SDK["package"]
    if not (sdk_dir / SDK_FILE).is_file():
        raise SuiteError(f"{SDK['package']}@{SDK['version']} is not in the hosts' cache "
                         f"({sdk_dir}); Claude Code {PINNED[HOST]['version']}'s types are there")
    write(out, snapshot(sdk_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
