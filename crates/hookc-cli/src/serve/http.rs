//! The HTTP side of `hookc serve`: connections, routes, and how a host's
//! process reply (standard output, standard error, exit code) becomes a
//! response.
//!
//! The mapping (docs/src/hosts/serve.md): a request the policy decides, or
//! fails to decide, is answered 200, because Claude Code's HTTP hooks act
//! only on a 2xx answer (any other status, a refused connection or a
//! timeout is a non-blocking error to it). The body is what `hookc hook`
//! would write on standard output: the host's JSON answer, or nothing for
//! no decision. A reply that blocks by its exit code alone (exit 2, the
//! reason on standard error: Claude Code's and Gemini CLI's fail-closed
//! block) has no status of its own, so it is answered with the host's JSON
//! block for the event, the answer a `deny` would give; where the event has
//! none, the body is empty as the host would read the exit code there. The
//! `hookc-exit` header always carries the exit code `hookc hook` would have
//! ended with, for tools that want the process reply.
//!
//! Requests that are not hook calls are answered by their status: 400 for
//! a payload that is not a host's JSON (the host's block in the body), 404
//! for an unknown route or host, 405 for another method, 408 for a body
//! past its deadline, 413 for a body past its size.

use super::reload::Version;
use super::{limits, Server};
use hookc_binding::hosts::{Call, DecisionLog, DecisionSink, HookOptions, Host, Reply, Ruling};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// A response with its whole body.
type HttpAnswer = Response<Full<Bytes>>;

/// Accepts connections and serves each on its own task, at most
/// [`limits::MAX_CONNECTIONS`] at once; never returns.
pub async fn accept(listener: TcpListener, server: Arc<Server>, header_timeout: Duration) {
    let slots = Arc::new(Semaphore::new(limits::MAX_CONNECTIONS));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .max_header_size(limits::MAX_HEAD_BYTES);
    loop {
        // A slot before the accept: past the bound, connections wait in the
        // listen queue instead of being accepted and starved.
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, most often: give connections
                // time to close rather than spin.
                eprintln!("hookc serve: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Answers are small and wanted at once.
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        let http = http.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let server = Arc::clone(&server);
                async move { Ok::<_, Infallible>(route(&server, request).await) }
            });
            // A connection's error (a client gone, a deadline passed) ends
            // that connection only; there is nobody to tell.
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
            drop(slot);
        });
    }
}

/// The answer to one request.
async fn route(server: &Arc<Server>, request: Request<Incoming>) -> HttpAnswer {
    let path = request.uri().path();
    if path == "/health" {
        return match *request.method() {
            Method::GET => json_answer(StatusCode::OK, &health(server)),
            _ => wrong_method("GET"),
        };
    }
    let Some(name) = path.strip_prefix("/hook/") else {
        return error(
            StatusCode::NOT_FOUND,
            "no such route: POST /hook/HOST or GET /health",
        );
    };
    // The route's NAME, as `hookc hook --host` spells it.
    let host: Host = match name.parse() {
        Ok(host) => host,
        Err(unknown) => return error(StatusCode::NOT_FOUND, &unknown.to_string()),
    };
    if request.method() != Method::POST {
        return wrong_method("POST");
    }
    // As `hookc hook --event`: the event of hosts whose payloads do not
    // name it (GitHub Copilot).
    let given = request.uri().query().and_then(event_parameter);
    let payload = match read_body(request, server.body_timeout).await {
        Ok(payload) => payload,
        Err(answer) => return answer,
    };
    // One version for the whole request, whatever reloads meanwhile.
    let version = server.versions.current();
    // A queued export never waits: it stays on the worker.
    if !version.awaits && server.log.is_none() {
        // Nothing to wait for: the evaluation is CPU work bounded by the
        // runtime's limits, of the order of reading the request, done
        // here rather than handed to another thread (which costs as much,
        // and grows the blocking pool under load).
        return decide(server, &version, host, &payload, given.as_deref());
    }
    // A host action runs a program or reads the file system, the log is
    // written: off the async workers.
    let job = Arc::clone(server);
    let call = move || decide(&job, &version, host, &payload, given.as_deref());
    match tokio::task::spawn_blocking(call).await {
        Ok(answer) => answer,
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the evaluation did not finish: {e}"),
        ),
    }
}

/// The request's body, bounded in size and time; the error answer when it
/// is too large, too slow, or broken off.
async fn read_body(request: Request<Incoming>, deadline: Duration) -> Result<Bytes, HttpAnswer> {
    let too_large = || {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "the payload is larger than {} bytes",
                limits::MAX_BODY_BYTES
            ),
        )
    };
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits::MAX_BODY_BYTES as u64) {
        // Answered before reading; hyper closes the connection rather than
        // read the rest.
        return Err(too_large());
    }
    let body = Limited::new(request.into_body(), limits::MAX_BODY_BYTES);
    match tokio::time::timeout(deadline, body.collect()).await {
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "the payload did not arrive within {} ms",
                deadline.as_millis()
            ),
        )),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => Err(error(
            StatusCode::BAD_REQUEST,
            &format!("the payload could not be read: {e}"),
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// The `event` parameter of a query (`event=preToolUse&...`), as given.
fn event_parameter(query: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("event="))
        .map(str::to_owned)
}

/// Decides one hook call for `given` event (or the payload's) with
/// `version`, and answers it.
fn decide(
    server: &Server,
    version: &Version,
    host: Host,
    payload: &[u8],
    given: Option<&str>,
) -> HttpAnswer {
    let offer = |line: &Value| {
        if let Some(queue) = &server.otlp {
            queue.offer(line);
        }
    };
    let sink = server.otlp.as_ref().map(|_| DecisionSink(&offer));
    let logged = server.log.is_some() || sink.is_some();
    // With a shadow, its line names the live line's id.
    let id = server
        .shadow
        .as_ref()
        .map(|_| hookc_binding::hosts::decision_log::new_decision_id());
    let options = HookOptions {
        event: given,
        fail_open: server.fail_open,
        log: logged.then(|| DecisionLog {
            policy_digest: Some(version.digest()),
            decision_id: id.as_deref(),
            mask: &server.mask,
            sink,
            ..DecisionLog::new(server.log.as_deref())
        }),
    };
    // `hosts::hook`'s two steps, to tell a payload that does not read (400).
    let (status, event, reply) = match Call::read(host, payload, given) {
        Err(e) => (
            StatusCode::BAD_REQUEST,
            given.map(str::to_owned),
            host.failed(given, &e, options.fail_open),
        ),
        Ok(call) => {
            let reply = call.reply(&version.policy, &options);
            // The candidate decides after the live answer is made, and
            // nothing it does reaches it (`Call::log_shadow`).
            if let (Some(shadow), Some(log)) = (&server.shadow, options.log) {
                let candidate = shadow.current();
                call.log_shadow(
                    &candidate.policy,
                    DecisionLog {
                        policy_digest: Some(candidate.digest()),
                        ..log
                    },
                );
            }
            (StatusCode::OK, Some(call.event), reply)
        }
    };
    if !reply.stderr.is_empty() {
        // Only failures write there: the server's operator wants them.
        eprint!("hookc serve: /hook/{host}: {}", reply.stderr);
    }
    hook_answer(status, host, event.as_deref(), &reply)
}

/// The response carrying a host's process reply (the module's doc says
/// how).
fn hook_answer(status: StatusCode, host: Host, event: Option<&str>, reply: &Reply) -> HttpAnswer {
    let body = if reply.exit == 0 || !reply.stdout.is_empty() {
        reply.stdout.clone()
    } else {
        let reason = reply.stderr.trim_end();
        match event {
            Some(event) => host.answer(event, &Ruling::denied(reason)).stdout,
            // No event to block: the one answer every host's wire stops
            // on (only a 400 carries it).
            None => format!("{}\n", json!({"continue": false, "stopReason": reason})),
        }
    };
    let typed = !body.is_empty();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert("hookc-exit", HeaderValue::from(u16::from(reply.exit)));
    if typed {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    response
}

/// `/health`: the serving policy's version, the refused reloads, and the
/// OTLP export's counters (with `--otlp-endpoint`).
fn health(server: &Server) -> Value {
    let current = server.versions.current();
    let mut health = json!({
        "status": "ok",
        "policy": {
            "version": current.version,
            "digest": super::reload::hex(current.fingerprint),
            "loaded_at": current.loaded_at,
            "hooks": current.policy.hook_count(),
        },
        "refused": server.versions.refused(),
    });
    if let (Some(queue), Value::Object(members)) = (&server.otlp, &mut health) {
        members.insert("otlp".to_owned(), queue.health());
    }
    health
}

/// 405, naming the method the route takes.
fn wrong_method(allowed: &'static str) -> HttpAnswer {
    let mut answer = error(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("this route takes {allowed}"),
    );
    answer
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allowed));
    answer
}

/// `{"error": MESSAGE}` with `status`.
fn error(status: StatusCode, message: &str) -> HttpAnswer {
    json_answer(status, &json!({ "error": message }))
}

/// A JSON document and a newline, with `status`.
fn json_answer(status: StatusCode, value: &Value) -> HttpAnswer {
    let mut response = Response::new(Full::new(Bytes::from(format!("{value}\n"))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
