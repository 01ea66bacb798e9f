//! The README tables, from criterion's saved estimates: the median of every
//! `hookc/...` and `peers/<engine>/<mode>/...` benchmark, and each peer's
//! ratio to hookc on the same workload in the same run.

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

/// The workloads (`seed/<ctx>`, `scale/<n>/last`, `scale/mixed/<n>/last`,
/// ...) that hookc ran, in a readable order: seed, the uniform scale set by
/// size, each other scale family (`scale/<family>/<n>/...`) by size, the rest.
fn workloads(m: &Medians) -> Vec<String> {
    let mut w: Vec<String> = m
        .keys()
        .filter_map(|k| k.strip_prefix("hookc/").map(str::to_owned))
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
}
