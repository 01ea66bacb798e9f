//! The `hookc hook` benchmark's guard (`bench-hook/`) is the same guard in
//! both its forms: a generated 60-hook policy and its Python hook script
//! answer every generated payload alike (`bench-hook/check.py`), so the
//! timings in `bench-hook/README.md` compare like with like.

use std::path::Path;
use std::process::Command;

#[test]
fn the_generated_policy_and_python_script_answer_alike() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-hook");
    let _ = std::fs::remove_dir_all(&out);
    let run = |args: &[&str]| {
        let result = Command::new("python3")
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
        assert!(
            result.status.success(),
            "python3 {args:?}: {stdout}{}",
            String::from_utf8_lossy(&result.stderr)
        );
        stdout
    };
    let dir = out.to_str().unwrap();
    run(&["bench-hook/gen.py", "60", dir, "--payloads", "80"]);
    let policy = out.join("guard-60.yaml");
    let artifact = out.join("guard-60.hkb");
    let compiled = crate::hookc_command()
        .args(["compile", policy.to_str().unwrap(), "-o"])
        .arg(&artifact)
        .output()
        .unwrap();
    assert!(compiled.status.success());
    let report = run(&[
        "bench-hook/check.py",
        env!("CARGO_BIN_EXE_hookc"),
        artifact.to_str().unwrap(),
        out.join("guard-60.py").to_str().unwrap(),
        out.join("payloads").to_str().unwrap(),
    ]);
    // Some payloads decide, some do not: the comparison is not vacuous.
    let last = report.lines().last().unwrap();
    assert!(last.starts_with("80 payloads, "), "{report}");
    assert!(last.ends_with(", 0 differences"), "{report}");
    assert!(!last.contains(" 0 decided"), "{report}");
}
