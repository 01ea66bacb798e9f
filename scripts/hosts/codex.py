"""The Codex CLI in the end-to-end suite: its model wire, how to drive it
headless, and its cases.

Codex (`@openai/codex`, a native binary) talks to the OpenAI Responses API
through a model provider of our own (`wire_api = "responses"`): `POST
/v1/responses` with `stream: true`, answered with server-sent events
(`response.created`, `response.output_item.added` / `.done` per output
item, `response.completed`). Its shell tool is `exec_command` (arguments
`{cmd, ...}`); `apply_patch` is a freeform tool, called with a
`custom_tool_call` item whose `input` is the patch; `view_image` takes
`{path}`. Its hooks see the shell as `tool_name: "Bash"`, `tool_input:
{command}`.

`drive` runs `codex exec PROMPT` in a scratch project with a private HOME
and CODEX_HOME whose `config.toml` points the provider at the
`ModelServer`, trusts the project (project-local `.codex/` is ignored in an
untrusted folder) and picks a model of Codex's bundled catalogue (so that
it offers `apply_patch`). `--dangerously-bypass-hook-trust` runs the
project's hooks without the review `/hooks` would persist. Two modes:

- `bypass`: `--dangerously-bypass-approvals-and-sandbox`, every command
  runs unsandboxed and no approval is asked (hooks still run);
- `review`: `--approve-for-me`, the workspace-write sandbox with approvals
  on request routed to Codex's automatic reviewer: a command that asks to
  leave the sandbox raises `PermissionRequest` first. `codex exec` has no
  user to ask, and ignores `approval_policy` otherwise. The reviewer's
  own model calls (`x-openai-subagent: guardian`) are answered outside
  the script with an unreadable verdict, which Codex treats as a declined
  review: nothing a hook left undecided runs.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
from common import (  # noqa: E402
    GUARD, Case, ModelServer, Project, Response, Turn, Wire, expect, host_command, run,
)

HOST = "codex"
# A model of the catalogue bundled in 0.171.0: with an unknown model Codex
# falls back to metadata without the `apply_patch` tool.
MODEL = "gpt-5.5"
# Codex's freeform tools: called with `custom_tool_call`, the ToolCall's
# arguments holding the text under `input`.
FREEFORM_TOOLS = {"apply_patch"}
# After this many model calls the server ends the run with a 400 (which
# Codex does not retry): a Stop hook that always blocks makes Codex loop
# for as long as the model answers.
CALL_BUDGET = 16
END = "\x00end-of-run"


class CodexWire(Wire):
    """The OpenAI Responses API as Codex calls it (streamed)."""

    def is_model_call(self, method: str, path: str, body: object) -> bool:
        return (method == "POST" and path.split("?")[0].endswith("/responses")
                and not _is_reviewer(body))

    def respond(self, turn: Turn, method: str, path: str, body: object) -> Response:
        if turn.text == END:
            return Response.json({"error": {"message": "the scripted model's budget is spent",
                                            "type": "invalid_request_error"}}, status=400)
        return _stream(turn)

    def other(self, method: str, path: str, body: object) -> Response:
        if _is_reviewer(body):
            return _stream(Turn.say("no review here"))
        return Response.json({})


def _is_reviewer(body: object) -> bool:
    """Whether a request is Codex's automatic approval reviewer's."""
    meta = body.get("client_metadata") if isinstance(body, dict) else None
    return isinstance(meta, dict) and meta.get("x-openai-subagent") == "guardian"


def _stream(turn: Turn) -> Response:
    items = []
    if turn.text:
        items.append({"type": "message", "id": "msg_scripted", "role": "assistant",
                      "status": "completed",
                      "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
    for call in turn.calls:
        if call.name in FREEFORM_TOOLS:
            items.append({"type": "custom_tool_call", "id": f"ctc_{call.call_id}",
                          "call_id": call.call_id, "name": call.name,
                          "input": call.arguments["input"], "status": "completed"})
        else:
            items.append({"type": "function_call", "id": f"fc_{call.call_id}",
                          "call_id": call.call_id, "name": call.name,
                          "arguments": json.dumps(call.arguments), "status": "completed"})
    usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
             "input_tokens_details": {"cached_tokens": 0},
             "output_tokens_details": {"reasoning_tokens": 0}}
    events = [("response.created", {"type": "response.created",
                                    "response": {"id": "resp_scripted"}})]
    for index, item in enumerate(items):
        for kind in ("response.output_item.added", "response.output_item.done"):
            events.append((kind, {"type": kind, "output_index": index, "item": item}))
    events.append(("response.completed", {"type": "response.completed",
                                          "response": {"id": "resp_scripted", "output": items,
                                                       "usage": usage}}))
    return Response.sse(events)


class BoundedServer(ModelServer):
    """A ModelServer that ends the run (END) after CALL_BUDGET model calls
    instead of answering `final` until the shared bound fails the case."""

    def next_turn(self) -> Turn:
        if self.model_calls >= CALL_BUDGET:
            with self._lock:
                self.model_calls += 1
            return Turn.say(END)
        return super().next_turn()


def write_config(project: Project, server: ModelServer) -> Path:
    """The private CODEX_HOME: the scripted provider, the project trusted."""
    home = project.home / ".codex"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "{MODEL}"\n'
        'model_provider = "scripted"\n'
        "[model_providers.scripted]\n"
        'name = "scripted"\n'
        f'base_url = "{server.url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "SCRIPTED_API_KEY"\n'
        f"[projects.{json.dumps(str(project.dir))}]\n"
        'trust_level = "trusted"\n'
        "[analytics]\nenabled = false\n"
        "[feedback]\nenabled = false\n"
    )
    return home


def drive(project: Project, server: ModelServer, prompt: str, *, mode: str = "bypass",
          hookc_on_path: bool = True, cwd: Optional[Path] = None, timeout: float = 90,
          bypass_hook_trust: bool = True, etc: Optional[common.PrivateEtc] = None):
    """Run `codex exec PROMPT` in the project (or `cwd`) against the
    scripted model."""
    home = write_config(project, server)
    env = project.env({"CODEX_HOME": str(home), "SCRIPTED_API_KEY": "dummy"},
                      hookc_on_path=hookc_on_path)
    argv = [host_command(HOST), "exec", "--skip-git-repo-check"]
    if bypass_hook_trust:
        argv += ["--dangerously-bypass-hook-trust"]
    argv += {"bypass": ["--dangerously-bypass-approvals-and-sandbox"],
             "review": ["--approve-for-me"]}[mode]
    argv += [prompt]
    if etc:
        argv = etc.wrap(argv)
    return run(argv, cwd=cwd or project.dir, env=env, timeout=timeout)


# ---------------------------------------------------------------------------
# Cases

# A 1×1 PNG for view_image.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
                       "DwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


class Session(common.Session):
    """One run of Codex: what it printed and what the model saw."""

    def hook_status(self, event: str) -> list:
        """The outcomes Codex printed for `event`'s hooks, in order
        (`Completed`, `Blocked`, `Failed`, `Stopped`)."""
        prefix = f"hook: {event} "
        return [line[len(prefix):].strip() for line in self.result.stderr.splitlines()
                if line.startswith(prefix)]

    def describe(self) -> str:
        calls = self.server.model_requests()
        last = calls[-1].body.get("input", [])[-3:] if calls else "no model call"
        hooks = [line for line in self.result.stderr.splitlines()
                 if line.startswith("hook: ") or "blocked" in line or "ERROR" in line]
        return (f"exit {self.result.returncode}, {len(calls)} model call(s); hooks: "
                f"{hooks[-12:]}; last input: {json.dumps(last)[:700]}")


def scratch(*init_args: str, git: bool = True) -> Project:
    """A scratch project set up by `hookc init --host codex`, with a
    `victim/` folder that a recursive remove would delete and a fake
    `pip3`."""
    project = Project(git=git, host=HOST)
    project.init(HOST, *init_args)
    project.write("victim/keep.txt", "keep me\n")
    # GUARD_ONLY_DENIED's pip3, so that a hook failing open installs nothing.
    project.fake_tools("pip3")
    return project


def fake_git(project: Project) -> None:
    """A stand-in `git` that logs `git push` (`Project.ran`) and hands
    every other command to git: Codex and the hook command run `git`
    themselves."""
    real = shutil.which("git", path="/usr/local/bin:/usr/bin:/bin")
    log = f'echo "git $*" >> "{project.root / "ran.log"}"'
    project.fake_tool("git", f'if [ "$1" = push ]; then {log}; exit 0; fi\nexec {real} "$@"\n')


def shell(command: str, call_id: str, **extra) -> Turn:
    # Not a login shell: the system profile would reset PATH, and the fake
    # tools on the project's PATH would not be found.
    return Turn.call("exec_command", {"cmd": command, "login": False, **extra}, call_id)


def escalated(command: str, call_id: str, why: str) -> Turn:
    """A command that asks to run outside the sandbox (PermissionRequest)."""
    return shell(command, call_id, sandbox_permissions="require_escalated", justification=why)


def session(project: Project, script: list, prompt: str = "go", **drive_args) -> Session:
    with BoundedServer(CodexWire(), script, final="done") as server:
        result = drive(project, server, prompt, **drive_args)
    return Session(result, server)


# What the shared cases need (`common.Driver`).
DRIVER = common.Driver(scratch, session, shell)

DENIED = "touch denied.marker && rm -rf victim"
# A command the guard denies (uv_only) and Codex itself does not: Codex
# 0.171 refuses `rm -rf` on its own ("rm -f style commands are not
# permitted") even with hooks failing, which would hide a failing-open hook.
GUARD_ONLY_DENIED = "touch denied.marker && pip3 install requests"


def expect_denied(project: Project, s: Session, what: str) -> None:
    expect(not project.path("denied.marker").exists(),
           f"{what}: the denied command ran (denied.marker exists): {s.describe()}")
    expect(project.path("victim/keep.txt").exists(), f"{what}: victim/ was removed: {s.describe()}")


def case_managed() -> None:
    # `hookc init --managed`, as the machine's administrator: the guard in
    # /etc/hookc/codex/ and /etc/codex/requirements.toml, the system paths
    # themselves, in a private /etc (common.PrivateEtc: the machine's is
    # never written). The real Codex reads them from there, without the
    # `/hooks` review (no --dangerously-bypass-hook-trust): the guard
    # denies the rm -rf in a project without hookc. The user's own hook,
    # which runs without them (its review bypassed), no longer runs with
    # them (allow_managed_hooks_only).
    with Project(host=HOST) as project:
        etc = common.install_managed(project, HOST, ["codex/requirements.toml",
                                                     "hookc/codex/guard.yaml"])
        marker = project.root / "user-hook.ran"
        project.write("victim/keep.txt", "keep me\n")
        user_hooks = project.home / ".codex/hooks.json"
        user_hooks.parent.mkdir(parents=True, exist_ok=True)
        user_hooks.write_text(json.dumps({"hooks": {"PreToolUse": [
            {"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}))
        s = session(project, [shell(DENIED, "managed_1")], bypass_hook_trust=False, etc=etc)
        expect_denied(project, s, "the managed guard's deny")
        expect(s.saw("recursive force-remove is not allowed"),
               f"the managed guard's reason did not reach the model: {s.describe()}")
        marker.unlink(missing_ok=True)
        s = session(project, [shell("echo hi", "managed_2")])
        expect(marker.exists(), f"the user's own hook did not run to begin with: {s.describe()}")
        marker.unlink()
        s = session(project, [shell("echo hi", "managed_3")], etc=etc)
        expect(not marker.exists(),
               f"the user's own hook ran despite allow_managed_hooks_only: {s.describe()}")


def case_deny() -> None:
    with scratch() as project:
        s = session(project, [shell(DENIED, "deny_1")])
        expect_denied(project, s, "deny")
        expect(s.saw("recursive force-remove is not allowed"),
               f"the deny reason did not reach the model: {s.describe()}")


def case_harmless() -> None:
    with scratch() as project:
        s = session(project, [shell("touch ok.marker", "ok_1")])
        expect(project.path("ok.marker").exists(),
               f"a command no hook decides did not run: {s.describe()}")
        expect("Failed" not in s.hook_status("PreToolUse"),
               f"Codex counted a hook as failed: {s.describe()}")


def case_allow() -> None:
    # The guard allows exactly `ls`, with a reason. Codex refuses a bare
    # `permissionDecision: "allow"` (only allow with updatedInput is
    # supported): the hook counts as failed and the call goes ahead as if
    # unhooked. The user needs the allow to be an answer Codex accepts.
    with scratch() as project:
        project.write("listed.txt", "")
        s = session(project, [shell("ls", "allow_1")])
        expect(s.saw("listed.txt"), f"`ls` did not run: {s.describe()}")
        expect(s.hook_status("PreToolUse") == ["Completed"],
               f"Codex refused the hook's answer to an allowed `ls` "
               f"(PreToolUse {s.hook_status('PreToolUse')}): {s.describe()}")


def case_ask() -> None:
    # The guard asks before a push. Codex refuses `permissionDecision:
    # "ask"` (a failed hook), and a failed hook's call goes ahead: the push
    # must not run silently.
    with scratch() as project:
        fake_git(project)
        s = session(project, [shell("git push origin main", "ask_1")])
        expect(project.ran() == [],
               f"an `ask` push ran without anyone asked: ran {project.ran()}; "
               f"PreToolUse {s.hook_status('PreToolUse')}; {s.describe()}")
        expect(s.saw("push to the remote's main branch"), f"the ask reason did not reach the model: {s.describe()}")


def case_rewrite() -> None:
    with scratch() as project:
        project.fake_tools("uv", "pip")
        s = session(project, [shell("pip install requests", "rewrite_1")])
        expect(project.ran() == ["uv pip install requests"],
               f"expected only `uv pip install requests` to run, ran: {project.ran()}; "
               f"PreToolUse {s.hook_status('PreToolUse')}; {s.describe()}")
        expect(s.saw("pip install was run as uv pip install"),
               f"the rewrite's context did not reach the model: {s.describe()}")


def case_context() -> None:
    # SessionStart and UserPromptSubmit add context to the first request;
    # PostToolUse blocks a command whose output holds a credential (Codex
    # puts the reason in place of the output: a file no name marks as
    # secret, which PreToolUse let through) and adds context after tests;
    # Stop blocks once, then lets the agent stop.
    with scratch() as project:
        project.write("notes.txt", "API_TOKEN=secret-value-123\n")
        project.fake_tools("cargo")
        s = session(project, [shell("cat notes.txt", "ctx_1"), shell("cargo test", "ctx_2")])
        expect(s.first_saw("Never push to main."),
               f"SessionStart's context did not reach the model: {s.describe()}")
        expect(s.first_saw("This project uses uv."),
               f"UserPromptSubmit's context did not reach the model: {s.describe()}")
        expect(s.saw("the command read a secrets file"),
               f"PostToolUse's block reason did not reach the model: {s.describe()}")
        expect(not s.saw("secret-value-123"),
               f"the credential in notes.txt reached the model: {s.describe()}")
        expect(s.saw("tests ran; read the failures first"),
               f"PostToolUse's context did not reach the model: {s.describe()}")
        expect(s.saw("run the tests before stopping"),
               f"the Stop hook did not keep the agent going: {s.describe()}")
        # Calls: cat, cargo test, `done` (Stop blocks), `done` (stops).
        expect(s.server.model_calls == 4 and s.result.returncode == 0,
               f"expected 4 model calls and a clean exit: {s.describe()}")


def case_prompt_block() -> None:
    with scratch() as project:
        s = session(project, [shell("touch ran.marker", "prompt_1")],
                    prompt="deploy with API_KEY=abc123")
        expect(s.server.model_calls == 0 and not project.path("ran.marker").exists(),
               f"a prompt holding an API key reached the model: {s.describe()}")


def case_permission_request() -> None:
    # With approvals routed to the reviewer, a command that asks to leave
    # the sandbox raises PermissionRequest: the guard allows `cargo build`
    # and denies a command touching /etc.
    with scratch() as project:
        project.fake_tools("cargo")
        s = session(project, [
            escalated("cargo build", "perm_1", "builds fetch crates"),
            escalated("ls /etc > etc.marker", "perm_2", "look at /etc"),
        ], mode="review")
        expect(project.ran() == ["cargo build"],
               f"expected the allowed `cargo build` to run, ran: {project.ran()}; {s.describe()}")
        expect(not project.path("etc.marker").exists(),
               f"a command touching /etc ran: {s.describe()}")
        expect(s.saw("commands touching /etc are not allowed"),
               f"the permission deny reason did not reach the model: {s.describe()}")


def case_other_tools() -> None:
    # apply_patch (tool_input {command: PATCH}) and view_image
    # (tool_input {path}) reach the same hooks as the shell: the guard
    # must let them through, not fail on a payload it does not expect.
    with scratch() as project:
        project.path("pixel.png").write_bytes(PNG)
        patch = "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch\n"
        s = session(project, [
            Turn.call("apply_patch", {"input": patch}, "tools_1"),
            Turn.call("view_image", {"path": "pixel.png"}, "tools_2"),
        ])
        expect(project.path("patched.txt").exists(), f"apply_patch did not run: {s.describe()}")
        expect(s.saw("data:image/png;base64"), f"view_image did not run: {s.describe()}")
        expect("Failed" not in s.hook_status("PreToolUse") + s.hook_status("PostToolUse"),
               f"Codex counted a hook as failed: {s.describe()}")


def tool_fails_closed(how: str) -> Callable[[], None]:
    """The agent breaks the hook, then tries a command the guard denies:
    the hook cannot decide, and the call must not run."""

    def body() -> None:
        with scratch() as project:
            before = project.hook_state()
            s = session(project, [shell(project.tamper(how), "tamper_1"),
                                  shell(GUARD_ONLY_DENIED, "tamper_2")])
            expect(project.hook_state() != before,
                   f"the command that breaks the hook did not run: {s.describe()}")
            expect_denied(project, s, how)
    return body


def prompt_fails_closed() -> None:
    # No hookc on PATH from the start: the hook exits 127, a failed hook,
    # and Codex lets the prompt and every call through.
    with scratch() as project:
        s = session(project, [shell(GUARD_ONLY_DENIED, "nohookc_1")], hookc_on_path=False)
        expect_denied(project, s, "no hookc on PATH")
        expect(s.server.model_calls == 0,
               f"without hookc on PATH, the prompt reached the model: {s.describe()}")


def stop_fails_closed() -> None:
    # The agent breaks the policy, then answers `done`: Stop's hook cannot
    # decide and must keep the agent going, but Codex re-runs Stop after
    # every answer, so a hook that blocks whatever `stop_hook_active` says
    # keeps it going for ever (here: until the model's budget ends the run).
    with scratch() as project:
        s = session(project, [shell(project.tamper("policy-missing"), "stop_1")])
        expect(not project.path(GUARD).exists(),
               f"the command that breaks the hook did not run: {s.describe()}")
        expect(s.server.model_calls > 2,
               f"Stop's hook failed and the agent stopped anyway: {s.describe()}")
        expect(s.server.model_calls < CALL_BUDGET,
               f"Stop's hook failed and blocked every stop: the agent looped until the "
               f"model's budget ran out ({s.server.model_calls} calls): {s.describe()}")


def init_elsewhere(init_args: tuple, git: bool, sub: Optional[str]) -> Callable[[], None]:
    """`hookc init` in a folder that is not the top of a git repository
    (none at all, or `--dir app` below it): the guard must still work,
    denying `pip3 install` and letting a harmless command run."""

    def body() -> None:
        with scratch(*init_args, git=git) as project:
            cwd = project.path(sub) if sub else project.dir
            s = session(project, [shell("touch ok.marker", "where_1"),
                                  shell(GUARD_ONLY_DENIED, "where_2")], cwd=cwd)
            expect(not (cwd / "denied.marker").exists(),
                   f"the denied command ran: {s.describe()}")
            expect((cwd / "ok.marker").exists(),
                   f"a harmless command did not run (the hook cannot find the guard?): "
                   f"{s.describe()}")
    return body


def cases() -> list:
    def case(name: str, body: Callable[[], None], doc: str) -> Case:
        return Case(HOST, name, body, doc)

    return [
        case("deny", case_deny, "rm -rf is denied; the reason reaches the model"),
        case("managed", case_managed,
             "init --managed in a private /etc: the managed guard denies rm -rf without a hook "
             "review; the user's own hook does not run"),
        case("harmless", case_harmless, "a command no hook decides runs"),
        case("allow", case_allow, "`ls` is allowed with an answer Codex accepts"),
        case("ask", case_ask, "an `ask` push does not run silently"),
        case("rewrite", case_rewrite, "pip install runs as uv pip install, with its context"),
        case("deadline", common.case_deadline(DRIVER, ".codex/hooks.json"),
             "a `run` past --deadline: the host gets the block in time, the command does not run"),
        case("pinned", common.case_pinned(DRIVER, HOST, prints_stop=False),
             "init --pin, then the guard changed: every call is blocked, saying why"),
        case("logged", common.case_logged(DRIVER, HOST, ".codex/hooks.json"),
             "--log with --shadow: the live deny holds; live and shadow lines, disasm's digest"),
        # Codex applies a rewrite only under an allow (hosts.md).
        case("adopt", common.case_adopt(
            DRIVER, HOST, ".codex/hooks.json", "PreToolUse",
            lambda command: {"hooks": [{"type": "command", "command": command}]},
            lambda new: {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                "permissionDecision": "allow",
                                                "updatedInput": {"command": new}}}),
            "init --adopt: two rewriting hooks apply in order, an exit-2 hook blocks"),
        case("context", case_context,
             "SessionStart/UserPromptSubmit/PostToolUse context, PostToolUse block, Stop once"),
        case("prompt-block", case_prompt_block, "a prompt with an API key never reaches the model"),
        case("permission-request", case_permission_request,
             "--approve-for-me: PermissionRequest allows cargo build, denies /etc"),
        case("other-tools", case_other_tools, "apply_patch and view_image go through the guard"),
        *[case(f"fail-closed-{how}", tool_fails_closed(how),
               f"{how} mid-session: a denied command does not run")
          for how in ("policy-missing", "policy-broken", "policy-truncated", "no-hookc")],
        case("fail-closed-prompt-no-hookc", prompt_fails_closed,
             "no hookc on PATH from the start: the prompt does not reach the model"),
        case("fail-closed-stop-policy-missing", stop_fails_closed,
             "policy missing: Stop keeps the agent going once, not for ever"),
        case("init-no-git", init_elsewhere((), False, None),
             "init outside a git repository: the guard works"),
        case("init-dir-app", init_elsewhere(("--dir", "app"), True, "app"),
             "init --dir app below the git root, Codex run in app/: the guard works"),
    ]


if __name__ == "__main__":
    import common
    sys.exit(common.main(cases(), sys.argv[1:]))
