//! The built-in action vocabulary: the eight action types of `examples/thread-hooks/hooks.yaml`, read
//! through the same definition reader as files' `action_types`.

use super::define::read_type;
use super::ActionTypes;
use crate::diag::Diagnostics;
use crate::frontend::doc::Node;
use crate::span::{FileId, Span};

impl ActionTypes {
    /// The built-in action types, used when no file declares `action_types`.
    pub fn builtin() -> ActionTypes {
        // The built-in definitions are fixed and known valid (see the tests); a
        // diagnostic here would be a bug, and is dropped rather than shown.
        ActionTypes::from_builtin_json(&builtin_json(), &mut Diagnostics::new())
    }

    /// Action types read from definitions that count as built in.
    pub(super) fn from_builtin_json(
        json: &serde_json::Value,
        diags: &mut Diagnostics,
    ) -> ActionTypes {
        let node = Node::from_json(json, Span::new(FileId(u32::MAX), 0, 0));
        let types = node
            .as_map()
            .unwrap_or_default()
            .iter()
            .map(|(key, def)| read_type(key, def, diags))
            .collect();
        ActionTypes {
            types,
            declared: Vec::new(),
        }
    }
}

/// The `action_types` section of `examples/thread-hooks/hooks.yaml`, verbatim.
pub(super) fn builtin_json() -> serde_json::Value {
    serde_json::json!({
        "retry": {
            "description": "Retry the operation",
            "parameters": {
                "max_attempts": {"type": "integer", "default": 3},
                "backoff_policy": {
                    "type": "string",
                    "enum": ["exponential", "fixed", "inherit"],
                    "default": "inherit"
                },
                "delay": {"type": "number", "description": "For fixed backoff"}
            }
        },
        "fail": {
            "description": "Fail the thread",
            "parameters": {
                "error_message": {"type": "string", "optional": true}
            }
        },
        "abort": {
            "description": "Abort immediately (no cleanup)",
            "parameters": {}
        },
        "continue": {
            "description": "Continue to next/default behavior",
            "parameters": {}
        },
        "escalate": {
            "description": "Escalate to user/parent for approval",
            "parameters": {
                "target": {
                    "type": "string",
                    "enum": ["user_approval", "parent_notification", "both"]
                },
                "timeout_seconds": {"type": "integer", "default": 3600}
            }
        },
        "call_directive": {
            "description": "Execute another directive",
            "parameters": {
                "directive": {"type": "string", "required": true},
                "parameters": {"type": "object", "default": {}},
                "inherit_token": {"type": "boolean", "default": true}
            }
        },
        "suspend": {
            "description": "Suspend thread awaiting resume",
            "parameters": {
                "suspend_reason": {
                    "type": "string",
                    "enum": ["limit", "error", "budget", "approval"],
                    "required": true
                }
            }
        },
        "emit_event": {
            "description": "Emit custom transcript event",
            "parameters": {
                "event_type": {"type": "string", "required": true},
                "payload": {"type": "object", "default": {}}
            }
        }
    })
}
