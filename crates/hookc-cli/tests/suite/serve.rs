//! `hookc serve` played as its clients play it: the built `hookc` run on a
//! free loopback port (`Served`, killed when dropped, so a failing test
//! leaves no server behind), spoken to over plain sockets
//! (`serve_client`). Each host's golden payloads answered as `hookc hook`
//! answers them; `/health`; a broken request, a payload that is not JSON,
//! an oversized body, a slow client, unknown routes; a policy that changes
//! on disk, refused when bad, and swapped under load without a request
//! failing or seeing a mix of two versions; whole log lines under
//! concurrency. Every wait is bounded.

use crate::serve_client;

use serde_json::Value;
use serve_client::{Client, Served};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const HOOKC: &str = env!("CARGO_BIN_EXE_hookc");
/// The repository root: the guards are the guide's,
/// `examples/hosts/HOST/guard.yaml`, named from here as `hookc hook`'s
/// goldens name them.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const HOSTS_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hosts");
/// How long a test waits for a reload to show.
const RELOAD_WAIT: Duration = Duration::from_secs(20);

/// A fresh scratch directory of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Replaces `path` with `contents` at once (write, then rename), as an editor
/// or a deploy does: the server never sees half a file.
fn replace(path: &Path, contents: impl AsRef<[u8]>) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// `hookc serve ARGS...` from the repository root.
fn serve(args: &[&str]) -> Served {
    Served::start(HOOKC, args, Path::new(ROOT)).unwrap()
}

/// `/health`, as JSON.
fn health(served: &Served) -> Value {
    let response = served.client().unwrap().get("/health").unwrap();
    assert_eq!(response.status, 200);
    serde_json::from_slice(&response.body).unwrap()
}

/// Waits (bounded) until `/health` satisfies `done`; its last answer.
fn wait_health(served: &Served, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let now = health(served);
        if done(&now) {
            return now;
        }
        assert!(
            start.elapsed() < RELOAD_WAIT,
            "/health never changed: {now}\n{}",
            served.errors()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A Claude Code PreToolUse payload for a Bash `command`.
fn bash(command: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "s1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
    .into_bytes()
}

/// A Claude Code policy denying `rm` with `reason`.
fn deny_rm(reason: &str) -> String {
    format!(
        "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    \
         when: \"tool_input.command.startsWith('rm ')\"\n    \
         action: {{type: deny, reason: \"{reason}\"}}\n"
    )
}

/// The permission decision and reason of a Claude Code answer.
fn permission(body: &[u8]) -> (String, String) {
    let answer: Value = serde_json::from_slice(body).unwrap();
    let out = &answer["hookSpecificOutput"];
    (
        out["permissionDecision"].as_str().unwrap().to_owned(),
        out["permissionDecisionReason"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn every_host_answers_its_goldens_as_hookc_hook_does() {
    let mut hosts: Vec<PathBuf> = std::fs::read_dir(HOSTS_DATA)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("cases").is_dir())
        .collect();
    hosts.sort();
    assert!(hosts.len() >= 4, "{hosts:?}");
    for dir in hosts {
        let host = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let guard = format!("examples/hosts/{host}/guard.yaml");
        let served = serve(&[&guard]);
        let mut client = served.client().unwrap();
        let mut cases = 0;
        for entry in std::fs::read_dir(dir.join("cases")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let payload = std::fs::read(&path).unwrap();
            let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
            // A case `EVENT.NAME` is for a host whose payloads do not name
            // their event (GitHub Copilot): `?event=`, as `hookc hook
            // --event`.
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let route = match stem.split_once('.') {
                Some((event, _)) => format!("/hook/{host}?event={event}"),
                None => format!("/hook/{host}"),
            };
            // One connection for every case: keep-alive holds.
            let response = client.post(&route, &payload).unwrap();
            assert_eq!(response.status, 200, "{host} {}", path.display());
            let seen = format!(
                "exit {}\n{}",
                response.header("hookc-exit").unwrap(),
                response.text()
            );
            assert_eq!(seen, expected, "{host} {}", path.display());
            cases += 1;
        }
        assert!(cases > 0, "{host}");
    }
}

#[test]
fn health_names_the_policy_version() {
    let served = serve(&["examples/hosts/claude-code/guard.yaml"]);
    let now = health(&served);
    assert_eq!(now["status"], "ok");
    assert_eq!(now["policy"]["version"], 1);
    assert_eq!(now["policy"]["digest"].as_str().unwrap().len(), 16);
    // As many hooks as `hookc check` counts in the guard.
    let check = crate::hookc_command()
        .args(["check", "examples/hosts/claude-code/guard.yaml"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stderr);
    let hooks: u64 = said
        .split("checked: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no hook count in: {said}"));
    assert!(hooks > 10, "{said}");
    assert_eq!(now["policy"]["hooks"], hooks);
    assert_eq!(now["refused"], 0);
}

#[test]
fn unknown_routes_and_hosts_are_404_and_other_methods_405() {
    let served = serve(&["examples/hosts/claude-code/guard.yaml"]);
    let mut client = served.client().unwrap();
    for path in [
        "/",
        "/hook",
        "/hook/",
        "/hook/claude-code/x",
        "/hooks/codex",
    ] {
        assert_eq!(client.post(path, b"{}").unwrap().status, 404, "{path}");
    }
    let unknown = client.post("/hook/vscode", b"{}").unwrap();
    assert_eq!(unknown.status, 404);
    assert!(unknown.text().contains("claude-code"), "{}", unknown.text());
    let get = client.get("/hook/claude-code").unwrap();
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST"));
    let post = client.post("/health", b"{}").unwrap();
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET"));
}

#[test]
fn a_remote_address_needs_allow_remote() {
    let out = crate::hookc_command()
        .args(["serve", "--addr", "0.0.0.0:0"])
        .arg(Path::new(ROOT).join("examples/hosts/claude-code/guard.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("--allow-remote"),
        "{stderr}"
    );
}

#[test]
fn a_policy_that_does_not_load_at_start_is_an_error() {
    let out = crate::hookc_command()
        .args(["serve", "--addr", "127.0.0.1:0", "/no/such/policy.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the policy does not load"), "{stderr}");
}

#[test]
fn malformed_http_is_refused_and_the_server_goes_on() {
    let served = serve(&["examples/hosts/claude-code/guard.yaml"]);
    let mut broken = served.client().unwrap();
    broken.send(b"THIS IS NOT HTTP\r\n\r\n").unwrap();
    let response = broken.read_response().unwrap();
    assert_eq!(response.status, 400);
    assert!(broken.is_closed());

    // A head past the bound: 431.
    let mut huge = served.client().unwrap();
    let filler = "x".repeat(70 * 1024);
    huge.send(format!("GET /health HTTP/1.1\r\nx-filler: {filler}\r\n\r\n").as_bytes())
        .unwrap();
    assert_eq!(huge.read_response().unwrap().status, 431);

    assert_eq!(post_claude(&served, &bash("rm -rf /")).status, 200);
}

#[test]
fn a_payload_not_json_is_answered_with_the_hosts_block() {
    let served = serve(&["examples/hosts/claude-code/guard.yaml"]);
    let mut client = served.client().unwrap();
    let response = client.post("/hook/claude-code", b"rm -rf /").unwrap();
    assert_eq!(response.status, 400);
    assert_eq!(response.header("hookc-exit"), Some("2"));
    let block: Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(block["continue"], false);
    assert!(block["stopReason"]
        .as_str()
        .unwrap()
        .contains("the payload is not JSON"));
    // Codex answers its block on standard output already: that is the body.
    let codex = client.post("/hook/codex", b"[1, 2]").unwrap();
    assert_eq!(codex.status, 400);
    assert_eq!(codex.header("hookc-exit"), Some("0"));
    assert!(
        codex.text().contains("not a JSON object"),
        "{}",
        codex.text()
    );
    // The connection survives a bad payload.
    assert_eq!(
        client
            .post("/hook/claude-code", &bash("ls"))
            .unwrap()
            .status,
        200
    );
}

/// A policy file in `dir` whose one hook on `event` fails its evaluation
/// (`tool_input.timeout` is absent, and the policy says such an error
/// fails); its path.
fn failing_on(dir: &Path, event: &str) -> String {
    let path = dir.join(format!("{event}.yaml"));
    std::fs::write(
        &path,
        format!(
            "host: claude-code\non_error: fail\nhooks:\n  - id: depth\n    event: {event}\n    \
             when: \"tool_input.timeout > 10\"\n    action: {{type: deny, reason: slow}}\n"
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

/// One `POST /hook/claude-code` on a new connection.
fn post_claude(served: &Served, payload: &[u8]) -> serve_client::Response {
    served
        .client()
        .unwrap()
        .post("/hook/claude-code", payload)
        .unwrap()
}

#[test]
fn an_evaluation_error_is_a_block_claude_code_acts_on() {
    let dir = scratch("eval-error");
    let policy = failing_on(&dir, "PreToolUse");
    let response = post_claude(&serve(&[policy.as_str()]), &bash("ls"));
    // `hookc hook` exits 2; over HTTP only a 200 with a deny blocks.
    assert_eq!(response.status, 200);
    assert_eq!(response.header("hookc-exit"), Some("2"));
    let (word, reason) = permission(&response.body);
    assert_eq!(word, "deny");
    assert!(reason.contains("could not decide PreToolUse"), "{reason}");

    // A Stop blocks with `decision: block`.
    let stop = br#"{"hook_event_name": "Stop", "stop_hook_active": false}"#;
    let answer = post_claude(&serve(&[failing_on(&dir, "Stop").as_str()]), stop);
    let block: Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(block["decision"], "block", "{block}");
    assert!(block["reason"]
        .as_str()
        .unwrap()
        .contains("could not decide Stop"));

    // --fail-open: no decision, exit 0.
    let response = post_claude(&serve(&[policy.as_str(), "--fail-open"]), &bash("ls"));
    assert_eq!(response.status, 200);
    assert_eq!(response.header("hookc-exit"), Some("0"));
    assert!(response.body.is_empty());
}

#[test]
fn an_oversized_body_is_413_without_being_read() {
    let served = serve(&["examples/hosts/claude-code/guard.yaml"]);
    let mut client = served.client().unwrap();
    // The head alone: the server answers from its content-length.
    client
        .send(b"POST /hook/claude-code HTTP/1.1\r\nhost: x\r\ncontent-length: 9000000\r\n\r\n")
        .unwrap();
    let response = client.read_response().unwrap();
    assert_eq!(response.status, 413);
    assert!(response.text().contains("larger than"));

    // Sent without a length (chunked), it is cut off past the bound.
    let mut chunked = served.client().unwrap();
    chunked
        .send(b"POST /hook/claude-code HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = vec![b' '; 1 << 20];
    let mut sent = 0;
    let mut head = format!("{:x}\r\n", chunk.len()).into_bytes();
    head.extend_from_slice(&chunk);
    head.extend_from_slice(b"\r\n");
    while sent < 9 && chunked.send(&head).is_ok() {
        sent += 1;
    }
    let _ = chunked.send(b"0\r\n\r\n");
    match chunked.read_response() {
        Ok(response) => assert_eq!(response.status, 413),
        // Reset before the answer could be read: cut off all the same.
        Err(e) => assert_ne!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}"),
    }
    assert_eq!(served.client().unwrap().get("/health").unwrap().status, 200);
}

#[test]
fn a_slow_client_is_cut_off_and_blocks_nobody() {
    let served = serve(&[
        "examples/hosts/claude-code/guard.yaml",
        "--header-timeout-ms",
        "300",
        "--body-timeout-ms",
        "300",
    ]);
    let addr = served.addr;
    let fast = std::thread::spawn(move || {
        let mut client = Client::connect(addr).unwrap();
        for _ in 0..40 {
            let response = client.post("/hook/claude-code", &bash("rm -rf /")).unwrap();
            assert_eq!(response.status, 200);
            std::thread::sleep(Duration::from_millis(25));
        }
    });
    // Slowloris: the head, a byte every 50 ms, 3 s in all.
    let head = b"POST /hook/claude-code HTTP/1.1\r\nhost: x\r\nx-slow: 0123456789abcdef\r\n\r\n";
    let mut slow = served.client().unwrap();
    let mut sent = 0;
    for byte in head {
        if slow.send(&[*byte]).is_err() {
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(sent < head.len(), "the slow client sent its whole head");
    assert!(slow.is_closed());
    fast.join().unwrap();

    // A body that never comes: 408.
    let mut stalled = served.client().unwrap();
    stalled
        .send(b"POST /hook/claude-code HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{\"hook")
        .unwrap();
    assert_eq!(stalled.read_response().unwrap().status, 408);
}

#[test]
fn a_bad_policy_on_reload_is_refused_and_the_old_one_serves() {
    let dir = scratch("refused");
    let policy = dir.join("policy.yaml");
    std::fs::write(&policy, deny_rm("version A")).unwrap();
    let served = serve(&[policy.to_str().unwrap(), "--poll-ms", "20"]);
    let mut client = served.client().unwrap();
    let before = client.post("/hook/claude-code", &bash("rm -rf x")).unwrap();
    assert!(permission(&before.body).1.starts_with("version A"));

    replace(
        &policy,
        "host: claude-code\nhooks:\n  - {id: a, event: PreTooluse, action: {type: deny}}\n",
    );
    let now = wait_health(&served, |h| h["refused"] == 1);
    assert_eq!(now["policy"]["version"], 1);
    // New connections after each wait: a wait may outlast an idle
    // keep-alive one on a loaded machine.
    let during = post_claude(&served, &bash("rm -rf x"));
    // Status and body: the `date` header may tick between the two.
    assert_eq!((during.status, &during.body), (before.status, &before.body));
    assert!(served.errors().contains("refused"), "{}", served.errors());

    // A file that cannot be read is refused too.
    std::fs::remove_file(&policy).unwrap();
    wait_health(&served, |h| h["refused"] == 2);
    let after_removal = post_claude(&served, &bash("rm -rf x"));
    assert_eq!(
        (after_removal.status, &after_removal.body),
        (before.status, &before.body)
    );

    replace(&policy, deny_rm("version B"));
    let now = wait_health(&served, |h| h["policy"]["version"] == 2);
    assert_eq!(now["refused"], 2);
    let after = post_claude(&served, &bash("rm -rf x"));
    assert!(permission(&after.body).1.starts_with("version B"));
}

#[test]
fn reloads_under_load_lose_no_request_and_mix_no_versions() {
    const CLIENTS: usize = 4;
    const REWRITES: usize = 100;
    let dir = scratch("under-load");
    let policy = dir.join("policy.yaml");
    let (a, b) = (deny_rm("version A"), deny_rm("version B"));
    std::fs::write(&policy, &a).unwrap();
    let served = serve(&[policy.to_str().unwrap(), "--poll-ms", "5"]);
    let payload = bash("rm -rf x");
    let answer_a = served
        .client()
        .unwrap()
        .post("/hook/claude-code", &payload)
        .unwrap();
    replace(&policy, &b);
    wait_health(&served, |h| h["policy"]["version"] == 2);
    let answer_b = served
        .client()
        .unwrap()
        .post("/hook/claude-code", &payload)
        .unwrap();
    assert_ne!(answer_a.body, answer_b.body);

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (addr, stop, payload) = (served.addr, stop.clone(), payload.clone());
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).unwrap();
                let mut seen = Vec::new();
                // Bounded: the stop flag, or a generous cap.
                while !stop.load(std::sync::atomic::Ordering::Relaxed) && seen.len() < 1_000_000 {
                    seen.push(client.post("/hook/claude-code", &payload).map(|r| r.body));
                }
                seen
            })
        })
        .collect();
    for i in 0..REWRITES {
        replace(&policy, if i % 2 == 0 { &a } else { &b });
        std::thread::sleep(Duration::from_millis(40));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut total, mut from_a, mut from_b) = (0, 0, 0);
    for client in clients {
        for answer in client.join().unwrap() {
            let body = answer.expect("a request failed during reloads");
            total += 1;
            if body == answer_a.body {
                from_a += 1;
            } else if body == answer_b.body {
                from_b += 1;
            } else {
                panic!(
                    "an answer of neither version: {}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
    let now = health(&served);
    let version = now["policy"]["version"].as_u64().unwrap();
    eprintln!("{total} answers ({from_a} A, {from_b} B), version {version}");
    assert!(from_a > 0 && from_b > 0);
    // Rewrites were loaded while the clients ran. Not every one: each is
    // held for 8 polls, but four busy clients on two cores can delay the
    // poller past a rewrite and its undoing (A, B, A: no change to load),
    // which is right, so the bound asks for a tenth of them.
    assert!(
        version > 2 + REWRITES as u64 / 10,
        "{now}\n{}",
        served.errors()
    );
    assert_eq!(now["refused"], 0);
}

#[test]
fn the_log_gets_whole_lines_from_concurrent_requests() {
    const CLIENTS: usize = 4;
    const EACH: usize = 50;
    let dir = scratch("log");
    let log = dir.join("decisions.jsonl");
    let served = serve(&[
        "examples/hosts/claude-code/guard.yaml",
        "--log",
        log.to_str().unwrap(),
    ]);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let addr = served.addr;
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).unwrap();
                for j in 0..EACH {
                    let command = format!("rm -rf build-{i}-{j} {}", "x".repeat(4096));
                    let response = client.post("/hook/claude-code", &bash(&command)).unwrap();
                    assert_eq!(response.status, 200);
                }
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), CLIENTS * EACH);
    assert!(lines.iter().all(|l| l["hook"] == "no_rm_rf"));
}

#[test]
fn a_shadow_policy_is_logged_beside_the_live_one() {
    let dir = scratch("shadow");
    let log = dir.join("decisions.jsonl");
    let candidate = dir.join("candidate.yaml");
    std::fs::write(&candidate, "host: claude-code\nhooks: []\n").unwrap();
    let served = serve(&[
        "examples/hosts/claude-code/guard.yaml",
        "--log",
        log.to_str().unwrap(),
        "--shadow",
        candidate.to_str().unwrap(),
    ]);
    let mut client = Client::connect(served.addr).unwrap();
    let response = client.post("/hook/claude-code", &bash("rm -rf /")).unwrap();
    assert_eq!(response.status, 200);
    // The live answer, whatever the candidate (which decides nothing).
    assert!(response.text().contains("\"deny\""), "{}", response.text());
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["hook"], "no_rm_rf");
    assert_eq!(lines[1]["shadow"], true);
    assert_eq!(lines[1]["hook"], Value::Null);
    assert_eq!(lines[0]["decision_id"], lines[1]["decision_id"]);
    assert_ne!(lines[0]["policy_digest"], lines[1]["policy_digest"]);
}

#[test]
fn a_shadow_without_a_log_is_refused() {
    let out = crate::hookc_command()
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--shadow",
            "c.yaml",
            "p.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give `--log FILE`"),
        "{out:?}"
    );
}

#[test]
fn a_slow_host_action_stalls_only_its_own_requests() {
    let dir = scratch("slow-action");
    let policy = dir.join("slow.yaml");
    std::fs::write(
        &policy,
        "host: claude-code\nhooks:\n  - id: slow\n    event: PreToolUse\n    \
         when: \"tool_input.command == 'slow'\"\n    \
         action: {type: run, argv: [sleep, '3'], timeout_ms: 10000}\n  \
         - id: no_rm\n    event: PreToolUse\n    \
         when: \"tool_input.command.startsWith('rm ')\"\n    action: {type: deny}\n",
    )
    .unwrap();
    let served = serve(&[policy.to_str().unwrap()]);
    // More programs running than the machine has cores (and async workers).
    let slow: Vec<_> = (0..4)
        .map(|_| {
            let addr = served.addr;
            std::thread::spawn(move || {
                Client::connect(addr)
                    .unwrap()
                    .post("/hook/claude-code", &bash("slow"))
                    .unwrap()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut client = served.client().unwrap();
    for _ in 0..20 {
        let (word, _) = permission(
            &client
                .post("/hook/claude-code", &bash("rm -rf x"))
                .unwrap()
                .body,
        );
        assert_eq!(word, "deny");
    }
    assert_eq!(client.get("/health").unwrap().status, 200);
    // Answered while every program still runs.
    assert!(slow.iter().all(|t| !t.is_finished()));
    for thread in slow {
        let response = thread.join().unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.header("hookc-exit"), Some("0"));
    }
}

#[test]
fn an_artifact_is_reloaded_and_a_damaged_one_refused() {
    let dir = scratch("artifact");
    let compile = |name: &str, reason: &str| {
        let source = dir.join(format!("{name}.yaml"));
        std::fs::write(&source, deny_rm(reason)).unwrap();
        let out = dir.join(format!("{name}.hkb"));
        let status = crate::hookc_command()
            .arg("compile")
            .arg(&source)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
            .status;
        assert!(status.success());
        std::fs::read(out).unwrap()
    };
    let (a, b) = (compile("a", "version A"), compile("b", "version B"));
    let policy = dir.join("policy.hkb");
    std::fs::write(&policy, &a).unwrap();
    let served = serve(&[policy.to_str().unwrap(), "--poll-ms", "20"]);
    let reason = || permission(&post_claude(&served, &bash("rm -rf x")).body).1;
    assert!(reason().starts_with("version A"));

    // Half an artifact: refused, the old one serves.
    replace(&policy, b.get(..b.len() / 2).unwrap());
    wait_health(&served, |h| h["refused"] == 1);
    assert!(reason().starts_with("version A"));

    replace(&policy, &b);
    wait_health(&served, |h| h["policy"]["version"] == 2);
    assert!(reason().starts_with("version B"));
}
