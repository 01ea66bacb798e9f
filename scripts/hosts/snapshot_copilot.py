"""Writes `crates/hookc/src/hosts/snapshots/copilot.json`: what the pinned
GitHub Copilot CLI says about its hooks, read from its own package.

`@github/copilot` 1.0.102 ships a loader; the CLI is the platform package's
native binary (`@github/copilot-linux-x64/copilot`), a Node single-executable
application whose `NODE_SEA_BLOB` carries one asset, `copilot.tgz`: the
whole JavaScript package (found in the blob by its asset record: the name's
length and the name, then the asset's length, then gzip). From it:

- `package/prebuilds/linux-x64/runtime.node`, the native runtime: its
  settings catalogue (JSON fragments `{"path":"hooks.<event>",...}`) lists
  the events a hook file may configure; each is checked against `HookType`
  in `package/schemas/api.schema.json` (which also has callback-only ones);
- `package/copilot-sdk/types.d.ts`: `BaseHookInput` and `<Event>HookInput`
  (the payload members; `extends` followed), `<Event>HookOutput` (the
  answer members; an interface or a union of object types).

Only by running the CLI (captures with a hand-written hook, see
/tmp/findings/copilot.md and `scripts/hosts/copilot.py`), not in any
source, so written out below and checked against the types where they
overlap:

- the SDK types describe the SDK's in-process callbacks; a *command* hook's
  payload spells three members differently (`WIRE_RENAMES`:
  `workingDirectory` is `cwd`, `stopHookActive` is `stop_hook_active`) and
  sends `timestamp` as milliseconds, not a `Date`;
- `subagentStop`'s payload also has `stop_hook_active` (`CAPTURED_EXTRA`);
- `permissionRequest`, `notification` and `preCompact` have no SDK type:
  their payloads (`CAPTURED_FIELDS`) and `permissionRequest`'s answer
  (`behavior`, `message`) come from captures (preCompact's from the
  runtime's `auto_compaction_hook_input` strings: it was not triggered);
- the built-in tools: the names the CLI offers the model, read from the
  `tools` of its first model request in one offline run against the
  scripted model on 127.0.0.1 (`--tools-from-run`, the default); the set
  depends on the mode (offline `-p`: no `web_fetch`, no `ask_user`);
- an MCP tool's name, `{server}-{tool}` in preToolUse and postToolUse
  (permissionRequest spells it `{server}/{tool}`, preMcpToolCall sends
  `serverName` and `toolName` apart).

Usage: python3 scripts/hosts/snapshot_copilot.py [--out PATH]
"""

from __future__ import annotations

import gzip
import io
import json
import re
import struct
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PINNED, ModelServer, Project, SuiteError, package_dir  # noqa: E402
from snapshot_common import braced, out_argument, split_top, strip_comments, write  # noqa: E402

HOST = "copilot"
PLATFORM = "@github/copilot-linux-x64"
ASSET = b"copilot.tgz"
SCHEMA = "package/schemas/api.schema.json"
TYPES = "package/copilot-sdk/types.d.ts"
RUNTIME = "package/prebuilds/linux-x64/runtime.node"

# A command hook's payload, where it differs from the SDK callback's input.
WIRE_RENAMES = {"workingDirectory": "cwd", "stopHookActive": "stop_hook_active"}
WIRE_TYPES = {"timestamp": "number"}
# Events without an SDK type: their payload members (beyond the common
# ones) and answers, as captured from 1.0.102.
CAPTURED_FIELDS = {
    "permissionRequest": {"hookName": "string", "toolName": "string", "toolInput": "object",
                          "permissionSuggestions": "array"},
    "notification": {"hook_event_name": "string", "message": "string",
                     "notification_type": "string", "title": "string"},
    "preCompact": {"transcriptPath": "string", "trigger": "string",
                   "customInstructions": "string"},
}
CAPTURED_ANSWERS = {"permissionRequest": ["behavior", "message"], "notification": [],
                    "preCompact": []}
# Members a command hook's payload has beyond its SDK type (captured).
CAPTURED_EXTRA = {"subagentStop": {"stop_hook_active": "boolean"}}


def package_files(binary: Path) -> dict:
    """The files of the JavaScript package inside the CLI binary's SEA
    blob that this script reads: path -> bytes."""
    data = binary.read_bytes()
    record = struct.pack("<Q", len(ASSET)) + ASSET
    at = data.find(record)
    while at != -1:
        start = at + len(record) + 8
        size = struct.unpack("<Q", data[at + len(record):start])[0]
        if data[start:start + 2] == b"\x1f\x8b" and start + size <= len(data):
            break
        at = data.find(record, at + 1)
    if at == -1:
        raise SuiteError(f"{binary} has no `{ASSET.decode()}` asset in its SEA blob")
    wanted = {SCHEMA, TYPES, RUNTIME}
    out = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data[start:start + size]))) as tar:
        for member in tar:
            if member.name in wanted:
                out[member.name] = tar.extractfile(member).read()
    missing = wanted - set(out)
    if missing:
        raise SuiteError(f"the package in {binary} has no {sorted(missing)}")
    return out


class Types:
    """The interfaces and object-type aliases of types.d.ts."""

    def __init__(self, text: str):
        self.text = strip_comments(text)

    def members(self, name: str) -> dict:
        """The members of interface `name` (with what it extends), or of a
        type alias that is a union of object types: name -> type text."""
        m = re.search(rf"export interface {name}(?: extends (\w+))? \{{", self.text)
        if m:
            out = self.members(m.group(1)) if m.group(1) else {}
            out.update(self._object(braced(self.text, m.end() - 1)))
            return out
        m = re.search(rf"export type {name} = ", self.text)
        if m is None:
            raise SuiteError(f"{TYPES} has no `{name}`")
        out = {}
        for alt in split_top(self._until_semicolon(m.end()), "|"):
            if not alt.startswith("{"):
                raise SuiteError(f"{TYPES}: `{name}` is not a union of object types")
            out.update(self._object(alt[1:-1]))
        return out

    def _until_semicolon(self, start: int) -> str:
        depth = 0
        for i in range(start, len(self.text)):
            if self.text[i] in "{([":
                depth += 1
            elif self.text[i] in "})]":
                depth -= 1
            elif self.text[i] == ";" and depth == 0:
                return self.text[start:i].strip()
        raise SuiteError(f"{TYPES}: unterminated declaration at {start}")

    def has(self, name: str) -> bool:
        return re.search(rf"export (?:interface|type) {name}\b", self.text) is not None

    @staticmethod
    def _object(body: str) -> dict:
        out = {}
        for member in split_top(body, ";"):
            m = re.match(r"(\w+)\??\s*:\s*(.*)$", member, re.S)
            if m:
                out[m.group(1)] = m.group(2).strip()
        return out


def json_type(type_text: str) -> str:
    """The JSON-Schema type word(s) of a TypeScript type."""
    words: list = []
    for alt in split_top(type_text, "|"):
        if re.fullmatch(r"'[^']*'|\"[^\"]*\"|string", alt):
            word = "string"
        elif re.fullmatch(r"-?\d+(\.\d+)?|number", alt):
            word = "number"
        elif alt in ("true", "false", "boolean"):
            word = "boolean"
        elif alt in ("null", "undefined"):
            word = "null"
        elif alt in ("unknown", "any", "never"):
            word = "any"
        elif alt.endswith("[]") or alt.startswith("Array<"):
            word = "array"
        elif alt.startswith(("{", "Record<")) or alt == "ToolResultObject":
            word = "object"
        elif alt == "Date":
            word = "string"  # replaced by WIRE_TYPES: the wire sends milliseconds
        else:
            raise SuiteError(f"{TYPES}: no JSON type for `{alt}`")
        if word not in words:
            words.append(word)
    if "any" in words:
        return "any"
    words.sort(key=lambda w: w == "null")
    return "|".join(words)


def wire_fields(members: dict) -> dict:
    out = {}
    for name, type_text in members.items():
        wire = WIRE_RENAMES.get(name, name)
        out[wire] = WIRE_TYPES.get(wire) or json_type(type_text)
    return out


def hook_events(runtime: bytes, schema: dict) -> list:
    """The events a hook file may configure, from the runtime's settings
    catalogue, each one a `HookType`."""
    events = list(dict.fromkeys(
        m.decode() for m in re.findall(rb'"path":"hooks\.(\w+)","leafKind"', runtime)))
    known = schema["definitions"]["HookType"]["enum"]
    unknown = [e for e in events if e not in known]
    if not events or unknown:
        raise SuiteError(f"hook events {unknown or 'none'} in {RUNTIME} are not HookTypes")
    return events


def offered_tools() -> list:
    """The tools the CLI offers the model in an offline `-p` run: the names
    in its first model request."""
    import copilot  # the host's wire and drive: the same run as the suite's

    with Project(git=True) as project:
        with ModelServer(copilot.ChatWire(), [], final="done") as server:
            copilot.drive(project, server, "go", timeout=60)
        calls = server.model_requests()
        if not calls:
            raise SuiteError("the CLI made no model call")
        return [t["function"]["name"] for t in calls[0].body["tools"]]


def snapshot(files: dict, tools: list) -> dict:
    schema = json.loads(files[SCHEMA])
    types = Types(files[TYPES].decode())
    common = wire_fields(types.members("BaseHookInput"))
    events = {}
    for event in hook_events(files[RUNTIME], schema):
        stem = event[0].upper() + event[1:]
        if types.has(f"{stem}HookInput"):
            fields = {k: v for k, v in wire_fields(types.members(f"{stem}HookInput")).items()
                      if k not in common}
            fields.update(CAPTURED_EXTRA.get(event, {}))
            answers = sorted(types.members(f"{stem}HookOutput"))
        elif event in CAPTURED_FIELDS:
            fields, answers = CAPTURED_FIELDS[event], CAPTURED_ANSWERS[event]
        else:
            raise SuiteError(f"{event} has no SDK type and no captured payload")
        events[event] = {"fields": dict(sorted(fields.items())), "answers": answers}
    pin = PINNED[HOST]
    return {
        "host": HOST,
        "source": {"package": pin["package"], "version": pin["version"],
                   "files": [f"{PLATFORM}/copilot#{ASSET.decode()}/{f}"
                             for f in (RUNTIME, SCHEMA, TYPES)]},
        "common_fields": dict(sorted(common.items())),
        "events": events,
        "common_answers": [],
        "tools": tools,
        "mcp_tool_name": "{server}-{tool}",
    }


def main() -> int:
    out = out_argument(HOST, __doc__.splitlines()[0])
    pin = PINNED[HOST]
    binary = package_dir(pin["package"], pin["version"]) / "node_modules" / PLATFORM / "copilot"
    if not binary.is_file():
        raise SuiteError(f"{PLATFORM} {pin['version']} is not in the hosts' cache ({binary})")
    write(out, snapshot(package_files(binary), offered_tools()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
