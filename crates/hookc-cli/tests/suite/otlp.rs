//! `--otlp-endpoint` (`docs/src/hosts/teams.md`, "OpenTelemetry"): a
//! receiver on a loopback port (a plain `TcpListener` thread that records
//! each request and answers 200, 500 or nothing, and stops by itself)
//! reads what `hookc hook` and `hookc serve` post: one OTLP log record per
//! decision at `/v1/logs`, its attributes the log line's (the digest
//! `hookc disasm`'s, the decision id the `--log` line's), a masked member
//! hashed in the body, a shadow decision a second record of the same id,
//! the `OTEL_EXPORTER_OTLP_*HEADERS` as headers; and a collector that is
//! closed, answers 500 or hangs leaves the answer byte for byte as it is
//! without the flag, within the timeout (and the deadline).

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use prost::Message;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const GUARD: &str = "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.contains('rm ')\"\n    action: {type: deny, reason: no rm}\n  - id: ls_ok\n    event: PreToolUse\n    when: \"tool_input.command == 'ls'\"\n    action: {type: allow}\n";

/// How long a receiver lives at most: it stops by itself.
const RECEIVER_LIFE: Duration = Duration::from_secs(30);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-otlp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("guard.yaml"), GUARD).unwrap();
    dir
}

/// How the receiver answers.
#[derive(Clone, Copy, PartialEq)]
enum Answer {
    Ok,
    ServerError,
    /// Reads the request and never answers (until it stops).
    Hang,
}

/// One request the receiver read.
struct Posted {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Posted {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn records(&self) -> Vec<LogRecord> {
        let request = ExportLogsServiceRequest::decode(self.body.as_slice()).unwrap();
        assert_eq!(request.resource_logs.len(), 1);
        let resource = request.resource_logs[0].resource.clone().unwrap();
        let service = resource
            .attributes
            .iter()
            .find(|a| a.key == "service.name")
            .unwrap();
        assert_eq!(text(service.value.as_ref()), Some("hookc".to_owned()));
        request.resource_logs[0]
            .scope_logs
            .iter()
            .flat_map(|s| s.log_records.clone())
            .collect()
    }
}

/// A string or bool attribute's value, as text.
fn text(value: Option<&opentelemetry_proto::tonic::common::v1::AnyValue>) -> Option<String> {
    match value?.value.as_ref()? {
        Any::StringValue(s) => Some(s.clone()),
        Any::BoolValue(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A record's attribute, as text.
fn attr(record: &LogRecord, key: &str) -> Option<String> {
    record
        .attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| text(a.value.as_ref()))
}

/// A loopback OTLP receiver on a thread of its own.
struct Receiver {
    port: u16,
    posted: Arc<Mutex<Vec<Posted>>>,
}

impl Receiver {
    fn start(answer: Answer) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let posted = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&posted);
        std::thread::spawn(move || {
            let until = Instant::now() + RECEIVER_LIFE;
            let mut held = Vec::new();
            while Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => {
                        if let Some(request) = read_request(&stream) {
                            seen.lock().unwrap().push(request);
                        }
                        let mut stream = stream;
                        match answer {
                            Answer::Ok => {
                                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                            }
                            Answer::ServerError => {
                                let _ = stream.write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                            }
                            Answer::Hang => held.push(stream),
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Receiver { port, posted }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests read, once `n` of them are (bounded wait).
    fn wait_for(&self, n: usize) -> std::sync::MutexGuard<'_, Vec<Posted>> {
        let start = Instant::now();
        loop {
            let posted = self.posted.lock().unwrap();
            if posted.len() >= n || start.elapsed() > Duration::from_secs(10) {
                assert_eq!(posted.len(), n, "requests received");
                return posted;
            }
            drop(posted);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// One HTTP request from `stream`: head, then `content-length` bytes.
fn read_request(stream: &TcpStream) -> Option<Posted> {
    stream.set_nonblocking(false).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    assert!(line.starts_with("POST "), "{line}");
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (k, v) = header.split_once(':')?;
        headers.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))?
        .1
        .parse()
        .ok()?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Posted {
        path,
        headers,
        body,
    })
}

/// `hookc hook --host claude-code ARGS... guard.yaml` on a Bash `command`.
fn call(dir: &Path, args: &[&str], command: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut all = args.to_vec();
    all.push("guard.yaml");
    crate::bash_call_with(dir, &all, command, |c| {
        c.envs(env.iter().copied());
    })
    .wait_with_output()
    .unwrap()
}

fn log_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Nanoseconds of a log line's `time` (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
fn nanos(time: &str) -> u64 {
    let n = |r: std::ops::Range<usize>| time[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let secs = days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19);
    (secs * 1_000_000_000 + n(20..23) * 1_000_000) as u64
}

#[test]
fn each_decision_is_posted_as_a_log_record_with_the_log_lines_members() {
    let dir = scratch("record");
    let receiver = Receiver::start(Answer::Ok);
    let url = receiver.url();
    let args = ["--log", "log.jsonl", "--otlp-endpoint", url.as_str()];
    let denied = call(&dir, &args, "rm x", &[]);
    assert_eq!(denied.status.code(), Some(0), "{denied:?}");
    assert!(String::from_utf8_lossy(&denied.stdout).contains("\"deny\""));
    let allowed = call(&dir, &args, "ls", &[]);
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    let posted = receiver.wait_for(2);
    let disasm = crate::hookc_command()
        .args(["disasm", "guard.yaml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let disasm = String::from_utf8(disasm.stdout).unwrap();
    let digest = disasm
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("digest: ");
    let log = log_lines(&dir.join("log.jsonl"));
    assert_eq!(log.len(), 2);
    let mut severities = Vec::new();
    for (request, line) in posted.iter().zip(&log) {
        assert_eq!(request.path, "/v1/logs");
        assert_eq!(
            request.header("content-type"),
            Some("application/x-protobuf")
        );
        let records = request.records();
        assert_eq!(records.len(), 1);
        let record = &records[0];
        let id = line["decision_id"].as_str().unwrap();
        assert_eq!(attr(record, "hookc.decision_id").as_deref(), Some(id));
        assert_eq!(attr(record, "hookc.host").as_deref(), Some("claude-code"));
        assert_eq!(attr(record, "hookc.event").as_deref(), Some("PreToolUse"));
        assert_eq!(
            attr(record, "hookc.hook"),
            line["hook"].as_str().map(str::to_owned)
        );
        assert_eq!(attr(record, "hookc.policy_digest").as_deref(), Some(digest));
        assert_eq!(
            attr(record, "hookc.version").as_deref(),
            Some(env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(attr(record, "hookc.shadow").as_deref(), Some("false"));
        assert_eq!(record.time_unix_nano, nanos(line["time"].as_str().unwrap()));
        assert!(record.observed_time_unix_nano >= record.time_unix_nano);
        assert_eq!(record.event_name, "hookc.decision");
        let body = text(record.body.as_ref()).unwrap();
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body, line["context"]);
        severities.push((
            attr(record, "hookc.decision").unwrap(),
            record.severity_number,
        ));
    }
    assert_eq!(severities[0].0, "deny");
    assert_eq!(severities[1].0, "allow");
    assert!(severities[0].1 > severities[1].1, "{severities:?}");
}

#[test]
fn without_a_log_a_masked_member_is_exported_as_its_hash() {
    let dir = scratch("mask");
    let receiver = Receiver::start(Answer::Ok);
    let url = receiver.url();
    let args = [
        "--otlp-endpoint",
        url.as_str(),
        "--mask",
        "tool_input.command",
    ];
    let out = call(&dir, &args, "rm secret", &[("HOOKC_LOG_KEY", "k1")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let posted = receiver.wait_for(1);
    let records = posted[0].records();
    let body = text(records[0].body.as_ref()).unwrap();
    assert!(!body.contains("secret"), "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    let hashed = body["tool_input"]["command"].as_str().unwrap();
    assert!(
        hashed.starts_with("hmac-sha256:") && hashed.len() == 12 + 64,
        "{hashed}"
    );
    assert_eq!(body["tool_name"], "Bash");
    assert!(!dir.join("log.jsonl").exists());
    // `--mask` needs somewhere to log to.
    let refused = call(&dir, &["--mask", "tool_input.command"], "ls", &[]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}

#[test]
fn a_shadow_decision_is_a_second_record_of_the_same_id() {
    let dir = scratch("shadow");
    std::fs::write(
        dir.join("candidate.yaml"),
        GUARD.replace("type: deny", "type: ask"),
    )
    .unwrap();
    let receiver = Receiver::start(Answer::Ok);
    let url = receiver.url();
    let args = [
        "--otlp-endpoint",
        url.as_str(),
        "--shadow",
        "candidate.yaml",
    ];
    let out = call(&dir, &args, "rm x", &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"deny\""));
    let posted = receiver.wait_for(1);
    let records = posted[0].records();
    assert_eq!(records.len(), 2);
    let (live, shadow) = (&records[0], &records[1]);
    assert_eq!(
        attr(live, "hookc.decision_id"),
        attr(shadow, "hookc.decision_id")
    );
    assert_eq!(attr(live, "hookc.shadow").as_deref(), Some("false"));
    assert_eq!(attr(shadow, "hookc.shadow").as_deref(), Some("true"));
    assert_eq!(attr(live, "hookc.decision").as_deref(), Some("deny"));
    assert_eq!(attr(shadow, "hookc.decision").as_deref(), Some("ask"));
    assert_ne!(
        attr(live, "hookc.policy_digest"),
        attr(shadow, "hookc.policy_digest")
    );
}

#[test]
fn the_otel_headers_variables_arrive_as_headers() {
    let dir = scratch("headers");
    let receiver = Receiver::start(Answer::Ok);
    let url = format!("{}/v1/logs", receiver.url());
    let env = [
        (
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20t0k,x-team=a",
        ),
        ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-team=b"),
        // Never read: the flag alone turns the export on.
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
    ];
    let out = call(&dir, &["--otlp-endpoint", url.as_str()], "ls", &env);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let posted = receiver.wait_for(1);
    assert_eq!(posted[0].path, "/v1/logs");
    assert_eq!(posted[0].header("authorization"), Some("Bearer t0k"));
    assert_eq!(posted[0].header("x-team"), Some("b"));
    drop(posted);
    // Without the flag, the environment's endpoint is not used.
    let quiet = Receiver::start(Answer::Ok);
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", quiet.url())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = call(&dir, &[], "ls", &env);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(quiet.posted.lock().unwrap().len(), 0);
}

#[test]
fn a_collector_down_failing_or_hanging_changes_nothing_within_the_timeout() {
    let dir = scratch("down");
    let plain = call(&dir, &[], "rm x", &[]);
    assert_eq!(plain.status.code(), Some(0), "{plain:?}");
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port())
    };
    let failing = Receiver::start(Answer::ServerError);
    let hanging = Receiver::start(Answer::Hang);
    for (url, timeout) in [
        (closed, "200"),
        (failing.url(), "200"),
        (hanging.url(), "300"),
    ] {
        let start = Instant::now();
        let args = [
            "--otlp-endpoint",
            url.as_str(),
            "--otlp-timeout-ms",
            timeout,
        ];
        let out = call(&dir, &args, "rm x", &[]);
        let took = start.elapsed();
        assert_eq!(out.stdout, plain.stdout, "{url}");
        assert_eq!(out.stderr, plain.stderr, "{url}");
        assert_eq!(out.status.code(), plain.status.code(), "{url}");
        // The timeout, and a process's start and end on a loaded machine.
        assert!(took < Duration::from_millis(300 + 2_000), "{url}: {took:?}");
    }
    // The hanging collector held the call for its timeout, not more.
    assert_eq!(hanging.posted.lock().unwrap().len(), 1);
    // Within the deadline too: a long export timeout is cut to it.
    let start = Instant::now();
    let url = hanging.url();
    let args = [
        "--otlp-endpoint",
        url.as_str(),
        "--otlp-timeout-ms",
        "20000",
        "--deadline",
        "500",
    ];
    let out = call(&dir, &args, "rm x", &[]);
    assert_eq!(out.stdout, plain.stdout);
    assert_eq!(out.status.code(), plain.status.code());
    assert!(
        start.elapsed() < Duration::from_millis(500 + 2_000),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn an_endpoint_that_is_not_plain_http_is_refused_with_a_reason() {
    let dir = scratch("https");
    let out = call(
        &dir,
        &["--otlp-endpoint", "https://collector:4318"],
        "ls",
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("plain HTTP only"),
        "{out:?}"
    );
}

#[test]
fn serve_exports_its_decisions_off_the_request_path_masked() {
    let dir = scratch("serve");
    let receiver = Receiver::start(Answer::Ok);
    let url = receiver.url();
    let guard = dir.join("guard.yaml");
    let served = crate::serve_client::Served::start(
        env!("CARGO_BIN_EXE_hookc"),
        &[
            guard.to_str().unwrap(),
            "--otlp-endpoint",
            url.as_str(),
            "--mask",
            "tool_input.command",
        ],
        &dir,
    )
    .unwrap();
    let mut client = served.client().unwrap();
    let payload = serde_json::json!({"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse",
                                     "tool_name": "Bash", "tool_input": {"command": "rm x"}});
    let response = client
        .post("/hook/claude-code", payload.to_string().as_bytes())
        .unwrap();
    assert_eq!(response.status, 200);
    assert!(response.text().contains("\"deny\""));
    let posted = receiver.wait_for(1);
    let records = posted[0].records();
    assert_eq!(records.len(), 1);
    assert_eq!(attr(&records[0], "hookc.decision").as_deref(), Some("deny"));
    assert_eq!(
        attr(&records[0], "hookc.host").as_deref(),
        Some("claude-code")
    );
    // `--mask`: the command is exported as its keyed hash, never as is.
    let body = text(records[0].body.as_ref()).unwrap();
    let body: Value = serde_json::from_str(&body).unwrap();
    let hashed = body["tool_input"]["command"].as_str().unwrap();
    assert!(hashed.starts_with("hmac-sha256:"), "{body}");
    drop(posted);
    let start = Instant::now();
    loop {
        let health = client.get("/health").unwrap();
        let health: Value = serde_json::from_slice(&health.body).unwrap();
        if health["otlp"]["exported"] == 1 {
            assert_eq!(health["otlp"]["dropped"], 0);
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{health}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
