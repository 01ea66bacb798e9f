"""The deciding action `evaluate` builds from a dict (straight into Python
objects, the policy's names and immutable constants made once per policy)
is the action it builds from JSON text, on every call, and each answer is
the caller's own: changing one changes no other."""

import json
import warnings

import hookc

POLICY = """
action_types:
  notify:
    parameters:
      channel: {type: string, default: ops}
      tags: {type: array, items: {type: string}, default: [a, b]}
      extra: {type: object, default: {k: [1, 2]}}
      count: {type: integer, default: 70000}
      ratio: {type: number, default: 0.5}
      note: {type: string}
      labels: {type: array, items: {type: string}}
      meta: {type: object}
hooks:
  - id: filled
    event: e
    condition: {path: x, op: exists}
    action:
      type: notify
      note: "x=${x}"
      labels: ["${x}", lit]
      meta: {seen: "${x}", nested: {again: "${x}"}, fixed: [1, true, null]}
  - id: plain
    event: e
    action: {type: notify}
"""


def compiled():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile_sources({"p.yaml": POLICY})


def test_an_action_from_a_dict_is_the_action_from_text_every_time():
    policy = compiled()

    def answer(ctx):
        try:
            return json.dumps(policy.evaluate("e", ctx))
        except hookc.EvaluationError as e:
            return f"error: {e}"

    # (A number filled into `labels` does not fit: the same error.)
    for ctx in ({"x": "v"}, {"x": 3}, {"x": {"deep": [1]}}, {}):
        want = answer(json.dumps(ctx))
        for _ in range(3):
            assert answer(ctx) == want
    assert answer({"x": 3}).startswith("error: ")


def test_each_answer_is_the_callers_own():
    policy = compiled()
    first = policy.evaluate("e", {})
    action = first["action"]
    action["tags"].append("mine")
    action["extra"]["k"].append(3)
    action["extra"]["new"] = 1
    action["channel"] = "changed"
    del action["type"]
    again = policy.evaluate("e", {})
    assert again["action"]["tags"] == ["a", "b"]
    assert again["action"]["extra"] == {"k": [1, 2]}
    assert again["action"]["channel"] == "ops"
    assert again["action"]["type"] == "notify"
    assert again == policy.evaluate("e", "{}")
    # Filled lists and objects too.
    filled = policy.evaluate("e", {"x": "v"})
    filled["action"]["labels"].append("mine")
    filled["action"]["meta"]["fixed"].append(2)
    again = policy.evaluate("e", {"x": "v"})
    assert again["action"]["labels"] == ["v", "lit"]
    assert again["action"]["meta"]["fixed"] == [1, True, None]
