//! Golden tests of the artifact's wire format, compiler side: each policy of
//! `tests/wire/manifest.json` is compiled again from its sources, exactly as
//! `hookc compile ARGS -o NAME.hkb` does, and the bytes must equal the
//! checked-in `tests/wire/NAME.hkb`. (The runtime's `tests/wire.rs` checks
//! the other direction: each `.hkb` loads and disassembles to `NAME.disasm`.)
//!
//! The golden files pin the bytes this compiler writes, so a change of the
//! bytes is a change of the artifact format: it needs a new
//! `hookc_runtime::artifact::FORMAT_VERSION` and a CHANGELOG entry. The
//! version the golden files were made with is recorded in
//! `tests/wire/FORMAT_VERSION`; changed bytes with an unchanged version fail,
//! in the update mode too.
//!
//! `UPDATE_WIRE=1 cargo test -p hookc --test suite wire::` rewrites every `.hkb`,
//! `.disasm` and `FORMAT_VERSION` (after a version bump, or when only the
//! disassembler's output changed). `UPDATE_WIRE=compiler` rewrites them with
//! the version unchanged, for the one other reason bytes change: the
//! compiler writes other (valid, same-format) code for a policy because
//! what the policy means changed (condition trees, for instance,
//! `docs/src/semantics.md#condition-trees`); the CHANGELOG says so under
//! "Changed". Otherwise the test writes only under
//! `CARGO_TARGET_TMPDIR`, where a failure leaves the new files for diffing.

use hookc::compile::LayerName;
use hookc::files::PolicyFile;
use hookc_runtime::artifact::{self, FORMAT_VERSION};
use hookc_runtime::disasm::disassemble;
use std::fmt::Write as _;
use std::path::Path;

use crate::wire_manifest;
use wire_manifest::{manifest, recorded_version, wire_dir, UPDATE};

/// The artifact `hookc compile ARGS -o OUT` writes when run in `root`, for
/// the argument forms the manifest uses: files (named as given), `--layer
/// NAME=FILE`, `--strip`.
fn compile(root: &Path, args: &[String]) -> Vec<u8> {
    let mut files = Vec::new();
    let mut strip = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--strip" => strip = true,
            "--layer" => {
                let spec = args.next().expect("`--layer` takes NAME=FILE");
                let (layer, file) = spec.split_once('=').expect("NAME=FILE");
                files.push(PolicyFile {
                    layer: Some(LayerName::new(layer).unwrap()),
                    ..PolicyFile::named(file, root.join(file))
                });
            }
            flag if flag.starts_with('-') => panic!("manifest: unsupported argument `{flag}`"),
            file => files.push(PolicyFile::named(file, root.join(file))),
        }
    }
    let c = hookc::files::compile_files(&files).unwrap();
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let policy = c.into_policy().unwrap();
    let bytes = if strip {
        policy.to_artifact_stripped()
    } else {
        policy.to_artifact()
    };
    // As `hookc compile` does: what is written must load.
    artifact::load(&bytes).unwrap();
    bytes
}

/// The listing `hookc disasm` prints for an artifact.
fn disasm(bytes: &[u8]) -> String {
    disassemble(artifact::load(bytes).unwrap().program())
}

/// Where two artifacts first differ, for the failure message: the offset
/// and the part of the artifact it is in. The body is compared first (the
/// header's checksum and length differ whenever the body does).
fn first_difference(old: &[u8], new: &[u8]) -> String {
    let header = artifact::HEADER_LEN;
    let differ = |from: usize| {
        let (a, b) = (
            old.get(from..).unwrap_or(&[]),
            new.get(from..).unwrap_or(&[]),
        );
        match a.iter().zip(b).position(|(x, y)| x != y) {
            Some(i) => Some(from + i),
            None => (a.len() != b.len()).then(|| from + a.len().min(b.len())),
        }
    };
    let Some(at) = differ(header).or_else(|| differ(0)) else {
        return "no difference".to_owned();
    };
    let names = [
        "strings", "paths", "consts", "regexes", "sets", "code", "hooks", "actions", "events",
        "debug", "layers",
    ];
    // Sections follow the header: `id: u8, len: u32 LE, payload`.
    let mut part = "the header".to_owned();
    let mut pos = header;
    while at >= pos && pos + 5 <= new.len() {
        let id = new[pos];
        let len = u32::from_le_bytes(new[pos + 1..pos + 5].try_into().unwrap()) as usize;
        let name = names.get(usize::from(id).wrapping_sub(1)).unwrap_or(&"?");
        part = format!("section {id} `{name}`");
        pos += 5 + len;
    }
    format!(
        "first difference at byte {at:#x}, in {part}; {} bytes checked in, {} bytes now",
        old.len(),
        new.len()
    )
}

#[test]
fn compiled_artifacts_equal_the_golden_files() {
    let dir = wire_dir();
    let update_mode = std::env::var("UPDATE_WIRE").ok();
    let update = update_mode.is_some();
    // The format is the same; the compiler's code for the policies is not.
    let same_format = update_mode.as_deref() == Some("compiler");
    let recorded = recorded_version();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wire");
    std::fs::create_dir_all(&out).unwrap();

    let mut changed = Vec::new();
    // Policies new to the manifest, without golden files yet: no format change.
    let mut missing = Vec::new();
    let mut new_files = Vec::new();
    for case in manifest() {
        let bytes = compile(&case.root, &case.args);
        let listing = disasm(&bytes);
        let golden = dir.join(format!("{}.hkb", case.name));
        let Ok(old) = std::fs::read(&golden) else {
            missing.push(format!("crates/hookc/tests/wire/{}.hkb", case.name));
            new_files.push((case.name, bytes, listing));
            continue;
        };
        if old != bytes {
            let fresh = out.join(format!("{}.hkb", case.name));
            std::fs::write(&fresh, &bytes).unwrap();
            std::fs::write(fresh.with_extension("disasm"), &listing).unwrap();
            changed.push(format!(
                "  crates/hookc/tests/wire/{}.hkb: {}\n    its listing now: {}",
                case.name,
                first_difference(&old, &bytes),
                fresh.with_extension("disasm").display()
            ));
        }
        new_files.push((case.name, bytes, listing));
    }

    if !changed.is_empty() {
        let mut msg = format!(
            "the compiler no longer writes the golden artifacts' bytes:\n{}\n\n",
            changed.join("\n")
        );
        if FORMAT_VERSION == recorded && !same_format {
            let _ = write!(
                msg,
                "The golden files pin the artifact format, and FORMAT_VERSION is still {recorded}, \
                 the version they were made with. If the bytes changed, the format changed:\n\
                 1. bump `FORMAT_VERSION` in crates/hookc-runtime/src/artifact/mod.rs (and its \
                 `# Format (version N)` documentation there);\n\
                 2. add the new version, with what changed, under \"Artifact format versions\" \
                 in CHANGELOG.md;\n\
                 3. regenerate the golden files with `{UPDATE}` (it rewrites the .hkb, .disasm \
                 and FORMAT_VERSION files) and review the .disasm diff.\n\
                 If the change was not intended, compare the listings above with the checked-in \
                 .disasm files. If the format did not change but the code the compiler writes \
                 for these policies did (what they mean changed), regenerate with \
                 `UPDATE_WIRE=compiler` and say so in CHANGELOG.md."
            );
            panic!("{msg}");
        }
        if !update {
            let _ = write!(
                msg,
                "FORMAT_VERSION is {FORMAT_VERSION}; the golden files were made with version \
                 {recorded}. Check that CHANGELOG.md describes version {FORMAT_VERSION}, then \
                 regenerate the golden files with `{UPDATE}` and review the .disasm diff."
            );
            panic!("{msg}");
        }
    }

    if !update && !missing.is_empty() {
        panic!("{missing:?} missing: create the golden files with `{UPDATE}`");
    }
    let mut stale = Vec::new();
    for (name, bytes, listing) in &new_files {
        let golden = dir.join(format!("{name}.disasm"));
        if update {
            std::fs::write(dir.join(format!("{name}.hkb")), bytes).unwrap();
            std::fs::write(&golden, listing).unwrap();
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(listing.as_str()) {
            stale.push(format!("crates/hookc/tests/wire/{name}.disasm"));
        }
    }
    if update {
        std::fs::write(dir.join("FORMAT_VERSION"), format!("{FORMAT_VERSION}\n")).unwrap();
    } else if !stale.is_empty() {
        panic!(
            "the artifacts are unchanged, but their listings differ from {stale:?} (the \
             disassembler's output changed): regenerate them with `{UPDATE}` and review the diff"
        );
    }
}

/// Every `.hkb` of the folder is in the manifest, so none goes unchecked.
#[test]
fn every_golden_artifact_is_in_the_manifest() {
    let names: Vec<String> = manifest().into_iter().map(|c| c.name).collect();
    for entry in std::fs::read_dir(wire_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|x| x == "hkb" || x == "disasm")
        {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                names.contains(&stem),
                "{} is not in manifest.json",
                path.display()
            );
        }
    }
}
