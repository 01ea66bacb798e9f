//! Fuzz target `yaml`: the YAML hook-file front end.
//!
//! The input (as UTF-8, lossily) is read by [`hookc::frontend::yaml::read`],
//! which must report problems as diagnostics, never panic or hang (alias
//! bombs, deep nesting, odd scalars, huge numbers). Every diagnostic is
//! rendered (human and JSON), which must not panic on any span either.
#![no_main]

use hookc::diag::Diagnostics;
use hookc::span::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sources = SourceMap::new();
    let file = sources.add("f.yaml", text.as_ref());
    let mut diags = Diagnostics::new();
    let source = hookc::frontend::yaml::read(&text, file, "f.yaml", &mut diags);
    std::hint::black_box(&source);
    hookc_fuzz::render_all(&mut diags, &sources);
});
