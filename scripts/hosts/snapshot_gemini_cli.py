"""Writes `crates/hookc/src/hosts/snapshots/gemini-cli.json`: what the
pinned Gemini CLI says about its hooks, read from its package in the hosts'
cache (no network).

`@google/gemini-cli` ships no type declarations: its core is bundled into
`bundle/chunk-*.js` (esbuild output that keeps a `// packages/core/dist/src/
<module>.js` comment before each module) and its hooks reference as
`bundle/docs/hooks/reference.md`. The bundle holds several builds of the
same chunks; the ones read are those `bundle/gemini.js` loads (its static
imports, and its dynamic `import("./gemini-*.js")`). From them:

- the events: the `HookEventName` enum of `hooks/types.js`;
- each event's payload members: the object `hooks/hookEventHandler.js`'s
  `fire<Event>Event` builds (`...this.createBaseInput(...)`, then its own
  members, conditional ones included); the common members are the ones
  `createBaseInput` returns;
- the answer: `hooks/types.js`'s output classes say which answer members
  each reading method reads (`this.decision`, `"tool_input" in
  this.hookSpecificOutput`, ...); each call of such a method outside the
  hooks package (the tool scheduler, the chat loop, the CLI's session
  start) is attributed to the event whose `fire<Event>Event(` call comes
  last before it: that event's `answers`. `common_answers` are the members
  `hooks/hookEventHandler.js` reads off every event's output itself
  (`systemMessage`, `suppressOutput`);
- the tools: `ALL_BUILTIN_TOOL_NAMES` of `tools/tool-names.js`, each
  constant resolved to its string;
- the MCP tool name: `tools/mcp-tool.js`'s `MCP_TOOL_PREFIX` and
  `MCP_QUALIFIED_NAME_SEPARATOR` (a tool is registered as
  `generateValidName(server + separator + tool)`, which puts the prefix in
  front).

The payload members' types are not in the JavaScript: they are read from
the reference's "Base input schema" block and its "Input Fields" lists
(`` `name`: (`type`) ``; a union of string literals is `string`). Only by
reading: the two members the reference lists without a type word
(Notification's `message`, a string, and `details`, an object) are
`TYPE_BY_READING` below.

Usage: python3 scripts/hosts/snapshot_gemini_cli.py [--out PATH]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PINNED, SuiteError, package_dir  # noqa: E402
from snapshot_common import braced, out_argument, write  # noqa: E402

HOST = "gemini-cli"
REFERENCE = "bundle/docs/hooks/reference.md"

# Members the reference names without a type word (read, not parsed).
TYPE_BY_READING = {("Notification", "message"): "string", ("Notification", "details"): "object"}


class Bundle:
    """The JavaScript gemini.js loads, split into its bundled modules."""

    def __init__(self, root: Path):
        self.root = root
        entry = (root / "bundle" / "gemini.js").read_text()
        names = re.findall(r'import (?:[^;]*? from )?"\./((?:chunk|gemini)-\w+\.js)"', entry)
        names += re.findall(r'import\("\./(gemini-\w+\.js)"\)', entry)
        self.files = [f"bundle/{n}" for n in dict.fromkeys(names)]
        self.modules: dict = {}  # module path -> (file, text)
        for name in self.files:
            text = (root / name).read_text()
            # esbuild names each module before its code; a module's code
            # may come in more than one piece.
            marks = list(re.finditer(r"^// ((?:packages|node_modules)/\S+\.[cm]?[jt]sx?)$",
                                     text, re.M))
            for m, nxt in zip(marks, marks[1:] + [None]):
                body = text[m.end():nxt.start() if nxt else len(text)]
                held = self.modules.get(m.group(1), (name, ""))
                self.modules[m.group(1)] = (held[0], held[1] + body)

    def module(self, suffix: str) -> str:
        for path, (_, body) in self.modules.items():
            if path.endswith(suffix):
                return body
        raise SuiteError(f"the bundle has no module `{suffix}`")

    def used_files(self, *suffixes: str) -> list:
        """The bundle files that hold these modules."""
        return sorted({f for p, (f, _) in self.modules.items() if p.endswith(suffixes)})


def top_keys(obj: str) -> list:
    """The member names of an object literal's body, spreads of
    `cond && { name: ... }` included, `...call(...)` spreads left out."""
    keys, depth, i = [], 0, 0
    while i < len(obj):
        ch = obj[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "{":
            if depth == 0:
                keys += top_keys(braced(obj, i))
                i += len(braced(obj, i)) + 2
                continue
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and (i == 0 or obj[i - 1] == ","):
            # `name: value`, or the shorthand `name` alone.
            m = re.match(r"\s*(\w+)\s*(:|,|$)", obj[i:])
            if m:
                keys.append(m.group(1))
                i += m.end() - (m.group(2) == ",")
                continue
        i += 1
    return keys


def events_and_fields(b: Bundle) -> tuple:
    types = b.module("hooks/types.js")
    enum = re.search(r"HookEventName2\) \{(.*?)\}\)", types, re.S).group(1)
    events = re.findall(r'HookEventName2\["(\w+)"\] = "\1"', enum)
    handler = b.module("hooks/hookEventHandler.js")
    base = re.search(r"createBaseInput\(eventName\) \{.*?return \{", handler, re.S)
    common = top_keys(braced(handler, base.end() - 1))
    fields = {}
    for event in events:
        m = re.search(rf"async fire{event}Event\([^)]*\) \{{\s*const input = \{{", handler)
        if m is None:
            raise SuiteError(f"hookEventHandler.js builds no payload for {event}")
        fields[event] = [k for k in top_keys(braced(handler, m.end() - 1)) if k not in common]
    return events, common, fields


def reference_types(text: str) -> tuple:
    """The reference's types: the base schema's, and per event section the
    Input Fields list's."""
    base_block = re.search(r"## Base input schema.*?```typescript\n(.*?)```", text, re.S).group(1)
    base = dict(re.findall(r'"(\w+)":\s*(\w+)', base_block))
    per_event: dict = {}
    for section in re.split(r"^### ", text, flags=re.M)[1:]:
        name = re.match(r"`?(\w+)`?", section).group(1)
        listed = re.search(r"\*\*Input [Ff]ields\*\*:\n(.*?)(?:\n- \*\*|\n---|\Z)", section, re.S)
        if not listed:
            continue
        for field, typ in re.findall(r"^\s+- `(\w+)`:\s*(?:\(`([^`]*)`\))?", listed.group(1), re.M):
            per_event.setdefault(name, {})[field] = typ
    return base, per_event


def json_type(ts: str) -> str:
    ts = ts.strip()
    if re.fullmatch(r'"[^"]*"(\s*\|\s*"[^"]*")*|string', ts):
        return "string"
    if ts in ("number", "boolean", "object"):
        return ts
    if ts.endswith("[]") or ts.startswith("Array<"):
        return "array"
    raise SuiteError(f"{REFERENCE}: no JSON type for `{ts}`")


def answers(b: Bundle, events: list) -> tuple:
    """Which answer members each event's output is read for."""
    types = b.module("hooks/types.js")
    default = re.search(r"var DefaultHookOutput = class \{", types)
    plain = set(re.findall(r"^  (\w+);$", braced(types, default.end() - 1), re.M)) - {
        "hookSpecificOutput"}
    # Each reading method: the members it reads, and the methods it calls.
    reads: dict = {}
    calls: dict = {}
    for cls in re.finditer(r"var \w+HookOutput = class(?: extends \w+)? \{", types):
        body = braced(types, cls.end() - 1)
        for m in re.finditer(r"^  (\w+)\([^)]*\) \{", body, re.M):
            if m.group(1) == "constructor":
                continue
            code = braced(body, m.end() - 1)
            found = {f for f in re.findall(r"this\.(\w+)\b(?!\()", code) if f in plain}
            found |= {f"hookSpecificOutput.{k}"
                      for k in re.findall(r'"(\w+)" in this\.hookSpecificOutput', code)}
            reads.setdefault(m.group(1), set()).update(found)
            calls.setdefault(m.group(1), set()).update(re.findall(r"this\.(\w+)\(", code))

    def closure(method: str, seen=frozenset()) -> set:
        out = set(reads.get(method, ()))
        for callee in calls.get(method, ()):
            if callee not in seen:
                out |= closure(callee, seen | {method})
        return out

    # The call sites outside the hooks package's own machinery (its
    # types, aggregation and event handler), plus the hook system's
    # per-event wrappers.
    skip = ("hooks/types.js", "hooks/hookAggregator.js", "hooks/hookEventHandler.js",
            "hooks/hookRunner.js")
    per_event: dict = {e: set() for e in events}
    method_call = re.compile(r"\.(" + "|".join(sorted(reads)) + r")\(")
    fire = re.compile(r"\.fire(" + "|".join(events) + r")Event\(")
    used = set()
    for path, (file, body) in b.modules.items():
        if path.endswith(skip):
            continue
        last_event = None
        marks = sorted([(m.start(), "fire", m.group(1)) for m in fire.finditer(body)]
                       + [(m.start(), "read", m.group(1)) for m in method_call.finditer(body)])
        for pos, kind, name in marks:
            if kind == "fire":
                last_event = name
            elif last_event is not None:
                per_event[last_event] |= closure(name)
                used.add(file)
    handler = b.module("hooks/hookEventHandler.js")
    common = sorted({f for f in re.findall(r"(?:finalOutput|output)\??\.(\w+)\b(?!\()", handler)
                     if f in plain})
    return {e: sorted(a - set(common)) for e, a in per_event.items()}, common, sorted(used)


def mcp_pattern(b: Bundle) -> str:
    mcp = b.module("tools/mcp-tool.js")
    prefix = re.search(r'var MCP_TOOL_PREFIX = "([^"]*)"', mcp).group(1)
    sep = re.search(r'var MCP_QUALIFIED_NAME_SEPARATOR = "([^"]*)"', mcp).group(1)
    if not re.search(r"generateValidName\(`\$\{serverName\}\$\{MCP_QUALIFIED_NAME_SEPARATOR\}"
                     r"\$\{serverToolName\}`\)", mcp):
        raise SuiteError("mcp-tool.js no longer names a tool generateValidName(server_tool)")
    return f"{prefix}{{server}}{sep}{{tool}}"


def tools(b: Bundle) -> list:
    names = b.module("tools/tool-names.js")
    listed = re.search(r"var ALL_BUILTIN_TOOL_NAMES = \[(.*?)\];", names, re.S).group(1)
    consts = {}
    for path in b.modules:
        if "/tools/" in path:
            consts.update(re.findall(r'var (\w+_TOOL_NAME) = "([^"]+)"', b.modules[path][1]))
    return [consts[c] for c in re.findall(r"\w+", listed)]


def snapshot(root: Path) -> dict:
    b = Bundle(root)
    events, common, fields = events_and_fields(b)
    base_types, ref = reference_types((root / REFERENCE).read_text())
    per_event_answers, common_answers, call_files = answers(b, events)
    out_events = {}
    for event in events:
        typed = {}
        for f in fields[event]:
            word = TYPE_BY_READING.get((event, f)) or ref.get(event, {}).get(f)
            if not word:
                raise SuiteError(f"{REFERENCE} gives no type for {event}.{f}")
            typed[f] = json_type(word)
        out_events[event] = {"fields": dict(sorted(typed.items())),
                             "answers": per_event_answers[event]}
    files = b.used_files("hooks/types.js", "hooks/hookEventHandler.js", "tools/tool-names.js",
                         "tools/mcp-tool.js") + [REFERENCE] + call_files
    return {
        "host": HOST,
        "source": {"package": PINNED[HOST]["package"], "version": PINNED[HOST]["version"],
                   "files": sorted(set(files))},
        "common_fields": {f: json_type(base_types[f]) for f in sorted(common)},
        "events": out_events,
        "common_answers": common_answers,
        "tools": tools(b),
        "mcp_tool_name": mcp_pattern(b),
    }


def main() -> int:
    out = out_argument(HOST, __doc__.splitlines()[0])
    pin = PINNED[HOST]
    root = package_dir(pin["package"], pin["version"]) / "node_modules" / pin["package"]
    if not (root / "bundle" / "gemini.js").is_file():
        raise SuiteError(f"{pin['package']}@{pin['version']} is not in the hosts' cache ({root})")
    write(out, snapshot(root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
