//! The driver's first stage: every input read with its front end (a file
//! over the size limit is reported and skipped), declarations-only files
//! stripped of their hooks, and the profile of the host the files name
//! (`host:`) read first, as declarations only.

use super::{Format, Input};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::{self, SourceFile};
use crate::span::{FileId, SourceMap, Span, Spanned};
use crate::suggest;

/// The inputs, read.
pub(super) struct ReadInputs {
    /// Every file's text, for spans and rendering.
    pub sources: SourceMap,
    /// What reading them found.
    pub diags: Diagnostics,
    /// The files read, the host's profile first.
    pub files: Vec<(FileId, SourceFile)>,
    /// Parallel to `files`: each file's layer (its position among the
    /// layers' first mentions; `None`: by YAML section).
    pub file_layers: Vec<Option<u32>>,
    /// The files read for their declarations only.
    pub declarations_only: Vec<FileId>,
}

/// Reads `declared` (for their declarations only) and then `inputs`, each
/// with its layer.
pub(super) fn read_inputs(declared: &[Input], inputs: &[(&Input, Option<u32>)]) -> ReadInputs {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let mut files: Vec<(FileId, SourceFile)> = Vec::new();
    let mut file_layers: Vec<Option<u32>> = Vec::new();
    let mut declarations_only = Vec::with_capacity(declared.len());
    let all = (declared.iter().map(|input| (input, None, true)))
        .chain(inputs.iter().map(|&(input, layer)| (input, layer, false)));
    for (input, layer, declarations_only_file) in all {
        let id = sources.add(input.name.clone(), input.text.clone());
        if declarations_only_file {
            declarations_only.push(id);
        }
        if input.text.len() > hookc_runtime::limits::MAX_INPUT_BYTES {
            diags.push(
                Diagnostic::new(
                    Code::TooLarge,
                    format!(
                        "`{}` is {} bytes; hookc reads policy files of at most {} bytes",
                        input.name,
                        input.text.len(),
                        hookc_runtime::limits::MAX_INPUT_BYTES
                    ),
                )
                .at(Span::new(id, 0, 0)),
            );
            continue;
        }
        let mut file = match Format::detect(&input.name, &input.text) {
            Format::Yaml => frontend::yaml::read(&input.text, id, &input.name, &mut diags),
            Format::Xml => frontend::xml::read(&input.text, id, &mut diags),
        };
        if declarations_only_file {
            file.hooks.clear();
            // The base's decision model is the layered program's (the
            // linker takes it); the overlay compiled with its declarations
            // declares none of its own, so the two never clash.
            file.combine.clear();
            file.on_error.clear();
        }
        files.push((id, file));
        file_layers.push(layer);
    }
    // `host: NAME`: the host's profile, read first as declarations only.
    if let Some(host) = host(&files, &mut diags) {
        let overlay = !declared.is_empty();
        if let Some(profile) = crate::hosts::profile(&host) {
            let id = sources.add(crate::hosts::profile_name(&host), profile.to_owned());
            declarations_only.push(id);
            let mut file = frontend::yaml::read(profile, id, sources.name(id), &mut diags);
            file.hooks.clear();
            if overlay {
                // As for any declarations-only file: the base's decision
                // model is the layered program's.
                file.combine.clear();
                file.on_error.clear();
            }
            files.insert(0, (id, file));
            file_layers.insert(0, None);
        }
    }
    ReadInputs {
        sources,
        diags,
        files,
        file_layers,
        declarations_only,
    }
}

/// The host the files name (`host:`), if any, its profile known; an
/// unknown host (with the closest known name) or two different hosts are
/// reported (E0115) and give `None`.
fn host(files: &[(FileId, SourceFile)], diags: &mut Diagnostics) -> Option<String> {
    let mut named: Option<&Spanned<String>> = None;
    for declared in files.iter().flat_map(|(_, f)| &f.host) {
        if crate::hosts::profile(&declared.value).is_none() {
            let names = crate::hosts::names().collect::<Vec<_>>().join("`, `");
            diags.push(
                Diagnostic::new(
                    Code::UnknownHost,
                    format!("hookc has no profile for the host `{}`", declared.value),
                )
                .at(declared.span)
                .node("host")
                .help(
                    match suggest::did_you_mean(&declared.value, crate::hosts::names()) {
                        Some(close) => format!("did you mean `{close}`? (hosts: `{names}`)"),
                        None => format!("the hosts hookc knows are `{names}`"),
                    },
                ),
            );
            return None;
        }
        match named {
            None => named = Some(declared),
            Some(first) if first.value == declared.value => {}
            Some(first) => {
                diags.push(
                    Diagnostic::new(
                        Code::UnknownHost,
                        format!(
                            "the policy names two hosts, `{}` and `{}`",
                            first.value, declared.value
                        ),
                    )
                    .at(declared.span)
                    .node("host")
                    .note(format!("`{}` is named first", first.value))
                    .help("a policy is written for one host: compile one policy per host"),
                );
                return None;
            }
        }
    }
    named.map(|h| h.value.clone())
}
