//! The scripted model `hookc probe` runs a host against: an HTTP server on
//! 127.0.0.1 that answers the host's model calls in the host's own API
//! (`docs/src/hosts/probe.md`).
//!
//! A model call is a request that offers tools: the agent loop's turn. The
//! first is answered with the script's tool call, every later one with a
//! short text that ends the run. Any other request (a title, a token
//! count, a model list, a side question) gets a small answer of its kind
//! without taking a turn, so that the script stays aligned with the loop.
//! Every request is bounded (its head by hyper, its body by
//! [`MAX_BODY_BYTES`]), and past [`MAX_MODEL_CALLS`] the server answers
//! an error, so a host that loops ends.

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::CONTENT_TYPE;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The largest request body read (a host sends its whole conversation).
const MAX_BODY_BYTES: usize = 32 << 20;
/// Model calls answered before the server refuses: a run that loops ends.
const MAX_MODEL_CALLS: usize = 12;
/// What the model says once the script's call is made.
const FINAL_TEXT: &str = "done";

/// The model API a host speaks (`host_profile.probe.wire`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelApi {
    /// Anthropic Messages (`POST /v1/messages`, server-sent events).
    AnthropicMessages,
    /// OpenAI Responses (`POST /v1/responses`, server-sent events).
    OpenaiResponses,
    /// OpenAI chat completions (`POST /v1/chat/completions`).
    OpenaiChat,
    /// The Gemini API (`:streamGenerateContent`, `:generateContent`).
    Gemini,
}

impl ModelApi {
    /// The wire a profile names.
    pub fn from_name(name: &str) -> Option<ModelApi> {
        Some(match name {
            "anthropic-messages" => ModelApi::AnthropicMessages,
            "openai-responses" => ModelApi::OpenaiResponses,
            "openai-chat" => ModelApi::OpenaiChat,
            "gemini" => ModelApi::Gemini,
            _ => return None,
        })
    }
}

/// The one tool call of a script.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub arguments: Value,
}

/// What the model was asked, for the report.
#[derive(Debug, Default)]
struct Seen {
    /// The request bodies of model calls, as text (the last few).
    calls: Vec<String>,
}

/// The shared state of one server.
struct Script {
    wire: ModelApi,
    model: String,
    call: ToolCall,
    model_calls: AtomicUsize,
    seen: Mutex<Seen>,
}

/// A running scripted model; stopped when dropped.
pub struct ModelServer {
    url: String,
    script: Arc<Script>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl ModelServer {
    /// Starts a server on 127.0.0.1 (a free port) that answers the first
    /// model call with `call`.
    pub fn start(wire: ModelApi, model: &str, call: ToolCall) -> std::io::Result<ModelServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", 0)))?;
        let url = format!("http://{}", listener.local_addr()?);
        let script = Arc::new(Script {
            wire,
            model: model.to_owned(),
            call,
            model_calls: AtomicUsize::new(0),
            seen: Mutex::new(Seen::default()),
        });
        runtime.spawn(accept(listener, Arc::clone(&script)));
        Ok(ModelServer {
            url,
            script,
            runtime: Some(runtime),
        })
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How many model calls the host made.
    pub fn model_calls(&self) -> usize {
        self.script.model_calls.load(Ordering::Relaxed)
    }

    /// Whether `needle` is in a model call after the first (what came back
    /// to the model from the tool call).
    pub fn saw_after_first(&self, needle: &str) -> bool {
        let seen = self.script.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.calls.iter().skip(1).any(|c| c.contains(needle))
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_millis(100));
        }
    }
}

async fn accept(listener: tokio::net::TcpListener, script: Arc<Script>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(10))
        .max_buf_size(1 << 20);
    // Connections are few (one host); each is served on its own task.
    while let Ok((stream, _)) = listener.accept().await {
        let script = Arc::clone(&script);
        let http = http.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let script = Arc::clone(&script);
                async move { Ok::<_, Infallible>(answer(&script, request).await) }
            });
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

type ModelAnswer = Response<Full<Bytes>>;

async fn answer(script: &Script, request: Request<Incoming>) -> ModelAnswer {
    let path = request.uri().path().to_owned();
    let post = request.method() == hyper::Method::POST;
    let body = match Limited::new(request.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            return json_answer(
                StatusCode::PAYLOAD_TOO_LARGE,
                &json!({"error": "too large"}),
            )
        }
    };
    let body_value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let offers_tools = body_value
        .get("tools")
        .is_some_and(|t| t.as_array().is_none_or(|a| !a.is_empty()));
    let stream = body_value.get("stream").and_then(Value::as_bool) == Some(true)
        || path.ends_with(":streamGenerateContent");
    let generate = post && is_generate(script.wire, &path);
    let is_model_call = generate && offers_tools && !is_side_question(&body_value);
    let turn = if is_model_call {
        let n = script.model_calls.fetch_add(1, Ordering::Relaxed);
        let mut seen = script.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.calls.len() < MAX_MODEL_CALLS {
            seen.calls.push(String::from_utf8_lossy(&body).into_owned());
        }
        if n >= MAX_MODEL_CALLS {
            return json_answer(
                StatusCode::BAD_REQUEST,
                &json!({"error": {"message": "the probe's scripted model has answered enough", "type": "invalid_request_error"}}),
            );
        }
        if n == 0 {
            Turn::Call(&script.call)
        } else {
            Turn::Say(FINAL_TEXT)
        }
    } else if generate {
        Turn::Say(side_answer(script.wire))
    } else {
        return other(script, &path);
    };
    let model = script.model.as_str();
    match script.wire {
        ModelApi::AnthropicMessages => anthropic(model, &turn, stream),
        ModelApi::OpenaiResponses => responses(&turn),
        ModelApi::OpenaiChat => chat(model, &turn, stream),
        ModelApi::Gemini => gemini(model, &turn, stream),
    }
}

/// One answer of the model: a tool call or a text.
enum Turn<'s> {
    Call(&'s ToolCall),
    Say(&'s str),
}

/// Whether a POST to `path` asks the model to generate.
fn is_generate(wire: ModelApi, path: &str) -> bool {
    match wire {
        ModelApi::AnthropicMessages => path == "/v1/messages",
        ModelApi::OpenaiResponses => path.ends_with("/responses"),
        ModelApi::OpenaiChat => path.ends_with("/chat/completions"),
        ModelApi::Gemini => {
            path.ends_with(":streamGenerateContent") || path.ends_with(":generateContent")
        }
    }
}

/// Whether a generate call with tools is still a side question: Codex's
/// automatic approval reviewer.
fn is_side_question(body: &Value) -> bool {
    body.pointer("/client_metadata/x-openai-subagent") == Some(&json!("guardian"))
}

/// The text of a side question's answer: for Gemini CLI, one JSON object
/// with the members its JSON side calls read (next speaker, loop
/// detection, routing), all saying "nothing to do".
fn side_answer(wire: ModelApi) -> &'static str {
    match wire {
        ModelApi::Gemini => {
            r#"{"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash", "unproductive_state_confidence": 0, "unproductive_state_analysis": ""}"#
        }
        _ => "ok",
    }
}

/// Any other request: a model list, a token count, or an empty object.
fn other(script: &Script, path: &str) -> ModelAnswer {
    let value = if path.ends_with("/models") {
        json!({"object": "list", "data": [{"id": script.model, "object": "model", "created": 0, "owned_by": "hookc-probe"}]})
    } else if path.ends_with("/count_tokens") {
        json!({"input_tokens": 100})
    } else if path.ends_with(":countTokens") {
        json!({"totalTokens": 100})
    } else {
        json!({})
    };
    json_answer(StatusCode::OK, &value)
}

fn json_answer(status: StatusCode, value: &Value) -> ModelAnswer {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// Server-sent events: (event name, data) pairs.
fn sse<'a>(events: impl IntoIterator<Item = (Option<&'a str>, String)>) -> ModelAnswer {
    let mut text = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            text.push_str("event: ");
            text.push_str(name);
            text.push('\n');
        }
        text.push_str("data: ");
        text.push_str(&data);
        text.push_str("\n\n");
    }
    let mut response = Response::new(Full::new(Bytes::from(text)));
    response.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    response
}

const CALL_ID: &str = "hookc_probe_1";

fn anthropic(model: &str, turn: &Turn<'_>, stream: bool) -> ModelAnswer {
    let stop = match turn {
        Turn::Call(_) => "tool_use",
        Turn::Say(_) => "end_turn",
    };
    // The block whole, and as a stream opens it and fills it in.
    let (block, open, delta) = match turn {
        Turn::Call(call) => {
            let id = format!("toolu_{CALL_ID}");
            (
                json!({"type": "tool_use", "id": id, "name": call.name, "input": call.arguments}),
                json!({"type": "tool_use", "id": id, "name": call.name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": call.arguments.to_string()}),
            )
        }
        Turn::Say(text) => (
            json!({"type": "text", "text": text}),
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    let message = |content: Value, stop: Value| {
        json!({"id": "msg_hookc_probe", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 10}})
    };
    if !stream {
        return json_answer(StatusCode::OK, &message(json!([block]), json!(stop)));
    }
    sse([
        (Some("message_start"), json!({"type": "message_start", "message": message(json!([]), Value::Null)})),
        (Some("content_block_start"), json!({"type": "content_block_start", "index": 0, "content_block": open})),
        (Some("content_block_delta"), json!({"type": "content_block_delta", "index": 0, "delta": delta})),
        (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0})),
        (Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 10}})),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]
    .map(|(name, data)| (name, data.to_string())))
}

fn responses(turn: &Turn<'_>) -> ModelAnswer {
    let item = match turn {
        Turn::Call(call) => {
            json!({"type": "function_call", "id": format!("fc_{CALL_ID}"), "call_id": CALL_ID,
            "name": call.name, "arguments": call.arguments.to_string(), "status": "completed"})
        }
        Turn::Say(text) => {
            json!({"type": "message", "id": "msg_hookc_probe", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
    };
    let usage = json!({"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
        "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}});
    sse([
        ("response.created", json!({"type": "response.created", "response": {"id": "resp_hookc_probe"}})),
        ("response.output_item.added", json!({"type": "response.output_item.added", "output_index": 0, "item": item})),
        ("response.output_item.done", json!({"type": "response.output_item.done", "output_index": 0, "item": item})),
        ("response.completed", json!({"type": "response.completed", "response": {"id": "resp_hookc_probe", "output": [item], "usage": usage}})),
    ]
    .map(|(name, data)| (Some(name), data.to_string())))
}

fn chat(model: &str, turn: &Turn<'_>, stream: bool) -> ModelAnswer {
    let usage = json!({"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110});
    let call = |call: &ToolCall| json!({"index": 0, "id": CALL_ID, "type": "function", "function": {"name": call.name, "arguments": call.arguments.to_string()}});
    let (message, delta, finish) = match turn {
        Turn::Call(c) => (
            json!({"role": "assistant", "content": null, "tool_calls": [call(c)]}),
            json!({"tool_calls": [call(c)]}),
            "tool_calls",
        ),
        Turn::Say(text) => (
            json!({"role": "assistant", "content": text}),
            json!({"content": text}),
            "stop",
        ),
    };
    if !stream {
        return json_answer(
            StatusCode::OK,
            &json!({"id": "chatcmpl-hookc-probe", "created": 0, "model": model, "object": "chat.completion",
                "usage": usage, "choices": [{"index": 0, "message": message, "finish_reason": finish}]}),
        );
    }
    let chunk = |delta: Value, finish: Value, usage: Value| {
        let c = json!({"id": "chatcmpl-hookc-probe", "created": 0, "model": model, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": usage});
        (None, c.to_string())
    };
    sse([
        chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
            Value::Null,
        ),
        chunk(delta, Value::Null, Value::Null),
        chunk(json!({}), json!(finish), usage),
        (None, "[DONE]".to_owned()),
    ])
}

fn gemini(model: &str, turn: &Turn<'_>, stream: bool) -> ModelAnswer {
    let part = match turn {
        Turn::Call(call) => {
            json!({"functionCall": {"id": CALL_ID, "name": call.name, "args": call.arguments}})
        }
        Turn::Say(text) => json!({"text": text}),
    };
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0, "finishReason": "STOP"}],
        "modelVersion": model,
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}});
    if stream {
        sse([(None, chunk.to_string())])
    } else {
        json_answer(StatusCode::OK, &chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(answer: ModelAnswer) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let bytes = runtime
            .block_on(answer.into_body().collect())
            .unwrap()
            .to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    fn call() -> ToolCall {
        ToolCall {
            name: "Bash".to_owned(),
            arguments: json!({"command": "touch x"}),
        }
    }

    #[test]
    fn every_wire_is_named() {
        for name in [
            "anthropic-messages",
            "openai-responses",
            "openai-chat",
            "gemini",
        ] {
            assert!(ModelApi::from_name(name).is_some(), "{name}");
        }
        assert!(ModelApi::from_name("smoke-signals").is_none());
    }

    /// Each wire carries the call's name and its arguments as the API
    /// spells them (an object, or JSON text).
    #[test]
    fn a_tool_call_in_each_wire() {
        let c = call();
        let text = body(anthropic("m", &Turn::Call(&c), true));
        assert!(
            text.contains("event: content_block_start") && text.contains(r#""name":"Bash""#),
            "{text}"
        );
        assert!(text.contains(r#"input_json_delta"#), "{text}");
        let text = body(responses(&Turn::Call(&c)));
        assert!(
            text.contains(r#""arguments":"{\"command\":\"touch x\"}""#),
            "{text}"
        );
        let text = body(chat("m", &Turn::Call(&c), true));
        assert!(
            text.ends_with("data: [DONE]\n\n") && text.contains("tool_calls"),
            "{text}"
        );
        let text = body(gemini("m", &Turn::Call(&c), true));
        assert!(
            text.contains(r#""functionCall""#) && text.contains(r#""args":{"command":"touch x"}"#),
            "{text}"
        );
    }

    #[test]
    fn codexs_reviewer_is_not_the_loop() {
        let reviewer = json!({"client_metadata": {"x-openai-subagent": "guardian"}});
        assert!(is_side_question(&reviewer));
        assert!(!is_side_question(&json!({"tools": []})));
        assert!(is_generate(ModelApi::OpenaiResponses, "/v1/responses"));
        assert!(!is_generate(ModelApi::OpenaiResponses, "/v1/models"));
    }
}
