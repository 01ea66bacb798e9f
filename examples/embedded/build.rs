//! Compiles `policies/` into `$OUT_DIR/policy.hkb` for `src/main.rs` to
//! embed. A mistake in a policy fails `cargo build` with its diagnostic;
//! with `deny_warnings`, so does a warning.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // Every problem is printed as `cargo::error=` lines, which fail the
    // build once this script ends: the error needs no other handling.
    hookc::build_script::Builder::new("policies")
        .out_name("policy.hkb")
        .deny_warnings(true)
        .compile()
        .ok();
}
