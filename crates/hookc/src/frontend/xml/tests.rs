//! Tests of the directive XML reader: the seed and example documents, hooks,
//! conditions, actions and `<param>`, positions, and every well-formedness error.

use super::*;
use crate::diag::Diagnostic;
use crate::frontend::doc::NodeKind;
use crate::frontend::Layer;
use hookc_runtime::limits::MAX_DOC_DEPTH;

const F: FileId = FileId(0);

fn parse(src: &str) -> (SourceFile, Vec<Diagnostic>) {
    let mut diags = Diagnostics::new();
    let file = read(src, F, &mut diags);
    (file, diags.into_vec())
}

/// Reads a document that must have no diagnostics.
fn clean(src: &str) -> SourceFile {
    let (file, diags) = parse(src);
    assert!(diags.is_empty(), "unexpected diagnostics: {diags:#?}");
    file
}

/// The one diagnostic of a document.
fn one(src: &str) -> (SourceFile, Diagnostic) {
    let (file, mut diags) = parse(src);
    assert_eq!(diags.len(), 1, "expected one diagnostic: {diags:#?}");
    (file, diags.remove(0))
}

/// The span of the `n`th (from 0) occurrence of `needle`.
fn nth(src: &str, needle: &str, n: usize) -> Span {
    let start = src
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("`{needle}` #{n} not in the source"))
        .0;
    Span::new(F, start, start + needle.len())
}

fn find(src: &str, needle: &str) -> Span {
    nth(src, needle, 0)
}

/// The first byte of a span.
fn first(span: Span) -> Span {
    Span::new(F, span.start as usize, span.start as usize + 1)
}

/// A span without its first `n` bytes.
fn shift(span: Span, n: usize) -> Span {
    Span::new(F, span.start as usize + n, span.end as usize)
}

fn text(src: &str, span: Span) -> &str {
    &src[span.range()]
}

fn when(hook: &SourceHook) -> (&str, Origin, Span) {
    match &hook.condition {
        Some(RawCondition::When { text, origin, span }) => (text, *origin, *span),
        other => panic!("expected a `when`, got {other:?}"),
    }
}

fn exact_at(span: Span) -> Origin {
    Origin::Exact {
        file: F,
        base: span.start,
    }
}

fn text_node(node: &Node) -> &str {
    match &node.kind {
        NodeKind::Text(s) => s,
        other => panic!("expected text, got {other:?}"),
    }
}

fn events(hook: &SourceHook) -> Vec<&str> {
    hook.events.iter().map(|e| e.value.as_str()).collect()
}

/// Wraps hooks in a directive document.
fn doc(hooks: &str) -> String {
    format!("<directive name=\"d\">\n  <hooks>\n{hooks}\n  </hooks>\n</directive>\n")
}

#[test]
fn reads_the_seed_document() {
    let src = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/thread-hooks/directive.xml"
    ));
    let file = clean(src);
    assert_eq!(file.hooks.len(), 1);
    let hook = &file.hooks[0];
    assert_eq!(hook.layer, Layer::Directive);
    assert_eq!(hook.index, 0);
    assert_eq!(hook.node_path, None);
    assert_eq!(events(hook), ["error"]);
    assert_eq!(hook.events[0].span, nth(src, "error", 0));
    assert!(hook.enabled && hook.id.is_none() && hook.priority.is_none());
    assert!(text(src, hook.span).starts_with("<hook event"));
    assert!(text(src, hook.span).ends_with("</hook>"));

    let expr = "classification.category == 'rate_limited'";
    let (t, origin, span) = when(hook);
    assert_eq!(t, expr);
    assert_eq!(span, find(src, expr));
    assert_eq!(origin, exact_at(find(src, expr)));

    let action = &hook.action;
    assert_eq!(action.kind.value, "call_directive");
    assert_eq!(text(src, action.kind.span), "directive");
    assert_eq!(action.kind.span, nth(src, "directive", 2));
    assert!(text(src, action.span).starts_with("<directive>"));
    assert!(text(src, action.span).ends_with("</directive>"));
    assert_eq!(action.params.len(), 1);
    let (key, value) = &action.params[0];
    assert_eq!(key.value, "directive");
    assert_eq!(text_node(value), "my_app/custom_backoff");
    assert_eq!(value.span, find(src, "my_app/custom_backoff"));
    assert!(action.xml_params.is_empty());
    assert!(file.schema_version.is_none() && file.context_schema.is_none());
}

#[test]
fn reads_the_policy_example() {
    let src = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/policy.xml"
    ));
    let file = clean(src);
    assert_eq!(file.hooks.len(), 12);
    for hook in &file.hooks {
        assert!(hook.id.is_some() && !hook.events.is_empty());
        // Every condition parses, and parses to its place in the file.
        if let Some(RawCondition::When { text, origin, span }) = &hook.condition {
            assert!(matches!(origin, Origin::Exact { .. }), "{text}");
            let expr = crate::syntax::parse(text, *origin)
                .unwrap_or_else(|d| panic!("`{text}` does not parse: {d:?}"));
            assert_eq!(expr.span, *span);
        }
    }
    let by_id = |id: &str| {
        file.hooks
            .iter()
            .find(|h| h.id.as_ref().is_some_and(|i| i.value == id))
            .unwrap()
    };
    assert_eq!(events(by_id("orphan_event")), ["*"]);
    assert_eq!(
        events(by_id("progress_checkpoint")),
        ["before_step", "after_step"]
    );
    assert!(!by_id("step_budget_guard").enabled);
    assert_eq!(
        by_id("triage_unclassified").action.kind.value,
        "call_directive"
    );
    assert_eq!(by_id("compaction").action.xml_params.len(), 3);
    let budget = when(by_id("budget_escalation")).0;
    assert_eq!(
        budget,
        "limit_code == 'spend_exceeded' && limit_value >= limit_max * 0.9"
    );
}

const DIRECTIVE_EXAMPLE: &str = r#"<directive name="my_directive">
  <hooks>
    <hook event="error" when="classification.category == 'rate_limited'">
      <directive>my_app/custom_backoff</directive>          <!-- seed form: call_directive -->
    </hook>
    <hook id="budget" event="limit" priority="10">
      <when><![CDATA[limit_code == 'spend_exceeded' && cost.spend > 10.0]]></when>
      <escalate target="user_approval" timeout_seconds="7200"/>
    </hook>
    <hook event="error" when="classification.category == 'overloaded' and error.code != 'E42'">
      <call_directive directive="my_app/backoff" inherit_token="false">
        <param name="retry_after">${error.headers['retry-after']}</param>
      </call_directive>
    </hook>
  </hooks>
</directive>
"#;

#[test]
fn reads_the_spec_example() {
    let src = DIRECTIVE_EXAMPLE;
    let file = clean(src);
    assert_eq!(file.hooks.len(), 3);
    let indexes: Vec<usize> = file.hooks.iter().map(|h| h.index).collect();
    assert_eq!(indexes, [0, 1, 2]);

    let first = &file.hooks[0];
    assert_eq!(first.action.kind.value, "call_directive");
    assert_eq!(
        text_node(&first.action.params[0].1),
        "my_app/custom_backoff"
    );

    let budget = &file.hooks[1];
    let id = budget.id.as_ref().unwrap();
    assert_eq!(id.value, "budget");
    assert_eq!(id.span, find(src, "budget"));
    let priority = budget.priority.as_ref().unwrap();
    assert_eq!(priority.value, 10);
    assert_eq!(text(src, priority.span), "10");
    assert_eq!(events(budget), ["limit"]);
    let cdata = "limit_code == 'spend_exceeded' && cost.spend > 10.0";
    let (t, origin, span) = when(budget);
    assert_eq!(t, cdata);
    assert_eq!(origin, exact_at(find(src, cdata)));
    assert_eq!(span, find(src, cdata));
    let escalate = &budget.action;
    assert_eq!(escalate.kind.value, "escalate");
    assert_eq!(escalate.kind.span, find(src, "escalate"));
    let params: Vec<(&str, &str)> = escalate
        .params
        .iter()
        .map(|(k, v)| (k.value.as_str(), text_node(v)))
        .collect();
    assert_eq!(
        params,
        [("target", "user_approval"), ("timeout_seconds", "7200")]
    );
    assert_eq!(escalate.params[0].0.span, find(src, "target"));
    assert_eq!(escalate.params[0].1.span, find(src, "user_approval"));
    assert_eq!(escalate.params[1].1.span, find(src, "7200"));
    assert_eq!(
        text(src, escalate.span),
        r#"<escalate target="user_approval" timeout_seconds="7200"/>"#
    );

    let third = &file.hooks[2];
    let expr = "classification.category == 'overloaded' and error.code != 'E42'";
    assert_eq!(when(third).1, exact_at(find(src, expr)));
    let call = &third.action;
    assert_eq!(call.kind.value, "call_directive");
    assert_eq!(call.kind.span, shift(find(src, "<call_directive"), 1));
    let params: Vec<(&str, &str)> = call
        .params
        .iter()
        .map(|(k, v)| (k.value.as_str(), text_node(v)))
        .collect();
    assert_eq!(
        params,
        [("directive", "my_app/backoff"), ("inherit_token", "false")]
    );
    assert_eq!(call.xml_params.len(), 1);
    let (key, value) = &call.xml_params[0];
    assert_eq!(key.value, "retry_after");
    assert_eq!(key.span, nth(src, "retry_after", 0));
    let template = "${error.headers['retry-after']}";
    assert_eq!(text_node(value), template);
    assert_eq!(value.span, find(src, template));
    assert!(text(src, call.span).ends_with("</call_directive>"));
}

#[test]
fn reads_every_attribute() {
    let src = doc(concat!(
        r#"<hook id="h" event=" error , limit,*" priority="-3" enabled="false" "#,
        r#"description="a &amp; b"><abort/></hook>"#
    ));
    let file = clean(&src);
    let hook = &file.hooks[0];
    assert_eq!(events(hook), ["error", "limit", "*"]);
    assert_eq!(hook.events[0].span, nth(&src, "error", 0));
    assert_eq!(hook.events[1].span, find(&src, "limit"));
    assert_eq!(hook.events[2].span, find(&src, "*"));
    assert_eq!(hook.priority.as_ref().unwrap().value, -3);
    assert!(!hook.enabled);
    assert_eq!(hook.description.as_deref(), Some("a & b"));
    assert!(hook.condition.is_none());
    assert_eq!(hook.action.kind.value, "abort");
    assert!(hook.action.params.is_empty());
}

#[test]
fn decoded_when_maps_to_the_whole_value() {
    let src = doc(r#"<hook event="error" when="a &amp;&amp; b"><abort/></hook>"#);
    let file = clean(&src);
    let (t, origin, span) = when(&file.hooks[0]);
    assert_eq!(t, "a && b");
    assert_eq!(span, find(&src, "a &amp;&amp; b"));
    assert_eq!(origin, Origin::Whole(span));
}

#[test]
fn when_attribute_is_trimmed_and_exact() {
    let src = doc("<hook event=\"error\" when=\"  turn_number >\n 3 \"><abort/></hook>");
    let file = clean(&src);
    let (t, origin, _) = when(&file.hooks[0]);
    // A line break in an attribute folds into a space, in place.
    assert_eq!(t, "turn_number >  3");
    assert_eq!(origin, exact_at(find(&src, "turn_number")));
}

#[test]
fn when_element_with_entities_maps_to_the_element() {
    let src = doc("<hook event=\"error\"><when>cost &gt; 1.5</when><abort/></hook>");
    let file = clean(&src);
    let (t, origin, span) = when(&file.hooks[0]);
    assert_eq!(t, "cost > 1.5");
    assert_eq!(span, find(&src, "<when>cost &gt; 1.5</when>"));
    assert_eq!(origin, Origin::Whole(span));
}

#[test]
fn cdata_when_with_surrounding_whitespace_is_exact() {
    let src = doc(concat!(
        "<hook event=\"limit\">\n  <when>\n    <![CDATA[ tokens_used > 5 && turn_number < 2 ]]>\n",
        "  </when>\n  <abort/>\n</hook>"
    ));
    let file = clean(&src);
    let (t, origin, span) = when(&file.hooks[0]);
    assert_eq!(t, "tokens_used > 5 && turn_number < 2");
    assert_eq!(span, find(&src, t));
    assert_eq!(origin, exact_at(span));
}

#[test]
fn plain_when_text_is_exact() {
    let src = doc("<hook event=\"limit\"><when>\n  has(limit_code)\n</when><abort/></hook>");
    let file = clean(&src);
    let (t, origin, _) = when(&file.hooks[0]);
    assert_eq!(t, "has(limit_code)");
    assert_eq!(origin, exact_at(find(&src, "has(limit_code)")));
}

#[test]
fn ignores_everything_but_hooks() {
    let src = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE directive>
<!-- a comment -->
<directive name="x" version="1.0.0">
  <metadata><description>not a hook</description><hook event="error"/></metadata>
  <?processing instruction?>
  <hook event="error"><nonsense/></hook>
  <steps><step>do &amp; things</step></steps>
  <hooks>
    <hook event="error"><retry max_attempts="2"/></hook>
    <note>ignored</note>
  </hooks>
  <more><deeper><hooks><hook event="limit"><continue/></hook></hooks></deeper></more>
</directive>
<!-- trailing comment -->
"#;
    let file = clean(src);
    assert_eq!(file.hooks.len(), 2);
    assert_eq!(file.hooks[0].action.kind.value, "retry");
    assert_eq!(file.hooks[1].action.kind.value, "continue");
    assert_eq!(file.hooks[1].index, 1);
}

#[test]
fn param_children_fill_xml_params() {
    let src = doc(concat!(
        r#"<hook event="error"><emit_event event_type="e">"#,
        "\n  <param name=\"kind\">  ${error.type}  </param>",
        "\n  <param name=\"empty\"/>",
        "\n  <!-- comment -->",
        "\n  <param name=\"entity\">a &lt; b</param>",
        "\n</emit_event></hook>"
    ));
    let file = clean(&src);
    let action = &file.hooks[0].action;
    let params: Vec<(&str, &str)> = action
        .xml_params
        .iter()
        .map(|(k, v)| (k.value.as_str(), text_node(v)))
        .collect();
    assert_eq!(
        params,
        [
            ("kind", "${error.type}"),
            ("empty", ""),
            ("entity", "a < b")
        ]
    );
    assert_eq!(action.xml_params[0].1.span, find(&src, "${error.type}"));
    assert_eq!(
        action.xml_params[1].1.span,
        find(&src, "<param name=\"empty\"/>")
    );
    assert_eq!(
        action.xml_params[2].1.span,
        find(&src, "<param name=\"entity\">a &lt; b</param>")
    );
}

#[test]
fn directive_shorthand_keeps_other_attributes() {
    let src =
        doc(r#"<hook event="error"><directive inherit_token="false"> x/y </directive></hook>"#);
    let file = clean(&src);
    let action = &file.hooks[0].action;
    assert_eq!(action.kind.value, "call_directive");
    let names: Vec<&str> = action
        .params
        .iter()
        .map(|(k, _)| k.value.as_str())
        .collect();
    assert_eq!(names, ["directive", "inherit_token"]);
    assert_eq!(action.params[0].1.span, find(&src, "x/y"));
}

#[test]
fn byte_order_mark_keeps_spans_right() {
    let src = format!(
        "\u{feff}{}",
        doc(r#"<hook event="error" priority="x"><abort/></hook>"#)
    );
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(d.span, Some(first(shift(find(&src, "\"x\""), 1))));
}

// ---- malformed XML ------------------------------------------------------

fn syntax(src: &str, at: Span) -> Diagnostic {
    let (file, d) = one(src);
    assert_eq!(d.code, Code::XmlSyntax, "{d:#?}");
    assert_eq!(
        d.span,
        Some(at),
        "{d:#?} at {:?}",
        &src[d.span.unwrap().range()]
    );
    assert!(file.hooks.is_empty());
    d
}

#[test]
fn a_mismatched_end_tag_points_at_the_element_left_open() {
    let src = "<directive><hooks></directive>";
    let d = syntax(src, find(src, "<hooks>"));
    assert_eq!(
        d.message,
        "`<hooks>` is not closed: `</directive>` comes before its `</hooks>`"
    );
    // A hook without its end tag, on several lines: the start tag, whole.
    let src = doc(
        "    <hook id=\"a\" event=\"error\"\n          when=\"has(error.code)\">\n      <abort/>\n",
    );
    let (_, diags) = parse(&src);
    let d = diags.last().unwrap();
    assert_eq!(d.code, Code::XmlSyntax);
    assert_eq!(
        d.span,
        Some(find(
            &src,
            "<hook id=\"a\" event=\"error\"\n          when=\"has(error.code)\">"
        ))
    );
    assert_eq!(d.label.as_deref(), Some("not closed"));
    assert_eq!(
        d.help.as_deref(),
        Some("end it with `</hook>` (or write it `<hook ... />`) before the `</hooks>` on line 7")
    );
}

#[test]
fn unmatched_end_tag() {
    let src = "<directive/></hooks>";
    syntax(src, find(src, "</hooks>"));
}

#[test]
fn bad_attribute_syntax() {
    let src = "<directive><hooks><hook event=error/></hooks></directive>";
    syntax(src, first(find(src, "error")));
    let src = "<directive name=\"a\" name=\"b\"/>";
    let d = syntax(src, nth(src, "n", 1));
    assert_eq!(d.message, "attribute `name` is given twice");
    let src = "<directive name/>";
    syntax(src, Span::new(F, 15, 16));
}

#[test]
fn unknown_entities() {
    let src = doc("<hook event=\"error\"><when>a &foo; b</when><abort/></hook>");
    let d = syntax(&src, find(&src, "&foo;"));
    assert_eq!(d.message, "unknown entity `&foo;`");
    let src = "<directive name=\"a&bar;\"/>";
    syntax(src, find(src, "&bar;"));
    let src = "<directive>&#xZZ;</directive>";
    syntax(src, find(src, "&#xZZ;"));
}

#[test]
fn bare_ampersands() {
    let src = doc(r#"<hook event="error" when="a && b"><abort/></hook>"#);
    let d = syntax(&src, find(&src, "&"));
    assert!(d.help.unwrap().contains("&amp;&amp;"));
    let src = doc("<hook event=\"error\"><when>a && b</when><abort/></hook>");
    let d = syntax(&src, find(&src, "&"));
    assert!(d.help.unwrap().contains("CDATA"));
}

#[test]
fn end_of_input_inside_an_element() {
    let src = "<directive>\n  <hooks>\n    <hook event=\"error\">";
    let d = syntax(src, find(src, "<hook event=\"error\">"));
    assert!(d.message.contains("`</hook>` not found"), "{}", d.message);
    let src = "<directive>\n  <hooks";
    syntax(src, find(src, "<hooks"));
}

#[test]
fn one_root_only() {
    let src = "<a/>\n<b/>";
    syntax(src, find(src, "<b/>"));
    let src = "text <a/>";
    syntax(src, find(src, "text"));
    let src = "<a/> text";
    syntax(src, find(src, "text"));
    let src = "  \n<!-- only a comment -->\n";
    syntax(src, Span::new(F, src.len(), src.len()));
    syntax("", Span::new(F, 0, 0));
}

#[test]
fn hooks_before_a_syntax_error_are_kept() {
    let src = doc("<hook event=\"error\"><abort/></hook>\n<hook event=\"limit\">");
    let (file, diags) = parse(&src);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::XmlSyntax);
    assert_eq!(file.hooks.len(), 1);
}

// ---- structure errors ---------------------------------------------------

#[test]
fn unknown_hook_attribute() {
    let src = doc(r#"<hook evnt="error"><abort/></hook>"#);
    let (file, diags) = parse(&src);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].code, Code::UnknownKey);
    assert_eq!(diags[0].message, "unknown attribute `evnt` on `<hook>`");
    assert_eq!(diags[0].span, Some(find(&src, "evnt")));
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `event`?"));
    assert_eq!(diags[1].code, Code::MissingKey);
    assert_eq!(diags[1].span, Some(find(&src, r#"<hook evnt="error">"#)));
    assert!(file.hooks.is_empty());
}

#[test]
fn missing_and_empty_events() {
    let src = doc(r#"<hook event=" "><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::NoEvent);
    assert_eq!(d.span, Some(first(shift(find(&src, "\" \""), 1))));

    let src = doc(r#"<hook event="error,,limit"><abort/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::NoEvent);
    assert_eq!(
        d.span,
        Some(Span::new(
            F,
            find(&src, ",,").start as usize + 1,
            find(&src, ",,").start as usize + 1
        ))
    );
    assert_eq!(events(&file.hooks[0]), ["error", "limit"]);
}

#[test]
fn bad_priority_and_enabled() {
    let src = doc(r#"<hook event="error" priority="high"><abort/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(d.span, Some(find(&src, "high")));
    assert!(file.hooks[0].priority.is_none());

    let src = doc(r#"<hook event="error" priority="99999999999999999999"><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::BadLiteral);
    assert_eq!(d.span, Some(find(&src, "99999999999999999999")));

    let src = doc(r#"<hook event="error" enabled="yes"><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(
        d.message,
        "`enabled` must be `true` or `false`, found `yes`"
    );
    assert_eq!(d.span, Some(find(&src, "yes")));

    let src = doc(r#"<hook event="error" id=""><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
}

#[test]
fn condition_twice() {
    let src = doc(r#"<hook event="error" when="true"><when>false</when><abort/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::ConditionAndWhen);
    assert_eq!(d.span, Some(find(&src, "<when>")));
    assert_eq!(when(&file.hooks[0]).0, "true");

    let src = doc(r#"<hook event="error"><when>true</when><when>false</when><abort/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::ConditionAndWhen);
    assert_eq!(d.span, Some(nth(&src, "<when>", 1)));
    assert_eq!(when(&file.hooks[0]).0, "true");
}

#[test]
fn empty_conditions() {
    let src = doc(r#"<hook event="error" when=" "><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    let src = doc(r#"<hook event="error"><when/><abort/></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(d.span, Some(find(&src, "<when/>")));
}

#[test]
fn action_count() {
    let src = doc(r#"<hook event="error"></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::HookAction);
    assert_eq!(d.message, "hook has no action element");
    assert_eq!(d.span, Some(find(&src, r#"<hook event="error">"#)));
    assert!(d.help.unwrap().contains("<retry/>"));
    assert!(file.hooks.is_empty());

    let src = doc(r#"<hook event="error"/>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::HookAction);
    assert_eq!(d.span, Some(find(&src, r#"<hook event="error"/>"#)));

    let src = doc(r#"<hook event="error"><retry/> <fail error_message="x"/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::HookAction);
    assert_eq!(d.span, Some(find(&src, r#"<fail error_message="x"/>"#)));
    assert_eq!(file.hooks[0].action.kind.value, "retry");
}

#[test]
fn text_in_hook_and_action() {
    let src = doc(r#"<hook event="error">retry please<abort/></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::HookAction);
    assert_eq!(d.message, "unexpected text in `<hook>`");
    assert_eq!(d.span, Some(find(&src, "retry please")));
    assert_eq!(file.hooks.len(), 1);

    let src = doc(r#"<hook event="error"><retry> 3 </retry></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(d.span, Some(find(&src, "3")));
}

#[test]
fn directive_shorthand_errors() {
    let src = doc(r#"<hook event="error"><directive>  </directive></hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::MissingKey);
    assert_eq!(d.span, Some(find(&src, "<directive>")));
    assert!(file.hooks.is_empty());

    let src = doc(r#"<hook event="error"><directive directive="a">b</directive></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.span, Some(first(shift(find(&src, ">b<"), 1))));
}

#[test]
fn param_errors() {
    let src = doc(
        r#"<hook event="error"><emit_event event_type="e"><param>v</param></emit_event></hook>"#,
    );
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::MissingKey);
    assert_eq!(d.span, Some(find(&src, "<param>")));

    let src = doc(
        r#"<hook event="error"><emit_event event_type="e"><param name="a" nme="b"/></emit_event></hook>"#,
    );
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::UnknownKey);
    assert_eq!(d.span, Some(find(&src, "nme")));

    let src = doc(
        r#"<hook event="error"><emit_event event_type="e"><payload a="1"/></emit_event></hook>"#,
    );
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::UnknownKey);
    assert_eq!(d.span, Some(find(&src, "payload")));

    let src = doc(
        r#"<hook event="error"><emit_event><param name="a"/><param name="a"/></emit_event></hook>"#,
    );
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.span, Some(first(shift(nth(&src, "\"a\"", 1), 1))));

    let src = doc(r#"<hook event="error"><abort/><when x="1">true</when></hook>"#);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::UnknownKey);
    assert_eq!(d.span, Some(first(find(&src, "x="))));
}

#[test]
fn misspelt_hook_element() {
    let src = doc(r#"<Hook event="error"><abort/></Hook>"#);
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::UnknownKey);
    assert_eq!(d.span, Some(find(&src, "Hook")));
    assert_eq!(d.help.as_deref(), Some("did you mean `hook`?"));
    assert!(file.hooks.is_empty());
}

#[test]
fn broken_hooks_use_up_their_index() {
    let src = doc(concat!(
        r#"<hook event="error"/>"#,
        r#"<hook event="error"><abort/></hook>"#
    ));
    let (file, diags) = parse(&src);
    assert_eq!(diags.len(), 1);
    assert_eq!(file.hooks[0].index, 1);
}

// ---- limits -------------------------------------------------------------

#[test]
fn deep_nesting_is_an_error() {
    let depth = 100_000;
    let src = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
    let (file, d) = one(&src);
    assert_eq!(d.code, Code::TooDeep);
    assert_eq!(
        d.span,
        Some(Span::new(F, 3 * MAX_DOC_DEPTH, 3 * MAX_DOC_DEPTH + 3))
    );
    assert!(file.hooks.is_empty());

    // Just inside the limit is fine.
    let src = format!(
        "{}{}",
        "<a>".repeat(MAX_DOC_DEPTH),
        "</a>".repeat(MAX_DOC_DEPTH)
    );
    clean(&src);
}

#[test]
fn huge_input_is_an_error() {
    let src = " ".repeat(MAX_INPUT_BYTES + 1);
    let (_, d) = one(&src);
    assert_eq!(d.code, Code::TooLarge);
}
