//! The embedding example end to end: its build script compiled
//! `policies/` into the artifact the binary embeds; running the binary
//! (built by this same `cargo test`, in the workspace target directory)
//! loads it and prints one decision per event, exactly what the guide's
//! "Build scripts" chapter shows (`docs/src/embedding/build-scripts.md`, the
//! ```` ```text ```` block of `$ cargo run -p hookc-embedded`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

/// The output the guide documents: the lines after the command in its block.
fn documented_output() -> String {
    let guide = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/src/embedding/build-scripts.md"
    );
    let text = std::fs::read_to_string(guide).expect("the guide's build-scripts chapter");
    let start = "```text\n$ cargo run -p hookc-embedded\n";
    let (_, block) = text.split_once(start).expect("the documented run");
    let (body, _) = block.split_once("```").expect("the end of the block");
    body.to_owned()
}

#[test]
fn the_embedded_example_prints_what_the_guide_says() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookc-embedded"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout, documented_output());
}
