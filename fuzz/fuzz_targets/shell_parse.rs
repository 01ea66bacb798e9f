//! Fuzz target `shell_parse`: the shell-command parser behind
//! `shell.commands`.
//!
//! The input (as UTF-8, lossily) is parsed by
//! [`hookc_runtime::functions::shell::parse`] and `parse_as_written`, which
//! must never panic or hang. What `parse` accepts, `parse_as_written`
//! accepts (unwrapping only adds the errors of the scripts it parses), the
//! JSON view builds, an error's message renders, and every command's
//! `program` is its argv[0] without a directory (what the compiler's
//! shell-program prefilter relies on).
#![no_main]

use hookc_runtime::functions::shell::{parse, parse_as_written, program_name};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let script = parse(&text);
    let written = parse_as_written(&text);
    assert!(
        !script.is_valid() || written.is_valid(),
        "`{text}`: valid unwrapped, {:?} as written",
        written.error
    );
    let _ = script.to_json();
    if let Some(e) = &script.error {
        let _ = e.to_string();
    }
    for c in script.commands.iter().chain(&written.commands) {
        let first = c.argv.first().map_or("", |a| program_name(a));
        assert_eq!(c.program, first, "`{text}`: {c:?}");
    }
});
