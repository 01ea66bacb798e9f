"""hookc: compile agent-hook policies and evaluate events against them.

Results are exactly what the ``hookc`` command prints, as Python values:
``evaluate`` is ``hookc eval``, ``evaluate_all`` is ``hookc eval --all``,
``explain`` is ``hookc eval --explain --format json``. A context is a
``dict`` (or any mapping), read only at the paths the policy reads, or JSON
text as ``str`` or ``bytes``, evaluated with the GIL released.

Context values are converted as JSON would hold them: ``None``, ``bool``,
``int``, ``float``, ``str``, ``list``/``tuple``, and mappings with ``str``
keys (``dict`` subclasses are read as dicts: a ``defaultdict`` never grows).
A value the policy reads that has no JSON form (a ``set``, ``bytes``, an
object, a non-``str`` key) raises ``TypeError``; NaN, infinities and ints
beyond a double's range raise ``ValueError``. Values the policy does not
read are never looked at.
"""

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

__version__: str

_Context = Union[Mapping[str, Any], str, bytes]
_PathArg = Union[str, "os.PathLike[str]"]

class CompileError(Exception):
    """The policy sources have errors.

    ``str(e)`` is the rendered diagnostics, as ``hookc check`` prints them.
    """

    diagnostics: List[Dict[str, Any]]
    """Every diagnostic (warnings too) as ``hookc check --format json``
    prints it: ``code``, ``severity``, ``message`` and, where known,
    ``file``, ``line``, ``column``, ``end_line``, ``end_column``,
    ``node_path``, ``label``, ``help``, ``notes``."""

class ArtifactError(ValueError):
    """Artifact bytes that do not load: damaged, from another format
    version, or failing verification."""

class EvaluationError(Exception):
    """The matched action, its templates filled, does not fit its declared
    parameter types; the message names the hook, parameter, value and
    expected type."""

class PolicyWarning(UserWarning):
    """A warning about compiled sources (a lint such as W0004); the policy
    still compiled."""

class Policy:
    """A compiled, verified policy. Immutable and thread-safe: share one
    across threads and evaluate concurrently."""

    @staticmethod
    def from_artifact(data: bytes) -> "Policy":
        """Load ``.hkb`` bytes (``hookc compile``, ``to_artifact``), decoded
        and verified. Raises ``ArtifactError``."""

    def to_artifact(self) -> bytes:
        """The artifact bytes (deterministic)."""

    @property
    def hook_ids(self) -> List[str]:
        """Every hook id, in evaluation order."""

    def evaluate(
        self,
        event: str,
        context: _Context,
        *,
        disable: Iterable[str] = (),
        results: Optional[Mapping[str, Any]] = None,
    ) -> Optional[Dict[str, Any]]:
        """The decision, as ``hookc eval`` prints it: ``None`` when nothing
        matches; ``{"hook": id, "action": {...}}`` for the deciding
        (terminal) match; when collected actions matched,
        ``{"hook": id | None, "action": {...} | None, "collected": [...]}``.

        With the decision model the object also has ``"transforms"``,
        ``"patched"``, ``"errors"`` and ``"pending"`` (an awaited match the
        evaluation suspended at), each only when not empty.

        ``disable`` switches hooks off for this call (ids; an unknown id is
        a ``ValueError`` with a did-you-mean). ``results`` resumes awaited
        hooks: ``{hook_id: result}``, each bound into the context (at
        ``results.<hook_id>`` or the type's ``bind``) before the hooks after
        it run. A context that is not a
        mapping, ``str`` or ``bytes`` is a ``TypeError``; invalid JSON text
        a ``ValueError`` naming the line and column. Raises
        ``EvaluationError`` when the matched action does not fit its
        declared types."""

    def decide(
        self,
        event: str,
        context: _Context,
        *,
        disable: Iterable[str] = (),
        results: Optional[Mapping[str, Any]] = None,
    ) -> Optional[str]:
        """The id of the deciding hook (first terminal match), or ``None``.
        Builds no action: the cheapest question."""

    def evaluate_all(
        self,
        event: str,
        context: _Context,
        *,
        disable: Iterable[str] = (),
        results: Optional[Mapping[str, Any]] = None,
    ) -> List[Dict[str, Any]]:
        """Every match in evaluation order, whatever its effect, as
        ``hookc eval --all`` prints it."""

    def explain(
        self,
        event: str,
        context: _Context,
        *,
        disable: Iterable[str] = (),
        results: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """What happened to every hook of the event and why, as
        ``hookc eval --explain --format json`` prints it."""

    def hook(
        self,
        host: str,
        payload: Union[Mapping[str, Any], str, bytes],
        *,
        event: Optional[str] = None,
        fail_open: bool = False,
        log: Optional[_PathArg] = None,
    ) -> Dict[str, Any]:
        """The answer of ``host`` (``"claude-code"``, ``"codex"``,
        ``"gemini-cli"``, ``"cursor"``, ``"copilot"``) to one hook payload:
        exactly what ``hookc hook --host HOST`` writes and exits with, as
        ``{"stdout": str, "stderr": str, "exit_code": int, "output":
        dict | None}`` (``output`` is ``stdout`` parsed). ``event`` names the
        event for hosts whose payloads do not (Copilot: ``"preToolUse"``);
        ``fail_open`` and ``log`` are ``--fail-open`` and ``--log FILE``.
        An unknown host raises ``ValueError``."""

def compile(
    paths: Union[_PathArg, Sequence[_PathArg], None] = None,
    *,
    layers: Optional[Mapping[str, Union[_PathArg, Sequence[_PathArg]]]] = None,
) -> Policy:
    """Compile policy files (YAML hook files, directive XML) in source
    order; or ``layers``, an ordered mapping of layer name (lowest first) to
    files. Hook ids without an ``id`` are named after the paths as given.

    Raises ``CompileError`` (errors), ``FileNotFoundError``/``OSError``
    (unreadable files), ``ValueError`` (a file too large or not UTF-8, a bad
    layer name); warnings are issued as ``PolicyWarning``."""

def compile_sources(sources: Mapping[str, str]) -> Policy:
    """Compile policy texts, ``{name: text}`` in source order; the names
    are what diagnostics and default hook ids use. Raises ``CompileError``;
    warnings are issued as ``PolicyWarning``."""
