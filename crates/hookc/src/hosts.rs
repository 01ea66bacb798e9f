//! Host profiles: the declarations of each agent host hookc plugs into
//! (its events with their payload schemas, its tool names, its decision
//! words as action types), shipped as hook files of declarations
//! (`src/hosts/NAME.yaml`, embedded). A policy that says `host: NAME` is
//! compiled with its host's profile as if the profile were given first, as
//! declarations only (`docs/src/hosts/index.md`).

/// The hosts hookc has a profile for, by name.
pub const NAMES: &[&str] = &["claude-code", "codex"];

/// The profile's file name in diagnostics: `<host claude-code>`.
pub fn profile_name(host: &str) -> String {
    format!("<host {host}>")
}

/// The text of `host`'s profile; `None` for a host hookc has none for.
pub fn profile(host: &str) -> Option<&'static str> {
    match host {
        "claude-code" => Some(include_str!("hosts/claude-code.yaml")),
        "codex" => Some(include_str!("hosts/codex.yaml")),
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
}
