//! The arguments several commands share: where a policy comes from
//! ([`Sources`]), what is layered over it for one run ([`Overlays`]), how
//! diagnostics are printed ([`DiagArgs`]) and how a log is replayed
//! ([`ReplayArgs`]); and the standard-stream helpers every command uses.

use crate::error::CliError;
use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::ValueEnum;
use hookc::compile::{Compilation, LayerName, LayerOrder};
use hookc::files::{LoadedPolicy, Overlay, Placement, PolicyFile};
use hookc_binding::hosts::Host;
use hookc_runtime::Policy;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The FILE help of the commands that run a policy.
pub const ARTIFACT_OR_SOURCES: &str =
    "The policy: one artifact (`.hkb`, from `hookc compile`), or its source \
     files (YAML hook files, directive XML) in source order, compiled first";

/// Where a policy comes from: files in source order, or files in named
/// layers.
#[derive(clap::Args)]
pub struct Sources {
    /// Policy source files (YAML hook files, directive XML), in source order.
    // `eval`, `disasm` and `bench` say that they take an artifact too
    // (`ARTIFACT_OR_SOURCES`).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A policy file in a named layer, instead of FILE (repeatable): every
    /// hook of FILE is in layer NAME. Layers are ordered by first mention,
    /// lowest first unless `--layer-order highest-first`; at equal priority
    /// a higher layer's hooks run first
    /// (`--layer builtin=b.yaml --layer project=p.yaml --layer directive=d.xml --layer run=r.yaml`).
    #[arg(long = "layer", value_name = "NAME=FILE", value_parser = parse_layer, conflicts_with = "files")]
    pub layers: Vec<(LayerName, PathBuf)>,
    /// How the `--layer`s are listed: `lowest-first` (the default) or
    /// `highest-first` (`--layer agent=a.yaml --layer workflow=w.yaml
    /// --layer step=s.yaml`, agent hooks first at equal priority). A file
    /// that declares another `layer_order` is an error.
    #[arg(long, value_name = "lowest-first|highest-first", value_parser = parse_layer_order, requires = "layers")]
    pub layer_order: Option<LayerOrder>,
}

/// `--layer-order`: a [`LayerOrder`] as spelled in hook files, with `-` for `_`.
pub fn parse_layer_order(arg: &str) -> Result<LayerOrder, String> {
    use hookc::ir::Spelled;
    LayerOrder::from_name(&arg.replace('-', "_")).ok_or_else(|| {
        let names: Vec<String> = LayerOrder::names().map(|n| n.replace('_', "-")).collect();
        format!("expected one of `{}`, got `{arg}`", names.join("`, `"))
    })
}

impl Sources {
    pub fn policy_files(&self) -> Result<Vec<PolicyFile>, CliError> {
        if self.files.is_empty() && self.layers.is_empty() {
            return Err(CliError::NoPolicy);
        }
        Ok(if self.layers.is_empty() {
            hookc::files::policy_files(&self.files)
        } else {
            self.layers
                .iter()
                .map(|(name, path)| PolicyFile::in_layer(name.clone(), path))
                .collect()
        })
    }

    /// Reads and compiles the sources.
    pub fn compile(&self) -> Result<Compilation, CliError> {
        Ok(hookc::files::compile_files_ordered(
            &self.policy_files()?,
            self.layer_order,
        )?)
    }

    /// Loads the policy: one artifact, or the sources compiled, their
    /// warnings printed on standard error (as `check` prints them).
    pub fn load(&self) -> Result<LoadedPolicy, CliError> {
        let loaded = hookc::files::load_policy_ordered(&self.policy_files()?, self.layer_order)?;
        eprint(&loaded.warnings)?;
        Ok(loaded)
    }
}

/// Policies layered over (or under) the loaded one for this run, without
/// recompiling it (`Policy::with_layer`, `Policy::with_layer_below`).
#[derive(clap::Args)]
pub struct Overlays {
    /// Layer this policy over the one given, for this run (repeatable; each
    /// above the ones before): an artifact (`.hkb`), or one source file
    /// compiled into layer NAME (default `run`, then `run-2`, ...) with the
    /// declarations of the policy's sources (action types, schema, ...;
    /// alone over an artifact). Its hooks marked `replace: true` replace
    /// the policy's hooks of the same id; any other id both have is an
    /// error.
    #[arg(long = "overlay", value_name = "[NAME=]FILE", value_parser = parse_overlay)]
    pub overlays: Vec<PolicyFile>,
    /// As `--overlay`, but below the policy (repeatable; each below the
    /// ones before, after every `--overlay`): at equal priority the
    /// policy's hooks run first. The policy's hooks marked `replace: true`
    /// replace the overlay's hooks of the same id.
    #[arg(long = "overlay-below", value_name = "[NAME=]FILE", value_parser = parse_overlay)]
    pub below: Vec<PolicyFile>,
}

impl Overlays {
    /// The overlays in the order they are layered: every `--overlay`, then
    /// every `--overlay-below` (the stack does not depend on how the two
    /// are interleaved on the command line).
    pub fn list(&self) -> Vec<Overlay> {
        let above = self.overlays.iter().map(|file| (file, Placement::Above));
        let below = self.below.iter().map(|file| (file, Placement::Below));
        above
            .chain(below)
            .map(|(file, placement)| Overlay {
                file: file.clone(),
                placement,
            })
            .collect()
    }

    /// `base` with the overlays layered over and under it, their warnings
    /// printed on standard error.
    pub fn over(&self, base: LoadedPolicy) -> Result<Policy, CliError> {
        let loaded = hookc::files::layer_overlays(base, &self.list())?;
        eprint(&loaded.warnings)?;
        Ok(loaded.policy)
    }
}

/// `[NAME=]FILE` of `--overlay`: a prefix up to the first `=` that is a
/// layer name names the layer, else the whole argument is the file.
pub fn parse_overlay(arg: &str) -> Result<PolicyFile, String> {
    let named = arg
        .split_once('=')
        .is_some_and(|(name, _)| LayerName::new(name).is_ok());
    if named {
        let (name, path) = parse_layer(arg)?;
        return Ok(PolicyFile::in_layer(name, path));
    }
    if arg.is_empty() {
        return Err("expected [NAME=]FILE, got nothing".to_owned());
    }
    Ok(PolicyFile::new(arg))
}

/// `NAME=FILE` of `--layer`.
pub fn parse_layer(arg: &str) -> Result<(LayerName, PathBuf), String> {
    let Some((name, file)) = arg.split_once('=') else {
        return Err(format!("expected NAME=FILE, got `{arg}`"));
    };
    let name = LayerName::new(name).map_err(|e| e.to_string())?;
    if file.is_empty() {
        return Err(format!(
            "expected NAME=FILE, the file is missing in `{arg}`"
        ));
    }
    Ok((name, PathBuf::from(file)))
}

#[derive(clap::Args)]
pub struct DiagArgs {
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = DiagFormat::Human)]
    pub format: DiagFormat,
    /// Treat warnings as errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

/// `check`'s and `compile`'s `--format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum DiagFormat {
    /// Source snippets with carets, then a count by code and a summary line,
    /// on standard error.
    Human,
    /// One JSON object per diagnostic per line, on standard output.
    Json,
}

/// How a log is replayed (`eval --events`, `diff`).
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// Worker threads evaluating the log (default: every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Bytes of log per chunk handed to a worker (tests: many small chunks).
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_bytes: Option<u32>,
}

impl ReplayArgs {
    pub fn settings(&self) -> crate::replay::ReplaySettings {
        crate::replay::ReplaySettings {
            jobs: self
                .jobs
                .map_or_else(crate::replay::available_jobs, usize::from),
            chunk_bytes: self
                .chunk_bytes
                .map_or(crate::replay::ReplaySettings::CHUNK_BYTES, |n| n as usize),
        }
    }
}

/// `--host NAME` (`hook`, `init`): a [`Host`] by its name, listed with
/// what each is in `--help` and in the error for a name that is none.
pub fn host_parser() -> impl TypedValueParser<Value = Host> {
    EnumValueParser::<HostName>::new().map(|HostName(host)| host)
}

/// A [`Host`] as clap lists and parses it: by [`Host::name`], over
/// [`Host::all`].
#[derive(Clone, Copy)]
struct HostName(Host);

impl ValueEnum for HostName {
    fn value_variants<'a>() -> &'a [HostName] {
        static ALL: std::sync::OnceLock<Vec<HostName>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| Host::all().map(HostName).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let profile = self.0.profile();
        let what = profile.help().unwrap_or(profile.title());
        Some(PossibleValue::new(self.0.name()).help(what))
    }
}

/// Writes to standard output.
pub fn print(text: &str) -> Result<(), CliError> {
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(CliError::Stdout)
}

/// Writes to standard error.
pub fn eprint(text: &str) -> Result<(), CliError> {
    std::io::stderr()
        .write_all(text.as_bytes())
        .map_err(CliError::Stderr)
}

/// Reads a file, or standard input for `-`; `what` names it in errors.
pub fn read_file_or_stdin(path: &Path, what: &'static str) -> Result<Vec<u8>, CliError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|source| CliError::Stdin { what, source })?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })
}
