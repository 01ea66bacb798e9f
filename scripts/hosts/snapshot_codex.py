"""Writes `crates/hookc/src/hosts/snapshots/codex.json`: what the pinned
Codex CLI declares about its hooks, read from its npm package in the cache
(no network).

The package (`@openai/codex`) carries a native binary in
`@openai/codex-linux-x64` (`vendor/x86_64-unknown-linux-musl/bin/codex`).
Codex's hook JSON Schemas (draft-07, generated from the Rust wire types of
`codex-rs/hooks`) are embedded in it as pretty-printed text, one per
payload and one per answer, titled `<event>.command.input` and
`<event>.command.output`. This script finds every blob that starts with
`{\\n  "$schema": "http://json-schema.org/draft-07/schema#"` and parses it:

- an input schema's `hook_event_name` const names the event; its
  properties are the payload's top-level members, typed from `type`,
  `$ref`, `const`, `enum` or `allOf` (a schema of `true` is `any`);
- an output schema's properties are the answer's members, with those of
  `hookSpecificOutput` written `hookSpecificOutput.<member>`; members of
  every event's answer are `common_answers`. An event without an output
  schema (SessionEnd) reads no answer.

The schemas say what parses, not what Codex accepts at run time: 0.171
refuses (a failed hook, the call goes ahead) PreToolUse's
`permissionDecision: "ask"`, `"allow"` without `updatedInput`,
`updatedInput` without `"allow"`, `decision: "approve"`, `continue:
false`, `stopReason` and `suppressOutput`; PermissionRequest's
`updatedInput`, `updatedPermissions`, `interrupt: true`, `continue:
false`, `stopReason` and `suppressOutput`; PostToolUse's
`suppressOutput` and `updatedMCPToolOutput`. Those rules are code, not
schema (learned by running the host: scripts/hosts/codex.py and
/tmp/findings/codex.md), so they are not in the snapshot.

Tools, found by reading: the hook-facing tool names are not a declared
list in the binary. The shell tool (`exec_command`, or `shell`) reaches
hooks as `Bash`, a name that exists only as an immediate operand in
machine code; `apply_patch` (tool_input `{command: PATCH}`) and
`view_image` (tool_input `{path}`) keep their model-facing names. These
were observed in payloads of real runs; the script only checks that each
name is present in the binary. The MCP tool name pattern is read from the
binary's own instructions text ("standard MCP identifiers such as
`mcp__server__tool`").
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PINNED, install  # noqa: E402
from snapshot_common import out_argument, write  # noqa: E402

HOST = "codex"
BINARY = "vendor/x86_64-unknown-linux-musl/bin/codex"
PLATFORM_PACKAGE = "@openai/codex-linux-x64"
SCHEMA_START = b'{\n  "$schema": "http://json-schema.org/draft-07/schema#"'
# Observed in payloads (see the docstring); each must appear in the binary.
TOOLS = {"Bash": b"Bash", "apply_patch": b"apply_patch", "view_image": b"view_image"}
MCP_TEXT = re.compile(rb"standard MCP identifiers such as `mcp__(\w+?)__(\w+)`")


def schemas(binary: bytes) -> list:
    """Every draft-07 schema embedded in the binary, parsed."""
    decoder = json.JSONDecoder()
    found = []
    for match in re.finditer(re.escape(SCHEMA_START), binary):
        text = binary[match.start():match.start() + 65536].decode("utf-8", "replace")
        value, _ = decoder.raw_decode(text)
        found.append(value)
    if not found:
        raise SystemExit("no hook schema found in the Codex binary")
    return found


def type_of(schema: object, definitions: dict) -> str:
    """A schema's JSON type words, joined by `|`."""
    if schema is True or schema == {}:
        return "any"
    if not isinstance(schema, dict):
        raise SystemExit(f"unexpected schema: {schema!r}")
    if "$ref" in schema:
        return type_of(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return type_of(schema["allOf"][0], definitions)
    kind = schema.get("type")
    if kind is None:
        return "any"
    return "|".join(kind) if isinstance(kind, list) else kind


def members(schema: dict) -> dict:
    """A payload schema's top-level members and their types."""
    definitions = schema.get("definitions", {})
    return {name: type_of(sub, definitions) for name, sub in schema["properties"].items()}


def answers(schema: dict) -> list:
    """An answer schema's members, hookSpecificOutput's written nested."""
    definitions = schema.get("definitions", {})
    names = []
    for name, sub in schema["properties"].items():
        if name != "hookSpecificOutput":
            names.append(name)
            continue
        ref = sub["allOf"][0]["$ref"] if "allOf" in sub else sub["$ref"]
        nested = definitions[ref.rsplit("/", 1)[-1]]
        names += [f"hookSpecificOutput.{inner}" for inner in nested["properties"]]
    return names


def snapshot(prefix: Path) -> dict:
    pin = PINNED[HOST]
    root = prefix / "node_modules" / PLATFORM_PACKAGE
    binary = (root / BINARY).read_bytes()
    inputs, outputs = {}, {}
    for schema in schemas(binary):
        title = schema.get("title", "")
        if title.endswith(".command.input"):
            event = schema["properties"]["hook_event_name"]["const"]
            inputs[title.removesuffix(".command.input")] = (event, members(schema))
        elif title.endswith(".command.output"):
            outputs[title.removesuffix(".command.output")] = answers(schema)
    unmatched = set(outputs) - set(inputs)
    if unmatched:
        raise SystemExit(f"answer schemas without a payload schema: {sorted(unmatched)}")
    common_fields = None
    for _, fields in inputs.values():
        common_fields = dict(fields) if common_fields is None else {
            k: v for k, v in common_fields.items() if fields.get(k) == v}
    common_answers = None
    for names in outputs.values():
        common_answers = set(names) if common_answers is None else common_answers & set(names)
    events = {}
    for slug, (event, fields) in inputs.items():
        read = [n for n in outputs.get(slug, []) if n not in common_answers]
        events[event] = {
            "fields": {k: v for k, v in sorted(fields.items()) if k not in common_fields},
            "answers": sorted(read),
        }
    for tool, needle in TOOLS.items():
        if needle not in binary:
            raise SystemExit(f"the binary no longer holds the tool name {tool!r}")
    mcp = MCP_TEXT.search(binary)
    if mcp is None:
        raise SystemExit("the binary no longer describes MCP tool names")
    return {
        "host": HOST,
        "source": {"package": pin["package"], "version": pin["version"],
                   # The binary is in the platform package the main one depends on.
                   "files": [f"{PLATFORM_PACKAGE}/{BINARY}"]},
        "common_fields": dict(sorted(common_fields.items())),
        "events": dict(sorted(events.items())),
        "common_answers": sorted(common_answers),
        "tools": sorted(TOOLS),
        "mcp_tool_name": "mcp__{%s}__{%s}" % (mcp.group(1).decode(), mcp.group(2).decode()),
    }


def main() -> int:
    out = out_argument(HOST, __doc__.splitlines()[0])
    pin = PINNED[HOST]
    write(out, snapshot(install(pin["package"], pin["version"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
