"""Every error path: wrong argument types, invalid JSON, context values
with no JSON form, unknown hook ids, compile and artifact errors, actions
outside their declared types. Each raises a Python exception naming what to
fix; none crashes."""

import collections
import collections.abc
import math
import warnings

import pytest

import hookc
from conftest import ROOT

POLICY = """
hooks:
  - id: by_code
    event: error
    when: "error.code == 'E1'"
    action: {type: retry, max_attempts: 2}
  - id: by_list
    event: error
    when: "items[1] == 7"
    action: {type: abort}
  - id: echo
    event: limit
    when: "has(payload)"
    action: {type: emit_event, event_type: echo, payload: {value: "${payload}"}}
"""


@pytest.fixture(scope="module")
def policy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        return hookc.compile_sources({"p.yaml": POLICY})


# ---- argument types ------------------------------------------------------------


@pytest.mark.parametrize("context", [42, None, [1, 2], 1.5, bytearray(b"{}"), {1, 2}])
def test_a_context_of_another_type_is_a_type_error(policy, context):
    with pytest.raises(TypeError, match="the context must be a dict"):
        policy.evaluate("error", context)


def test_the_event_must_be_a_str(policy):
    with pytest.raises(TypeError, match="the event must be a str"):
        policy.evaluate(b"error", {})


@pytest.mark.parametrize(
    "text,where",
    [("{", "line 1 column 1"), ('{"a": 1,}', "line 1 column 9"), ("{}\n x", "line 2 column 2")],
)
def test_invalid_json_is_a_value_error_naming_the_position(policy, text, where):
    for form in (text, text.encode()):
        with pytest.raises(ValueError, match=where):
            policy.evaluate("error", form)


def test_bytes_that_are_not_utf8_are_a_value_error(policy):
    with pytest.raises(ValueError, match="not valid JSON"):
        policy.evaluate("error", b'{"a": "\xff"}')


def test_unknown_disabled_id_suggests_a_close_one(policy):
    with pytest.raises(ValueError, match="did you mean `by_code`"):
        policy.evaluate("error", {}, disable=["by_cod"])


def test_disable_must_be_ids_not_one_str(policy):
    with pytest.raises(TypeError, match="not one str"):
        policy.evaluate("error", {}, disable="by_code")
    with pytest.raises(TypeError, match="iterable of hook ids"):
        policy.evaluate("error", {}, disable=[1])


# ---- context values without a JSON form -------------------------------------------


class Opaque:
    pass


@pytest.mark.parametrize(
    "value,found",
    [({1, 2}, "a set"), (b"E1", "a bytes"), (Opaque(), "an object of type `Opaque`"), (1j, "a complex")],
)
def test_a_read_value_with_no_json_form_is_a_type_error_naming_the_path(policy, value, found):
    with pytest.raises(TypeError, match=f"`error.code` is {found}"):
        policy.evaluate("error", {"error": {"code": value}})


def test_stepping_through_a_non_json_value_is_a_type_error(policy):
    with pytest.raises(TypeError, match="`error.code` is inside an object of type `Opaque`"):
        policy.evaluate("error", {"error": Opaque()})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400])
def test_numbers_json_cannot_hold_are_a_value_error(policy, value):
    with pytest.raises(ValueError, match="which JSON cannot hold"):
        policy.evaluate("limit", {"payload": value})


def test_a_mapping_key_that_is_not_a_str_is_a_type_error(policy):
    with pytest.raises(TypeError, match="a key that is"):
        policy.evaluate("limit", {"payload": {1: "one"}})


def test_values_the_policy_does_not_read_are_never_looked_at(policy):
    ctx = {"error": {"code": "E1", "other": {1, 2}}, "junk": Opaque(), "n": math.nan}
    assert policy.decide("error", ctx) == "by_code"


def test_big_ints_are_doubles_as_in_json_text(policy):
    big = 2**70
    got = policy.evaluate("limit", {"payload": big})
    assert got == policy.evaluate("limit", f'{{"payload": {big}}}')
    assert got["action"]["payload"]["value"] == float(big)


def test_a_self_containing_list_is_refused_not_a_crash(policy):
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nests deeper than 127"):
        policy.evaluate("limit", {"payload": loop})


def test_tuples_and_any_mapping_read_as_json(policy):
    class Ctx(collections.abc.Mapping):
        def __init__(self, d):
            self.d = d

        def __getitem__(self, k):
            return self.d[k]

        def __iter__(self):
            return iter(self.d)

        def __len__(self):
            return len(self.d)

    assert policy.decide("error", Ctx({"error": Ctx({"code": "E1"})})) == "by_code"
    assert policy.decide("error", {"items": (0, 7)}) == "by_list"
    assert policy.evaluate("limit", {"payload": Ctx({"a": (1, None)})})["action"]["payload"]["value"] == {
        "a": [1, None]
    }


def test_a_defaultdict_is_read_without_growing(policy):
    ctx = collections.defaultdict(dict)
    assert policy.decide("error", ctx) is None
    assert dict(ctx) == {}


def test_steps_of_the_wrong_kind_do_not_resolve(policy):
    # As in JSON: a field of a list, an index of a mapping or a scalar.
    for ctx in ({"error": [1]}, {"error": "E1"}, {"items": {"1": 7}}, {"items": "x7"}):
        assert policy.decide("error", ctx) is None


# ---- compile and load -----------------------------------------------------------------


def test_compile_errors_carry_rendered_text_and_diagnostics():
    src = "hooks:\n  - id: a\n    event: error\n    when: \"x ==\"\n    action: {type: retry}\n"
    with pytest.raises(hookc.CompileError) as e:
        hookc.compile_sources({"bad.yaml": src})
    assert "error[" in str(e.value) and "bad.yaml:4" in str(e.value)
    [d] = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert d["file"] == "bad.yaml" and d["line"] == 4
    assert set(d) >= {"code", "severity", "message", "file", "line", "column"}
    assert d["code"].startswith("E")


def test_compile_of_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        hookc.compile([str(tmp_path / "nope.yaml")])


def test_compile_arguments_are_checked(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(POLICY)
    with pytest.raises(ValueError, match="no policy given"):
        hookc.compile()
    with pytest.raises(ValueError, match="either `paths` or `layers`"):
        hookc.compile([f], layers={"base": [f]})
    with pytest.raises(ValueError, match="is not a layer name"):
        hookc.compile(layers={"9 bad": [f]})
    with pytest.raises(TypeError, match="file paths"):
        hookc.compile(42)
    with pytest.raises(TypeError, match="maps names to policy texts"):
        hookc.compile_sources(["p.yaml"])


def test_compile_accepts_one_path_paths_and_layers(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(POLICY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        for policy in (
            hookc.compile(f),
            hookc.compile([str(f)]),
            hookc.compile(layers={"base": f}),
        ):
            assert policy.decide("error", {"error": {"code": "E1"}}) == "by_code"


def test_compile_warnings_are_policy_warnings():
    src = POLICY + "  - id: dup\n    event: error\n    when: \"error.code == 'E1'\"\n    action: {type: abort}\n"
    with pytest.warns(hookc.PolicyWarning, match="W0008"):
        hookc.compile_sources({"p.yaml": src})


@pytest.mark.parametrize("data", [b"", b"not an artifact", b"HKBC" + bytes(40)])
def test_bad_artifact_bytes_are_an_artifact_error(data):
    with pytest.raises(hookc.ArtifactError, match="cannot load the policy artifact"):
        hookc.Policy.from_artifact(data)


def test_a_damaged_artifact_is_an_artifact_error(policy):
    data = bytearray(policy.to_artifact())
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(hookc.ArtifactError):
        hookc.Policy.from_artifact(bytes(data))
    with pytest.raises(TypeError, match="an artifact is bytes"):
        hookc.Policy.from_artifact(policy.to_artifact().decode("latin-1"))


def test_an_action_outside_its_declared_type_is_an_evaluation_error():
    path = ROOT / "crates/hookc-cli/tests/data/policy_tests/typed_results.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hookc.PolicyWarning)
        policy = hookc.compile([str(path)])
    ctx = {"limit_code": "nuke", "limit_max": 5}
    for form in (ctx, '{"limit_code": "nuke", "limit_max": 5}'):
        with pytest.raises(hookc.EvaluationError, match='`target` of action `escalate` is "nuke"'):
            policy.evaluate("limit", form)
    # `decide` builds no action, so it still names the hook.
    assert policy.decide("limit", ctx) == "escalate_budget"


def test_an_exception_in_a_mappings_getitem_propagates(policy):
    class Broken(collections.abc.Mapping):
        def __getitem__(self, k):
            raise RuntimeError("backend down")

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 0

    with pytest.raises(RuntimeError, match="backend down"):
        policy.evaluate("error", {"error": Broken()})
    # A KeyError is a missing key, as for a dict.
    assert policy.decide("error", collections.ChainMap({"error": {"code": "E1"}})) == "by_code"
