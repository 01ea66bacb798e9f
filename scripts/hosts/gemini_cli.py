"""Gemini CLI in the end-to-end suite: its model wire, how to drive it
headless, and its cases.

Gemini CLI (`@google/gemini-cli`, a Node program) talks to the Gemini API:
`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` for the agent's
own turns (server-sent events, each a `GenerateContentResponse` with
`candidates[].content.parts[]`: `text` or `functionCall {name, args}`),
`:generateContent` for its side questions (a JSON answer: the next-speaker
check, loop detection, routing), and `:countTokens`. `GeminiWire` answers
a request that offers `tools` with the next scripted `Turn`, streamed in
several chunks (AfterModel runs once per chunk), and every other call with
a small JSON object that satisfies each side question.

`drive` runs `gemini -p PROMPT --yolo` in a scratch project with a private
HOME whose `~/.gemini/settings.json` selects API-key auth and turns off
usage statistics, telemetry, update checks, the next-speaker check and loop
detection; `GOOGLE_GEMINI_BASE_URL` points at the `ModelServer` and
`GEMINI_CLI_TRUST_WORKSPACE=true` trusts the scratch folder (project hooks
load only in a trusted folder; `--skip-trust` does not load them).
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
    DENIED, Case, ModelServer, Project, Response, ToolCall, Turn, Wire, expect, host_command, run,
)

HOST = "gemini-cli"
MODEL = "gemini-2.5-flash"

# The answer to a side question (generateContent without tools): one JSON
# object with the members each of Gemini CLI's JSON side calls reads (the
# next-speaker check, loop detection, the model router), all saying
# "nothing to do".
SIDE_ANSWER = {"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash",
               "unproductive_state_confidence": 0, "unproductive_state_analysis": ""}

USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


class GeminiWire(Wire):
    """The Gemini API as Gemini CLI calls it.

    Only a generate call that offers `tools` is the agent loop's turn, the
    one the script answers; a side question (no tools) gets SIDE_ANSWER
    without taking a turn, so the script stays aligned with the agent's
    own loop."""

    def is_model_call(self, method: str, path: str, body: object) -> bool:
        route = path.split("?")[0]
        return (method == "POST" and route.endswith((":streamGenerateContent", ":generateContent"))
                and isinstance(body, dict) and bool(body.get("tools")))

    def respond(self, turn: Turn, method: str, path: str, body: object) -> Response:
        parts = []
        if turn.text:
            # Text in two chunks: a streamed answer, as a real model sends it.
            half = len(turn.text) // 2 or len(turn.text)
            parts += [{"text": turn.text[:half]}, {"text": turn.text[half:]}]
        for call in turn.calls:
            parts.append({"functionCall": {"id": call.call_id, "name": call.name,
                                           "args": call.arguments}})
        parts = [p for p in parts if p.get("text", True)]
        if ":streamGenerateContent" not in path:
            return Response.json(self._chunk(parts, final=True))
        chunks = [self._chunk([p], final=False) for p in parts]
        chunks.append(self._chunk([], final=True))
        return Response.sse((None, c) for c in chunks)

    def other(self, method: str, path: str, body: object) -> Response:
        route = path.split("?")[0]
        if route.endswith(":countTokens"):
            return Response.json({"totalTokens": 100})
        if route.endswith(":streamGenerateContent"):
            return Response.sse([(None, self._chunk([{"text": json.dumps(SIDE_ANSWER)}],
                                                    final=True))])
        if route.endswith(":generateContent"):
            return Response.json(self._chunk([{"text": json.dumps(SIDE_ANSWER)}], final=True))
        return Response.json({})

    @staticmethod
    def _chunk(parts: list, final: bool) -> dict:
        candidate: dict = {"content": {"role": "model", "parts": parts}, "index": 0}
        if final:
            candidate["finishReason"] = "STOP"
        chunk = {"candidates": [candidate], "modelVersion": MODEL}
        if final:
            chunk["usageMetadata"] = USAGE
        return chunk


# The private HOME's user settings: API-key auth against our server, and
# nothing that phones home or asks the model side questions.
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "model": {"skipNextSpeakerCheck": True, "disableLoopDetection": True},
}


def drive(project: Project, server: ModelServer, prompt: str, *, hookc_on_path: bool = True,
          timeout: float = 90) -> subprocess.CompletedProcess:
    """Run `gemini -p PROMPT --yolo` in the project against the scripted
    model."""
    settings = project.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2))
    env = project.env({
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_API_KEY": "dummy",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_TELEMETRY_ENABLED": "false",
    }, hookc_on_path=hookc_on_path)
    argv = [host_command(HOST), "-p", prompt, "--yolo", "--model", MODEL,
            "--output-format", "json"]
    return run(argv, cwd=project.dir, env=env, timeout=timeout)


# ---------------------------------------------------------------------------
# Cases


class Session(common.Session):
    """One run of Gemini CLI: what it printed and what the model saw."""

    def describe(self) -> str:
        """What to show when a case fails: the run's end and the last
        thing the model was sent."""
        calls = self.server.model_requests()
        last = calls[-1].body.get("contents", [])[-1:] if calls else "no model call"
        # Gemini's banner lines say nothing about the case.
        noise = ("Warning: ", "YOLO mode", "Ripgrep", "WARNING: The following", "  - hookc",
                 "These hooks will", "please review", "[STARTUP]")
        stderr = "\n".join(line for line in self.result.stderr.splitlines()
                           if line.strip() and not line.startswith(noise))
        return (f"exit {self.result.returncode}, {len(calls)} model call(s); "
                f"last message: {json.dumps(last)[:600]}; stderr: {stderr[-600:]}")


def scratch(name: str = "proj") -> Project:
    """A scratch project set up by `hookc init --host gemini-cli`, with a
    `victim/` folder that a recursive remove would delete."""
    project = Project(name=name, host=HOST)
    project.init(HOST)
    project.write("victim/keep.txt", "keep me\n")
    return project


def shell(command: str, call_id: str) -> Turn:
    return Turn.call("run_shell_command", {"command": command, "description": "scripted"},
                     call_id)


def session(project: Project, script: list, prompt: str = "go", **drive_args) -> Session:
    with ModelServer(GeminiWire(), script, final="done") as server:
        result = drive(project, server, prompt, **drive_args)
    return Session(result, server)


DRIVER = common.Driver(scratch, session, shell)


def case_deny() -> None:
    with scratch() as project:
        project.write(".env", "API_TOKEN=secret-value-123\n")
        # Gemini CLI itself refuses read_file on `.env` (before any hook):
        # `prod.env` is one only the guard keeps unread.
        project.write("prod.env", "API_TOKEN=secret-value-456\n")
        # A file no name marks as secret, which BeforeTool lets through.
        project.write("notes.txt", "API_TOKEN=secret-value-789\n")
        s = session(project, [
            shell(DENIED, "deny_1"),
            Turn.call("read_file", {"file_path": str(project.path("prod.env"))}, "deny_2"),
            # AfterTool: a command whose output holds a credential has its
            # result replaced by the reason.
            shell("cat notes.txt", "deny_3"),
        ])
        expect(not project.path("denied.marker").exists(),
               f"the denied command ran (denied.marker exists): {s.describe()}")
        expect(project.path("victim/keep.txt").exists(), f"victim/ was removed: {s.describe()}")
        expect(s.saw("recursive force-remove is not allowed"),
               f"the deny reason did not reach the model: {s.describe()}")
        expect(s.saw("secrets files stay unread"),
               f"the read_file block reason did not reach the model: {s.describe()}")
        expect(s.saw("the command printed a secrets file"),
               f"AfterTool's deny reason did not reach the model: {s.describe()}")
        expect(not s.saw("secret-value-123") and not s.saw("secret-value-456")
               and not s.saw("secret-value-789"),
               f"a secrets file's content reached the model: {s.describe()}")


def case_context() -> None:
    with scratch() as project:
        project.fake_tools("cargo")
        s = session(project, [shell("cargo test", "ctx_1")])
        expect(s.first_saw("Never push to main."),
               f"SessionStart's context did not reach the model: {s.describe()}")
        expect(s.first_saw("This project uses uv."),
               f"BeforeAgent's context did not reach the model: {s.describe()}")
        expect(s.saw("tests ran; read the failures first"),
               f"AfterTool's context did not reach the model: {s.describe()}")
        # AfterAgent denies the first answer (stop_hook_active false): the
        # reason comes back as a prompt, and the second answer stands.
        expect(s.saw("run the tests before answering", after_call=2),
               f"AfterAgent's deny did not send the agent back: {s.describe()}")
        expect(s.server.model_calls == 3, f"expected 3 model calls: {s.describe()}")


def case_prompt_deny() -> None:
    with scratch() as project:
        s = session(project, [], prompt="deploy with API_KEY=abc123")
        expect(s.server.model_calls == 0,
               f"a prompt holding an API key reached the model: {s.describe()}")


def case_project_name(name: str) -> Callable[[], None]:
    """`hookc init`'s command names the guard by the project folder, which
    Gemini CLI substitutes for `$GEMINI_PROJECT_DIR` shell-quoted already:
    the command must work for a folder whose name needs quoting."""

    def body() -> None:
        with scratch(name) as project:
            s = session(project, [shell("touch ok.marker", "name_1"),
                                  shell(DENIED, "name_2")])
            expect(project.path("ok.marker").exists(),
                   f"in a folder named {name!r}, a harmless command did not run: {s.describe()}")
            expect(not project.path("denied.marker").exists()
                   and project.path("victim/keep.txt").exists(),
                   f"in a folder named {name!r}, the denied command ran: {s.describe()}")
            expect(s.saw("recursive force-remove is not allowed"),
                   f"in a folder named {name!r}, the deny reason did not reach the model: "
                   f"{s.describe()}")
    return body


def count_hook_calls(project: Project) -> Path:
    """Put a wrapper in front of the project's `hookc` that logs each
    payload (one JSON line) before running it; return the log."""
    log = project.root / "hookc-calls.jsonl"
    real = (project.bin / "hookc").resolve()
    (project.bin / "hookc").unlink()
    wrapper = project.bin / "hookc"
    wrapper.write_text(f'#!/bin/sh\ninput=$(cat)\nprintf \'%s\\n\' "$input" >> "{log}"\n'
                       f'printf \'%s\' "$input" | "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return log


def case_model_hooks() -> None:
    # The guard has no BeforeModel or AfterModel hook, and AfterModel runs
    # once per streamed chunk: a hook process for each is pure cost.
    with scratch() as project:
        log = count_hook_calls(project)
        s = session(project, [shell("touch ok.marker", "model_1")])
        events: dict = {}
        for line in log.read_text().splitlines() if log.exists() else []:
            name = json.loads(line).get("hook_event_name")
            events[name] = events.get(name, 0) + 1
        expect(project.path("ok.marker").exists(), f"the command did not run: {s.describe()}")
        wasted = {e: n for e, n in events.items() if e in ("BeforeModel", "AfterModel")}
        expect(not wasted, f"hookc ran for events the guard has no hooks for: {wasted} "
               f"(all calls: {events}, {s.server.model_calls} model calls)")


def tamper_then_denied(tamper: str) -> list:
    """Both calls in one turn, the second waiting for the first
    (`wait_for_previous`), so that the broken hook is surely BeforeTool's (a
    BeforeModel hook, if a guard had one, would stop the next model call
    first)."""
    return [Turn(calls=[
        ToolCall("run_shell_command", {"command": tamper, "description": "scripted"}, "tamper_1"),
        ToolCall("run_shell_command", {"command": DENIED, "description": "scripted",
                                       "wait_for_previous": True}, "tamper_2"),
    ])]


def cases() -> list:
    def case(name: str, body: Callable[[], None], doc: str) -> Case:
        return Case(HOST, name, body, doc)

    return [
        case("deny", case_deny,
             "rm -rf, a .env read and a command printing a credential are denied; reasons reach the model"),
        case("allow", common.case_allow(DRIVER), "a command no hook decides runs, and `ls` is allowed"),
        # Gemini says so itself in the tool's result.
        case("adopt", common.case_adopt(
            DRIVER, HOST, ".gemini/settings.json", "BeforeTool",
            lambda command: {"matcher": "run_shell_command",
                             "hooks": [{"name": "mine", "type": "command", "command": command}]},
            lambda new: {"hookSpecificOutput": {"tool_input": {"command": new}}}),
            "init --adopt: two rewriting hooks apply in order, an exit-2 hook blocks"),
        case("rewrite", common.case_rewrite(DRIVER, told="were modified by a hook"),
             "pip install runs as uv pip install"),
        case("context", case_context,
             "SessionStart, BeforeAgent, AfterTool context reach the model; AfterAgent retries once"),
        case("prompt-deny", case_prompt_deny, "a prompt holding an API key never reaches the model"),
        # Gemini CLI prints it on standard error: `Hook system message: ...`.
        case("user-message",
             common.case_user_message(
                 DRIVER, HOST, "BeforeTool", "run_shell_command",
                 lambda s: f"Hook system message: {common.FOR_THE_USER}" in s.result.stderr),
             "a deny's user_message is shown to the user, its reason to the model"),
        *[case(f"project-name-{label}", case_project_name(name),
               f"the hook works in a project folder named {name!r}")
          for label, name in (("space", "my proj"), ("at", "proj@2"), ("quote", "it's"))],
        case("model-hooks", case_model_hooks,
             "no hookc process for BeforeModel/AfterModel when the guard has no such hooks"),
        *[case(f"fail-closed-{how}", common.tool_fails_closed(DRIVER, how, tamper_then_denied),
               f"{how} mid-session: a denied command does not run")
          for how in ("policy-missing", "policy-broken", "policy-truncated", "no-hookc")],
        # No hookc: the shell exits 127 with "not found" on stderr, and
        # BeforeAgent keeps the prompt from the model.
        case("fail-closed-prompt-no-hookc", common.prompt_fails_closed(DRIVER),
             "no hookc on PATH from the start: the prompt does not reach the model"),
    ]
