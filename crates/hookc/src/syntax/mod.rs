//! The `when` expression language's syntax: a `logos` lexer and a hand-written
//! precedence-climbing parser following `grammar/expr.ebnf`.
//!
//! [`parse`] turns one expression's text into an [`ast::Expr`]; the text's
//! [`Origin`](crate::span::Origin) maps every node's span back into its file.

pub mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;

pub use parser::parse;
