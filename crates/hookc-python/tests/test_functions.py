"""The when language's functions through the Python package: a shell guard
reads the commands a string runs, parsed once per evaluation however many
hooks read it (explain's ``derived``), from a dict read path by path and
from JSON text alike; path and string functions too."""

import json

import hookc

POLICY = """
host: claude-code
hooks:
  - id: no_rm_rf
    event: PreToolUse
    when: >-
      tool_name == 'Bash' && shell.commands(tool_input.command).exists(c,
        c.program == 'rm' && c.hasFlag('r', 'recursive') && c.hasFlag('f', 'force'))
    action: {type: deny, reason: "no rm -rf"}
  - id: no_force_push
    event: PreToolUse
    when: >-
      tool_name == 'Bash' && shell.commands(tool_input.command).exists(c,
        c.argvPrefix(['git', 'push']) && c.hasFlag('f', 'force'))
    action: {type: deny, reason: "no force-push"}
  - id: secrets
    event: PreToolUse
    when: >-
      tool_name == 'Read' && path.match(path.clean(tool_input.file_path), '**/.env*')
    action: {type: deny, reason: "secrets"}
"""


def ctx(tool, **tool_input):
    return {
        "session_id": "s1",
        "cwd": "/app",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def test_every_bypass_is_caught_from_a_dict_and_from_json_text():
    policy = hookc.compile_sources({"guard.yaml": POLICY})
    for command in [
        "cd /tmp && rm -rf x",
        "sudo rm -rf x",
        "bash -c 'rm -rf x'",
        "FOO=1 rm -r -f x",
        '"rm" --recursive --force x',
    ]:
        for form in (ctx("Bash", command=command), json.dumps(ctx("Bash", command=command))):
            assert policy.decide("PreToolUse", form) == "no_rm_rf", command
    assert policy.decide("PreToolUse", ctx("Bash", command='echo "rm -rf"')) is None


def test_the_command_is_parsed_once_for_every_hook():
    policy = hookc.compile_sources({"guard.yaml": POLICY})
    trace = policy.explain("PreToolUse", ctx("Bash", command="git status && ls"))
    assert trace["winner"] is None
    assert [d["function"] for d in trace["derived"]] == ["shell.commands"]
    [derived] = trace["derived"]
    assert derived["input"] == "git status && ls"
    programs = [c["program"] for c in derived["value"]["commands"]]
    assert programs == ["git", "ls"]


def test_paths_are_cleaned_before_matching():
    policy = hookc.compile_sources({"guard.yaml": POLICY})
    assert policy.decide("PreToolUse", ctx("Read", file_path="src/../.env.local")) == "secrets"
    assert policy.decide("PreToolUse", ctx("Read", file_path="src/env.rs")) is None
