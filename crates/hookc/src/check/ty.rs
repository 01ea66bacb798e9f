//! Static types of the checker: which JSON kinds a value may have.
//!
//! A type is a set of kinds ([`Kinds`]) plus, where known, the schema node that
//! describes it (for field lookups and enums) and the element type of a list.
//! `any` is the full set: an operation is a type error only when no combination
//! of the operands' kinds is valid, so untyped (`any`) data never errors.
//! The schema reads its nodes into types, so this module is below it and
//! names a node only by its [`SchemaId`].

pub use hookc_runtime::bytecode::Kinds;
use std::fmt;

/// An index into the nodes of a
/// [`ContextSchema`](crate::check::schema::ContextSchema), which makes them:
/// a type names the schema node it comes from by this id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchemaId(pub(super) u32);

/// The static type of an expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Type {
    /// The kinds it may have.
    pub kinds: Kinds,
    /// The schema node describing it, when it comes from the context schema.
    pub schema: Option<SchemaId>,
    /// For lists built from literals, the element type.
    pub elem: Option<Box<Type>>,
}

impl Type {
    /// A type of the given kinds and nothing more known.
    pub const fn of(kinds: Kinds) -> Type {
        Type {
            kinds,
            schema: None,
            elem: None,
        }
    }

    /// `any`.
    pub const fn any() -> Type {
        Type::of(Kinds::ANY)
    }

    /// `bool`.
    pub const fn bool() -> Type {
        Type::of(Kinds::BOOL)
    }

    /// Union of two types (schema and element info kept only when equal).
    pub fn union(&self, other: &Type) -> Type {
        Type {
            kinds: self.kinds.or(other.kinds),
            schema: if self.schema == other.schema {
                self.schema
            } else {
                None
            },
            elem: if self.elem == other.elem {
                self.elem.clone()
            } else {
                None
            },
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kinds.fmt(f)
    }
}
