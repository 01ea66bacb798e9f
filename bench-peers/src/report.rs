//! The README tables, from criterion's saved estimates: the median of every
//! `hookc/...` and `peers/<engine>/<mode>/...` benchmark, and each peer's
//! ratio to hookc on the same workload in the same run; the `random` family
//! (`random/<n>/<seed>/<ctx>`) in a table of its own, with ratios to hookc's
//! decision.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Median nanoseconds by full benchmark id.
pub type Medians = BTreeMap<String, f64>;

/// Every `<dir>/**/new/{benchmark,estimates}.json` under criterion's output
/// directory, by full id.
pub fn collect(dir: &Path) -> Medians {
    let mut out = Medians::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|n| n == "new") {
                let read = |f: &str| -> Option<Value> {
                    serde_json::from_str(&std::fs::read_to_string(path.join(f)).ok()?).ok()
                };
                let id = read("benchmark.json")
                    .and_then(|b| b.get("full_id")?.as_str().map(str::to_owned));
                let median = read("estimates.json")
                    .and_then(|e| e.get("median")?.get("point_estimate")?.as_f64());
                if let (Some(id), Some(m)) = (id, median) {
                    out.insert(id, m);
                }
            } else {
                stack.push(path);
            }
        }
    }
    out
}

/// A duration for a table cell.
pub fn human(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{:.2} ms", ns / 1_000_000.0)
    }
}

/// A ratio for a table cell.
pub fn ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else {
        format!("{r:.1}×")
    }
}

/// The id prefix of the `random` family, which [`random_table`] shows (and
/// the other tables leave out: only datalogic-rs is timed on it).
const RANDOM: &str = "random/";

/// The workloads (`seed/<ctx>`, `scale/<n>/last`, `scale/mixed/<n>/last`,
/// ...) that hookc ran, in a readable order: seed, the uniform scale set by
/// size, each other scale family (`scale/<family>/<n>/...`) by size, the rest.
fn workloads(m: &Medians) -> Vec<String> {
    let mut w: Vec<String> = m
        .keys()
        .filter_map(|k| k.strip_prefix("hookc/").map(str::to_owned))
        .filter(|w| !w.starts_with(RANDOM))
        .collect();
    let key = |s: &String| {
        let mut parts = s.split('/');
        let kind = parts.next().unwrap_or("");
        let rank = match kind {
            "seed" => 0,
            "scale" => 1,
            _ => 2,
        };
        let mut next = parts.next().unwrap_or("");
        // `scale/<n>/...` is the uniform family (""), `scale/mixed/<n>/...` a named one.
        let family = if rank == 1 && next.parse::<usize>().is_err() {
            let f = next;
            next = parts.next().unwrap_or("");
            f
        } else {
            ""
        };
        let n: usize = next.parse().unwrap_or(0);
        (rank, family.to_owned(), n, s.clone())
    };
    w.sort_by_key(key);
    w
}

/// One markdown table per mode: a row per workload, hookc's median, and each
/// engine's median with its ratio to hookc (`—` where the engine has no
/// result for the workload).
pub fn tables(m: &Medians, engines: &[&str], modes: &[&str]) -> String {
    let mut out = String::new();
    for mode in modes {
        let _ = writeln!(out, "Context {}:\n", mode_title(mode));
        let _ = write!(out, "| workload | hookc | hookc find-only |");
        for e in engines {
            let _ = write!(out, " {e} |");
        }
        out.push('\n');
        out.push_str("|---|---:|---:|");
        for _ in engines {
            out.push_str("---:|");
        }
        out.push('\n');
        for w in workloads(m) {
            let Some(h) = m.get(&format!("hookc/{w}")) else {
                continue;
            };
            let find = m
                .get(&format!("hookc-find/{w}"))
                .map_or("—".to_owned(), |f| human(*f));
            let _ = write!(out, "| `{w}` | {} | {find} |", human(*h));
            for e in engines {
                match m.get(&format!("peers/{e}/{mode}/{w}")) {
                    Some(p) => {
                        let _ = write!(out, " {} ({}) |", human(*p), ratio(p / h));
                    }
                    None => out.push_str(" — |"),
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn mode_title(mode: &str) -> &str {
    match mode {
        "preconverted" => "pre-converted to the engine's own value type (hookc: its `serde_json::Value`)",
        "convert" => "converted from the `serde_json::Value` on every call (hookc: reads the `serde_json::Value` directly)",
        other => other,
    }
}

/// Each engine and mode's smallest ratio to hookc over the seed contexts and
/// over the other workloads, against `Policy::evaluate` (`hookc/...`) and
/// against the faster of it and the find-only loop (`hookc-find/...`).
pub fn summary(m: &Medians, engines: &[&str], modes: &[&str]) -> String {
    let mut out = String::from(
        "| engine | mode | min ratio to `evaluate`, seed contexts | same, other workloads | min ratio to hookc's faster path, seed contexts | same, other workloads |\n|---|---|---:|---:|---:|---:|\n",
    );
    for e in engines {
        for mode in modes {
            let mut mins = [f64::INFINITY; 4];
            for w in workloads(m) {
                let (Some(h), Some(p)) = (
                    m.get(&format!("hookc/{w}")),
                    m.get(&format!("peers/{e}/{mode}/{w}")),
                ) else {
                    continue;
                };
                let best = m.get(&format!("hookc-find/{w}")).map_or(*h, |f| f.min(*h));
                let other = usize::from(!w.starts_with("seed/"));
                mins[other] = mins[other].min(p / h);
                mins[2 + other] = mins[2 + other].min(p / best);
            }
            let cell = |r: f64| {
                if r.is_finite() {
                    ratio(r)
                } else {
                    "—".into()
                }
            };
            let _ = writeln!(
                out,
                "| {e} | {mode} | {} | {} | {} | {} |",
                cell(mins[0]),
                cell(mins[1]),
                cell(mins[2]),
                cell(mins[3])
            );
        }
    }
    out
}

/// The `random` family's workloads (`random/<n>/<seed>/<ctx>`), by size,
/// seed and context.
fn random_workloads(m: &Medians) -> Vec<String> {
    let mut w: Vec<String> = m
        .keys()
        .filter_map(|k| k.strip_prefix("hookc/"))
        .filter(|w| w.starts_with(RANDOM))
        .map(str::to_owned)
        .collect();
    let key = |s: &String| {
        let parts: Vec<&str> = s.split('/').collect();
        let num = |i: usize| {
            parts
                .get(i)
                .and_then(|p| p.parse::<u64>().ok())
                .unwrap_or(0)
        };
        (
            num(1),
            num(2),
            parts.get(3).map_or(String::new(), |c| (*c).to_owned()),
        )
    };
    w.sort_by_key(key);
    w
}

/// The `random` family's table: a row per workload, hookc's `evaluate` and
/// decision (`hookc-find`), datalogic-rs pre-converted and the tree-walker,
/// each with its ratio to hookc's decision (what they compute: the hook,
/// no action); then, per size, each one's smallest ratio. Empty when the
/// family was not run.
pub fn random_table(m: &Medians) -> String {
    let rows = random_workloads(m);
    if rows.is_empty() {
        return String::new();
    }
    let peers = [
        ("datalogic (pre-converted)", "peers/datalogic/preconverted"),
        ("tree-walker", "tree-walker"),
    ];
    let mut out = String::from(
        "\nRandom policies of every shape (`random/<n>/<seed>/<ctx>`), ratios to hookc's decision:\n\n| workload | hookc | hookc find-only | datalogic (pre-converted) | tree-walker |\n|---|---:|---:|---:|---:|\n",
    );
    // Per size: the smallest ratio of each peer.
    let mut mins: BTreeMap<u64, [f64; 2]> = BTreeMap::new();
    for w in &rows {
        let cell = |id: String| m.get(&id).map_or("—".to_owned(), |v| human(*v));
        let find = m.get(&format!("hookc-find/{w}"));
        let _ = write!(
            out,
            "| `{w}` | {} | {} |",
            cell(format!("hookc/{w}")),
            cell(format!("hookc-find/{w}"))
        );
        let n = w
            .split('/')
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        for (i, (_, prefix)) in peers.iter().enumerate() {
            match (m.get(&format!("{prefix}/{w}")), find) {
                (Some(p), Some(f)) => {
                    let r = p / f;
                    let slot = mins.entry(n).or_insert([f64::INFINITY; 2]);
                    slot[i] = slot[i].min(r);
                    let _ = write!(out, " {} ({}) |", human(*p), ratio(r));
                }
                (Some(p), None) => {
                    let _ = write!(out, " {} |", human(*p));
                }
                _ => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    out.push_str("\n| hooks | min ratio, datalogic (pre-converted) | min ratio, tree-walker |\n|---:|---:|---:|\n");
    for (n, [d, t]) in mins {
        let cell = |r: f64| {
            if r.is_finite() {
                ratio(r)
            } else {
                "—".into()
            }
        };
        let _ = writeln!(out, "| {n} | {} | {} |", cell(d), cell(t));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_are_ordered_by_kind_family_and_size() {
        let ids = [
            "template_heavy",
            "scale/mixed/1000/last",
            "scale/1000/none",
            "scale/mixed/10/none",
            "scale/100/last",
            "seed/limit_none",
            "scale/mixed/100/last",
            "scale/10/last",
            "scale/mixed/10/last",
            "random/10/1/none",
        ];
        let m: Medians = ids.iter().map(|id| (format!("hookc/{id}"), 1.0)).collect();
        assert_eq!(
            workloads(&m),
            [
                "seed/limit_none",
                "scale/10/last",
                "scale/100/last",
                "scale/1000/none",
                "scale/mixed/10/last",
                "scale/mixed/10/none",
                "scale/mixed/100/last",
                "scale/mixed/1000/last",
                "template_heavy",
            ]
        );
    }

    #[test]
    fn random_table_orders_by_size_seed_and_context_with_ratios_to_the_decision() {
        let mut m = Medians::new();
        for (w, find) in [
            ("random/1000/2/last", 400.0),
            ("random/10/2/none", 50.0),
            ("random/10/1/random-0", 100.0),
            ("random/1000/1/none", 200.0),
        ] {
            m.insert(format!("hookc/{w}"), find * 2.0);
            m.insert(format!("hookc-find/{w}"), find);
            m.insert(format!("peers/datalogic/preconverted/{w}"), find * 3.0);
            m.insert(format!("tree-walker/{w}"), find * 10.0);
        }
        m.insert("hookc/seed/error_none".into(), 1.0);
        assert_eq!(
            random_workloads(&m),
            [
                "random/10/1/random-0",
                "random/10/2/none",
                "random/1000/1/none",
                "random/1000/2/last",
            ]
        );
        let t = random_table(&m);
        assert!(
            t.contains("| `random/10/2/none` | 100 ns | 50 ns | 150 ns (3.0×) | 500 ns (10.0×) |"),
            "{t}"
        );
        assert!(t.contains("| 1000 | 3.0× | 10.0× |"), "{t}");
        assert!(!tables(&m, &["datalogic"], &["preconverted"]).contains("random/"));
    }
}
