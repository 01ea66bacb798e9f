"""The shared machinery of the end-to-end suite on the real agent hosts.

`scripts/test-hosts` (and `hookc probe`'s documentation) describe the suite:
each host's CLI, installed from npm at a pinned version, is driven headless
against a scripted model server of our own on 127.0.0.1, in a scratch
project set up by `hookc init`, and each case asserts what the *host* did
(a marker file that a denied command would have made, the text that reached
the model's next request), never what hookc printed.

This module holds what every host shares:

- `PINNED` and `install`: the pinned host packages, installed once into a
  cache outside the repository (`HOOKC_HOSTS_CACHE`, else
  `~/.cache/hookc-hosts`), never into the project;
- `ModelServer`: a bounded HTTP server on 127.0.0.1 that answers each model
  call with the next scripted `Turn` through a host's `Wire` (the wire
  protocol: Anthropic messages, OpenAI responses, OpenAI chat completions,
  Gemini generateContent), and records every request;
- `Project`: a scratch project under a temporary folder, set up by the
  `hookc` under test;
- `run`: a process with a private environment and a hard timeout that
  kills its whole process group;
- `Case` and `main`: the cases of one or more hosts, run one by one, with a
  closing `N passed, N failed` line.

Nothing here reaches beyond 127.0.0.1: the hosts are pointed at the server
by their base-URL settings, their telemetry and update checks are switched
off per host, and every loop and wait is bounded.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

REPO = Path(__file__).resolve().parents[2]

# The host packages the suite runs, one version each: the versions each
# profile says it is verified against (crates/hookc/src/hosts/*.yaml).
# `bin` is the command the package installs under node_modules/.bin.
PINNED = {
    "claude-code": {"package": "@anthropic-ai/claude-code", "version": "2.1.332", "bin": "claude"},
    "codex": {"package": "@openai/codex", "version": "0.171.0", "bin": "codex"},
    "gemini-cli": {"package": "@google/gemini-cli", "version": "0.61.0", "bin": "gemini"},
    "copilot": {"package": "@github/copilot", "version": "1.0.102", "bin": "copilot"},
}

# Bounds: no case waits longer than this for its host, and no server
# answers more model calls than this in one case (a host that loops on a
# refused tool call stops here instead of spinning).
HOST_TIMEOUT_S = float(os.environ.get("HOOKC_HOST_TIMEOUT", "90"))
MAX_MODEL_CALLS = 40


class SuiteError(Exception):
    """The suite could not run a case (not a failed assertion)."""


def cache_dir() -> Path:
    """Where the pinned host packages are installed: outside the repo."""
    root = os.environ.get("HOOKC_HOSTS_CACHE")
    if root:
        return Path(root)
    return Path.home() / ".cache" / "hookc-hosts"


def package_dir(package: str, version: str) -> Path:
    """The npm prefix that holds one pinned package."""
    mangled = f"{package}@{version}".replace("/", "_").replace("@", "_")
    return cache_dir() / mangled


def install(package: str, version: str, bin_name: Optional[str] = None) -> Path:
    """Install `package@version` into its own prefix in the cache (once) and
    return the prefix, or the path of its `bin_name` command when given."""
    prefix = package_dir(package, version)
    marker = prefix / "node_modules" / package / "package.json"
    installed = None
    if marker.is_file():
        try:
            installed = json.loads(marker.read_text()).get("version")
        except (OSError, ValueError):
            installed = None
    if installed != version:
        prefix.mkdir(parents=True, exist_ok=True)
        npm = shutil.which("npm")
        if npm is None:
            raise SuiteError("npm is needed to install the host CLIs")
        log(f"installing {package}@{version} into {prefix}")
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(prefix),
             f"{package}@{version}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900,
        )
        if proc.returncode != 0:
            raise SuiteError(f"npm install {package}@{version} failed:\n{proc.stdout[-2000:]}")
    if bin_name is None:
        return prefix
    path = prefix / "node_modules" / ".bin" / bin_name
    if not path.exists():
        raise SuiteError(f"{package}@{version} installed no `{bin_name}` command at {path}")
    return path


def host_command(host: str) -> Path:
    """The pinned CLI of `host`, installed if needed."""
    pin = PINNED[host]
    return install(pin["package"], pin["version"], pin["bin"])


def log(message: str) -> None:
    print(f"test-hosts: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# The scripted model


@dataclass
class ToolCall:
    """One tool call the model makes: the host's own tool name and its
    arguments, as the host's tool schema spells them."""

    name: str
    arguments: dict
    call_id: str = "call_1"


@dataclass
class Turn:
    """One answer of the model: text, tool calls, or both."""

    text: str = ""
    calls: list = field(default_factory=list)

    @staticmethod
    def say(text: str) -> "Turn":
        return Turn(text=text)

    @staticmethod
    def call(name: str, arguments: dict, call_id: str = "call_1") -> "Turn":
        return Turn(calls=[ToolCall(name, arguments, call_id)])


@dataclass
class Recorded:
    """A request the server received."""

    method: str
    path: str
    body: object  # parsed JSON, or the raw text when it was not JSON
    model_call: bool

    def text(self) -> str:
        """The body as JSON text, to search for what reached the model."""
        if isinstance(self.body, str):
            return self.body
        return json.dumps(self.body, ensure_ascii=False)


class Wire:
    """A host's model protocol. Subclasses say which requests are model
    calls and spell a `Turn` as the response body (or SSE chunks)."""

    def is_model_call(self, method: str, path: str, body: object) -> bool:
        raise NotImplementedError

    def respond(self, turn: Turn, method: str, path: str, body: object) -> "Response":
        """The answer to a model call with `turn`."""
        raise NotImplementedError

    def other(self, method: str, path: str, body: object) -> "Response":
        """The answer to any other request (token counts, model lists, ...):
        by default an empty JSON object."""
        return Response.json({})


@dataclass
class Response:
    status: int = 200
    headers: dict = field(default_factory=dict)
    chunks: Iterable[bytes] = ()

    @staticmethod
    def json(value: object, status: int = 200) -> "Response":
        data = json.dumps(value).encode()
        return Response(status, {"Content-Type": "application/json"}, [data])

    @staticmethod
    def sse(events: Iterable[tuple[Optional[str], object]]) -> "Response":
        """Server-sent events: (event name or None, JSON data) pairs."""
        chunks = []
        for name, data in events:
            text = ""
            if name is not None:
                text += f"event: {name}\n"
            text += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            chunks.append(text.encode())
        return Response(200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
                        chunks)


class ModelServer:
    """A scripted model on 127.0.0.1: each model call gets the next turn of
    the script, then `final` forever (bounded by MAX_MODEL_CALLS). Every
    request is recorded. Use as a context manager."""

    def __init__(self, wire: Wire, script: list, final: str = "done"):
        self.wire = wire
        self.script = list(script)
        self.final = final
        self.requests: list[Recorded] = []
        self.model_calls = 0
        self._lock = threading.Lock()
        self._httpd: Optional[socketserver.TCPServer] = None
        self._thread: Optional[threading.Thread] = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def next_turn(self) -> Turn:
        with self._lock:
            self.model_calls += 1
            if self.model_calls > MAX_MODEL_CALLS:
                raise SuiteError("the host made more model calls than the case allows")
            if self.script:
                return self.script.pop(0)
            return Turn.say(self.final)

    def model_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.model_call]

    def saw(self, needle: str, after_call: int = 1) -> bool:
        """Whether `needle` is in a model request after the first
        `after_call` model calls (what the host sent back to the model)."""
        return any(needle in r.text() for r in self.model_requests()[after_call:])

    def __enter__(self) -> "ModelServer":
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length > 64 * 1024 * 1024:
                    self.send_error(413)
                    return
                raw = self.rfile.read(length) if length else b""
                try:
                    body: object = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                method, path = self.command, self.path
                try:
                    is_call = server.wire.is_model_call(method, path, body)
                    with server._lock:
                        server.requests.append(Recorded(method, path, body, is_call))
                    if is_call:
                        response = server.wire.respond(server.next_turn(), method, path, body)
                    else:
                        response = server.wire.other(method, path, body)
                except SuiteError as e:
                    response = Response.json({"error": {"message": str(e)}}, status=500)
                chunks = list(response.chunks)
                self.send_response(response.status)
                for k, v in response.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(sum(len(c) for c in chunks)))
                self.end_headers()
                for c in chunks:
                    self.wfile.write(c)
                self.wfile.flush()

            do_POST = _handle
            do_GET = _handle
            do_PUT = _handle

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


# ---------------------------------------------------------------------------
# Scratch projects and processes


def hookc_bin() -> Path:
    """The `hookc` under test: HOOKC_BIN, else the workspace's debug or
    release build."""
    env = os.environ.get("HOOKC_BIN")
    if env:
        return Path(env).resolve()
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("debug", "release"):
        p = target / profile / "hookc"
        if p.is_file():
            return p
    raise SuiteError("no hookc binary: build it (cargo build -p hookc-cli) or set HOOKC_BIN")


# The guard `hookc init` writes, relative to the project: what a user's
# guard is in each case.
GUARD = ".hookc/guard.yaml"

# The ways `Project.tamper` breaks a hook.
TAMPERINGS = ("policy-missing", "policy-broken", "policy-truncated", "no-hookc")


class Project:
    """A scratch project in a temporary folder, with a private HOME, and a
    `bin/` that holds the `hookc` under test (so PATH finds it the way a
    user's installed `hookc` is found)."""

    def __init__(self, name: str = "proj", git: bool = True, keep: bool = False,
                 host: str = "any"):
        self.root = Path(tempfile.mkdtemp(prefix=f"hookc-hosts-{host}-"))
        self.dir = self.root / name
        self.dir.mkdir()
        self.home = self.root / "home"
        self.home.mkdir()
        self.bin = self.root / "bin"
        self.bin.mkdir()
        self.keep = keep or bool(os.environ.get("HOOKC_HOSTS_KEEP"))
        os.symlink(hookc_bin(), self.bin / "hookc")
        if git:
            run(["git", "init", "-q", str(self.dir)], env=self.env(), timeout=30, check=True)

    def env(self, extra: Optional[dict] = None, hookc_on_path: bool = True) -> dict:
        """A minimal environment: no variables of the session's own tools,
        a private HOME, `hookc` on PATH (unless not)."""
        path = [str(self.bin)] if hookc_on_path else []
        node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
        path += [str(node_dir), "/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(dict.fromkeys(path)),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "CI": "true",
            "TMPDIR": str(self.root),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }
        if extra:
            env.update(extra)
        return env

    def hookc(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return run([str(self.bin / "hookc"), *args], cwd=self.dir, env=self.env(),
                   timeout=60, check=check)

    def init(self, host: str, *extra: str) -> subprocess.CompletedProcess:
        return self.hookc("init", "--host", host, *extra)

    def path(self, rel: str) -> Path:
        return self.dir / rel

    def fake_tools(self, *names: str) -> None:
        """Put stand-ins for `names` on the project's PATH: each appends its
        name and arguments to a log outside the project, so that a case can
        tell which program ran and how (`ran`)."""
        for name in names:
            self.fake_tool(name, f'echo "{name} $*" >> "{self.root / "ran.log"}"\n')

    def fake_tool(self, name: str, body: str) -> None:
        """A stand-in program `name` on the project's PATH running `body`
        (sh)."""
        tool = self.bin / name
        tool.write_text("#!/bin/sh\n" + body)
        tool.chmod(0o755)

    def ran(self) -> list:
        """What the stand-ins of `fake_tools` logged, one line per run."""
        log = self.root / "ran.log"
        return log.read_text().splitlines() if log.exists() else []

    def tamper(self, how: str) -> str:
        """A shell command, one the guard lets through, that breaks the
        project's hook the way `how` says: the policy missing, broken (not
        YAML), truncated, or `hookc` gone from PATH."""
        # The guard keeps the agent from naming its own files and from
        # changing programs on PATH (host_settings, path_programs), so the
        # name is a glob that only the shell expands, when the command runs
        # (docs/src/policies/guards.md, "What no guard of a command string
        # can see"), as an agent that means to break the hook would write
        # it. Not `$(...)`: Gemini CLI refuses command substitution itself.
        def hidden(path: str, inside: str) -> str:
            # One character inside `inside` becomes `?`.
            cut = path.rindex(inside) + 2
            return path[:cut] + "?" + path[cut + 1:]
        return {
            "policy-missing": f"rm {hidden(GUARD, '.hookc')}",
            "policy-broken": f"printf 'hooks: [' > {hidden(GUARD, '.hookc')}",
            "policy-truncated": f"truncate -s 600 {hidden(GUARD, '.hookc')}",
            "no-hookc": f"rm {hidden(str(self.bin / 'hookc'), '/bin/')}",
        }[how]

    def hook_state(self) -> tuple:
        """What `tamper` changes: the policy's text and whether `hookc` is
        on the project's PATH."""
        guard = self.path(GUARD)
        return (guard.read_text() if guard.exists() else None, (self.bin / "hookc").exists())

    def write(self, rel: str, text: str) -> Path:
        p = self.dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def close(self) -> None:
        if self.keep:
            log(f"kept {self.root}")
        else:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "Project":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run(argv: list, cwd: Optional[Path] = None, env: Optional[dict] = None,
        timeout: float = HOST_TIMEOUT_S, stdin: Optional[str] = None,
        check: bool = False) -> subprocess.CompletedProcess:
    """Run a process in its own session; on timeout, kill its whole process
    group and raise SuiteError. `check` raises on a non-zero exit."""
    proc = subprocess.Popen(
        [str(a) for a in argv], cwd=str(cwd) if cwd else None, env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        raise SuiteError(f"{Path(str(argv[0])).name} did not finish in {timeout:.0f} s\n"
                         f"stdout: {out[-1500:]}\nstderr: {err[-1500:]}")
    done = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    if check and proc.returncode != 0:
        raise SuiteError(f"{' '.join(map(str, argv))} exited {proc.returncode}\n"
                         f"stdout: {out[-1500:]}\nstderr: {err[-1500:]}")
    return done


def install_managed(project: "Project", host: str, written: list) -> "PrivateEtc":
    """`hookc init --managed --host HOST` at the system paths, in a private
    /etc (`PrivateEtc`); the files `written` (relative to /etc) must be
    there. The private /etc, for the host's runs."""
    etc = PrivateEtc(project)
    run(etc.wrap([project.bin / "hookc", "init", "--managed", "--host", host]),
        cwd=project.dir, env=project.env(), timeout=60, check=True)
    missing = [w for w in written if not (etc.upper / w).exists()]
    expect(not missing, f"init --managed did not write {missing} under /etc: "
                        f"{list(etc.upper.rglob('*'))}")
    return etc


class PrivateEtc:
    """A private `/etc` for the processes of a case: each runs in a mount
    namespace of its own (`unshare -m`, private propagation) where `/etc`
    is an overlay of the machine's `/etc` and a folder of the case's
    (`upper`), which receives every write. The machine's `/etc` is never
    written; what one process wrote there, the next one sees. So a host
    that reads its managed settings only at their system path (Claude
    Code's /etc/claude-code, Codex's /etc/codex) reads the ones `hookc init
    --managed` wrote, with no `--root`. Root makes the mount namespace
    itself; anyone else makes it in a user namespace of their own, mapped
    to root (`unshare -r`, where the kernel allows unprivileged user
    namespaces and overlays in them): `SuiteError` when neither can."""

    SCRIPT = ('mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc '
              '&& shift 2 && exec "$@"')

    def __init__(self, project: "Project"):
        self.upper = project.root / "etc-upper"
        self.work = project.root / "etc-work"
        self.upper.mkdir()
        self.work.mkdir()
        probe = run(self.wrap(["true"]), timeout=30)
        if probe.returncode != 0:
            raise SuiteError("a private /etc needs a mount namespace and an overlay mount "
                             "(root, or unprivileged user namespaces): "
                             f"{probe.stderr.strip()[-400:]}")

    def wrap(self, argv: list) -> list:
        """`argv`, run with the private `/etc`."""
        namespaces = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
        return ["unshare", *namespaces, "sh", "-c", self.SCRIPT, "private-etc",
                str(self.upper), str(self.work), *argv]


@dataclass
class Session:
    """One run of a host: what it printed and what the model saw. Each host
    module's own Session adds `describe`, what to show when a case fails."""

    result: subprocess.CompletedProcess
    server: ModelServer

    def saw(self, needle: str, after_call: int = 1) -> bool:
        return self.server.saw(needle, after_call)

    def first_saw(self, needle: str) -> bool:
        """Whether `needle` reached the model's very first request."""
        calls = self.server.model_requests()
        return bool(calls) and needle in calls[0].text()

    def describe(self) -> str:
        return f"exit {self.result.returncode}, {self.server.model_calls} model call(s)"


# ---------------------------------------------------------------------------
# Cases


class CaseFailed(AssertionError):
    """What the host did is not what the case expects."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CaseFailed(message)


@dataclass
class Case:
    """One end-to-end case of one host: `body` sets up, drives the host and
    asserts, raising CaseFailed (or SuiteError when it could not run)."""

    host: str
    name: str
    body: Callable[[], None]
    doc: str = ""


# ---------------------------------------------------------------------------
# Cases every host has, written once: each host module gives a `Driver`.

# A command each bundled guard denies: a recursive force-remove, after a
# marker file that shows whether it ran.
DENIED = "touch denied.marker && rm -rf victim"


@dataclass
class Driver:
    """What the shared cases need of a host module: a scratch project set
    up by `hookc init` (with a `victim/` folder), one run of the host on a
    script, and the tool call that runs a shell command."""

    scratch: Callable[[], Project]
    session: Callable[..., Session]
    shell: Callable[[str, str], Turn]
    # Options of `session` for the cases that break the hook (a host that
    # must be let touch paths outside the project).
    tamper_args: dict = field(default_factory=dict)


def expect_not_run(project: Project, s: Session, what: str) -> None:
    """DENIED did not run: no marker, and `victim/` is still there."""
    expect(not project.path("denied.marker").exists(),
           f"{what}: a denied command ran (denied.marker exists): {s.describe()}")
    expect(project.path("victim/keep.txt").exists(),
           f"{what}: victim/ was removed: {s.describe()}")


def case_deny(d: Driver, read_secrets: Callable[[Project], Turn]) -> Callable[[], None]:
    """DENIED does not run, and `read_secrets(project)`, the host's file
    read of `.env`, is denied: neither reason is missing from the model's
    next request, and the secret is not in it."""

    def body() -> None:
        with d.scratch() as project:
            project.write(".env", "API_TOKEN=secret-value-123\n")
            s = d.session(project, [d.shell(DENIED, "deny_1"), read_secrets(project)])
            expect_not_run(project, s, "the denied command")
            expect(s.saw("recursive force-remove is not allowed"),
                   f"the deny reason did not reach the model: {s.describe()}")
            expect(not s.saw("secret-value-123"),
                   f"the .env file's content reached the model: {s.describe()}")
            expect(s.saw("holds secrets"),
                   f"the secrets reason did not reach the model: {s.describe()}")
    return body


def case_user_message(d: Driver, host: str, event: str, tool: str,
                      shown: Callable[[Session], bool], **session_args) -> Callable[[], None]:
    """A deny whose action gives a reason and a `user_message`
    (docs/src/semantics.md#audiences): the command does not run, the model
    reads the reason and never the message, and `shown(session)` finds the
    message where the host shows the user."""
    guard = (f"host: {host}\nhooks:\n  - id: no_rm\n    event: {event}\n"
             f"    when: \"tool_name == '{tool}' && tool_input.command.contains('rm -rf')\"\n"
             "    action:\n      type: deny\n"
             f"      reason: \"{FOR_THE_MODEL}\"\n      user_message: \"{FOR_THE_USER}\"\n")

    def body() -> None:
        with d.scratch() as project:
            project.write(".hookc/guard.yaml", guard)
            s = d.session(project, [d.shell("rm -rf victim", "msg_1")], **session_args)
            expect_not_run(project, s, "the denied remove")
            expect(s.saw(FOR_THE_MODEL), f"the reason did not reach the model: {s.describe()}")
            expect(not s.saw(FOR_THE_USER),
                   f"the user's message reached the model: {s.describe()}")
            expect(shown(s), f"the user's message was not shown: {s.describe()}")
    return body


# The two messages of `case_user_message`: words no host's own prompts hold.
FOR_THE_MODEL = "remove the files one by one instead"
FOR_THE_USER = "hookc stopped a recursive remove"


def case_ask_headless(d: Driver) -> Callable[[], None]:
    """In a headless run nobody can answer an `ask`: the push does not
    run, and the reason reaches the model."""

    def body() -> None:
        with d.scratch() as project:
            s = d.session(project, [d.shell("touch ask.marker && git push origin main", "ask_1")])
            expect(not project.path("ask.marker").exists(),
                   f"an `ask` command ran with nobody to ask: {s.describe()}")
            expect(s.saw("push to the remote's main branch"),
                   f"the ask reason did not reach the model: {s.describe()}")
    return body


def prompt_fails_closed(d: Driver) -> Callable[[], None]:
    """Broken from the start (no `hookc` on PATH), the first hook that can
    block keeps the prompt from the model."""

    def body() -> None:
        with d.scratch() as project:
            s = d.session(project, [d.shell(DENIED, "nohookc_1")], hookc_on_path=False)
            expect(not project.path("denied.marker").exists() and s.server.model_calls == 0,
                   f"without hookc on PATH, the prompt reached the model: {s.describe()}")
    return body


def case_allow(d: Driver) -> Callable[[], None]:
    """A command no hook decides runs, and `ls`, which the guard allows."""

    def body() -> None:
        with d.scratch() as project:
            s = d.session(project, [d.shell("touch ok.marker", "allow_1"), d.shell("ls", "allow_2")])
            expect(project.path("ok.marker").exists(),
                   f"a command no hook decides did not run: {s.describe()}")
            # `ls` is allowed outright; its output (the project's files) comes back.
            expect(s.saw("ok.marker", after_call=2), f"`ls` did not run: {s.describe()}")
    return body


def case_adopt(d: Driver, host: str, settings: str, event: str, group: Callable[[str], dict],
               rewrite: Callable[[str], dict],
               read_command: str = "payload['tool_input']['command']") -> Callable[[], None]:
    """`hookc init --adopt` (docs/src/hosts/adopt.md): the project's
    settings get three hooks of their own on `event` (`group(command)` is
    one settings entry running `command`): two that rewrite the command
    (`rewrite(new)` is the host's answer that does), the slower first, and
    one that blocks a secret with exit 2. Adopted, the rewrites apply in
    the settings' order whatever their speed, the block's reason reaches
    the model, and the host runs only hookc on the event."""
    python = sys.executable

    def hook(name: str, body: str) -> tuple:
        path = f"hooks/{name}.py"
        return path, (f"#!{python}\nimport json, sys, time\n"
                      "payload = json.load(sys.stdin)\n"
                      f"command = {read_command}\n" + body)

    def body() -> None:
        with d.scratch() as project:
            project.fake_tools("deploy")
            scripts = [
                hook("slow_a", "time.sleep(1.0)\n"
                     f"print(json.dumps({rewrite('__NEW__')!r}).replace('__NEW__', command + ' A'))\n"),
                hook("fast_b", f"print(json.dumps({rewrite('__NEW__')!r}).replace('__NEW__', command + ' B'))\n"),
                hook("no_secret", "if 'secret' in command:\n"
                     "    print('adopted hook: no secrets here', file=sys.stderr)\n    sys.exit(2)\n"),
            ]
            for path, text in scripts:
                project.write(path, text).chmod(0o755)
            file = project.path(settings)
            current = (json.loads(file.read_text()) if file.exists()
                       else {"version": 1, "hooks": {}})
            entries = current.setdefault("hooks", {}).setdefault(event, [])
            entries[:0] = [group(f"./{path}") for path, _ in scripts]
            file.write_text(json.dumps(current, indent=2))
            adopted = project.init(host, "--adopt")
            expect("adopted 3 hook(s)" in adopted.stdout, f"init --adopt said: {adopted.stdout}")
            expect(not any(f"./{path}" in file.read_text() for path, _ in scripts),
                   f"the adopted hooks are still in {settings}: {file.read_text()}")
            s = d.session(project, [d.shell("deploy prod", "adopt_1"),
                                    d.shell("deploy secret", "adopt_2")])
            expect(project.ran() == ["deploy prod A B"],
                   f"expected the adopted rewrites in order (`deploy prod A B`), ran: "
                   f"{project.ran()}; {s.describe()}")
            expect(s.saw("adopted hook: no secrets here"),
                   f"the adopted block's reason did not reach the model: {s.describe()}")
    return body


def settings_commands(project: Project, settings: str, change: Callable[[str], str]) -> None:
    """Rewrites every command of the project's settings file (`settings`)
    that runs `hookc hook` with `change`."""
    file = project.path(settings)
    current = json.loads(file.read_text())

    def walk(value):
        if isinstance(value, dict):
            return {k: (change(v) if k in ("command", "bash") and isinstance(v, str)
                        and "hookc hook " in v else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value
    file.write_text(json.dumps(walk(current), indent=2))


def case_deadline(d: Driver, settings: str) -> Callable[[], None]:
    """A guard whose `run` never answers in time (`sleep 30`, under the
    host's own 10 s timeout, which would let the call through): `hookc hook
    --deadline` answers the host's block first, and the command does not
    run (teams.md, deadlines)."""
    guard = (
        "hooks:\n"
        "  - id: slow_check\n    event: PreToolUse\n"
        "    when: \"tool_input.command.contains('slow.marker')\"\n"
        "    action: {type: run, argv: [sleep, '30'], timeout_ms: 60000}\n")

    def body() -> None:
        with d.scratch() as project:
            text = project.path(GUARD).read_text()
            expect("\nhooks:\n" in text, "the guard has no top-level `hooks:` line")
            project.write(GUARD, text.replace("\nhooks:\n", "\n" + guard, 1))
            settings_commands(project, settings,
                              lambda c: c.replace("--deadline 9000", "--deadline 1500"))
            started = time.monotonic()
            s = d.session(project, [d.shell("touch slow.marker", "deadline_1")])
            took = time.monotonic() - started
            expect(not project.path("slow.marker").exists(),
                   f"a command whose hook missed its deadline ran: {s.describe()}")
            expect(s.saw("no decision within the deadline of 1500 ms"),
                   f"the deadline's reason did not reach the model: {s.describe()}")
            expect(took < 25, f"the run took {took:.1f} s: the `sleep 30` was waited for")
    return body


def case_pinned(d: Driver, host: str, prints_stop: bool) -> Callable[[], None]:
    """`hookc init --pin`, then the guard changed without re-pinning: the
    host blocks even a harmless command, saying why (teams.md, pinning);
    `prints_stop`: the host prints the reason of a hook that stops the
    session before the model is called."""

    def body() -> None:
        with d.scratch() as project:
            project.init(host, "--pin")
            guard = project.path(GUARD)
            guard.write_text(guard.read_text() + "# changed after the pin\n")
            s = d.session(project, [d.shell("touch ok.marker", "pin_1")])
            expect(not project.path("ok.marker").exists(),
                   f"a command ran under a guard changed since it was pinned: {s.describe()}")
            # The session's or the prompt's own hook blocks first on the
            # hosts that have one: nothing reaches the model (Claude Code
            # prints the reason; Codex stops the session and prints only
            # that a SessionStart hook stopped it). Else the tool call's
            # block carries the reason to the model. (The reason's words
            # are the CLI suite's: trust.rs.)
            said = s.result.stdout + s.result.stderr
            stopped = s.server.model_calls == 0 and (
                not prints_stop or "changed since it was pinned" in said)
            expect(s.saw("changed since it was pinned") or stopped,
                   f"a guard changed since it was pinned let the session reach the model "
                   f"without its reason: {s.describe()}; host said: {said[-400:]}")
    return body


def case_logged(d: Driver, host: str, settings: str) -> Callable[[], None]:
    """`--log FILE --shadow CANDIDATE` in the host's command: the host is
    answered by the live guard (a denied command does not run), and the
    log has the live and the candidate's line for the call, one decision id,
    the live one's digest the one `hookc disasm` prints."""

    def body() -> None:
        with d.scratch() as project:
            log_file = project.root / "decisions.jsonl"
            candidate = project.write(".hookc/candidate.yaml", f"host: {host}\nhooks: []\n")
            settings_commands(project, settings, lambda c: c.replace(
                "hookc hook ", f"hookc hook --log {log_file} --shadow {candidate} ", 1))
            s = d.session(project, [d.shell(DENIED, "log_1")])
            expect_not_run(project, s, "the denied command, logged with a shadow")
            lines = [json.loads(l) for l in log_file.read_text().splitlines()] \
                if log_file.exists() else []
            denied = [l for l in lines if not l.get("shadow")
                      and ((l.get("decision") or {}).get("action") or {}).get("type") == "deny"]
            expect(denied, f"no live deny was logged: {lines}")
            live = denied[0]
            shadows = [l for l in lines if l.get("shadow")
                       and l.get("decision_id") == live.get("decision_id")]
            expect(len(shadows) == 1 and shadows[0].get("hook") is None,
                   f"the candidate's line for the call is missing or decided: {lines}")
            listing = project.hookc("disasm", GUARD).stdout
            expect(listing.startswith(f"digest: {live.get('policy_digest')}"),
                   f"the log's policy_digest is not disasm's: {live.get('policy_digest')}; "
                   f"{listing[:80]}")
    return body


def case_rewrite(d: Driver, told: Optional[str] = None) -> Callable[[], None]:
    """`pip install` runs as `uv pip install` (stand-ins record which ran);
    `told`, when given, is what the model must then see."""

    def body() -> None:
        with d.scratch() as project:
            project.fake_tools("uv", "pip")
            s = d.session(project, [d.shell("pip install requests", "rewrite_1")])
            expect(project.ran() == ["uv pip install requests"],
                   f"expected only `uv pip install requests` to run, ran: {project.ran()}; "
                   f"{s.describe()}")
            if told is not None:
                expect(s.saw(told), f"the model was not told `{told}`: {s.describe()}")
    return body


def tool_fails_closed(d: Driver, how: str,
                      script: Optional[Callable[[str], list]] = None) -> Callable[[], None]:
    """The agent breaks the hook (`Project.tamper`), then tries DENIED: the
    hook cannot decide, and the call must not run. `script` makes the
    model's turns from the tampering command (default: two calls)."""

    def body() -> None:
        with d.scratch() as project:
            before = project.hook_state()
            tamper = project.tamper(how)
            turns = (script(tamper) if script is not None
                     else [d.shell(tamper, "tamper_1"), d.shell(DENIED, "tamper_2")])
            s = d.session(project, turns, **d.tamper_args)
            expect(project.hook_state() != before,
                   f"the command that breaks the hook did not run: {s.describe()}")
            expect_not_run(project, s, f"with {how}")
    return body


def stop_fails_closed(d: Driver, how: str, event: str) -> Callable[[], None]:
    """The agent breaks the hook, then answers `done`: the stop event's
    hook cannot decide, and must keep the agent going (one more model
    call)."""

    def body() -> None:
        with d.scratch() as project:
            before = project.hook_state()
            s = d.session(project, [d.shell(project.tamper(how), "stop_1")], **d.tamper_args)
            expect(project.hook_state() != before,
                   f"the command that breaks the hook did not run: {s.describe()}")
            # Call 1 breaks the hook, call 2 answers `done`.
            expect(s.server.model_calls > 2,
                   f"{event}'s hook failed ({how}) and the agent stopped anyway: {s.describe()}")
    return body


def main(cases: list, argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description="hookc's end-to-end suite on the real hosts")
    parser.add_argument("--host", action="append", help="only this host (repeatable)")
    parser.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    chosen = [c for c in cases
              if (not args.host or c.host in args.host)
              and (not args.pattern or args.pattern in c.name)]
    if args.list:
        for c in chosen:
            print(f"{c.host}::{c.name}  {c.doc}")
        return 0
    passed = failed = 0
    started = time.monotonic()
    for case in chosen:
        t0 = time.monotonic()
        try:
            case.body()
        except (CaseFailed, SuiteError) as e:
            failed += 1
            print(f"FAIL {case.host}::{case.name} ({time.monotonic() - t0:.1f} s)\n  {e}",
                  flush=True)
        except Exception:  # a bug of the suite itself: say where
            failed += 1
            print(f"FAIL {case.host}::{case.name}\n{traceback.format_exc()}", flush=True)
        else:
            passed += 1
            print(f"ok   {case.host}::{case.name} ({time.monotonic() - t0:.1f} s)", flush=True)
    print(f"test-hosts: {len(chosen)} cases in {time.monotonic() - started:.0f} s", flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1
