//! Host profiles: the declarations of each agent host hookc plugs into
//! (its events with their payload schemas, its tool names, its decision
//! words as action types), shipped as hook files of declarations
//! (`src/hosts/NAME.yaml`, embedded). A policy that says `host: NAME` is
//! compiled with its host's profile as if the profile were given first, as
//! declarations only (`docs/src/hosts/index.md`).

/// The hosts hookc has a profile for, by name.
pub const NAMES: &[&str] = &["claude-code", "codex", "gemini-cli", "cursor", "copilot"];

/// The profile's file name in diagnostics: `<host claude-code>`.
pub fn profile_name(host: &str) -> String {
    format!("<host {host}>")
}

/// The text of `host`'s profile; `None` for a host hookc has none for.
pub fn profile(host: &str) -> Option<&'static str> {
    match host {
        "claude-code" => Some(include_str!("hosts/claude-code.yaml")),
        "codex" => Some(include_str!("hosts/codex.yaml")),
        "gemini-cli" => Some(include_str!("hosts/gemini-cli.yaml")),
        "cursor" => Some(include_str!("hosts/cursor.yaml")),
        "copilot" => Some(include_str!("hosts/copilot.yaml")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_has_a_profile() {
        for name in NAMES {
            assert!(profile(name).is_some(), "{name}");
        }
        assert!(profile("gemini").is_none());
    }

    #[test]
    fn every_profile_compiles_without_a_finding() {
        for name in NAMES {
            let policy = format!("host: {name}\nhooks: []\n");
            let c = crate::compile::compile(&[crate::compile::Input::new("p.yaml", policy)]);
            let found: Vec<_> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
            assert!(found.is_empty(), "{name}: {found:?}");
        }
    }

    fn codes(inputs: &[crate::compile::Input]) -> Vec<&'static str> {
        let c = crate::compile::compile(inputs);
        c.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn a_host_policy_is_checked_against_the_profile() {
        let input = |name: &str, text: &str| crate::compile::Input::new(name, text);
        // XML names its host on `<hooks>`; the profile's events apply.
        let xml = "<directive><hooks host=\"claude-code\">\
                   <hook event=\"PreTooluse\"><deny reason=\"no\"/></hook>\
                   </hooks></directive>";
        assert_eq!(codes(&[input("d.xml", xml)]), ["E0114"]);
        // Two files, two hosts.
        let a = input("a.yaml", "host: codex\nhooks: []\n");
        let b = input("b.yaml", "host: claude-code\nhooks: []\n");
        assert_eq!(codes(&[a.clone(), b]), ["E0115"]);
        // The same host twice is one profile.
        assert!(codes(&[a.clone(), a]).is_empty());
    }

    #[test]
    fn copilot_decides_where_its_reference_says_it_reads_an_answer() {
        let policy = |event: &str, action: &str| {
            let text = format!(
                "host: copilot\nhooks:\n  - id: h\n    event: {event}\n    action: {action}\n"
            );
            codes(&[crate::compile::Input::new("p.yaml", text)])
        };
        // preToolUse reads a permission and modified arguments; the parsed
        // `toolArgs` is typed.
        let deny = "{type: deny, reason: no}";
        assert!(policy("preToolUse", deny).is_empty());
        assert!(policy("permissionRequest", deny).is_empty());
        assert!(policy("agentStop", deny).is_empty());
        let rewrite = "{type: rewrite, patch: {toolArgs: {command: ls}}}";
        assert!(policy("preToolUse", rewrite).is_empty());
        assert!(policy("subagentStart", "{type: context, text: hi}").is_empty());
        // The events whose answer Copilot does not read take none.
        assert_eq!(
            policy("sessionStart", "{type: context, text: hi}"),
            ["E0406"]
        );
        assert_eq!(policy("userPromptSubmitted", deny), ["E0406"]);
        assert_eq!(policy("postToolUse", deny), ["E0406"]);
        // The PascalCase events are another payload format: not these.
        assert_eq!(policy("PreToolUse", deny), ["E0114"]);
    }

    #[test]
    fn permission_requests_take_what_their_hosts_read() {
        let policy = |host: &str, event: &str, action: &str| {
            let text = format!(
                "host: {host}\nhooks:\n  - id: h\n    event: {event}\n    action: {action}\n"
            );
            codes(&[crate::compile::Input::new("p.yaml", text)])
        };
        let rewrite = "{type: rewrite, patch: {tool_input: {command: ls}}}";
        let context = "{type: context, text: hi}";
        for host in ["claude-code", "codex"] {
            for word in ["allow", "deny", "ask"] {
                let action = format!("{{type: {word}, reason: why}}");
                assert!(policy(host, "PermissionRequest", &action).is_empty());
            }
            // PermissionRequest reads no additionalContext.
            assert_eq!(policy(host, "PermissionRequest", context), ["E0406"]);
        }
        // Claude Code reads updatedInput with an allow; Codex fails closed
        // on it.
        assert!(policy("claude-code", "PermissionRequest", rewrite).is_empty());
        assert_eq!(policy("codex", "PermissionRequest", rewrite), ["E0406"]);
        // A failed tool call cannot be blocked, only explained.
        assert!(policy("claude-code", "PostToolUseFailure", context).is_empty());
        let deny = "{type: deny, reason: no}";
        assert_eq!(policy("claude-code", "PostToolUseFailure", deny), ["E0406"]);
        assert_eq!(policy("codex", "PostToolUseFailure", context), ["E0114"]);
    }

    #[test]
    fn an_overlay_over_a_host_policy_gets_the_profile() {
        let base = crate::compile::Input::new("base.yaml", "host: codex\nhooks: []\n");
        let overlay = crate::compile::Input::new(
            "run.yaml",
            "hooks:\n  - {id: x, event: Stop, action: {type: deny, reason: later}}\n",
        );
        let layer = crate::compile::LayerName::new("run").unwrap();
        let c =
            crate::compile::compile_layers_with_declarations(&[base], &[(layer, vec![overlay])]);
        let found: Vec<_> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
        assert!(found.is_empty(), "{found:?}");
    }
}
