//! Typed indexes into a [`Program`](super::Program)'s tables, and code
//! positions.
//!
//! Every table index of the bytecode is a `u32`, and six different tables
//! are indexed; a newtype per table (as regex-automata's `StateID`) makes
//! handing a path index to the constant pool a type error instead of a
//! verifier rejection at best. Each is a `Copy` `u32`, so `Op` keeps its
//! size, and the artifact writes it as the plain number (the format does
//! not change). `Debug` and `Display` print the bare number, as the `u32`
//! did: explain output and the disassembly show indexes that way.

use std::fmt;

/// Declares a `u32` index newtype.
macro_rules! index_type {
    ($( $(#[$meta:meta])* $name:ident; )+) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The index `i`.
            #[inline(always)]
            pub const fn new(i: u32) -> $name {
                $name(i)
            }

            /// The number.
            #[inline(always)]
            pub const fn as_u32(self) -> u32 {
                self.0
            }

            /// The number, for indexing a `Vec` (`u32` always fits `usize`
            /// on the targets hookc supports, as the `as usize` casts it
            /// replaces assumed).
            #[inline(always)]
            pub const fn as_usize(self) -> usize {
                self.0 as usize
            }

            /// The index of the `i`th entry of a table, saturated at
            /// `u32::MAX`: tables are bounded far below that, and a
            /// saturated index is out of bounds, which the verifier rejects.
            #[inline]
            pub fn from_usize(i: usize) -> $name {
                $name(u32::try_from(i).unwrap_or(u32::MAX))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    )+};
}

index_type! {
    /// An index into [`Program::strings`](super::Program::strings).
    StrIdx;
    /// An index into [`Program::paths`](super::Program::paths).
    PathIdx;
    /// An index into the constant pool, [`Program::consts`](super::Program::consts).
    ConstIdx;
    /// An index into [`Program::sets`](super::Program::sets).
    SetIdx;
    /// An index into [`Program::regexes`](super::Program::regexes).
    RegexIdx;
    /// An index into [`Program::actions`](super::Program::actions).
    ActionIdx;
    /// An index into [`Program::tables`](super::Program::tables).
    TableIdx;
    /// An absolute position in [`Program::code`](super::Program::code) that
    /// an instruction jumps to (within the same hook's code, forward).
    JumpTarget;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_print_as_numbers_and_saturate() {
        assert_eq!(format!("{:?} {}", PathIdx::new(3), ConstIdx::new(7)), "3 7");
        assert_eq!(StrIdx::from_usize(5).as_usize(), 5);
        assert_eq!(SetIdx::from_usize(usize::MAX).as_u32(), u32::MAX);
        assert_eq!(std::mem::size_of::<JumpTarget>(), 4);
    }
}
