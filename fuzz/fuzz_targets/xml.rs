//! Fuzz target `xml`: the directive XML front end.
//!
//! The input (as UTF-8, lossily) is read by [`hookc::frontend::xml::read`],
//! which must report problems as diagnostics, never panic or hang (deep
//! nesting, entities, odd attributes, `when` expressions in attributes).
//! Every diagnostic is rendered (human and JSON), which must not panic on
//! any span either.
#![no_main]

use hookc::diag::Diagnostics;
use hookc::span::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sources = SourceMap::new();
    let file = sources.add("f.xml", text.as_ref());
    let mut diags = Diagnostics::new();
    let source = hookc::frontend::xml::read(&text, file, &mut diags);
    std::hint::black_box(&source);
    hookc_fuzz::render_all(&mut diags, &sources);
});
