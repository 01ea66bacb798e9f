//! hookc against other policy engines on the same workloads.
//!
//! A hookc policy is compiled by hookc, read back from its checked IR as an
//! engine-neutral [`model::Model`] (each event's hooks in hookc's evaluation
//! order), and translated for each peer engine:
//!
//! | module | engine | crate |
//! |---|---|---|
//! | [`cel`] | CEL | `cel` (cel-rust) |
//! | [`jsonlogic`] | JSON Logic | `datalogic-rs` |
//! | [`rego`] | Rego, interpreter and RVM | `regorus` |
//!
//! Each translation returns the position of the first matching hook, as
//! hookc's `Policy::evaluate` returns the first match, and is checked against
//! hookc on every context before anything is timed ([`Peers::answer`]).
//! The benchmark is `benches/peers.rs`; the results and the translations'
//! rules are in this crate's README.

pub mod cel;
pub mod jsonlogic;
pub mod model;
pub mod rego;
pub mod report;

use hookc::compile::{compile, Input};
use model::{Model, Unsupported};
use serde_json::Value;
use std::path::PathBuf;

/// The project's `benches/data` (the inputs hookc's own benches read).
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/hookc/benches/data")
}

/// One context to evaluate: `{"event": E, "context": {...}, "expect": ID}`.
#[derive(Debug, Clone)]
pub struct Case {
    /// Bench id component (the file name without `.json`).
    pub name: String,
    /// The event.
    pub event: String,
    /// The context.
    pub context: Value,
    /// The hook that must win (`None`: no hook matches).
    pub expect: Option<String>,
}

impl Case {
    /// A case from a context file's text.
    pub fn parse(name: &str, text: &str) -> Result<Case, String> {
        let file: Value = serde_json::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        let event = file
            .get("event")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{name}: no `event`"))?
            .to_owned();
        let expect = match file.get("expect") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(format!("{name}: `expect` is {other}")),
        };
        let context = file
            .get("context")
            .filter(|c| c.is_object())
            .cloned()
            .ok_or_else(|| format!("{name}: `context` must be an object"))?;
        Ok(Case {
            name: name.to_owned(),
            event,
            context,
            expect,
        })
    }
}

fn read(rel: &str) -> Result<String, String> {
    let path = data_dir().join(rel);
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A named workload: policy sources and the contexts to evaluate.
#[derive(Debug, Clone)]
pub struct Workload {
    /// `seed`, `regex_heavy`, ...
    pub name: String,
    /// The policy sources.
    pub inputs: Vec<Input>,
    /// The contexts.
    pub cases: Vec<Case>,
}

/// The seed set: `benches/data/seed/policy.yaml` and every
/// `benches/data/seed/contexts/*.json`, by file name.
pub fn seed() -> Result<Workload, String> {
    let dir = data_dir().join("seed/contexts");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".json")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    let cases = names
        .iter()
        .map(|n| Case::parse(n, &read(&format!("seed/contexts/{n}.json"))?))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Workload {
        name: "seed".into(),
        inputs: vec![Input::new("policy.yaml", read("seed/policy.yaml")?)],
        cases,
    })
}

/// A one-context workload of `benches/data/<name>/` (`policy.yaml`,
/// `context.json`): `regex_heavy`, `template_heavy`.
pub fn single(name: &str) -> Result<Workload, String> {
    Ok(Workload {
        name: name.into(),
        inputs: vec![Input::new(
            "policy.yaml",
            read(&format!("{name}/policy.yaml"))?,
        )],
        cases: vec![Case::parse(name, &read(&format!("{name}/context.json"))?)?],
    })
}

/// hookc's runtime policy and the model the translators read, from sources.
pub fn compile_model(
    inputs: &[Input],
) -> Result<(hookc_runtime::Policy, Result<Model, Unsupported>), String> {
    let c = compile(inputs);
    if c.diagnostics.has_errors() {
        return Err(format!("the policy does not compile: {:?}", c.diagnostics));
    }
    let model = Model::from_ir(c.policy.as_ref().ok_or("no policy")?);
    let runtime = c.into_policy().map_err(|e| e.to_string())?;
    Ok((runtime, model))
}

/// A peer engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `cel`
    Cel,
    /// `datalogic-rs`
    JsonLogic,
    /// `regorus`, interpreter
    RegoInterp,
    /// `regorus`, RVM
    RegoRvm,
}

impl Engine {
    /// Every peer.
    pub const ALL: [Engine; 4] = [
        Engine::Cel,
        Engine::JsonLogic,
        Engine::RegoInterp,
        Engine::RegoRvm,
    ];

    /// Bench id component.
    pub fn id(self) -> &'static str {
        match self {
            Engine::Cel => "cel",
            Engine::JsonLogic => "datalogic",
            Engine::RegoInterp => "regorus",
            Engine::RegoRvm => "regorus-rvm",
        }
    }
}

/// How the context reaches the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// From the `serde_json::Value`, converted on every call.
    Convert,
    /// Converted once, before timing, to the engine's own value type.
    Preconverted,
}

impl Mode {
    /// Both modes.
    pub const ALL: [Mode; 2] = [Mode::Convert, Mode::Preconverted];

    /// Bench id component.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Convert => "convert",
            Mode::Preconverted => "preconverted",
        }
    }
}

/// Every peer's translation of one model (each may be [`Unsupported`]).
pub struct Peers {
    /// The model.
    pub model: Model,
    /// CEL.
    pub cel: Result<cel::CelPeer, Unsupported>,
    /// JSON Logic.
    pub jsonlogic: Result<jsonlogic::JsonLogicPeer, Unsupported>,
    /// Rego, interpreter.
    pub rego: Result<rego::RegoInterp, Unsupported>,
    /// Rego, RVM.
    pub rvm: Result<rego::RegoRvm, Unsupported>,
}

impl Peers {
    /// Translates the model for every peer.
    pub fn new(model: Model) -> Peers {
        Peers {
            cel: cel::CelPeer::new(&model),
            jsonlogic: jsonlogic::JsonLogicPeer::new(&model),
            rego: rego::RegoInterp::new(&model),
            rvm: rego::RegoRvm::new(&model),
            model,
        }
    }

    /// Why an engine cannot state the model, if it cannot.
    pub fn unsupported(&self, engine: Engine) -> Option<&Unsupported> {
        match engine {
            Engine::Cel => self.cel.as_ref().err(),
            Engine::JsonLogic => self.jsonlogic.as_ref().err(),
            Engine::RegoInterp => self.rego.as_ref().err(),
            Engine::RegoRvm => self.rvm.as_ref().err(),
        }
    }

    fn id(&self, event: &str, pos: Option<usize>) -> Option<String> {
        pos.and_then(|i| self.model.hooks(event).get(i))
            .map(|h| h.id.clone())
    }

    /// One engine's answer in one mode: the winning hook's id, or why the
    /// engine could not answer.
    pub fn answer(
        &mut self,
        engine: Engine,
        mode: Mode,
        event: &str,
        ctx: &Value,
    ) -> Result<Option<String>, String> {
        let pos = match engine {
            Engine::Cel => {
                let p = self.cel.as_ref().map_err(ToString::to_string)?;
                match mode {
                    Mode::Convert => p.first(event, ctx),
                    Mode::Preconverted => p.first_prepared(event, &p.prepare(ctx)),
                }
            }
            Engine::JsonLogic => {
                let p = self.jsonlogic.as_ref().map_err(ToString::to_string)?;
                let mut arena = datalogic_rs::bumpalo::Bump::new();
                match mode {
                    Mode::Convert => p.first(event, ctx, &mut arena),
                    Mode::Preconverted => p
                        .prepare(ctx)
                        .and_then(|c| p.first_prepared(event, &c, &mut arena)),
                }
                .map_err(|e| e.to_string())?
            }
            Engine::RegoInterp => {
                let p = self.rego.as_mut().map_err(|e| e.to_string())?;
                match mode {
                    Mode::Convert => p.first(event, ctx),
                    Mode::Preconverted => rego::to_value(ctx)
                        .map_err(anyhow::Error::from)
                        .and_then(|v| p.first_prepared(event, &v)),
                }
                .map_err(|e| e.to_string())?
            }
            Engine::RegoRvm => {
                let p = self.rvm.as_mut().map_err(|e| e.to_string())?;
                match mode {
                    Mode::Convert => p.first(event, ctx),
                    Mode::Preconverted => rego::to_value(ctx)
                        .map_err(anyhow::Error::from)
                        .and_then(|v| p.first_prepared(event, &v)),
                }
                .map_err(|e| e.to_string())?
            }
        };
        Ok(self.id(event, pos))
    }
}

#[cfg(test)]
mod tests;
