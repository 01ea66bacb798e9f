"""GitHub Copilot CLI in the end-to-end suite: its model wire, how to drive
it headless, and its cases.

The Copilot CLI (`@github/copilot`, a native binary) runs without a GitHub
login in its custom-provider mode: `COPILOT_OFFLINE=true` and
`COPILOT_PROVIDER_BASE_URL` pointed at an OpenAI-compatible server. It then
talks OpenAI chat completions: `POST /v1/chat/completions` with
`stream: true`, answered with server-sent `chat.completion.chunk`s (a
`delta` with `content` or `tool_calls`, a last chunk with the
`finish_reason`) and `data: [DONE]`. `ChatWire` spells a scripted `Turn`
that way; the model list and any other request get a small answer.

`drive` runs `copilot -p PROMPT --allow-all-tools` in a scratch project with
a private HOME and COPILOT_HOME, updates off, and the folder trusted (repo
hooks in `.github/hooks/*.json` load only in a trusted folder).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
from common import (  # noqa: E402
    DENIED, GUARD, Case, ModelServer, Project, Response, Turn, Wire, expect, host_command, run,
)

HOST = "copilot"
MODEL = "gpt-4.1"


class ChatWire(Wire):
    """OpenAI chat completions as the Copilot CLI calls them.

    Only a request that offers tools is the agent loop's model call, the
    one the script answers; a side call without tools (a title, a summary)
    gets a short text without taking a turn of the script."""

    def is_model_call(self, method: str, path: str, body: object) -> bool:
        return (method == "POST" and path.split("?")[0].endswith("/chat/completions")
                and isinstance(body, dict) and bool(body.get("tools")))

    def respond(self, turn: Turn, method: str, path: str, body: object) -> Response:
        return self._completion(turn, stream=bool(isinstance(body, dict) and body.get("stream")))

    def other(self, method: str, path: str, body: object) -> Response:
        route = path.split("?")[0]
        if route.endswith("/models"):
            return Response.json({"object": "list", "data": [
                {"id": MODEL, "object": "model", "created": 0, "owned_by": "scripted"}]})
        if method == "POST" and route.endswith("/chat/completions"):
            return self._completion(Turn.say("ok"),
                                    stream=bool(isinstance(body, dict) and body.get("stream")))
        return Response.json({})

    def _completion(self, turn: Turn, stream: bool) -> Response:
        calls = [{"id": call.call_id, "type": "function",
                  "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
                 for call in turn.calls]
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        head = {"id": "chatcmpl-scripted", "created": 0, "model": MODEL}
        if not stream:
            message = {"role": "assistant", "content": turn.text or None}
            if calls:
                message["tool_calls"] = calls
            return Response.json({**head, "object": "chat.completion", "usage": usage,
                                  "choices": [{"index": 0, "message": message,
                                               "finish_reason": finish}]})

        def chunk(delta: dict, finish_reason=None, **extra) -> tuple:
            return (None, {**head, "object": "chat.completion.chunk", **extra,
                           "choices": [{"index": 0, "delta": delta,
                                        "finish_reason": finish_reason}]})

        events = [chunk({"role": "assistant", "content": ""})]
        if turn.text:
            events.append(chunk({"content": turn.text}))
        for index, call in enumerate(calls):
            events.append(chunk({"tool_calls": [{"index": index, **call}]}))
        events.append(chunk({}, finish, usage=usage))
        events.append((None, "[DONE]"))
        return Response.sse(events)


def drive(project: Project, server: ModelServer, prompt: str, *, allow_paths: bool = False,
          hookc_on_path: bool = True, timeout: float = 90) -> subprocess.CompletedProcess:
    """Run `copilot -p PROMPT --allow-all-tools` in the project against the
    scripted model (without --allow-all-tools, `-p` denies every call that
    would need a person). `allow_paths` lets a command touch paths outside
    the project (the project's `bin/`), which `-p` otherwise denies. The
    CLI's debug log goes to the scratch root's `logs/` (HOOKC_HOSTS_KEEP
    keeps it)."""
    env = project.env({
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{server.url}/v1",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": MODEL,
        "COPILOT_HOME": str(project.home / ".copilot"),
        "COPILOT_AUTO_UPDATE": "false",
    }, hookc_on_path=hookc_on_path)
    argv = [host_command(HOST), "-p", prompt, "--trust-folder", "--no-color",
            "--no-auto-update", "--disable-client-telemetry", "--disable-builtin-mcps",
            "--log-dir", str(project.root / "logs"), "--log-level", "debug",
            "--allow-all-tools"]
    if allow_paths:
        argv.append("--allow-all-paths")
    return run(argv, cwd=project.dir, env=env, timeout=timeout)


# ---------------------------------------------------------------------------
# Cases


# A permissionRequest rule a user adds to the guard, written the way the
# profile declares the event's payload (the command in `toolInput`, not
# `toolArgs`): Copilot runs permissionRequest for every shell command, even
# with --allow-all-tools.
ETC_RULE = """  - id: no_etc
    event: permissionRequest
    when: >-
      toolName == 'bash' && shell.commands(toolInput.command).exists(c,
        c.argv.exists(a, a.startsWith('/etc')))
    action: {type: deny, reason: "commands touching /etc are not allowed"}
"""


# Context a user adds on the events Copilot reads `additionalContext` on,
# and an agentStop rule that blocks the first stop only (Copilot sends
# `stop_hook_active: true` when it stops again after a block).
CONTEXT_RULES = """  - id: before_touch
    event: preToolUse
    when: "toolName == 'bash' && toolArgs.command.startsWith('touch ctx')"
    action: {type: context, text: "the marker is for the test"}
  - id: session_rules
    event: sessionStart
    action: {type: context, text: "Never push to main."}
  - id: prompt_rules
    event: userPromptSubmitted
    action: {type: context, text: "This project uses uv."}
  - id: after_bash
    event: postToolUse
    when: "toolName == 'bash'"
    action: {type: context, text: "check the command's output"}
  - id: after_failure
    event: postToolUseFailure
    action: {type: context, text: "the tool failed: check the path"}
  - id: tests_first
    event: agentStop
    when: "!stop_hook_active"
    action: {type: deny, reason: "run the tests before stopping"}
"""


class Session(common.Session):
    """One run of the Copilot CLI: what it printed and what the model saw."""

    def tool_results(self) -> list:
        """The tool results and hook notes the host sent back after the
        first call, in order (the tail of each later request)."""
        out = []
        for request in self.server.model_requests()[1:]:
            messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
            for message in messages[-2:]:
                if message.get("role") in ("tool", "user") and message.get("content"):
                    out.append(str(message["content"])[:300])
        return out

    def describe(self) -> str:
        """What to show when a case fails: the run's end and what came
        back to the model."""
        return (f"exit {self.result.returncode}, {self.server.model_calls} model call(s); "
                f"tool results: {json.dumps(self.tool_results())[:900]}; "
                f"stderr: {self.result.stderr.strip()[-400:]}")


def scratch(extra_rules: str = "") -> Project:
    """A scratch project set up by `hookc init --host copilot`, with a
    `victim/` folder that a recursive remove would delete; `extra_rules`
    are hooks appended to the guard's list."""
    project = Project(host=HOST)
    project.init(HOST)
    project.write("victim/keep.txt", "keep me\n")
    if extra_rules:
        guard = project.path(GUARD)
        text = guard.read_text()
        # The guard's hooks list ends where its on_error comment begins.
        marker = "# A hook that cannot decide"
        if marker not in text:
            raise AssertionError(f"{GUARD} changed: no `{marker}` to add rules before")
        guard.write_text(text.replace(marker, extra_rules + marker, 1))
    return project


def bash(command: str, call_id: str) -> Turn:
    # `mode: sync` with a wait: the command's output is the tool result.
    return Turn.call("bash", {"command": command, "description": "scripted",
                              "mode": "sync", "initial_wait": 30}, call_id)


def session(project: Project, script: list, prompt: str = "go", **drive_args) -> Session:
    with ModelServer(ChatWire(), script, final="done") as server:
        result = drive(project, server, prompt, **drive_args)
    return Session(result, server)


# Breaking the hook touches `bin/`, outside the project: let it.
DRIVER = common.Driver(scratch, session, bash, tamper_args={"allow_paths": True})


def view_env(project: Project) -> Turn:
    return Turn.call("view", {"path": str(project.path(".env"))}, "deny_2")


def case_permission_request() -> None:
    # permissionRequest runs for every shell command (and for writes, as
    # `edit`), even with --allow-all-tools; a rule on the command denies
    # one and lets the others through.
    with scratch(ETC_RULE) as project:
        s = session(project, [
            bash("ls /etc > etc.marker", "perm_1"),
            bash("touch ok.marker", "perm_2"),
        ])
        expect(not project.path("etc.marker").exists(),
               f"a command touching /etc ran: {s.describe()}")
        expect(s.saw("commands touching /etc are not allowed"),
               f"the permission deny reason did not reach the model: {s.describe()}")
        expect(project.path("ok.marker").exists(),
               f"a command the permissionRequest rule does not match did not run: {s.describe()}")


def case_subagent_context() -> None:
    # The guard's subagentStart context is prepended to the subagent's
    # prompt: the subagent's first model request carries it.
    with scratch() as project:
        s = session(project, [
            Turn.call("task", {"description": "sub task", "prompt": "look around",
                               "agent_type": "general-purpose", "name": "helper"}, "sub_1"),
        ])
        # The request is JSON: the blank line between them is `\\n\\n`.
        expect(s.saw(json.dumps("Never push to main.\n\nlook around")[1:-1]),
               f"subagentStart's context did not reach the subagent: {s.describe()}")


def case_context() -> None:
    with scratch(CONTEXT_RULES) as project:
        s = session(project, [
            bash("touch ctx.marker", "ctx_1"),
            Turn.call("view", {"path": str(project.path("missing.txt"))}, "ctx_2"),
        ])
        expect(s.first_saw("Never push to main."),
               f"sessionStart's context did not reach the model: {s.describe()}")
        expect(s.first_saw("This project uses uv."),
               f"userPromptSubmitted's context did not reach the model: {s.describe()}")
        # preToolUse's context with no decision: Copilot reads it too.
        expect(s.saw("the marker is for the test"),
               f"preToolUse's context did not reach the model: {s.describe()}")
        expect(s.saw("check the command's output"),
               f"postToolUse's context did not reach the model: {s.describe()}")
        expect(s.saw("the tool failed: check the path"),
               f"postToolUseFailure's context did not reach the model: {s.describe()}")
        # agentStop blocks once (stop_hook_active false), then lets it stop.
        expect(s.saw("run the tests before stopping"),
               f"the agentStop hook did not keep the agent going: {s.describe()}")
        expect(s.server.model_calls == 4, f"expected 4 model calls: {s.describe()}")


def start_fails_closed() -> None:
    # Broken from the start (no hookc on PATH): preToolUse's command is not
    # found (exit 127), which Copilot 1.0.102 treats as a denial.
    with scratch() as project:
        s = session(project, [bash(DENIED, "nohookc_1")],
                    hookc_on_path=False)
        expect(not project.path("denied.marker").exists()
               and project.path("victim/keep.txt").exists(),
               f"without hookc on PATH, a denied command ran: {s.describe()}")


def cases() -> list:
    def case(name: str, body: Callable[[], None], doc: str) -> Case:
        return Case(HOST, name, body, doc)

    return [
        case("deny", common.case_deny(DRIVER, view_env),
             "rm -rf and a .env view are denied; the reasons reach the model"),
        case("allow", common.case_allow(DRIVER), "a command no hook decides runs, and `ls` is allowed"),
        case("rewrite", common.case_rewrite(DRIVER), "pip install runs as uv pip install (modifiedArgs)"),
        # Copilot reads every .github/hooks/*.json: the project's own hooks
        # are in a file of their own, and read toolArgs as JSON text.
        case("adopt", common.case_adopt(
            DRIVER, HOST, ".github/hooks/mine.json", "preToolUse",
            lambda command: {"type": "command", "bash": command, "timeoutSec": 30},
            lambda new: {"modifiedArgs": {"command": new}},
            read_command="json.loads(payload['toolArgs'])['command']"),
            "init --adopt: two rewriting hooks apply in order, an exit-2 hook blocks"),
        # `-p` has nobody to ask: Copilot refuses the call ("unable to ask
        # user for confirmation") and hands the reason to the model.
        case("ask", common.case_ask_headless(DRIVER),
             "ask in -p: the command does not run, the reason reaches the model"),
        case("permission-request", case_permission_request,
             "a permissionRequest rule on the command denies /etc, lets the rest run"),
        case("subagent-context", case_subagent_context,
             "subagentStart's context reaches the subagent's prompt"),
        case("context", case_context,
             "sessionStart, userPromptSubmitted, postToolUse(Failure) context and agentStop block"),
        *[case(f"fail-closed-{how}", common.tool_fails_closed(DRIVER, how),
               f"{how} mid-session: a denied command does not run")
          for how in ("policy-missing", "policy-broken", "policy-truncated", "no-hookc")],
        case("fail-closed-start-no-hookc", start_fails_closed,
             "no hookc on PATH from the start: a denied command does not run"),
        *[case(f"fail-closed-stop-{how}", common.stop_fails_closed(DRIVER, how, "agentStop"),
               f"{how}: agentStop blocks the stop")
          for how in ("policy-missing", "no-hookc")],
    ]
