//! Reading policies from files: the one place that turns paths into
//! [`Input`]s (size limit and UTF-8 checked before anything is parsed) and
//! into a loaded [`Policy`] (an artifact, recognized by its magic bytes, or
//! sources compiled on the spot).
//!
//! The CLI (`check`, `compile`, `eval`, ...), `hookc test` (the CLI crate's `policy_test`)
//! and the build-script API ([`crate::build_script`]) all read through here, so a
//! file is accepted or refused, and named in messages, the same way everywhere.

use crate::compile::{
    compile, compile_layers_ordered, compile_layers_with_declarations, Compilation, Input,
    LayerName, LayerOrder,
};
use crate::diag::render;
use hookc_runtime::limits::MAX_INPUT_BYTES;
use hookc_runtime::{LoadError, Policy};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a policy file could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file does not exist or cannot be read.
    #[error("cannot read `{name}`: {source}")]
    Io {
        /// The file's name as shown to the user.
        name: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_INPUT_BYTES`].
    #[error(
        "`{name}` is {size} bytes; hookc reads policy files of at most {MAX_INPUT_BYTES} bytes"
    )]
    TooLarge {
        /// The file's name as shown to the user.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// Some files name a layer and this one does not.
    #[error("`{name}` has no layer, but other policy files name theirs: give every file a layer (`--layer NAME=FILE`)")]
    MissingLayer {
        /// The file's name as shown to the user.
        name: String,
    },
    /// The file is not UTF-8 text.
    #[error("`{name}` is not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The file's name as shown to the user.
        name: String,
        /// Offset of the first invalid byte.
        offset: usize,
    },
}

/// A policy file: where to read it, the name it goes by in diagnostics
/// and in default hook ids (`<name>#<section>[<index>]`), and its layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFile {
    /// The name diagnostics and default hook ids use.
    pub name: String,
    /// Where the file is.
    pub path: PathBuf,
    /// Its named layer ([`crate::compile::compile_layers`]), or `None` for the default
    /// layers (by YAML section). Either every file of a policy names one, or
    /// none does.
    pub layer: Option<LayerName>,
    /// Its bytes, when they were read already (and checked: a pinned or
    /// signed policy, `hookc hook --pin`/`--trust`): then the loaders use
    /// them and never read `path`, so what was checked is what is loaded.
    pub contents: Option<std::sync::Arc<[u8]>>,
}

impl PolicyFile {
    /// A file named by its path as given (what the CLI does).
    pub fn new(path: impl Into<PathBuf>) -> PolicyFile {
        let path = path.into();
        PolicyFile {
            name: path.display().to_string(),
            path,
            layer: None,
            contents: None,
        }
    }

    /// The same file, loaded from `bytes` (read and checked by the caller)
    /// instead of its path.
    pub fn with_contents(self, bytes: Vec<u8>) -> PolicyFile {
        PolicyFile {
            contents: Some(bytes.into()),
            ..self
        }
    }

    /// The file's bytes: [`PolicyFile::contents`], else read from its path
    /// (refused past `limit` bytes, before anything is read).
    fn bytes(&self, limit: Option<usize>) -> Result<std::borrow::Cow<'_, [u8]>, ReadError> {
        if let Some(bytes) = &self.contents {
            if limit.is_some_and(|l| bytes.len() > l) {
                return Err(ReadError::TooLarge {
                    name: self.name.clone(),
                    size: bytes.len() as u64,
                });
            }
            return Ok(std::borrow::Cow::Borrowed(bytes));
        }
        let io = |source| ReadError::Io {
            name: self.name.clone(),
            source,
        };
        if let Some(limit) = limit {
            let size = std::fs::metadata(&self.path).map_err(io)?.len();
            if size > limit as u64 {
                return Err(ReadError::TooLarge {
                    name: self.name.clone(),
                    size,
                });
            }
        }
        std::fs::read(&self.path)
            .map(std::borrow::Cow::Owned)
            .map_err(io)
    }

    /// A file of a named layer, named by its path as given (`--layer NAME=FILE`).
    pub fn in_layer(layer: LayerName, path: impl Into<PathBuf>) -> PolicyFile {
        PolicyFile {
            layer: Some(layer),
            ..PolicyFile::new(path)
        }
    }

    /// A file read from `path` but named `name`.
    pub fn named(name: impl Into<String>, path: impl Into<PathBuf>) -> PolicyFile {
        PolicyFile {
            name: name.into(),
            path: path.into(),
            layer: None,
            contents: None,
        }
    }
}

/// Why a policy could not be loaded from files.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The one file is an artifact that does not load (damaged, another
    /// format version, or failing verification).
    #[error("`{name}`: {source}")]
    Artifact {
        /// The artifact's name.
        name: String,
        /// Why it does not load.
        source: LoadError,
    },
    /// The sources have errors; [`PolicyError::render`] shows them.
    #[error("the policy has errors")]
    Compile(Box<Compilation>),
    /// The checked sources did not give a policy (a compiler bug).
    #[error(transparent)]
    Load(crate::compile::SourcesError),
    /// An overlay does not layer over the policy (a hook id both have, a
    /// layer name both have, another priority direction).
    #[error("`{name}` does not layer over the policy: {source}")]
    Overlay {
        /// The overlay's name.
        name: String,
        /// Why (boxed: it is rare, and keeps every `Result` of this error small).
        source: Box<hookc_runtime::compose::ComposeError>,
    },
}

impl PolicyError {
    /// The message for people: for [`PolicyError::Compile`], the
    /// diagnostics rendered with their snippets (the warnings too: the
    /// summary line counts them) and the summary line.
    pub fn render(&self) -> String {
        match self {
            PolicyError::Compile(c) => {
                let all: Vec<_> = c.diagnostics.iter().collect();
                format!(
                    "the policy has errors:\n{}{}{}",
                    render::human(&all, &c.sources),
                    render::code_summary(&all),
                    crate::summary(c)
                )
            }
            other => other.to_string(),
        }
    }
}

/// Reads one policy source: at most [`MAX_INPUT_BYTES`] of UTF-8 text.
pub fn read_input(file: &PolicyFile) -> Result<Input, ReadError> {
    let name = &file.name;
    let bytes = file.bytes(Some(MAX_INPUT_BYTES))?.into_owned();
    let text = String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        name: name.clone(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    Ok(Input::new(name.clone(), text))
}

/// `sha256:HEX` of an artifact's bytes: the policy's digest, which `hookc
/// disasm` prints first and signatures, pins and decision logs name (a
/// program has one encoding, so sources and their `.hkb` share it).
pub fn artifact_digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .fold(String::from("sha256:"), |mut s, h| {
            s.push_str(&h);
            s
        })
}

/// Whether these bytes are a compiled artifact (start with its magic).
pub fn is_artifact(bytes: &[u8]) -> bool {
    bytes.starts_with(&hookc_runtime::artifact::MAGIC)
}

/// A policy loaded from files, with what its sources were warned about.
#[derive(Debug)]
pub struct LoadedPolicy {
    /// The policy, verified.
    pub policy: Policy,
    /// The sources' warnings rendered for people, each with its snippet,
    /// then the summary line; empty for an artifact or warning-free sources.
    pub warnings: String,
    /// The sources the policy was compiled from, whose declarations an
    /// overlay compiled over it uses ([`layer_overlays`]); empty for an
    /// artifact, which keeps no declarations.
    pub sources: Vec<Input>,
    /// The policy's digest ([`artifact_digest`]) when it was known without
    /// encoding the policy again (the artifact cache keeps it); `None`
    /// otherwise.
    pub digest: Option<String>,
}

/// Loads a policy: one artifact (recognized by its magic bytes, decoded and
/// verified), or sources compiled on the spot, in the order given.
pub fn load_policy(files: &[PolicyFile]) -> Result<LoadedPolicy, PolicyError> {
    load_policy_ordered(files, None)
}

/// The policy of `files` when they are one artifact; `None` for sources.
pub(crate) fn only_artifact(files: &[PolicyFile]) -> Result<Option<LoadedPolicy>, PolicyError> {
    let [one] = files else {
        return Ok(None);
    };
    Ok(load_artifact(one)?.map(|policy| LoadedPolicy {
        policy,
        warnings: String::new(),
        sources: Vec::new(),
        digest: None,
    }))
}

/// [`load_policy`], with named layers listed as `order` says
/// ([`compile_files_ordered`]).
pub fn load_policy_ordered(
    files: &[PolicyFile],
    order: Option<LayerOrder>,
) -> Result<LoadedPolicy, PolicyError> {
    if let Some(artifact) = only_artifact(files)? {
        return Ok(artifact);
    }
    let inputs = read_files(files)?;
    let mut out = loaded(compile_read(&inputs, order), |_| true)?;
    out.sources = inputs.into_iter().map(|(input, _)| input).collect();
    Ok(out)
}

/// The policy of a compilation, with its warnings that `keep` keeps
/// rendered; its errors are [`PolicyError::Compile`] (with the warnings
/// `keep` keeps, so that what is printed is what the summary counts).
pub(crate) fn loaded(
    mut c: Compilation,
    keep: impl Fn(&crate::diag::Diagnostic) -> bool,
) -> Result<LoadedPolicy, PolicyError> {
    if c.diagnostics.has_errors() {
        c.diagnostics.retain(|d| d.is_error() || keep(d));
        return Err(PolicyError::Compile(Box::new(c)));
    }
    let kept: Vec<_> = c.diagnostics.iter().filter(|d| keep(d)).collect();
    let warnings = if kept.is_empty() {
        String::new()
    } else {
        format!(
            "{}{}{}\n",
            render::human(&kept, &c.sources),
            render::code_summary(&kept),
            crate::summary(&c)
        )
    };
    let policy = c.into_policy().map_err(PolicyError::Load)?;
    Ok(LoadedPolicy {
        policy,
        warnings,
        sources: Vec::new(),
        digest: None,
    })
}

/// The layer an overlay's sources are compiled into when it names none
/// (`run`, then `run-2`, `run-3`, ... for later overlays).
pub const OVERLAY_LAYER: &str = "run";

/// Where an overlay goes ([`layer_overlays`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Above the policy: at equal priority its hooks run first
    /// ([`Policy::with_layer`], `--overlay`).
    #[default]
    Above,
    /// Below the policy: at equal priority its hooks run after the
    /// policy's ([`Policy::with_layer_below`], `--overlay-below`).
    Below,
}

/// A policy layered over or under a loaded one for a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    /// The overlay's file (an artifact or one source file; its `layer`, if
    /// any, names the layer its sources are compiled into).
    pub file: PolicyFile,
    /// Above or below.
    pub placement: Placement,
}

/// Layers overlays over (or under) a loaded policy for one run, without
/// recompiling it (`hookc eval --overlay`, `--overlay-below`;
/// [`Policy::with_layer`], [`Policy::with_layer_below`]), in the order
/// given: each above, or below, everything before it. An overlay is one
/// artifact, or one source file compiled into its layer (`file.layer`,
/// else [`OVERLAY_LAYER`], numbered across all the overlays) with the
/// declarations of `base.sources` (the base policy's action types, context
/// schema, ...: [`compile_layers_with_declarations`]); over an artifact,
/// which keeps no declarations, it is compiled on its own. The warnings
/// are the overlays' sources', but for W0009: an overlay's hook marked
/// `replace` is meant for a policy it is layered with.
pub fn layer_overlays(
    base: LoadedPolicy,
    overlays: &[Overlay],
) -> Result<LoadedPolicy, PolicyError> {
    let mut out = LoadedPolicy {
        warnings: String::new(),
        ..base
    };
    for (n, Overlay { file, placement }) in overlays.iter().enumerate() {
        let layer = match &file.layer {
            Some(layer) => layer.clone(),
            None => {
                let name = match n {
                    0 => OVERLAY_LAYER.to_owned(),
                    n => format!("{OVERLAY_LAYER}-{}", n + 1),
                };
                // Never an error: `run-N` is a layer name.
                LayerName::new(&name).map_err(|_| ReadError::MissingLayer {
                    name: file.name.clone(),
                })?
            }
        };
        let overlay = load_overlay(file, layer, &out.sources)?;
        out.warnings.push_str(&overlay.warnings);
        let layered = match placement {
            Placement::Above => out.policy.with_layer(&overlay.policy),
            Placement::Below => out.policy.with_layer_below(&overlay.policy),
        };
        out.policy = layered.map_err(|source| PolicyError::Overlay {
            name: file.name.clone(),
            source: Box::new(source),
        })?;
    }
    Ok(out)
}

/// One overlay: an artifact, or sources compiled into `layer` with the
/// declarations of `base` (the base policy's sources, if it has any).
fn load_overlay(
    file: &PolicyFile,
    layer: LayerName,
    base: &[Input],
) -> Result<LoadedPolicy, PolicyError> {
    let one = PolicyFile {
        layer: None,
        ..file.clone()
    };
    if let Some(policy) = load_artifact(&one)? {
        return Ok(LoadedPolicy {
            policy,
            warnings: String::new(),
            sources: Vec::new(),
            digest: None,
        });
    }
    let input = read_input(&one)?;
    let c = compile_layers_with_declarations(base, &[(layer, vec![input])]);
    loaded(c, |d| d.code != crate::diag::Code::NothingReplaced)
}

/// The policy of `file` if it is an artifact (recognized by its magic
/// bytes, decoded and verified); `None` if it is not one.
fn load_artifact(file: &PolicyFile) -> Result<Option<Policy>, PolicyError> {
    let bytes = file.bytes(None)?;
    if !is_artifact(&bytes) {
        return Ok(None);
    }
    Policy::from_artifact(&bytes)
        .map(Some)
        .map_err(|source| PolicyError::Artifact {
            name: file.name.clone(),
            source,
        })
}

/// Reads and compiles policy sources in the order given: into the default
/// layers, or, when the files name layers, into those
/// ([`crate::compile::compile_layers`]: layers ordered by first mention,
/// lowest first unless the files declare `layer_order: highest_first`).
pub fn compile_files(files: &[PolicyFile]) -> Result<Compilation, ReadError> {
    compile_files_ordered(files, None)
}

/// [`compile_files`], with named layers listed as `order` says
/// ([`compile_layers_ordered`]; `hookc --layer-order`). Without named
/// layers, `order` has no effect.
pub fn compile_files_ordered(
    files: &[PolicyFile],
    order: Option<LayerOrder>,
) -> Result<Compilation, ReadError> {
    Ok(compile_read(&read_files(files)?, order))
}

/// Reads policy files, each with its layer; either every file names a
/// layer or none does.
pub(crate) fn read_files(
    files: &[PolicyFile],
) -> Result<Vec<(Input, Option<LayerName>)>, ReadError> {
    let named = files.iter().any(|f| f.layer.is_some());
    files
        .iter()
        .map(|file| match (&file.layer, named) {
            (None, true) => Err(ReadError::MissingLayer {
                name: file.name.clone(),
            }),
            (layer, _) => Ok((read_input(file)?, layer.clone())),
        })
        .collect()
}

/// Compiles files read by [`read_files`]: into the default layers, or into
/// the layers they name.
pub(crate) fn compile_read(
    inputs: &[(Input, Option<LayerName>)],
    order: Option<LayerOrder>,
) -> Compilation {
    if inputs.iter().all(|(_, layer)| layer.is_none()) {
        let plain: Vec<Input> = inputs.iter().map(|(input, _)| input.clone()).collect();
        return compile(&plain);
    }
    let layers: Vec<(LayerName, Vec<Input>)> = inputs
        .iter()
        .filter_map(|(input, layer)| Some((layer.clone()?, vec![input.clone()])))
        .collect();
    compile_layers_ordered(&layers, order)
}

/// Every file named by `paths`, named as given.
pub fn policy_files(paths: &[PathBuf]) -> Vec<PolicyFile> {
    paths.iter().cloned().map(PolicyFile::new).collect()
}

/// An absolute path into a project's `.hookc` folder, from that folder on
/// (`/home/u/proj/.hookc/guard.yaml` is `.hookc/guard.yaml`); `None` for
/// a relative path or one outside any `.hookc` folder. How the hook call
/// names a guard (so that its digest is the one `hookc disasm
/// .hookc/guard.yaml` prints in the project) and how a host's answer
/// shows a location: no user's folder reaches a host or a log.
pub fn from_project_folder(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let components: Vec<_> = path.components().collect();
    let from = components.iter().rposition(|c| c.as_os_str() == ".hookc")?;
    Some(components.iter().skip(from).collect())
}

/// `base` joined with `rel`, with `.` segments and `dir/..` pairs removed
/// lexically (no file system access), so a name like `tests/x/../p.yaml`
/// reads `tests/p.yaml`. A leading `..` stays.
pub fn join_lexically(base: &Path, rel: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in base.components().chain(rel.components()) {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            Component::RootDir | Component::Prefix(_) => {
                // An absolute `rel` replaces the base, as `Path::join` does.
                if matches!(c, Component::RootDir) {
                    out.retain(|k| matches!(k, Component::Prefix(_)));
                } else {
                    out.clear();
                }
                out.push(c);
            }
            Component::Normal(_) => out.push(c),
        }
    }
    let path: PathBuf = out.iter().collect();
    if path.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_lexically() {
        let j = |a: &str, b: &str| join_lexically(Path::new(a), Path::new(b));
        assert_eq!(
            j("examples/thread-hooks", "hooks.yaml"),
            Path::new("examples/thread-hooks/hooks.yaml")
        );
        assert_eq!(
            j("examples/thread-hooks", "../policy.xml"),
            Path::new("examples/policy.xml")
        );
        assert_eq!(j("", "./p.yaml"), Path::new("p.yaml"));
        assert_eq!(j("a", "../../p.yaml"), Path::new("../p.yaml"));
        assert_eq!(j("a/b", "/abs/p.yaml"), Path::new("/abs/p.yaml"));
        assert_eq!(j("a", ".."), Path::new("."));
    }

    #[test]
    fn missing_file_names_it() {
        let e = read_input(&PolicyFile::named("shown.yaml", "/no/such/file.yaml")).unwrap_err();
        assert!(
            e.to_string().starts_with("cannot read `shown.yaml`: "),
            "{e}"
        );
    }

    #[test]
    fn contents_read_already_are_the_ones_loaded() {
        // The path names nothing: a loader that read it again would fail.
        let yaml = "hooks:\n- {id: h, event: e, action: {type: abort}}\n";
        let file = PolicyFile::named("p.yaml", "/no/such/p.yaml").with_contents(yaml.into());
        let loaded = load_policy(std::slice::from_ref(&file)).unwrap();
        assert_eq!(loaded.policy.hook_count(), 1);
        let artifact = loaded.policy.to_artifact();
        let file = PolicyFile::named("p.hkb", "/no/such/p.hkb").with_contents(artifact.clone());
        let again = load_policy(&[file]).unwrap();
        assert_eq!(again.policy.to_artifact(), artifact);
        // The input limit holds for contents too.
        let big = PolicyFile::new("/no/such").with_contents(vec![b' '; MAX_INPUT_BYTES + 1]);
        assert!(matches!(read_input(&big), Err(ReadError::TooLarge { .. })));
    }
}
