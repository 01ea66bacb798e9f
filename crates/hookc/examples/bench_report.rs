//! Summarizes a `cargo bench` run as Markdown tables: hookc against its
//! baselines, with ratios, and the performance targets of issue #4.
//!
//! ```sh
//! cargo bench --bench eval --bench scale --bench pipeline
//! cargo run --release --example bench_report            # reads target/criterion
//! cargo run --release --example bench_report -- DIR     # another criterion directory
//! ```
//!
//! It reads every `<DIR>/**/new/benchmark.json` (the bench id) and its
//! `estimates.json`, and reports the median time per iteration. Ids are the
//! ones `benches/README.md` lists; missing ids show as `–`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Median nanoseconds per iteration, by bench id.
type Times = BTreeMap<String, f64>;

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(default_dir, PathBuf::from);
    let mut times = Times::new();
    if let Err(e) = collect(&dir, &mut times) {
        eprintln!("error: cannot read `{}`: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    if times.is_empty() {
        eprintln!(
            "error: no criterion results under `{}`; run `cargo bench` first",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    print!("{}", report(&times));
    ExitCode::SUCCESS
}

fn default_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    target.join("criterion")
}

/// Every `new/benchmark.json` under `dir` with its `new/estimates.json`.
fn collect(dir: &Path, times: &mut Times) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "new") {
            if let Some((id, ns)) = read_result(&path) {
                times.insert(id, ns);
            }
        } else {
            collect(&path, times)?;
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn read_result(new: &Path) -> Option<(String, f64)> {
    let id = read_json(&new.join("benchmark.json"))?
        .get("full_id")?
        .as_str()?
        .to_owned();
    let ns = read_json(&new.join("estimates.json"))?
        .get("median")?
        .get("point_estimate")?
        .as_f64()?;
    Some((id, ns))
}

fn time(ns: Option<f64>) -> String {
    match ns {
        None => "–".to_owned(),
        Some(ns) if ns < 1e3 => format!("{ns:.0} ns"),
        Some(ns) if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        Some(ns) if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        Some(ns) => format!("{:.2} s", ns / 1e9),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? / b?)
}

fn show(r: Option<f64>) -> String {
    match r {
        None => "–".to_owned(),
        Some(r) if r < 0.1 => format!("{r:.4}×"),
        Some(r) => format!("{r:.2}×"),
    }
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => xs.get(n / 2).copied(),
        _ => Some((xs.get(n / 2 - 1)? + xs.get(n / 2)?) / 2.0),
    }
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "met",
        Some(false) => "**not met**",
        None => "not measured",
    }
}

fn report(t: &Times) -> String {
    let get = |id: String| t.get(&id).copied();
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };

    // Seed contexts, in id order.
    let seeds: Vec<String> = t
        .keys()
        .filter_map(|k| k.strip_prefix("eval/seed/")?.strip_suffix("/value"))
        .map(str::to_owned)
        .collect();

    line("## Seed set, context as a `serde_json::Value`\n".to_owned());
    line("Deciding (`find`: `Policy::decide`) against the same decision written by hand and by the reference tree-walker; then the full `evaluate` (decision plus the filled action) against the hand-written function that also builds the action.\n".to_owned());
    line("| context | find | hand find | find / hand | reference find | find / reference | eval (value) | fill | hand + action | eval / hand + action |".to_owned());
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|".to_owned());
    let (mut vs_hand, mut finds, mut hand_finds, mut ref_finds, mut evals, mut hands) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for s in &seeds {
        let value = get(format!("eval/seed/{s}/value"));
        let hand = get(format!("baseline/hand/seed/{s}"));
        let find = get(format!("eval/seed/{s}/find"));
        let hand_find = get(format!("baseline/hand/seed/{s}/find"));
        let ref_find = get(format!("baseline/reference/seed/{s}/find"));
        vs_hand.extend(ratio(find, hand_find));
        finds.extend(find);
        hand_finds.extend(hand_find);
        ref_finds.extend(ref_find);
        evals.extend(value);
        hands.extend(hand);
        line(format!(
            "| {s} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            time(find),
            time(hand_find),
            show(ratio(find, hand_find)),
            time(ref_find),
            show(ratio(find, ref_find)),
            time(value),
            time(get(format!("eval/seed/{s}/fill"))),
            time(hand),
            show(ratio(value, hand)),
        ));
    }
    let (m_find, m_hand, m_ref) = (median(finds), median(hand_finds), median(ref_finds));
    let (m_eval, m_hand_full) = (median(evals), median(hands));
    line(format!(
        "| **median** | {} | {} | {} (median of ratios {}) | {} | {} | {} | | {} | {} |",
        time(m_find),
        time(m_hand),
        show(ratio(m_find, m_hand)),
        show(median(vs_hand.clone())),
        time(m_ref),
        show(ratio(m_find, m_ref)),
        time(m_eval),
        time(m_hand_full),
        show(ratio(m_eval, m_hand_full)),
    ));

    line("\n## Seed set, context as JSON text\n".to_owned());
    line("| context | eval (json) | serde_json::from_str::<Value> alone | json / serde parse | json / value |".to_owned());
    line("|---|---:|---:|---:|---:|".to_owned());
    let mut vs_parse = Vec::new();
    for s in &seeds {
        let json = get(format!("eval/seed/{s}/json"));
        let parse = get(format!("baseline/serde_parse/seed/{s}"));
        vs_parse.extend(ratio(json, parse));
        line(format!(
            "| {s} | {} | {} | {} | {} |",
            time(json),
            time(parse),
            show(ratio(json, parse)),
            show(ratio(json, get(format!("eval/seed/{s}/value")))),
        ));
    }

    line("\n## Regex-heavy and template-heavy\n".to_owned());
    line("| input | eval (value) | eval (json) | find | fill | reference | eval / reference | serde parse | json / serde parse |".to_owned());
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|".to_owned());
    for input in ["regex_heavy", "template_heavy"] {
        let value = get(format!("eval/{input}/value"));
        let json = get(format!("eval/{input}/json"));
        let reference = get(format!("baseline/reference/{input}"));
        let parse = get(format!("baseline/serde_parse/{input}"));
        line(format!(
            "| {input} | {} | {} | {} | {} | {} | {} | {} | {} |",
            time(value),
            time(json),
            time(get(format!("eval/{input}/find"))),
            time(get(format!("eval/{input}/fill"))),
            time(reference),
            show(ratio(value, reference)),
            time(parse),
            show(ratio(json, parse)),
        ));
    }

    line("\n## Scale: N hooks on one event\n".to_owned());
    line("| N | last (value) | last (json) | none (value) | none (json) | reference last | reference none | last / last at N=10 | none / none at N=10 |".to_owned());
    line("|---:|---:|---:|---:|---:|---:|---:|---:|---:|".to_owned());
    let last10 = get("scale/10/last/value".to_owned());
    let none10 = get("scale/10/none/value".to_owned());
    for n in [10, 100, 1000, 10000] {
        let last = get(format!("scale/{n}/last/value"));
        let none = get(format!("scale/{n}/none/value"));
        line(format!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
            time(last),
            time(get(format!("scale/{n}/last/json"))),
            time(none),
            time(get(format!("scale/{n}/none/json"))),
            time(get(format!("baseline/reference/scale/{n}/last"))),
            time(get(format!("baseline/reference/scale/{n}/none"))),
            show(ratio(last, last10)),
            show(ratio(none, none10)),
        ));
    }

    line("\n## Pipeline stages\n".to_owned());
    line("| input | parse (YAML) | check | lower | load (decode+verify) | decode | from_artifact | compile (sources → artifact) |".to_owned());
    line("|---|---:|---:|---:|---:|---:|---:|---:|".to_owned());
    for input in [
        "seed_set",
        "policy_xml",
        "seed",
        "scale_10",
        "scale_100",
        "scale_1000",
        "scale_10000",
    ] {
        line(format!(
            "| {input} | {} | {} | {} | {} | {} | {} | {} |",
            time(get(format!("parse/yaml/{input}"))),
            time(get(format!("check/{input}"))),
            time(get(format!("lower/{input}"))),
            time(get(format!("load/{input}"))),
            time(get(format!("load/{input}/decode"))),
            time(get(format!("load/{input}/runtime"))),
            time(get(format!("compile/{input}"))),
        ));
    }
    let parses: Vec<String> = ["leaf", "compound", "macro"]
        .iter()
        .map(|e| format!("{e} {}", time(get(format!("parse/{e}")))))
        .collect();
    line(format!("\n`when` parser: {}.", parses.join(", ")));

    line("\n## Targets\n".to_owned());
    line("| target | measured | verdict |".to_owned());
    line("|---|---|---|".to_owned());
    let worst_hand = vs_hand.iter().copied().reduce(f64::max);
    line(format!(
        "| seed, value, finding the match: ≤ 1.0× hand-written on every context | worst {} | {} |",
        show(worst_hand),
        verdict(worst_hand.map(|r| r <= 1.0))
    ));
    let med_hand = median(vs_hand);
    line(format!(
        "| seed, value, finding the match: ≤ 0.7× hand-written on the median | median of ratios {}, ratio of medians {} | {} |",
        show(med_hand),
        show(ratio(m_find, m_hand)),
        verdict(med_hand.map(|r| r <= 0.7))
    ));
    let med_ref = ratio(m_find, m_ref);
    line(format!(
        "| seed, value, finding the match: ≤ 0.5× the reference evaluator's median | {} | {} |",
        show(med_ref),
        verdict(med_ref.map(|r| r <= 0.5))
    ));
    let worst_parse = vs_parse.iter().copied().reduce(f64::max);
    line(format!(
        "| seed, JSON text: faster than `serde_json::from_str::<Value>` alone | worst {} | {} |",
        show(worst_parse),
        verdict(worst_parse.map(|r| r < 1.0))
    ));
    let s1000 = get("scale/1000/last/value".to_owned());
    line(format!(
        "| scale 1,000, last hook: ≤ 1 µs | {} | {} |",
        time(s1000),
        verdict(s1000.map(|ns| ns <= 1_000.0))
    ));
    let growth = ratio(get("scale/10000/last/value".to_owned()), last10);
    line(format!(
        "| equality-dispatch set: 10,000 ≤ 3× its cost at 10 (last hook) | {} | {} |",
        show(growth),
        verdict(growth.map(|r| r <= 3.0))
    ));
    let build = get("compile/scale_10000".to_owned());
    line(format!(
        "| compile of 10,000 hooks < 0.5 s | {} | {} |",
        time(build),
        verdict(build.map(|ns| ns < 5e8))
    ));
    let load = get("load/scale_10000".to_owned());
    line(format!(
        "| load + verify of their artifact < 10 ms | {} | {} |",
        time(load),
        verdict(load.map(|ns| ns < 1e7))
    ));
    out
}
