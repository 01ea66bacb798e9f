//! [`StrMap`]: the string-keyed lookup of the hot path (event names,
//! dispatch tables), scanned when it has few keys and hashed otherwise.

use crate::accel::fnv::FnvMap;
use crate::value::same_str;

/// Maps with at most this many keys are searched key by key.
// PERF: comparing a string with a handful of keys (lengths first, which
// mostly differ) costs less than hashing it: callgrind put FNV hashing and
// the probe at ~55 instructions of a ~900-instruction seed evaluation for
// event names, and ~140 for a three-value dispatch table.
pub const SCAN_KEYS: usize = 8;

/// Strings to values: a scanned list of at most [`SCAN_KEYS`] entries, or an
/// FNV hash map.
#[derive(Debug, Clone, PartialEq)]
pub enum StrMap<V> {
    /// At most [`SCAN_KEYS`] entries, scanned.
    Few(Vec<(Box<str>, V)>),
    /// More, hashed.
    Many(FnvMap<String, V>),
}

impl<V> Default for StrMap<V> {
    fn default() -> StrMap<V> {
        StrMap::Few(Vec::new())
    }
}

impl<V> StrMap<V> {
    /// The map of `entries` (keys are distinct).
    pub fn new(entries: impl IntoIterator<Item = (String, V)>) -> StrMap<V> {
        let entries: Vec<(String, V)> = entries.into_iter().collect();
        if entries.len() <= SCAN_KEYS {
            StrMap::Few(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
        } else {
            StrMap::Many(entries.into_iter().collect())
        }
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&V> {
        match self {
            StrMap::Few(entries) => entries
                .iter()
                .find(|(k, _)| same_str(k, key))
                .map(|(_, v)| v),
            StrMap::Many(map) => map.get(key),
        }
    }

    /// Every value, in no particular order.
    pub fn values(&self) -> Box<dyn Iterator<Item = &V> + '_> {
        match self {
            StrMap::Few(entries) => Box::new(entries.iter().map(|(_, v)| v)),
            StrMap::Many(map) => Box::new(map.values()),
        }
    }

    /// Whether keys are found by a scan rather than through a hash map.
    pub fn is_scanned(&self) -> bool {
        matches!(self, StrMap::Few(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanned_and_hashed_maps_answer_alike() {
        for n in [0, 1, SCAN_KEYS, SCAN_KEYS + 1, 40] {
            let keys: Vec<String> = (0..n)
                .map(|i| "k".repeat(i % 5 + 1) + &i.to_string())
                .collect();
            let map = StrMap::new(keys.iter().cloned().zip(0..));
            assert_eq!(map.is_scanned(), n <= SCAN_KEYS, "n={n}");
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(map.get(k), Some(&i), "n={n} key={k}");
            }
            assert_eq!(map.get("absent"), None);
            assert_eq!(map.get(""), None);
            let mut values: Vec<usize> = map.values().copied().collect();
            values.sort_unstable();
            assert_eq!(values, (0..n).collect::<Vec<_>>());
        }
    }
}
