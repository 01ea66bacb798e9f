//! The golden artifacts of `crates/hookc/tests/wire/`: where they are, what
//! `manifest.json` says each was compiled from, and the format version they
//! were made with. Shared by the compiler's wire test (which recompiles
//! them) and the runtime's (which loads them without the compiler).

use std::path::{Path, PathBuf};

/// The repository's root: manifest paths are relative to it, as they are
/// when `hookc compile` runs there.
pub fn repo() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

/// The golden files' folder.
pub fn wire_dir() -> PathBuf {
    repo().join("crates/hookc/tests/wire")
}

/// The regeneration command, as the messages give it.
pub const UPDATE: &str = "UPDATE_WIRE=1 cargo test -p hookc --test suite wire::";

/// One golden policy of the manifest.
pub struct Case {
    /// The artifact's file name without `.hkb`.
    pub name: String,
    /// The `hookc compile` arguments that make it (before `-o`).
    pub args: Vec<String>,
    /// The folder, relative to the repository's root, that `hookc compile`
    /// runs in (the root itself when the manifest gives none).
    #[allow(dead_code)] // used by the compiler's test only
    pub root: PathBuf,
}

impl Case {
    /// Whether it was compiled with `--strip`.
    #[allow(dead_code)] // used by the runtime's test only
    pub fn stripped(&self) -> bool {
        self.args.iter().any(|a| a == "--strip")
    }
}

/// Every golden policy, in manifest order.
pub fn manifest() -> Vec<Case> {
    let text = std::fs::read_to_string(wire_dir().join("manifest.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["artifacts"]
        .as_array()
        .expect("`artifacts` is a list")
        .iter()
        .map(|a| Case {
            name: a["name"].as_str().expect("`name`").to_owned(),
            args: a["args"]
                .as_array()
                .expect("`args`")
                .iter()
                .map(|s| s.as_str().expect("`args` are strings").to_owned())
                .collect(),
            root: match a.get("root") {
                Some(r) => repo().join(r.as_str().expect("`root` is a string")),
                None => repo(),
            },
        })
        .collect()
}

/// The format version the golden files were made with.
pub fn recorded_version() -> u16 {
    let text = std::fs::read_to_string(wire_dir().join("FORMAT_VERSION")).unwrap();
    text.trim().parse().expect("FORMAT_VERSION holds a number")
}
