//! Declared events (`docs/src/semantics.md#declared-events`): each event's
//! context extends the shared schema and types its hooks; its `effects`
//! bound its hooks' actions; the declaration replaces W0006's list of
//! known events with an error; several files merge their declarations;
//! XML declares the same; and it is compile-time only.

use hookc::compile::{compile, Compilation, Input};
use hookc::diag::{Code, Diagnostic};

/// The declarations most tests share: a shared context that always has
/// `session_id`,
/// `PreToolUse` adding a closed `tool_input`, `PostToolUse` collecting
/// only, `Stop` with the shared context and every effect.
const DECLARED: &str = r#"
event_context_schema:
  type: object
  required: [session_id]
  properties:
    session_id: {type: string}
events:
  PreToolUse:
    context:
      properties:
        tool_name: {type: string}
        tool_input: {type: object, additionalProperties: false, properties: {command: {type: string}}}
      required: [tool_name]
    effects: [terminal, collected, transform, await]
  PostToolUse: {effects: [collected]}
  Stop: {}
action_types:
  block: {effect: terminal, parameters: {reason: {type: string}}}
  log: {effect: collected, parameters: {note: {type: string}}}
"#;

fn with_hooks(hooks: &str) -> Compilation {
    compile(&[Input::new("p.yaml", format!("{DECLARED}hooks:\n{hooks}"))])
}

fn codes(c: &Compilation) -> Vec<(Code, String)> {
    c.diagnostics
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect()
}

fn only(c: &Compilation, code: Code) -> &Diagnostic {
    let found: Vec<&Diagnostic> = c.diagnostics.iter().collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, code, "{found:#?}");
    found[0]
}

#[test]
fn a_policy_with_declared_events_compiles_and_runs() {
    let c = with_hooks(
        r#"
  - id: no_rm
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('rm ')"
    action: {type: block, reason: "no ${tool_input.command} from ${tool_name}"}
  - id: audit
    event: [PreToolUse, PostToolUse, Stop]
    action: {type: log, note: "${session_id}"}
"#,
    );
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let policy = c.into_policy().unwrap();
    let ctx = serde_json::json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
    let d = policy.evaluate("PreToolUse", &ctx).unwrap();
    assert_eq!(d.terminal.unwrap().hook, "no_rm");
    assert_eq!(d.collected.len(), 0);
    let d = policy.evaluate("Stop", &ctx).unwrap();
    assert_eq!(d.collected.len(), 1);
}

#[test]
fn each_event_types_its_hooks_with_its_own_context() {
    // `tool_input` is closed on PreToolUse: a misspelt key is E0300 there.
    let c = with_hooks(
        "  - {id: h, event: PreToolUse, when: \"tool_input.comand == 'x'\", action: {type: log}}\n",
    );
    let d = only(&c, Code::UnknownPath);
    assert_eq!(d.help.as_deref(), Some("did you mean `command`?"));
    // On Stop, `tool_input` is not in the (open) shared context: W0001.
    let c = with_hooks(
        "  - {id: h, event: Stop, when: \"tool_input.command == 'x'\", action: {type: log}}\n",
    );
    only(&c, Code::PathNotInSchema);
    // A `"*"` hook is checked against the shared context.
    let c = with_hooks(
        "  - {id: h, event: \"*\", when: \"tool_input.comand == 'x'\", action: {type: log}}\n",
    );
    only(&c, Code::PathNotInSchema);
    // A type the event declares: `tool_input` is an object on PreToolUse.
    let c = with_hooks(
        "  - {id: h, event: PreToolUse, when: \"tool_input > 3\", action: {type: log}}\n",
    );
    only(&c, Code::TypeMismatch);
}

#[test]
fn a_hook_on_several_events_is_checked_against_each_and_says_which() {
    let c = with_hooks(
        "  - {id: h, event: [PreToolUse, Stop], when: \"tool_input.comand == 'x'\", action: {type: log}}\n",
    );
    let found: Vec<&Diagnostic> = c.diagnostics.iter().collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].code, Code::UnknownPath);
    assert_eq!(
        found[0].notes,
        ["checked against the context of event `PreToolUse`"]
    );
    assert_eq!(found[1].code, Code::PathNotInSchema);
    assert!(found[1]
        .notes
        .contains(&"checked against the context of event `Stop`".to_owned()));
    // A finding under every context is reported once, without a note.
    let c = with_hooks(
        "  - {id: h, event: [PreToolUse, Stop], when: \"session_id > 3\", action: {type: log}}\n",
    );
    let d = only(&c, Code::TypeMismatch);
    assert!(
        d.notes.iter().all(|n| !n.contains("checked against")),
        "{d:#?}"
    );
}

#[test]
fn an_event_context_refines_a_shared_property_and_may_close_the_root() {
    let text = r#"
event_context_schema:
  type: object
  properties:
    tool_input: {type: string}
events:
  PreToolUse:
    context: {additionalProperties: false, properties: {tool_input: {type: object}}}
  Stop: {}
hooks:
  - {id: pre, event: PreToolUse, when: "tool_input.x == 1 && other == 2", action: {type: abort}}
  - {id: stop, event: Stop, when: "tool_input.startsWith('a')", action: {type: abort}}
"#;
    let c = compile(&[Input::new("p.yaml", text)]);
    let errors: Vec<(Code, String)> = codes(&c);
    assert_eq!(
        errors,
        [(
            Code::UnknownPath,
            "`other` is not allowed by the schema: the context has no key `other`".to_owned()
        )]
    );
}

#[test]
fn effects_bound_the_actions_of_an_events_hooks() {
    let c = with_hooks("  - {id: late, event: PostToolUse, action: {type: block}}\n");
    let d = only(&c, Code::EffectNotAllowed);
    assert_eq!(
        d.message,
        "hook `late` has a `terminal` action (`block`), which event `PostToolUse` does not allow"
    );
    assert_eq!(d.node_path.as_deref(), Some("hooks[0].action.type"));
    assert!(d.notes[0].starts_with("event `PostToolUse` is declared at p.yaml:"));
    assert!(d.notes[0].ends_with("and allows `collected`"));
    // A collected action is allowed there; every effect where `effects` is absent.
    let c = with_hooks(
        "  - {event: PostToolUse, action: {type: log}}\n  - {event: Stop, action: {type: block}}\n",
    );
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    // A `"*"` hook runs on every event, so every declared event judges it.
    let c = with_hooks("  - {id: all, event: \"*\", action: {type: block}}\n");
    let d = only(&c, Code::EffectNotAllowed);
    assert!(d.help.as_deref().unwrap().contains("every event"), "{d:#?}");
    // An empty list allows nothing.
    let text = "events: {Notify: {effects: []}}\nhooks: [{event: Notify, action: {type: abort}}]\n";
    let c = compile(&[Input::new("p.yaml", text)]);
    let d = only(&c, Code::EffectNotAllowed);
    assert!(d.notes[0].ends_with("and allows no effect"), "{d:#?}");
    // `an` before a vowel (issue 35, defect 6: it said "a `await`").
    let text = "action_types: {wait: {effect: await}}\nevents: {Notify: {effects: [terminal]}}\n\
                hooks: [{id: w, event: Notify, action: {type: wait}}]\n";
    let c = compile(&[Input::new("p.yaml", text)]);
    let d = only(&c, Code::EffectNotAllowed);
    assert_eq!(
        d.message,
        "hook `w` has an `await` action (`wait`), which event `Notify` does not allow"
    );
    assert_eq!(d.label.as_deref(), Some("an `await` action"));
}

#[test]
fn undeclared_events_are_errors_with_a_suggestion_and_w0006_steps_aside() {
    let c = with_hooks("  - {id: t, event: [Stop, PreTooluse], action: {type: log}}\n");
    let d = only(&c, Code::UndeclaredEvent);
    assert_eq!(
        d.message,
        "hook `t` listens to event `PreTooluse`, which the policy does not declare"
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `PreToolUse`?"));
    assert_eq!(d.node_path.as_deref(), Some("hooks[0].event[1]"));
    // Without a declaration, an event named once is W0006, as before.
    let c = compile(&[Input::new(
        "p.yaml",
        "hooks: [{event: PreTooluse, action: {type: abort}}]\n",
    )]);
    only(&c, Code::UnknownEvent);
    // With one, a declared event no other hook names is fine.
    let text = "events: {PreTooluse: {}}\nhooks: [{event: PreTooluse, action: {type: abort}}]\n";
    assert!(compile(&[Input::new("p.yaml", text)])
        .diagnostics
        .is_empty());
}

#[test]
fn declarations_of_several_files_merge() {
    let a = Input::new("a.yaml", "events: {PreToolUse: {effects: [terminal]}}\n");
    let b = Input::new(
        "b.yaml",
        "events: {Stop: {}, PreToolUse: {effects: [terminal]}}\nhooks: [{event: [PreToolUse, Stop], action: {type: abort}}]\n",
    );
    let c = compile(&[a.clone(), b]);
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let names: Vec<&str> = c
        .policy
        .as_ref()
        .unwrap()
        .events()
        .iter()
        .map(|e| e.name())
        .collect();
    assert_eq!(names, ["PreToolUse", "Stop"]);
    // Declared differently: E0110, naming the first declaration.
    let b = Input::new("b.yaml", "events: {PreToolUse: {effects: [collected]}}\n");
    let c = compile(&[a, b]);
    let d = only(&c, Code::DuplicateDefinition);
    assert_eq!(
        d.message,
        "event `PreToolUse` is declared twice, differently"
    );
    assert!(
        d.notes[0].starts_with("first declared at a.yaml:1:"),
        "{d:#?}"
    );
}

#[test]
fn directive_xml_declares_the_same_as_yaml() {
    let yaml = r#"
events:
  PreToolUse:
    description: before a tool runs
    context: {properties: {tool_input: {type: object}}, required: [tool_input]}
    effects: [terminal, collected]
  PostToolUse: {effects: [collected]}
"#;
    let xml = r#"<directive><hooks>
  <event name="PreToolUse" effects="terminal, collected" description="before a tool runs">
    <context>{"properties": {"tool_input": {"type": "object"}}, "required": ["tool_input"]}</context>
  </event>
  <event name="PostToolUse" effects="collected"/>
  <hook id="h" event="PreToolUse" when="tool_input.x == 1"><abort/></hook>
</hooks></directive>"#;
    let c = compile(&[Input::new("p.xml", xml)]);
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let from_xml = hookc::normalize::normalized(c.policy.as_ref().unwrap());
    let hooks =
        "hooks: [{id: h, event: PreToolUse, when: \"tool_input.x == 1\", action: {type: abort}}]\n";
    let c = compile(&[Input::new("p.yaml", format!("{yaml}{hooks}"))]);
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let from_yaml = hookc::normalize::normalized(c.policy.as_ref().unwrap());
    assert_eq!(from_xml, from_yaml);
    // The same declaration in both is one.
    let c = compile(&[Input::new("p.yaml", yaml), Input::new("p.xml", xml)]);
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    // XML problems: no name, JSON that is not, a misspelt effect.
    let bad = r#"<d><hooks>
  <event effects="collected"/>
  <event name="A"><context>{properties: 1}</context></event>
  <event name="B" effects="colected"/>
</hooks></d>"#;
    let c = compile(&[Input::new("p.xml", bad)]);
    let found = codes(&c);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].0, Code::MissingKey);
    assert!(
        found[1].1.starts_with("`<context>` is not JSON"),
        "{found:#?}"
    );
    assert_eq!(
        found[2].1,
        "an effect is one of `terminal`, `collected`, `transform`, `await`, found `colected`"
    );
    let twice = r#"<d><hooks><event name="A"><context>{}</context><context>{}</context><x/></event></hooks></d>"#;
    let c = compile(&[Input::new("p.xml", twice)]);
    let found = codes(&c);
    assert_eq!(
        found,
        [
            (
                Code::DuplicateKey,
                "`<event>` has two `<context>` elements".to_owned()
            ),
            (
                Code::UnknownKey,
                "unexpected element `<x>` in `<event>`".to_owned()
            ),
        ]
    );
    // A misspelt `<event>` in `<hooks>` gets a suggestion.
    let c = compile(&[Input::new(
        "p.xml",
        r#"<d><hooks><evnt name="A"/></hooks></d>"#,
    )]);
    let d = only(&c, Code::UnknownKey);
    assert_eq!(d.help.as_deref(), Some("did you mean `event`?"));
}

#[test]
fn declaration_mistakes_are_reported() {
    let cases = [
        ("events: [PreToolUse]\n", Code::WrongShape),
        ("events: {PreToolUse: [terminal]}\n", Code::WrongShape),
        (
            "events: {PreToolUse: {efects: [terminal]}}\n",
            Code::UnknownKey,
        ),
        (
            "events: {PreToolUse: {effects: terminal}}\n",
            Code::WrongShape,
        ),
        (
            "events: {PreToolUse: {effects: [block]}}\n",
            Code::WrongShape,
        ),
        ("events: {\"*\": {}}\n", Code::WrongShape),
        (
            "events: {A: {context: {type: string}}}\n",
            Code::ContextSchema,
        ),
        (
            "events: {A: {context: {items: {type: string}}}}\n",
            Code::ContextSchema,
        ),
        (
            "events: {A: {context: {propertes: {}}}}\n",
            Code::ContextSchema,
        ),
        ("events: {A: {context: [1]}}\n", Code::ContextSchema),
    ];
    for (text, code) in cases {
        let c = compile(&[Input::new("p.yaml", text)]);
        let found = codes(&c);
        assert_eq!(found.len(), 1, "{text}: {found:#?}");
        assert_eq!(found[0].0, code, "{text}: {found:#?}");
    }
    let c = compile(&[Input::new(
        "p.yaml",
        "events: {PreToolUse: {efects: [terminal]}}\n",
    )]);
    assert_eq!(
        c.diagnostics.iter().next().unwrap().help.as_deref(),
        Some("did you mean `effects`?")
    );
}

#[test]
fn declarations_change_no_artifact_byte() {
    let hooks = r#"
hooks:
  - {id: a, event: PreToolUse, when: "tool_input.command == 'rm'", action: {type: abort}}
  - {id: b, event: Stop, action: {type: continue}}
"#;
    let plain = compile(&[Input::new("p.yaml", hooks)]);
    assert!(!plain.diagnostics.has_errors());
    let events = "events:\n  PreToolUse: {context: {properties: {tool_input: {type: object}}}, effects: [terminal]}\n  Stop: {}\n";
    let declared = compile(&[Input::new("p.yaml", format!("{events}{hooks}"))]);
    assert!(declared.diagnostics.is_empty(), "{:#?}", codes(&declared));
    let bytes = |c: &Compilation| {
        hookc_runtime::artifact::encode(&hookc::lower::lower(c.policy.as_ref().unwrap()))
    };
    assert_eq!(bytes(&plain), bytes(&declared));
}

#[test]
fn normalized_output_keeps_the_declarations_and_compiles_to_the_same() {
    let c =
        with_hooks("  - {id: h, event: PreToolUse, action: {type: log, note: \"${tool_name}\"}}\n");
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let first = hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap();
    assert!(first.contains("events:"), "{first}");
    let again = compile(&[Input::new("n.yaml", first.clone())]);
    assert!(again.diagnostics.is_empty(), "{:#?}", codes(&again));
    assert_eq!(
        hookc::normalize::to_yaml(again.policy.as_ref().unwrap()).unwrap(),
        first
    );
}

#[test]
fn w0007_honours_required_in_the_schema() {
    // `tool_name` is required on PreToolUse: guaranteed there, not on Stop.
    let c = with_hooks(
        "  - {id: pre, event: PreToolUse, action: {type: log, note: \"${tool_name}\"}}\n",
    );
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let c = with_hooks(
        "  - {id: both, event: [PreToolUse, Stop], action: {type: log, note: \"${tool_name}\"}}\n",
    );
    assert!(
        codes(&c)
            .iter()
            .any(|(code, _)| *code == Code::UnguardedTemplate),
        "{:#?}",
        codes(&c)
    );
    // In the shared schema, every step of the path must be required.
    let shared = |required_inner: &str| {
        format!(
            r#"
event_context_schema:
  type: object
  required: [error]
  properties:
    error: {{type: object, required: [{required_inner}], properties: {{code: {{type: string}}, message: {{type: string}}}}}}
hooks:
  - {{event: error, action: {{type: fail, error_message: "${{error.code}}"}}}}
"#
        )
    };
    let c = compile(&[Input::new("p.yaml", shared("code"))]);
    assert!(c.diagnostics.is_empty(), "{:#?}", codes(&c));
    let c = compile(&[Input::new("p.yaml", shared("message"))]);
    only(&c, Code::UnguardedTemplate);
}
