//! FNV-1a, a small fast hash for the short trusted-shape keys of the hot path
//! (event names, dispatch strings), where SipHash's DoS resistance buys
//! nothing: the tables are built from the policy, and a context's value is
//! only ever looked up, never inserted.

use std::hash::{BuildHasherDefault, Hasher};

/// The FNV-1a 64-bit hasher.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A `HashMap` with FNV-1a.
pub type FnvMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fnv>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_vectors() {
        let hash = |s: &[u8]| {
            let mut h = Fnv::default();
            h.write(s);
            h.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
