//! Fuzz target `parse_expr`: the `when` expression language.
//!
//! The input (as UTF-8, lossily) is parsed by [`hookc::syntax::parse`],
//! which must return an expression or a diagnostic, never panic or hang.
//! When it parses, the expression is also compiled as `hookc eval --expr`
//! does (resolved and type-checked against a free-form schema, any result
//! type, by [`hookc::expr_program::compile_expr`]), lowered and verified
//! (a verification failure is a compiler bug), and evaluated on a few fixed
//! contexts by the VM (with and without error tracing) and by the reference
//! evaluator, which must agree strictly ([`hookc::testing::reference::same_result`]).
//! Diagnostics of a rejected expression are rendered too.
#![no_main]

use hookc::diag::render;
use hookc::frontend::doc::Node;
use hookc::expr_program::{compile_expr, ExprMode, EXPR_FILE};
use hookc::testing::reference;
use hookc::check::schema::ContextSchema;
use hookc::span::{Origin, SourceMap, Span};
use hookc_fuzz::{expression_contexts, vm_value};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Fixed {
    schema: ContextSchema,
    contexts: Vec<serde_json::Value>,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        let mut sink = hookc::diag::Diagnostics::new();
        let node = Node::from_json(
            &serde_json::json!({"type": "object"}),
            Span::new(EXPR_FILE, 0, 0),
        );
        Fixed {
            schema: ContextSchema::from_node(&node, &mut sink),
            contexts: expression_contexts(),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The parser alone (compile_expr below parses again, then resolves).
    let _ = hookc::syntax::parse(&text, Origin::file_start(EXPR_FILE));
    let fixed = fixed();
    let compiled = match compile_expr(&text, &fixed.schema, ExprMode::Value) {
        Ok(c) => c,
        Err(diags) => {
            let mut sources = SourceMap::new();
            sources.add("<expr>", text.as_ref());
            let refs: Vec<_> = diags.iter().collect();
            let _ = render::human(&refs, &sources);
            for d in &diags {
                let _ = render::json(d, &sources);
            }
            return;
        }
    };
    let program = hookc_runtime::verify::verify(hookc::lower::lower(&compiled.policy()))
        .unwrap_or_else(|e| panic!("`{text}`: the compiled expression fails verification: {e}"));
    let consts = reference::Constants::new(compiled.expr());
    for ctx in &fixed.contexts {
        let by_reference = reference::eval_with(compiled.expr(), compiled.paths(), ctx, &consts);
        let (by_vm, traced) = vm_value(&program, ctx);
        assert!(
            reference::same_result(&by_reference, &by_vm),
            "`{text}` on {ctx}: reference {by_reference:?}, VM {by_vm:?}"
        );
        assert!(
            reference::same_result(&by_vm, &traced),
            "`{text}` on {ctx}: VM {by_vm:?}, VM traced {traced:?}"
        );
    }
});
