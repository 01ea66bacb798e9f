//! Errors as the addon throws them: a plain `Error` whose message starts
//! with a stable code (`HOOKC_CONTEXT: ...`), which the package's
//! `index.js` turns into its typed classes (`ContextError`, ...). The codes
//! are the shared layer's ([`hookc_binding::ErrorKind::code`]) and
//! `HOOKC_TYPE` for an argument of the wrong JavaScript type, a
//! `TypeError`.

use crate::js::Thrown;
use hookc_binding::BindingError;

/// An error of the addon.
#[derive(Debug)]
pub enum NodeError {
    /// An argument of the wrong JavaScript type.
    Type(String),
    /// A context that cannot be read.
    Context(String),
    /// A failure the shared layer reports.
    Binding(BindingError),
}

impl From<NodeError> for napi::Error {
    fn from(e: NodeError) -> napi::Error {
        let (code, message) = match e {
            NodeError::Type(m) => ("HOOKC_TYPE", m),
            NodeError::Context(m) => ("HOOKC_CONTEXT", m),
            NodeError::Binding(e) => (e.kind().code(), e.to_string()),
        };
        napi::Error::from_reason(format!("{code}: {message}"))
    }
}

/// A shared-layer failure, thrown.
pub fn fail(e: BindingError) -> napi::Error {
    NodeError::Binding(e).into()
}

/// A `TypeError` about an argument.
pub fn type_error(message: &str) -> napi::Error {
    NodeError::Type(message.to_owned()).into()
}

/// A JavaScript exception met while reading an argument, rethrown as a
/// context error with its message.
pub fn thrown(e: Thrown) -> napi::Error {
    NodeError::Context(format!("reading an argument threw: {}", e.0)).into()
}
