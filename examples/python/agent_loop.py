"""An asyncio agent loop that asks a hookc policy what to do.

The agent runs steps; a step that fails raises an `error` event, a budget
overrun a `limit` event, a long conversation a `context_window_pressure`
event. Each event goes to the policy (seed 000's hooks, compiled once at
start) and the loop acts on the returned action: retry the step, call a
directive, escalate to a person, emit a new event, or carry on when no hook
matches. Run it from anywhere:

    pip install ./crates/hookc-python
    python examples/python/agent_loop.py
"""

import asyncio
import pathlib
import warnings

import hookc

SEED = pathlib.Path(__file__).resolve().parent.parent / "thread-hooks"


def load_policy() -> hookc.Policy:
    with warnings.catch_warnings():
        # Seed 000's hooks read fields its schema leaves open (W0001/W0007).
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile(
            [SEED / "hooks.yaml", SEED / "directive_hooks.yaml", SEED / "directive.xml"]
        )


# What the simulated agent runs into, step by step: (event, context) or None.
SCRIPT = [
    None,
    ("error", {"classification": {"category": "transient"}, "error": {"type": "timeout"}}),
    ("error", {"classification": {"category": "rate_limited"},
               "error": {"code": "E429", "headers": {"retry-after": "2"}}}),
    ("limit", {"event": {"limit_code": "turns"}, "limit_code": "turns"}),
    ("context_window_pressure", {"pressure_ratio": 0.9, "event": {"pressure_ratio": 0.9}}),
    ("error", {"classification": {"category": "permanent"},
               "error": {"type": "invalid_request", "message": "model not found"}}),
    ("error", {"classification": {"category": "content_filter"}}),
]


async def act(policy: hookc.Policy, events: asyncio.Queue, step: int, event: str, ctx: dict) -> str:
    """Asks the policy about one event and carries out its decision."""
    decision = policy.evaluate(event, ctx)
    if decision is None:
        return f"step {step}: {event}: no hook matched, carrying on"
    action = decision["action"]
    kind = action["type"]
    if kind == "retry":
        for attempt in range(1, action["max_attempts"] + 1):
            await asyncio.sleep(0)  # the retried step
            if attempt == 2:
                return f"step {step}: {event}: retry succeeded on attempt {attempt}"
        return f"step {step}: {event}: retries exhausted"
    if kind == "call_directive":
        return f"step {step}: {event}: call directive {action['directive']} {action['parameters']}"
    if kind == "escalate":
        return f"step {step}: {event}: escalate to {action['target']}"
    if kind == "emit_event":
        await events.put((action["event_type"], action["payload"]))
        return f"step {step}: {event}: emitted {action['event_type']}"
    return f"step {step}: {event}: {kind}"


async def agent(policy: hookc.Policy) -> list:
    events: asyncio.Queue = asyncio.Queue()
    log = []
    for step, raised in enumerate(SCRIPT):
        await asyncio.sleep(0)  # the step's own work
        if raised is not None:
            log.append(await act(policy, events, step, *raised))
    # Events the hooks emitted, handled by the application.
    while not events.empty():
        event_type, payload = await events.get()
        log.append(f"handled emitted event {event_type}: {payload}")
    return log


def main() -> None:
    policy = load_policy()
    for line in asyncio.run(agent(policy)):
        print(line)
    print("done")


if __name__ == "__main__":
    main()
