"""Claude Code in the end-to-end suite: its model wire, how to drive it
headless, and its cases.

Claude Code (`@anthropic-ai/claude-code`, a native binary) talks to the
Anthropic Messages API: `POST /v1/messages?beta=true` with `stream: true`,
answered with server-sent events (`message_start`, `content_block_start` /
`content_block_delta` / `content_block_stop`, `message_delta` with the
stop reason, `message_stop`). `ClaudeWire` spells a scripted `Turn` that
way; any other request (a token count) gets a small sensible answer.

`drive` runs `claude -p PROMPT --output-format json` in a scratch project
with a private HOME, the base URL pointed at the `ModelServer`, the API
key a dummy, telemetry, updates and other non-essential traffic off.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
from common import (  # noqa: E402
    TAMPERINGS, Case, ModelServer, Project, Response, Turn, Wire, expect, host_command, run,
)

HOST = "claude-code"
MODEL = "claude-sonnet-4-5"


class ClaudeWire(Wire):
    """The Anthropic Messages API as Claude Code calls it.

    Only a request that offers tools is the agent loop's model call, the
    one the script answers. With non-essential traffic off, 2.1.332 makes
    no other call in these cases; a side call without tools (a title, a
    summary) would get a short text without taking a turn of the script,
    so that the script stays aligned with the agent's own loop."""

    def is_model_call(self, method: str, path: str, body: object) -> bool:
        return (method == "POST" and path.split("?")[0] == "/v1/messages"
                and isinstance(body, dict) and bool(body.get("tools")))

    def respond(self, turn: Turn, method: str, path: str, body: object) -> Response:
        return self._message(turn, stream=bool(isinstance(body, dict) and body.get("stream")))

    def other(self, method: str, path: str, body: object) -> Response:
        route = path.split("?")[0]
        if route == "/v1/messages/count_tokens":
            return Response.json({"input_tokens": 100})
        if method == "POST" and route == "/v1/messages":
            return self._message(Turn.say("ok"),
                                 stream=bool(isinstance(body, dict) and body.get("stream")))
        return Response.json({})

    def _message(self, turn: Turn, stream: bool) -> Response:
        content = []
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        for call in turn.calls:
            content.append({"type": "tool_use", "id": f"toolu_{call.call_id}",
                            "name": call.name, "input": call.arguments})
        stop = "tool_use" if turn.calls else "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10}
        message = {"id": "msg_scripted", "type": "message", "role": "assistant",
                   "model": MODEL, "content": content, "stop_reason": stop,
                   "stop_sequence": None, "usage": usage}
        if not stream:
            return Response.json(message)
        events = [("message_start", {"type": "message_start",
                                     "message": {**message, "content": [], "stop_reason": None,
                                                 "usage": {"input_tokens": 100,
                                                           "output_tokens": 1}}})]
        for index, block in enumerate(content):
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [
                ("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": start}),
                ("content_block_delta", {"type": "content_block_delta", "index": index,
                                         "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 10}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        return Response.sse(events)


def drive(project: Project, server: ModelServer, prompt: str, *,
          permission_mode: Optional[str] = "bypassPermissions", hookc_on_path: bool = True,
          stream: bool = False, timeout: float = 90,
          etc: Optional[common.PrivateEtc] = None):
    """Run `claude -p PROMPT` in the project against the scripted model
    (`stream`: `--output-format stream-json`, every message the user would
    see, one JSON object a line)."""
    env = project.env({
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "dummy",
        # Root may bypass permissions only in a sandbox; the scratch
        # project is one.
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }, hookc_on_path=hookc_on_path)
    output = ["stream-json", "--verbose"] if stream else ["json"]
    argv = [host_command(HOST), "-p", prompt, "--output-format", *output, "--model", MODEL]
    if permission_mode:
        argv += ["--permission-mode", permission_mode]
    if etc:
        argv = etc.wrap(argv)
    return run(argv, cwd=project.dir, env=env, timeout=timeout)


# ---------------------------------------------------------------------------
# Cases

class Session(common.Session):
    """One run of Claude Code: what it printed and what the model saw."""

    @property
    def outcome(self) -> dict:
        """The `--output-format json` result (empty when it is not JSON)."""
        try:
            value = json.loads(self.result.stdout)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def describe(self) -> str:
        """What to show when a case fails: the run's end and the last
        thing the model was sent."""
        calls = self.server.model_requests()
        last = calls[-1].body.get("messages", [])[-1:] if calls else "no model call"
        return (f"exit {self.result.returncode}, {len(calls)} model call(s), "
                f"terminal_reason {self.outcome.get('terminal_reason')!r}; "
                f"last message: {json.dumps(last)[:600]}; stderr: {self.result.stderr[-400:]}")


def scratch() -> Project:
    """A scratch project set up by `hookc init --host claude-code`, with a
    `victim/` folder that a recursive remove would delete."""
    project = Project(host=HOST)
    project.init(HOST)
    project.write("victim/keep.txt", "keep me\n")
    return project


def bash(command: str, call_id: str) -> Turn:
    return Turn.call("Bash", {"command": command, "description": "scripted"}, call_id)


def session(project: Project, script: list, prompt: str = "go", **drive_args) -> Session:
    with ModelServer(ClaudeWire(), script, final="done") as server:
        result = drive(project, server, prompt, **drive_args)
    return Session(result, server)


DRIVER = common.Driver(scratch, session, bash)


def read_env(project: Project) -> Turn:
    return Turn.call("Read", {"file_path": str(project.path(".env"))}, "deny_2")


def case_defer() -> None:
    # `-p` defers by ending the run: the call waits for a host that can
    # resume it (terminal_reason tool_deferred), it does not run.
    with scratch() as project:
        project.fake_tools("terraform")
        s = session(project, [bash("terraform plan", "defer_1")])
        expect(project.ran() == [], f"a deferred command ran: {project.ran()}; {s.describe()}")
        expect(s.outcome.get("terminal_reason") == "tool_deferred",
               f"the run did not end deferred: {s.describe()}")


def case_permission_request() -> None:
    # Without bypassPermissions Claude Code asks before a command writes
    # in the project: PermissionRequest runs, and the guard answers it.
    with scratch() as project:
        project.fake_tools("cargo")
        s = session(project, [
            bash("cargo build", "perm_1"),
            bash("ls /etc > etc.marker", "perm_2"),
        ], permission_mode=None)
        expect(project.ran() == ["cargo build --locked"],
               f"expected the allowed, rewritten `cargo build --locked` to run, ran: "
               f"{project.ran()}; {s.describe()}")
        expect(not project.path("etc.marker").exists(),
               f"a command touching /etc ran: {s.describe()}")
        expect(s.saw("commands touching /etc are not allowed"),
               f"the permission deny reason did not reach the model: {s.describe()}")


def case_context() -> None:
    with scratch() as project:
        script = project.path("tool.py")
        s = session(project, [
            Turn.call("Write", {"file_path": str(script), "content": "print(1)\n"}, "ctx_1"),
            bash("definitely-not-a-command-hookc", "ctx_2"),
        ])
        expect(s.first_saw("Never push to main."),
               f"SessionStart's context did not reach the model: {s.describe()}")
        expect(s.first_saw("This project uses uv."),
               f"UserPromptSubmit's context did not reach the model: {s.describe()}")
        expect(s.saw(f"run `ruff format {script}`"),
               f"PostToolUse's context did not reach the model: {s.describe()}")
        expect(s.saw("the command was not found"),
               f"PostToolUseFailure's context did not reach the model: {s.describe()}")
        # Stop blocks once (stop_hook_active false), then lets the agent stop.
        expect(s.saw("run the tests before stopping"),
               f"the Stop hook did not keep the agent going: {s.describe()}")
        expect(s.outcome.get("terminal_reason") == "completed" and s.server.model_calls == 4,
               f"expected 4 model calls and a completed run: {s.describe()}")


def case_skill_shell() -> None:
    # A slash command's `!`cmd`` lines run through PreSkillShellCommand,
    # not PreToolUse: the guard must see them too.
    with scratch() as project:
        project.write(".claude/commands/cleanup.md",
                      "---\ndescription: clean up\nallowed-tools: Bash(rm:*)\n---\n"
                      "Result: !`rm -rf victim && echo CLEANED`\n\nSay what happened.\n")
        s = session(project, [], prompt="/cleanup")
        expect(project.path("victim/keep.txt").exists(),
               "a slash command's shell line `rm -rf victim` ran (PreSkillShellCommand did not "
               f"deny it); {s.describe()}")
        expect(s.first_saw("recursive force-remove is not allowed"),
               f"the deny reason did not reach the model: {s.describe()}")


def case_managed() -> None:
    # `hookc init --managed`, as the machine's administrator: the guard in
    # /etc/hookc/claude-code/ and /etc/claude-code/managed-settings.json,
    # the system paths themselves, in a private /etc (common.PrivateEtc:
    # the machine's is never written). The real Claude Code reads them
    # from there; the guard denies the rm -rf from a project that has no
    # hookc set up, and the project's own hook, which runs without them,
    # no longer runs. (`--managed-settings JSON`, the policy tier a parent
    # process passes, is no way around the system path: 2.1.332 honours
    # its allowManagedHooksOnly but runs none of its hooks.)
    with Project(host=HOST) as project:
        etc = common.install_managed(project, HOST, ["claude-code/managed-settings.json",
                                                     "hookc/claude-code/guard.yaml"])
        marker = project.root / "project-hook.ran"
        project.write(".claude/settings.json", json.dumps({"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}))
        project.write("victim/keep.txt", "keep me\n")
        s = session(project, [bash("echo hi", "managed_0")])
        expect(marker.exists(), f"the project's own hook did not run to begin with: {s.describe()}")
        marker.unlink()
        s = session(project, [bash(common.DENIED, "managed_1")], etc=etc)
        common.expect_not_run(project, s, "the managed guard's deny")
        expect(s.saw("recursive force-remove is not allowed"),
               f"the managed guard's reason did not reach the model: {s.describe()}")
        expect(not marker.exists(),
               f"the project's own hook ran despite allowManagedHooksOnly: {s.describe()}")


def user_message_shown(s: Session) -> bool:
    """Whether `claude -p` reported the user's message as a notice
    (`PreToolUse:Bash says: ...`, a stream-json `informational` message)."""
    notices = [m.get("content", "") for m in map(json.loads, s.result.stdout.splitlines())
               if isinstance(m, dict) and m.get("subtype") == "informational"]
    return any(common.FOR_THE_USER in n for n in notices)


def cases() -> list:
    def case(name: str, body: Callable[[], None], doc: str) -> Case:
        return Case(HOST, name, body, doc)

    return [
        case("deny", common.case_deny(DRIVER, read_env),
             "rm -rf and a .env read are denied; the reasons reach the model"),
        case("allow", common.case_allow(DRIVER), "a command no hook decides runs, and `ls` is allowed"),
        case("deadline", common.case_deadline(DRIVER, ".claude/settings.json"),
             "a `run` past --deadline: the host gets the block in time, the command does not run"),
        case("pinned", common.case_pinned(DRIVER, HOST, prints_stop=True),
             "init --pin, then the guard changed: every call is blocked, saying why"),
        case("logged", common.case_logged(DRIVER, HOST, ".claude/settings.json"),
             "--log with --shadow: the live deny holds; live and shadow lines, disasm's digest"),
        case("adopt", common.case_adopt(
            DRIVER, HOST, ".claude/settings.json", "PreToolUse",
            lambda command: {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]},
            lambda new: {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                "updatedInput": {"command": new}}}),
            "init --adopt: two rewriting hooks apply in order, an exit-2 hook blocks"),
        case("rewrite", common.case_rewrite(DRIVER, told="pip install was run as uv pip install"),
             "pip install runs as uv pip install, with its context"),
        # `-p` has nobody to ask: Claude Code refuses the call and hands the
        # reason to the model.
        case("ask", common.case_ask_headless(DRIVER),
             "ask in -p: the command does not run, the reason reaches the model"),
        case("defer", case_defer, "defer in -p: the command does not run, the run ends deferred"),
        case("permission-request", case_permission_request,
             "default mode: PermissionRequest allows a rewritten cargo build, denies /etc"),
        case("context", case_context,
             "SessionStart, UserPromptSubmit, PostToolUse(Failure) context and Stop reach the model"),
        case("skill-shell", case_skill_shell, "a slash command's !`rm -rf victim` is denied"),
        case("managed", case_managed,
             "init --managed in a private /etc: the managed guard denies rm -rf in a project "
             "without hookc; the project's own hook does not run"),
        case("user-message",
             common.case_user_message(DRIVER, HOST, "PreToolUse", "Bash", user_message_shown,
                                      stream=True),
             "a deny's user_message is shown to the user (a notice), its reason to the model"),
        *[case(f"fail-closed-{how}", common.tool_fails_closed(DRIVER, how),
               f"{how} mid-session: a denied command does not run")
          for how in TAMPERINGS],
        # UserPromptSubmit is the first hook that can block.
        case("fail-closed-prompt-no-hookc", common.prompt_fails_closed(DRIVER),
             "no hookc on PATH from the start: the prompt does not reach the model"),
        *[case(f"fail-closed-stop-{how}", common.stop_fails_closed(DRIVER, how, "Stop"),
               f"{how}: Stop blocks the stop")
          for how in ("policy-missing", "no-hookc")],
    ]
