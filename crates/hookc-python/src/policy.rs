//! `hookc.Policy`: a loaded, verified policy and the evaluation methods,
//! each answering exactly what the `hookc eval` command prints: built by
//! the runtime's own `to_json` functions and handed to Python as objects,
//! except `evaluate`'s deciding action from a mapping, which the runtime's
//! action filling builds straight into Python objects (`crate::action`),
//! the same content.
//!
//! The context is a mapping (read path by path through
//! [`crate::lookup::MappingLookup`], with the GIL held, since it reads
//! Python objects) or JSON text as `str` or `bytes` (evaluated with the GIL
//! released: the text is immutable for the call and the policy is `Sync`).

use crate::action::{PyNames, PySink};
use crate::convert::{describe, to_py};
use crate::error::py_err;
use crate::lookup::{prepare, LookupStep, MappingLookup};
use hookc_binding::hosts::{self, HookOptions, Host};
use hookc_binding::{BindingError, BoundPolicy, Evaluated, Narrowing, Question};
use hookc_runtime::{Context, Overrides, Policy, Results};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyString};
use serde_json::Value;
use std::borrow::Cow;

/// A compiled, verified hookc policy. Immutable: one policy can be shared
/// by any number of threads and evaluated concurrently.
#[pyclass(name = "Policy", module = "hookc", frozen)]
pub struct PyPolicy {
    /// The policy, with what the bindings share prepared
    /// (`hookc_binding::BoundPolicy`).
    bound: BoundPolicy,
    /// The steps of each path of the program, for reading mappings.
    steps: Vec<Vec<LookupStep>>,
    /// A dict from each event name hooks name (as a Python str) to its
    /// position in `bound.event_names()`: a known event is found by the
    /// str's cached hash, without reading it as UTF-8.
    events: Py<PyDict>,
    /// Whether no hook listens to every event (`"*"`).
    wildcard_free: bool,
    /// Each hook id as a Python str, by position: what `decide` returns.
    hook_ids: Vec<Py<PyString>>,
    /// The policy's names as Python strs, for the actions `evaluate`
    /// builds ([`PySink`]).
    names: PyNames,
    /// `"hook"` and `"action"`, the keys of an answer.
    hook_key: Py<PyString>,
    action_key: Py<PyString>,
}

impl PyPolicy {
    /// Wraps a runtime policy, preparing its paths for mapping lookups.
    pub fn new(py: Python<'_>, policy: Policy) -> PyResult<PyPolicy> {
        let bound = BoundPolicy::new(policy);
        let steps = prepare(py, bound.policy().context_paths());
        let events = PyDict::new(py);
        for (i, name) in bound.event_names().iter().enumerate() {
            events.set_item(PyString::intern(py, name), i)?;
        }
        let wildcard_free = bound.policy().every_event_hooks() == 0;
        let hook_ids = bound
            .policy()
            .hook_ids()
            .map(|id| PyString::new(py, id).unbind())
            .collect();
        Ok(PyPolicy {
            bound,
            steps,
            events: events.unbind(),
            wildcard_free,
            hook_ids,
            names: PyNames::default(),
            hook_key: PyString::intern(py, "hook").unbind(),
            action_key: PyString::intern(py, "action").unbind(),
        })
    }

    /// The policy's own copy of the event's name, when hooks name it.
    fn event_name<'a>(&'a self, event: &'a Bound<'_, PyString>) -> PyResult<Option<&'a str>> {
        if let Some(i) = self.events.bind(event.py()).get_item(event)? {
            return Ok(self
                .bound
                .event_names()
                .get(i.extract::<usize>()?)
                .map(String::as_str));
        }
        Ok(None)
    }

    /// Evaluates `event` against `context`, narrowed, and answers
    /// `question` as JSON (as the CLI prints it).
    fn answer(
        &self,
        py: Python<'_>,
        event: &Bound<'_, PyAny>,
        context: &Bound<'_, PyAny>,
        narrow: Narrow<'_, '_>,
        question: Question,
    ) -> PyResult<Value> {
        self.ask(
            py,
            event,
            context,
            narrow,
            question.unheard(),
            |bound, e, ctx, n| bound.answer(question, e, ctx, n),
        )
    }

    /// Evaluates `event` against `context`, narrowed, with `ask`; `unheard`
    /// is the answer when no hook runs for the event.
    fn ask<T: Send>(
        &self,
        py: Python<'_>,
        event: &Bound<'_, PyAny>,
        context: &Bound<'_, PyAny>,
        narrow: Narrow<'_, '_>,
        unheard: Option<T>,
        ask: impl Fn(&BoundPolicy, &str, Context<'_>, &Narrowing) -> Result<T, BindingError> + Sync,
    ) -> PyResult<T> {
        match self.prepare(event, context, narrow, unheard)? {
            Prepared::Answered(answer) => Ok(answer),
            Prepared::Ready(call) => self.run(py, &call, ask),
        }
    }

    /// Evaluates a checked call with `ask`.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        call: &Checked<'_, '_>,
        ask: impl Fn(&BoundPolicy, &str, Context<'_>, &Narrowing) -> Result<T, BindingError> + Sync,
    ) -> PyResult<T> {
        // (Not the call itself: a mapping is a Python object, which the
        // closures run without the GIL must not hold.)
        let (event, narrowing) = (&*call.event, &call.narrowing);
        let run = |ctx: Context<'_>| ask(&self.bound, event, ctx, narrowing);
        let result = match &call.input {
            Given::Text(text) => py.detach(|| run(Context::json(text.as_bytes()))),
            Given::Bytes(bytes) => py.detach(|| run(Context::json(bytes))),
            Given::Mapping(mapping) => self.through_lookup(mapping, run)?,
        };
        result.map_err(py_err)
    }

    /// `ask` on `mapping` read path by path: a Python error the reading
    /// met (an exception in a mapping's `__getitem__`, a value with no JSON
    /// form) is raised before the answer, which it made meaningless.
    fn through_lookup<T>(
        &self,
        mapping: &Bound<'_, PyAny>,
        ask: impl FnOnce(Context<'_>) -> T,
    ) -> PyResult<T> {
        let lookup = MappingLookup::new(mapping, &self.steps);
        let result = ask(Context::Lookup(&lookup));
        match lookup.take_error() {
            Some(e) => Err(e),
            None => Ok(result),
        }
    }

    /// Checks a call's arguments: the event, the narrowing and the
    /// context; `unheard` is the answer when no hook runs for the event
    /// and the context need not be read.
    fn prepare<'a, 'py, T>(
        &'a self,
        event: &'a Bound<'py, PyAny>,
        context: &'a Bound<'py, PyAny>,
        narrow: Narrow<'_, '_>,
        unheard: Option<T>,
    ) -> PyResult<Prepared<'a, 'py, T>> {
        let event = event.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!("the event must be a str, not {}", describe(event)))
        })?;
        let known = self.event_name(event)?;
        let narrowing = Narrowing {
            overrides: self.overrides(narrow.disable)?,
            results: read_results(self.bound.policy(), narrow.results)?,
        };
        // No hook listens to an event no hook names, when there are no "*"
        // hooks: from a mapping (which is read only where a hook reads it,
        // so nothing is checked either) the answer is known without
        // evaluating. Text is still evaluated: it must be valid JSON.
        if let (None, true, Some(nothing)) = (known, self.wildcard_free, unheard) {
            if context.cast::<PyDict>().is_ok() {
                return Ok(Prepared::Answered(nothing));
            }
        }
        let event = match known {
            Some(name) => Cow::Borrowed(name),
            None => event.to_cow()?,
        };
        // A dict first: the usual context, and one type check, not three.
        let input = if context.cast::<PyDict>().is_ok() {
            Given::Mapping(context)
        } else if let Ok(text) = context.cast::<PyString>() {
            Given::Text(text.to_cow()?)
        } else if let Ok(bytes) = context.cast::<PyBytes>() {
            Given::Bytes(bytes.as_bytes())
        } else if context.cast::<PyMapping>().is_ok() {
            Given::Mapping(context)
        } else {
            return Err(PyTypeError::new_err(format!(
                "the context must be a dict (or another mapping), or JSON text as str or bytes, not {}",
                describe(context)
            )));
        };
        Ok(Prepared::Ready(Checked {
            event,
            narrowing,
            input,
        }))
    }

    /// `evaluate` on a mapping: the deciding action built straight into
    /// Python objects ([`PySink`]) when the decision is that match alone;
    /// otherwise the JSON answer, converted.
    fn evaluate_mapping<'py>(
        &self,
        py: Python<'py>,
        call: &Checked<'_, 'py>,
        mapping: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut sink = PySink::new(py, &self.names);
        let result = self.through_lookup(mapping, |ctx| {
            self.bound
                .evaluate_with(&call.event, ctx, &call.narrowing, &mut sink)
        })?;
        let answer = sink.finish(result.map_err(py_err)?)?;
        match answer {
            Evaluated::Json(v) => to_py(py, &v),
            Evaluated::Built(None) => Ok(py.None().into_bound(py)),
            Evaluated::Built(Some((position, id, action))) => {
                let id = match self.hook_ids.get(position) {
                    Some(kept) => kept.bind(py).clone(),
                    None => PyString::new(py, id),
                };
                let answer = PyDict::new(py);
                answer.set_item(self.hook_key.bind(py), id)?;
                answer.set_item(self.action_key.bind(py), action)?;
                Ok(answer.into_any())
            }
        }
    }

    /// The overrides switching off the hooks named by `disable`.
    fn overrides(&self, disable: Option<&Bound<'_, PyAny>>) -> PyResult<Overrides> {
        let Some(disable) = disable else {
            return Ok(Overrides::default());
        };
        if disable.cast::<PyString>().is_ok() {
            return Err(PyTypeError::new_err(
                "`disable` takes hook ids in a list or tuple, not one str: disable=[\"id\"]",
            ));
        }
        let ids: Vec<String> = disable.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "`disable` takes an iterable of hook ids (str), not {}",
                describe(disable)
            ))
        })?;
        if ids.is_empty() {
            return Ok(Overrides::default());
        }
        self.bound
            .overrides(ids.iter().map(String::as_str))
            .map_err(py_err)
    }
}

/// A call's context: JSON text, or a mapping read path by path.
enum Given<'a, 'py> {
    Text(Cow<'a, str>),
    Bytes(&'a [u8]),
    Mapping(&'a Bound<'py, PyAny>),
}

/// A call whose arguments are checked ([`PyPolicy::prepare`]).
struct Checked<'a, 'py> {
    /// The event's name (the policy's own copy when a hook names it).
    event: Cow<'a, str>,
    narrowing: Narrowing,
    input: Given<'a, 'py>,
}

/// A checked call, or its answer when no hook runs for the event.
enum Prepared<'a, 'py, T> {
    Answered(T),
    Ready(Checked<'a, 'py>),
}

/// The keyword arguments that narrow a call: `disable=` and `results=`.
struct Narrow<'a, 'py> {
    disable: Option<&'a Bound<'py, PyAny>>,
    results: Option<&'a Bound<'py, PyAny>>,
}

/// The `results=` of a call: a dict of awaited hooks' results by hook id
/// (`docs/src/semantics.md#resumable-decisions`), each for a hook of
/// `policy` that awaits one.
fn read_results(
    policy: &hookc_runtime::Policy,
    results: Option<&Bound<'_, PyAny>>,
) -> PyResult<Results> {
    let Some(results) = results else {
        return Ok(Results::new());
    };
    if results.is_none() {
        return Ok(Results::new());
    }
    if results.cast::<PyDict>().is_err() {
        return Err(PyTypeError::new_err(format!(
            "`results` is a dict of awaited hooks' results by hook id, not {}",
            describe(results)
        )));
    }
    match crate::convert::to_value(results, &mut "results".to_owned(), 0) {
        Ok(v @ Value::Object(_)) => Narrowing::results_from(policy, v).map_err(py_err),
        Ok(_) => Err(PyTypeError::new_err("`results` must be a dict")),
        Err(e) => Err(crate::convert::into_py_err(e)),
    }
}

#[pymethods]
impl PyPolicy {
    /// Loads a policy artifact (the bytes `hookc compile` writes, or
    /// `to_artifact` returns), decoded and verified before use. Raises
    /// `ArtifactError` if the bytes are damaged, of another format version,
    /// or fail verification.
    #[staticmethod]
    fn from_artifact(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyPolicy> {
        let bytes = data.cast::<PyBytes>().map_err(|_| {
            PyTypeError::new_err(format!("an artifact is bytes, not {}", describe(data)))
        })?;
        let bytes = bytes.as_bytes();
        let policy = py
            .detach(|| Policy::from_artifact(bytes))
            .map_err(|e| py_err(hookc_binding::BindingError::Artifact(e)))?;
        PyPolicy::new(py, policy)
    }

    /// The policy's artifact bytes (deterministic: the same policy gives
    /// the same bytes), loadable with `Policy.from_artifact`.
    fn to_artifact<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bound.policy().to_artifact())
    }

    /// Every hook id, in evaluation order.
    #[getter]
    fn hook_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.bound.policy().hook_ids())
    }

    /// What `hookc eval` prints: `None` when nothing matches; the deciding
    /// match `{"hook": id, "action": {...}}`; with collected matches,
    /// `{"hook": id | None, "action": {...} | None, "collected": [...]}`.
    #[pyo3(signature = (event, context, *, disable = None, results = None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
        context: &Bound<'py, PyAny>,
        disable: Option<&Bound<'py, PyAny>>,
        results: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let narrow = Narrow { disable, results };
        let call = match self.prepare(event, context, narrow, Some(()))? {
            Prepared::Answered(()) => return Ok(py.None().into_bound(py)),
            Prepared::Ready(call) => call,
        };
        if let Given::Mapping(mapping) = call.input {
            return self.evaluate_mapping(py, &call, mapping);
        }
        let v = self.run(py, &call, |bound, e, ctx, n| {
            bound.answer(Question::Evaluate, e, ctx, n)
        })?;
        to_py(py, &v)
    }

    /// The id of the deciding hook (the first terminal match), or `None`.
    /// Builds no action, so it is the cheapest question.
    #[pyo3(signature = (event, context, *, disable = None, results = None))]
    fn decide<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
        context: &Bound<'py, PyAny>,
        disable: Option<&Bound<'py, PyAny>>,
        results: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // The policy's own string of the hook id: nothing is allocated.
        let position = self.ask(
            py,
            event,
            context,
            Narrow { disable, results },
            Some(None),
            |bound, e, ctx, n| bound.decide_position(e, ctx, n),
        )?;
        Ok(match position.and_then(|i| self.hook_ids.get(i)) {
            Some(id) => id.bind(py).clone().into_any(),
            None => py.None().into_bound(py),
        })
    }

    /// Every match in evaluation order, whatever its effect: what `hookc
    /// eval --all` prints, `[{"hook": id, "action": {...}}, ...]`.
    #[pyo3(signature = (event, context, *, disable = None, results = None))]
    fn evaluate_all<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
        context: &Bound<'py, PyAny>,
        disable: Option<&Bound<'py, PyAny>>,
        results: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.answer(
            py,
            event,
            context,
            Narrow { disable, results },
            Question::All,
        )?;
        to_py(py, &v)
    }

    /// What happened to every hook of the event and why: the trace `hookc
    /// eval --explain --format json` prints.
    #[pyo3(signature = (event, context, *, disable = None, results = None))]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
        context: &Bound<'py, PyAny>,
        disable: Option<&Bound<'py, PyAny>>,
        results: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.answer(
            py,
            event,
            context,
            Narrow { disable, results },
            Question::Explain,
        )?;
        to_py(py, &v)
    }

    /// The answer of `host` (`"claude-code"`, `"codex"`, `"gemini-cli"`,
    /// `"cursor"`, `"copilot"`) to one hook payload (a dict, JSON `str` or
    /// `bytes`): exactly what `hookc hook --host HOST` writes and exits
    /// with, as `{"stdout", "stderr", "exit_code", "output"}` (`output` is
    /// `stdout` parsed, or `None`). `event` names the event for hosts whose
    /// payloads do not (Copilot's `preToolUse`); `fail_open` and `log` are
    /// `--fail-open` and `--log FILE`. Host actions its hooks await (`run`,
    /// `test_path`) are performed as the command performs them.
    #[pyo3(signature = (host, payload, *, event = None, fail_open = false, log = None))]
    fn hook<'py>(
        &self,
        py: Python<'py>,
        host: &str,
        payload: &Bound<'py, PyAny>,
        event: Option<String>,
        fail_open: bool,
        log: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let host: Host = host
            .parse()
            .map_err(|e: hosts::UnknownHost| py_err(e.into()))?;
        let options = HookOptions {
            event: event.as_deref(),
            fail_open,
            log: log.as_deref().map(hosts::DecisionLog::at),
        };
        let policy = self.bound.policy();
        let reply = if let Ok(text) = payload.cast::<PyString>() {
            let text = text.to_cow()?;
            py.detach(|| hosts::hook(policy, host, text.as_bytes(), &options))
        } else if let Ok(bytes) = payload.cast::<PyBytes>() {
            let bytes = bytes.as_bytes();
            py.detach(|| hosts::hook(policy, host, bytes, &options))
        } else if payload.cast::<PyMapping>().is_ok() {
            let value = crate::convert::to_value(payload, &mut "payload".to_owned(), 0)
                .map_err(crate::convert::into_py_err)?;
            py.detach(|| hosts::hook_value(policy, host, value, &options))
        } else {
            return Err(PyTypeError::new_err(format!(
                "a hook payload is a dict, JSON text as str or bytes, not {}",
                describe(payload)
            )));
        };
        let output = match reply.stdout.as_str() {
            "" => Value::Null,
            text => serde_json::from_str(text).unwrap_or(Value::Null),
        };
        let mut answer = serde_json::Map::new();
        answer.insert("stdout".into(), Value::from(reply.stdout));
        answer.insert("stderr".into(), Value::from(reply.stderr));
        answer.insert("exit_code".into(), Value::from(reply.exit));
        answer.insert("output".into(), output);
        to_py(py, &Value::Object(answer))
    }

    fn __repr__(&self) -> String {
        format!("<hookc.Policy: {}>", self.bound.describe())
    }
}
