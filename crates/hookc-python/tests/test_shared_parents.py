"""Paths that share a parent (`event.a`, `event.b`, `event.c`), read from
a dict (`src/lookup.rs`): every answer is the one JSON text of the same
context gives, whatever the parent is: missing, null, a list, a str; a
value with no JSON form is an error naming the path (a mapping's
exception: `test_errors.py`)."""

import json
import warnings

import pytest

import hookc

POLICY = """
hooks:
  - id: both
    event: e
    priority: 3
    when: "event.a == 1 && event.b == 'x'"
    action:
      type: emit_event
      event_type: both
      payload: {a: "${event.a}", b: "${event.b}", c: "${event.c}", d: "${deep.k.v}"}
  - id: c_only
    event: e
    priority: 2
    when: "event.c > 5 || deep.k.w == 'w'"
    action: {type: emit_event, event_type: c, payload: {c: "${event.c}", v: "${deep.k.v}"}}
  - id: items
    event: e
    priority: 1
    when: "items[0].n == 1 && items[0].m == 2"
    action: {type: abort}
"""


@pytest.fixture(scope="module")
def policy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile_sources({"p.yaml": POLICY})


CONTEXTS = [
    {"event": {"a": 1, "b": "x", "c": 9}, "deep": {"k": {"v": [1], "w": "w"}}},
    {"event": {"a": 1, "b": "y", "c": 9}, "deep": {"k": {"v": "s"}}},
    {"event": {"a": 2, "c": 1}, "deep": {"k": {"w": "w"}}},
    {"event": {"c": 6}},
    {"event": None, "deep": {"k": None}},
    {"event": [1, 2], "deep": {"k": [{"v": 1}]}},
    {"event": "abc", "deep": "k"},
    {"deep": {"k": {"v": 2, "w": "w"}}},
    {"items": [{"n": 1, "m": 2}]},
    {"items": [{"n": 1}], "event": {"a": 1, "b": "x"}},
    {"items": {"0": {"n": 1, "m": 2}}},
    {},
]


@pytest.mark.parametrize("ctx", CONTEXTS)
def test_answers_from_a_dict_are_those_of_its_json_text(policy, ctx):
    text = json.dumps(ctx)
    assert policy.evaluate("e", ctx) == policy.evaluate("e", text)
    assert policy.decide("e", ctx) == policy.decide("e", text)
    assert policy.evaluate_all("e", ctx) == policy.evaluate_all("e", text)


class Opaque:
    pass


def test_a_parent_with_no_json_form_is_an_error_naming_the_path(policy):
    with pytest.raises(TypeError, match=r"`event\.a` is inside an object of type `Opaque`"):
        policy.decide("e", {"event": Opaque()})
