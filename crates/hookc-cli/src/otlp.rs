//! `--otlp-endpoint URL` (`hookc hook`, `hookc serve`): each decision line
//! of the decision log (`hookc_binding::hosts::decision_log`, live and
//! shadow, masked members already hashed) also exported as an
//! OpenTelemetry log record, OTLP over HTTP with protobuf bodies
//! (`docs/src/hosts/teams.md`, "OpenTelemetry", is the guide).
//!
//! The binding builds the line once and hands it to a
//! [`hookc_binding::hosts::DecisionSink`]; here it becomes a record
//! ([`record`]): the line's members as `hookc.*` attributes, its `time` as
//! the record's timestamp, a severity from the decision (a deny or block
//! above an allow), and the (masked) context as a JSON string body. The
//! wire types are the OpenTelemetry project's (`opentelemetry-proto`,
//! encoded with `prost`); the HTTP client is hyper's, which `hookc serve`
//! already builds on.
//!
//! **Invariant (the export never changes the answer):** `hookc hook` sends
//! after its reply is written, within `--otlp-timeout-ms` and what is left
//! of `--deadline`; `hookc serve` hands records to a bounded queue
//! ([`OtlpQueue`]) that a background task drains, and drops (counting)
//! what does not fit. Nothing is built, read or sent when the flag is not
//! given.

use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE, HOST, USER_AGENT};
use hyper::Uri;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::logs::v1::{
    LogRecord as OtlpRecord, ResourceLogs, ScopeLogs, SeverityNumber,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use serde_json::{json, Value};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// Default time an export may take, connecting included
/// (`--otlp-timeout-ms`): a collector on this machine answers in about a
/// millisecond, and a hook call must stay quick when it is down or slow.
pub const TIMEOUT_MS: u64 = 200;
/// Records `hookc serve` holds for export at once; past it, new ones are
/// dropped and counted (`/health`'s `otlp.dropped`).
pub const QUEUE_RECORDS: usize = 4_096;
/// Records sent in one request by `hookc serve`.
pub const BATCH_RECORDS: usize = 512;
/// The generic headers variable of the OTLP exporter specification.
pub const HEADERS_VAR: &str = "OTEL_EXPORTER_OTLP_HEADERS";
/// The logs signal's headers variable; its keys win over the generic ones.
pub const LOGS_HEADERS_VAR: &str = "OTEL_EXPORTER_OTLP_LOGS_HEADERS";

/// Why a decision could not be exported (or an endpoint is refused).
#[derive(Debug, Error)]
pub enum OtlpError {
    /// `--otlp-endpoint` is not a URL with a host.
    #[error("`{url}` is not an OTLP/HTTP endpoint ({reason}): give http://HOST:PORT, such as http://127.0.0.1:4318")]
    BadUrl {
        /// The argument.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `--otlp-endpoint` is not `http://`.
    #[error("`{0}`: hookc exports over plain HTTP only; send to a collector on this machine or network (http://127.0.0.1:4318) and let it forward over TLS")]
    NotHttp(String),
    /// A headers variable has an entry that is not `KEY=VALUE`.
    #[error("{var}: `{entry}` is not KEY=VALUE (entries separated by commas, values URL-encoded)")]
    BadHeader {
        /// The variable.
        var: &'static str,
        /// The entry.
        entry: String,
    },
    /// The collector could not be reached, or the exchange broke off.
    #[error("cannot export to {url}: {reason}")]
    Unreachable {
        /// The endpoint.
        url: String,
        /// Why.
        reason: String,
    },
    /// The collector did not answer in time.
    #[error("the collector at {url} did not answer within {ms} ms (`--otlp-timeout-ms`)")]
    TimedOut {
        /// The endpoint.
        url: String,
        /// The time allowed.
        ms: u128,
    },
    /// The collector answered with a status other than 2xx.
    #[error("the collector at {url} answered {status}")]
    Refused {
        /// The endpoint.
        url: String,
        /// Its HTTP status.
        status: u16,
    },
    /// The client's runtime could not be started.
    #[error("cannot start the OTLP export: {0}")]
    Runtime(std::io::Error),
}

/// Where records are POSTed: `--otlp-endpoint` with the OTLP exporter
/// specification's rules applied (a base URL gets `v1/logs` appended to
/// its path, as `OTEL_EXPORTER_OTLP_ENDPOINT`; a URL whose path ends in
/// `/v1/logs` is taken as given, as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`).
#[derive(Debug, Clone)]
pub struct OtlpEndpoint {
    /// The full URL requests go to.
    url: Uri,
    /// The host to connect to (an IPv6 address without its brackets).
    host: String,
    /// The port (80 when the URL has none, as for any `http://` URL).
    port: u16,
}

impl fmt::Display for OtlpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.url)
    }
}

/// `--otlp-endpoint URL`, parsed and completed (see [`OtlpEndpoint`]).
pub fn parse_endpoint(arg: &str) -> Result<OtlpEndpoint, OtlpError> {
    let bad = |reason: &str| OtlpError::BadUrl {
        url: arg.to_owned(),
        reason: reason.to_owned(),
    };
    let uri: Uri = arg
        .parse()
        .map_err(|e: hyper::http::uri::InvalidUri| bad(&e.to_string()))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(_) => return Err(OtlpError::NotHttp(arg.to_owned())),
        None => return Err(bad("no scheme")),
    }
    let authority = uri.authority().ok_or_else(|| bad("no host"))?.clone();
    if authority.as_str().contains('@') {
        return Err(bad("credentials belong in OTEL_EXPORTER_OTLP_HEADERS"));
    }
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    if host.is_empty() {
        return Err(bad("no host"));
    }
    let path = uri.path();
    let path = if path.ends_with("/v1/logs") {
        path.to_owned()
    } else {
        format!("{}/v1/logs", path.trim_end_matches('/'))
    };
    let path_and_query = match uri.query() {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    let url = Uri::builder()
        .scheme("http")
        .authority(authority.clone())
        .path_and_query(path_and_query)
        .build()
        .map_err(|e| bad(&e.to_string()))?;
    Ok(OtlpEndpoint {
        url,
        host: host.to_owned(),
        port: authority.port_u16().unwrap_or(80),
    })
}

/// The export's headers: `OTEL_EXPORTER_OTLP_HEADERS`, then
/// `OTEL_EXPORTER_OTLP_LOGS_HEADERS` (whose keys replace the generic
/// ones), each `key=value,key2=value2` with URL-encoded values, read
/// through `var`.
pub fn env_headers(
    var: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, OtlpError> {
    let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::new();
    for name in [HEADERS_VAR, LOGS_HEADERS_VAR] {
        let Some(list) = var(name) else { continue };
        for entry in list.split(',').filter(|e| !e.trim().is_empty()) {
            let bad = || OtlpError::BadHeader {
                var: name,
                entry: entry.trim().to_owned(),
            };
            let (key, value) = entry.split_once('=').ok_or_else(bad)?;
            let key = HeaderName::from_bytes(key.trim().as_bytes()).map_err(|_| bad())?;
            let value = percent_decoded(value.trim()).ok_or_else(bad)?;
            let value = HeaderValue::from_str(&value).map_err(|_| bad())?;
            headers.retain(|(k, _)| *k != key);
            headers.push((key, value));
        }
    }
    Ok(headers)
}

/// `text` with each `%XX` replaced by its byte; `None` for a `%` not
/// followed by two hex digits, or bytes that are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if b == b'%' {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(b);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The decision a line records, as one word: its action's type (`allow`,
/// `deny`, `block`, `ask`, ...), `none` when no hook decided, `error` for
/// a shadow policy that could not decide.
pub fn decision_word(line: &Value) -> &str {
    if line.get("error").is_some() {
        return "error";
    }
    line.pointer("/decision/action/type")
        .and_then(Value::as_str)
        .unwrap_or("none")
}

/// The record's severity: an error above a deny or block, above anything
/// else (an allow, an ask, no decision).
fn severity(word: &str) -> SeverityNumber {
    match word {
        "error" => SeverityNumber::Error,
        "deny" | "block" => SeverityNumber::Warn,
        _ => SeverityNumber::Info,
    }
}

/// A string attribute.
fn attribute(key: &str, value: AnyValue) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(value),
        ..KeyValue::default()
    }
}

/// An `AnyValue` holding `text`.
fn string(text: &str) -> AnyValue {
    AnyValue {
        value: Some(any_value::Value::StringValue(text.to_owned())),
    }
}

/// Nanoseconds since the Unix epoch now.
pub fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Nanoseconds since the Unix epoch of a log line's `time`
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`, as `hookc_binding::hosts::now_utc` writes
/// it); `None` for anything else.
fn time_nanos(time: &str) -> Option<u64> {
    let b = time.as_bytes();
    let number = |from: usize, len: usize| -> Option<i64> {
        std::str::from_utf8(b.get(from..from + len)?)
            .ok()?
            .parse()
            .ok()
    };
    let shape = b.len() == 24
        && [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ]
        .iter()
        .all(|&(at, c)| b.get(at) == Some(&c));
    if !shape {
        return None;
    }
    let (y, m, d) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
    let (hh, mm, ss, ms) = (
        number(11, 2)?,
        number(14, 2)?,
        number(17, 2)?,
        number(20, 3)?,
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hh * 3_600 + mm * 60 + ss;
    let nanos = i128::from(secs) * 1_000_000_000 + i128::from(ms) * 1_000_000;
    u64::try_from(nanos).ok()
}

/// The log record of one decision line, observed at `observed` (Unix
/// nanoseconds): the attributes table of `docs/src/hosts/teams.md`.
pub fn record(line: &Value, observed: u64) -> OtlpRecord {
    let text = |key: &str| line.get(key).and_then(Value::as_str);
    let word = decision_word(line);
    let severity = severity(word);
    let mut attributes = Vec::with_capacity(9);
    for (key, member) in [
        ("hookc.decision_id", "decision_id"),
        ("hookc.host", "host"),
        ("hookc.event", "event"),
        ("hookc.hook", "hook"),
    ] {
        if let Some(value) = text(member) {
            attributes.push(attribute(key, string(value)));
        }
    }
    attributes.push(attribute("hookc.decision", string(word)));
    for (key, member) in [
        ("hookc.policy_digest", "policy_digest"),
        ("hookc.version", "hookc"),
        ("hookc.error", "error"),
    ] {
        if let Some(value) = text(member) {
            attributes.push(attribute(key, string(value)));
        }
    }
    let shadow = line.get("shadow") == Some(&Value::Bool(true));
    attributes.push(attribute(
        "hookc.shadow",
        AnyValue {
            value: Some(any_value::Value::BoolValue(shadow)),
        },
    ));
    let body = line.get("context").map(|c| string(&c.to_string()));
    OtlpRecord {
        time_unix_nano: text("time").and_then(time_nanos).unwrap_or(observed),
        observed_time_unix_nano: observed,
        severity_number: severity as i32,
        severity_text: severity
            .as_str_name()
            .trim_start_matches("SEVERITY_NUMBER_")
            .to_owned(),
        body,
        attributes,
        event_name: "hookc.decision".to_owned(),
        ..OtlpRecord::default()
    }
}

/// The protobuf body of one export request: `records` under the resource
/// `service.name = hookc` and the instrumentation scope `hookc`.
pub fn request_body(records: Vec<OtlpRecord>) -> Vec<u8> {
    let version = env!("CARGO_PKG_VERSION");
    let request = ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: vec![
                    attribute("service.name", string("hookc")),
                    attribute("service.version", string(version)),
                ],
                ..Resource::default()
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: "hookc".to_owned(),
                    version: version.to_owned(),
                    ..InstrumentationScope::default()
                }),
                log_records: records,
                ..ScopeLogs::default()
            }],
            ..ResourceLogs::default()
        }],
    };
    request.encode_to_vec()
}

/// POSTs one request body to `endpoint` with `headers`; unbounded in time
/// (callers bound it, [`send`]).
async fn post(
    endpoint: &OtlpEndpoint,
    headers: &[(HeaderName, HeaderValue)],
    body: Vec<u8>,
) -> Result<(), OtlpError> {
    let broken = |reason: &dyn fmt::Display| OtlpError::Unreachable {
        url: endpoint.to_string(),
        reason: reason.to_string(),
    };
    let stream = tokio::net::TcpStream::connect((endpoint.host.as_str(), endpoint.port))
        .await
        .map_err(|e| broken(&e))?;
    let _ = stream.set_nodelay(true);
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| broken(&e))?;
    let driver = tokio::spawn(connection);
    // Origin form (`POST /v1/logs`), as to a server; the full URL is a
    // proxy's form.
    let target = endpoint
        .url
        .path_and_query()
        .map_or("/v1/logs", |p| p.as_str());
    let mut request = hyper::Request::post(target)
        .header(CONTENT_TYPE, "application/x-protobuf")
        .header(USER_AGENT, concat!("hookc/", env!("CARGO_PKG_VERSION")))
        .body(http_body_util::Full::new(hyper::body::Bytes::from(body)))
        .map_err(|e| broken(&e))?;
    if let Some(authority) = endpoint.url.authority() {
        let host = HeaderValue::from_str(authority.as_str()).map_err(|e| broken(&e))?;
        request.headers_mut().insert(HOST, host);
    }
    for (key, value) in headers {
        request.headers_mut().insert(key.clone(), value.clone());
    }
    let answered = sender.send_request(request).await;
    driver.abort();
    let status = answered.map_err(|e| broken(&e))?.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(OtlpError::Refused {
            url: endpoint.to_string(),
            status: status.as_u16(),
        })
    }
}

/// [`post`], given up after `budget`.
async fn send(
    endpoint: &OtlpEndpoint,
    headers: &[(HeaderName, HeaderValue)],
    body: Vec<u8>,
    budget: Duration,
) -> Result<(), OtlpError> {
    match tokio::time::timeout(budget, post(endpoint, headers, body)).await {
        Ok(sent) => sent,
        Err(_) => Err(OtlpError::TimedOut {
            url: endpoint.to_string(),
            ms: budget.as_millis(),
        }),
    }
}

/// `hookc hook`'s export: `records` in one request, headers from the
/// environment, on a runtime of its own that is left behind (not waited
/// for) once `budget` has passed.
pub fn export_blocking(
    endpoint: &OtlpEndpoint,
    records: Vec<OtlpRecord>,
    budget: Duration,
) -> Result<(), OtlpError> {
    let headers = env_headers(|name| std::env::var(name).ok())?;
    let body = request_body(records);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(OtlpError::Runtime)?;
    let sent = runtime.block_on(send(endpoint, &headers, body, budget));
    // A name lookup still running on the blocking pool is not waited for.
    runtime.shutdown_background();
    sent
}

/// What `hookc serve`'s exporter has done, for `/health`.
#[derive(Debug, Default)]
pub struct OtlpCounts {
    /// Records the collector accepted.
    exported: AtomicU64,
    /// Records dropped because the queue was full.
    dropped: AtomicU64,
    /// Records whose request failed (not retried).
    failed: AtomicU64,
}

/// `hookc serve`'s export: records queued by the request path without
/// waiting ([`OtlpQueue::offer`]), sent in batches by a background task.
#[derive(Debug)]
pub struct OtlpQueue {
    /// The queue's sending side.
    sender: tokio::sync::mpsc::Sender<OtlpRecord>,
    /// The counters.
    counts: Arc<OtlpCounts>,
    /// Where records go.
    endpoint: OtlpEndpoint,
}

/// The background side of an [`OtlpQueue`]: [`OtlpFlush::stop`] sends
/// what is queued and ends it.
#[derive(Debug)]
pub struct OtlpFlush {
    /// Tells the task to send what is queued and end.
    stop: tokio::sync::oneshot::Sender<()>,
    /// The task.
    task: tokio::task::JoinHandle<()>,
}

impl OtlpFlush {
    /// Sends what is queued (each request within the timeout, stopping at
    /// the first failure) and returns when done.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

impl OtlpQueue {
    /// The queue, and the task sending it (on the current tokio runtime),
    /// each request given up after `timeout`.
    pub fn start(
        endpoint: OtlpEndpoint,
        headers: Vec<(HeaderName, HeaderValue)>,
        timeout: Duration,
    ) -> (OtlpQueue, OtlpFlush) {
        let (sender, receiver) = tokio::sync::mpsc::channel(QUEUE_RECORDS);
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let counts = Arc::new(OtlpCounts::default());
        let task = tokio::spawn(forward(
            receiver,
            stopped,
            endpoint.clone(),
            headers,
            timeout,
            Arc::clone(&counts),
        ));
        (
            OtlpQueue {
                sender,
                counts,
                endpoint,
            },
            OtlpFlush { stop, task },
        )
    }

    /// Queues the record of a decision line; never waits (a full queue
    /// drops it, counted).
    pub fn offer(&self, line: &Value) {
        if self.sender.try_send(record(line, now_nanos())).is_err() {
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `/health`'s `otlp` member.
    pub fn health(&self) -> Value {
        json!({
            "endpoint": self.endpoint.to_string(),
            "exported": self.counts.exported.load(Ordering::Relaxed),
            "dropped": self.counts.dropped.load(Ordering::Relaxed),
            "failed": self.counts.failed.load(Ordering::Relaxed),
            "queued": QUEUE_RECORDS.saturating_sub(self.sender.capacity()),
        })
    }
}

/// The export task: batches of up to [`BATCH_RECORDS`] as they come; on
/// `stopped`, what is queued, then the end. A failure is said on standard
/// error when it follows a success (or is the first), so a collector that
/// stays down is said once; `/health` counts the rest.
async fn forward(
    mut receiver: tokio::sync::mpsc::Receiver<OtlpRecord>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
    endpoint: OtlpEndpoint,
    headers: Vec<(HeaderName, HeaderValue)>,
    timeout: Duration,
    counts: Arc<OtlpCounts>,
) {
    let mut failing = false;
    let mut batch = Vec::with_capacity(BATCH_RECORDS);
    let mut stopping = false;
    loop {
        if !stopping {
            tokio::select! {
                got = receiver.recv_many(&mut batch, BATCH_RECORDS) => {
                    if got == 0 {
                        return;
                    }
                }
                _ = &mut stopped => {
                    stopping = true;
                    receiver.close();
                    continue;
                }
            }
        } else if receiver.recv_many(&mut batch, BATCH_RECORDS).await == 0 {
            return;
        }
        let n = batch.len() as u64;
        let body = request_body(std::mem::take(&mut batch));
        match send(&endpoint, &headers, body, timeout).await {
            Ok(()) => {
                counts.exported.fetch_add(n, Ordering::Relaxed);
                if failing {
                    eprintln!("hookc serve: OTLP export to {endpoint} works again");
                }
                failing = false;
            }
            Err(e) => {
                counts.failed.fetch_add(n, Ordering::Relaxed);
                if !failing {
                    eprintln!("hookc serve: {e}; failures are counted in /health until an export succeeds");
                }
                failing = true;
                if stopping {
                    // Stopping: what is left would fail alike.
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_follow_the_exporter_rules() {
        for (given, endpoint) in [
            ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/logs"),
            ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/logs"),
            ("http://c:4318/v1/logs", "http://c:4318/v1/logs"),
            ("http://c/otel/", "http://c/otel/v1/logs"),
            ("http://c:1/x/v1/logs?a=b", "http://c:1/x/v1/logs?a=b"),
        ] {
            let url = parse_endpoint(given).map(|e| e.to_string());
            assert_eq!(url.ok().as_deref(), Some(endpoint), "{given}");
        }
        let v6 = parse_endpoint("http://[::1]:4318").ok();
        assert_eq!(v6.map(|e| (e.host, e.port)), Some(("::1".to_owned(), 4318)));
        assert!(matches!(
            parse_endpoint("https://c:4318"),
            Err(OtlpError::NotHttp(_))
        ));
        assert!(matches!(
            parse_endpoint("c:4318"),
            Err(OtlpError::BadUrl { .. })
        ));
        assert!(matches!(
            parse_endpoint("http://u:p@c"),
            Err(OtlpError::BadUrl { .. })
        ));
    }

    #[test]
    fn headers_are_decoded_and_the_logs_variable_wins() {
        let env = |name: &str| match name {
            HEADERS_VAR => Some("api-key=a%20b, x=1,,".to_owned()),
            LOGS_HEADERS_VAR => Some("X=2".to_owned()),
            _ => None,
        };
        let headers = env_headers(env).ok().unwrap_or_default();
        let pairs: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("?").to_owned()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("api-key".to_owned(), "a b".to_owned()),
                ("x".to_owned(), "2".to_owned())
            ]
        );
        for bad in ["novalue", "k=%zz", "bad key=1"] {
            let env = |_: &str| Some(bad.to_owned());
            assert!(
                matches!(env_headers(env), Err(OtlpError::BadHeader { .. })),
                "{bad}"
            );
        }
    }

    /// A loopback receiver answering 200 to each request, for at most 10
    /// seconds; its port, and the records it read so far.
    fn receiver() -> (u16, Arc<AtomicU64>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let records = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&records);
        std::thread::spawn(move || {
            let until = std::time::Instant::now() + Duration::from_secs(10);
            while std::time::Instant::now() < until {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(2));
                    continue;
                };
                stream.set_nonblocking(false).unwrap();
                let mut reader = BufReader::new(&stream);
                let (mut line, mut length) = (String::new(), 0);
                while reader.read_line(&mut line).unwrap() > 2 {
                    if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = n.trim().parse().unwrap();
                    }
                    line.clear();
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let request = ExportLogsServiceRequest::decode(body.as_slice()).unwrap();
                let n = request.resource_logs[0].scope_logs[0].log_records.len();
                seen.fetch_add(n as u64, Ordering::Relaxed);
                (&stream)
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                    .unwrap();
            }
        });
        (port, records)
    }

    #[test]
    fn serve_queue_drops_past_its_bound_and_sends_the_rest_on_stop() {
        let (port, received) = receiver();
        let endpoint = parse_endpoint(&format!("http://127.0.0.1:{port}")).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let line = json!({"decision_id": "ab", "decision": null, "context": {}});
        let health = runtime.block_on(async {
            let (queue, flush) = OtlpQueue::start(endpoint, Vec::new(), Duration::from_secs(5));
            // The sending task has not run yet (one thread, no await):
            // the queue holds its bound, and drops one.
            for _ in 0..=QUEUE_RECORDS {
                queue.offer(&line);
            }
            flush.stop().await;
            queue.health()
        });
        assert_eq!(health["dropped"], 1);
        assert_eq!(health["exported"], QUEUE_RECORDS);
        assert_eq!(health["failed"], 0);
        assert_eq!(received.load(Ordering::Relaxed), QUEUE_RECORDS as u64);
    }

    #[test]
    fn a_line_becomes_a_record() {
        let line = json!({"decision_id": "ab", "time": "2026-12-07T15:04:05.123Z", "host": "claude-code",
            "event": "PreToolUse", "hook": "no_rm", "decision": {"hook": "no_rm", "action": {"type": "deny"}},
            "policy_digest": "sha256:00", "hookc": "0.1.0", "context": {"a": 1}});
        let r = record(&line, 7);
        assert_eq!(r.time_unix_nano, 1_796_655_845_123_000_000);
        assert_eq!(r.observed_time_unix_nano, 7);
        assert_eq!(r.severity_number, SeverityNumber::Warn as i32);
        assert_eq!(r.severity_text, "WARN");
        assert_eq!(r.body, Some(string("{\"a\":1}")));
        let keys: Vec<&str> = r.attributes.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "hookc.decision_id",
                "hookc.host",
                "hookc.event",
                "hookc.hook",
                "hookc.decision",
                "hookc.policy_digest",
                "hookc.version",
                "hookc.shadow"
            ]
        );
        let allow = json!({"decision": {"action": {"type": "allow"}}, "time": "bad"});
        let r = record(&allow, 9);
        assert_eq!(
            (r.severity_number, r.time_unix_nano),
            (SeverityNumber::Info as i32, 9)
        );
        assert_eq!(decision_word(&json!({"decision": null})), "none");
        assert_eq!(
            decision_word(&json!({"error": "x", "shadow": true})),
            "error"
        );
    }
}
