//! The verifier: a [`Program`] becomes a [`VerifiedProgram`] only after every
//! check the VM relies on has passed, whether the program came from the
//! compiler or from an artifact that travelled.
//!
//! (Being completed: today it compiles the regexes and hashes the sets; the
//! structural checks of SPEC §5 follow.)

use crate::bytecode::Program;
use crate::value::ConstSet;
use thiserror::Error;

/// Why a program was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A regex of the table does not compile (or is over the size limit).
    #[error("regex {index} (`{pattern}`) does not compile: {reason}")]
    BadRegex {
        /// Its index.
        index: usize,
        /// The pattern.
        pattern: String,
        /// The `regex` crate's reason.
        reason: String,
    },
    /// A set refers to a constant that is not a list.
    #[error("set {index} refers to constant {konst}, which is not a list")]
    BadSet {
        /// The set's index.
        index: usize,
        /// The constant it names.
        konst: u32,
    },
}

/// A program that passed verification, with its regexes compiled and its
/// sets hashed. The VM runs only these.
#[derive(Debug, Clone)]
pub struct VerifiedProgram {
    program: Program,
    regexes: Vec<regex::Regex>,
    sets: Vec<ConstSet>,
}

impl VerifiedProgram {
    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Compiled regex `i`.
    pub fn regex(&self, i: u32) -> Option<&regex::Regex> {
        self.regexes.get(i as usize)
    }

    /// Hashed set `i`.
    pub fn set(&self, i: u32) -> Option<&ConstSet> {
        self.sets.get(i as usize)
    }
}

/// Verifies a program.
pub fn verify(program: Program) -> Result<VerifiedProgram, VerifyError> {
    let regexes = program
        .regexes
        .iter()
        .enumerate()
        .map(|(index, pattern)| {
            crate::typeck::compile_regex(pattern).map_err(|reason| VerifyError::BadRegex {
                index,
                pattern: pattern.clone(),
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sets = program
        .sets
        .iter()
        .enumerate()
        .map(|(index, &konst)| match program.consts.get(konst as usize) {
            Some(serde_json::Value::Array(items)) => Ok(ConstSet::new(items)),
            _ => Err(VerifyError::BadSet { index, konst }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(VerifiedProgram {
        program,
        regexes,
        sets,
    })
}
