//! `hookc serve POLICY`: `hookc hook` as a long-running HTTP server, for
//! hosts with HTTP hooks (Claude Code's `type: http`) and for tools that
//! would rather not spawn a process per call.
//!
//! The same request and answer as `hookc hook`, over HTTP/1.1 on a loopback
//! address: `POST /hook/NAME` (NAME a `--host` name) takes the payload as
//! its body and answers the host's reply ([`http`] maps a process reply to
//! a response; docs/src/hosts/serve.md is the guide). `GET /health` says
//! which policy version serves.
//!
//! The policy is reloaded when its files change ([`reload`]): the new one
//! is loaded and verified off the request path and swapped in whole; one
//! that does not load is refused, said on standard error, and the old one
//! keeps serving. Every request is decided by exactly one version.
//!
//! Bounded: request headers and body each have a deadline, the body a size,
//! the server a number of open connections ([`limits`]). The evaluations of
//! a policy with host actions (`run`, `test_path`), or with `--log`, run on
//! tokio's bounded blocking pool, so a program never stalls the workers
//! that read and write the sockets; a policy without them is evaluated on
//! the worker itself (CPU work bounded by the runtime's limits, cheaper
//! than the hand-off: `http::route`).

mod http;
mod reload;

use crate::exit::Exit;
use hookc_binding::hosts::HookError;
use reload::Versions;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// Every bound `hookc serve` puts on its clients, in one place (they are
/// facts of this server, not of the runtime: `hookc_runtime::limits` bounds
/// what a policy and a context may be).
pub mod limits {
    /// Largest request body read, in bytes; a larger one is answered 413
    /// without being read (by its `Content-Length`) or as soon as it
    /// passes the bound. Generous because a `Write` tool call carries the
    /// whole file it writes.
    pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;
    /// Largest request head (request line and headers), in bytes: 431 past it.
    pub const MAX_HEAD_BYTES: usize = 64 * 1024;
    /// Default time a client has to send a request's head, from its first
    /// byte wait (also how long an idle keep-alive connection is kept):
    /// past it the connection is closed (a slow client holds no more).
    pub const HEADER_TIMEOUT_MS: u64 = 5_000;
    /// Default time a client has to send a request's body once its head is
    /// read: 408 past it.
    pub const BODY_TIMEOUT_MS: u64 = 10_000;
    /// Connections served at once; further ones wait in the listen queue
    /// until one closes.
    pub const MAX_CONNECTIONS: usize = 1_024;
    /// Evaluations run at once on tokio's blocking pool (a policy with host
    /// actions, or `--log`): each may run a program, so more wait rather
    /// than spawn more threads.
    pub const MAX_BLOCKING_THREADS: usize = 64;
    /// Default interval at which the policy's files are checked for a
    /// change.
    pub const POLL_MS: u64 = 500;
}

/// The default address: loopback, a fixed port.
const DEFAULT_ADDR: &str = "127.0.0.1:8787";

/// `hookc serve`'s arguments.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The policy: one artifact (`.hkb`, from `hookc compile`), or its
    /// source files, compiled first; reloaded when they change.
    #[arg(value_name = "POLICY", required = true)]
    files: Vec<PathBuf>,
    /// Where to listen: IP:PORT (port 0: any free port; the line
    /// `hookc serve: listening on http://IP:PORT` on standard error says
    /// which).
    #[arg(long, value_name = "IP:PORT", default_value = DEFAULT_ADDR)]
    addr: SocketAddr,
    /// Listen on an address that is not loopback: anyone who reaches it can
    /// ask the policy's decisions and run its host actions.
    #[arg(long)]
    allow_remote: bool,
    /// On a failure (a bad payload, an evaluation error), answer "no
    /// decision" instead of the host's block; the reason goes to standard
    /// error.
    #[arg(long)]
    fail_open: bool,
    /// Append one JSON line per evaluated call to FILE, as `hookc hook
    /// --log` does (whole lines, whatever the concurrency).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// A context member (`tool_input.command`) to log and export as its
    /// keyed hash, as `hookc hook --mask` does; repeatable.
    #[arg(long, value_name = "PATH")]
    mask: Vec<String>,
    /// Also decide each call with this candidate policy and log (and
    /// export) its decision beside the live one, as `hookc hook --shadow`
    /// does; reloaded when it changes. Needs `--log` or `--otlp-endpoint`.
    #[arg(long, value_name = "CANDIDATE")]
    shadow: Option<PathBuf>,
    /// Also export each decision as an OpenTelemetry log record, OTLP over
    /// HTTP, to URL, as `hookc hook --otlp-endpoint` does; from a bounded
    /// queue, off the request path (a full queue drops records, counted in
    /// `/health`), what is queued sent on shutdown.
    #[arg(long, value_name = "URL", value_parser = crate::otlp::parse_endpoint)]
    otlp_endpoint: Option<crate::otlp::OtlpEndpoint>,
    /// Milliseconds one export request may take, connecting included.
    #[arg(long, value_name = "MS", requires = "otlp_endpoint", default_value_t = crate::otlp::TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    otlp_timeout_ms: u64,
    /// Milliseconds between checks of the policy's files for a change.
    #[arg(long, value_name = "MS", default_value_t = limits::POLL_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    poll_ms: u64,
    /// Milliseconds a client has to send a request's head.
    #[arg(long, hide = true, value_name = "MS", default_value_t = limits::HEADER_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,
    /// Milliseconds a client has to send a request's body.
    #[arg(long, hide = true, value_name = "MS", default_value_t = limits::BODY_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout_ms: u64,
}

/// Why `hookc serve` could not start or went down.
#[derive(Debug, Error)]
pub enum ServeError {
    /// `--addr` is not loopback and `--allow-remote` was not given.
    #[error(
        "hookc serve: `{0}` is not a loopback address: anyone who reaches it could ask the policy's decisions; listen on 127.0.0.1 or ::1, or pass --allow-remote"
    )]
    NotLoopback(SocketAddr),
    /// The policy does not load at start (a reload that fails is refused
    /// and the old policy kept; at start there is none to keep).
    #[error("{0}")]
    Policy(#[from] HookError),
    /// `--shadow` without a log or an export to write its lines to.
    #[error("hookc serve: `--shadow` logs the candidate's decisions: give `--log FILE` or `--otlp-endpoint URL` too")]
    ShadowUnlogged,
    /// The candidate policy does not load at start.
    #[error("hookc serve: the `--shadow` candidate does not load: {0}")]
    Shadow(HookError),
    /// The async runtime could not be built.
    #[error("hookc serve: cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// `OTEL_EXPORTER_OTLP_HEADERS` (or its logs variable) does not read.
    #[error("hookc serve: {0}")]
    Otlp(#[from] crate::otlp::OtlpError),
    /// The address could not be bound.
    #[error("hookc serve: cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why (in use, not an address of this machine, ...).
        source: std::io::Error,
    },
}

/// What every connection shares: the policy versions and the settings.
struct Server {
    /// The policy versions, the current one swapped in by reloads.
    versions: Arc<Versions>,
    /// Answer "no decision" on failures.
    fail_open: bool,
    /// The decision log.
    log: Option<PathBuf>,
    /// The candidate policy's versions (`--shadow`).
    shadow: Option<Arc<Versions>>,
    /// The members logged and exported as their keyed hash (`--mask`).
    mask: Vec<String>,
    /// The OTLP export's queue (`--otlp-endpoint`).
    otlp: Option<crate::otlp::OtlpQueue>,
    /// The time a client has to send a request's body.
    body_timeout: Duration,
}

/// Runs `hookc serve` until it is interrupted.
pub fn run(args: &ServeArgs) -> Exit {
    match serve(args) {
        Ok(()) => Exit::Ok,
        Err(e) => {
            eprintln!("{e}");
            Exit::Failed
        }
    }
}

/// Loads the policy, binds, and serves until Ctrl-C or SIGTERM.
fn serve(args: &ServeArgs) -> Result<(), ServeError> {
    if !args.addr.ip().is_loopback() && !args.allow_remote {
        return Err(ServeError::NotLoopback(args.addr));
    }
    let headers = match args.otlp_endpoint {
        Some(_) => crate::otlp::env_headers(|name| std::env::var(name).ok())?,
        None => Vec::new(),
    };
    if args.shadow.is_some() && args.log.is_none() && args.otlp_endpoint.is_none() {
        return Err(ServeError::ShadowUnlogged);
    }
    let versions = Arc::new(Versions::load(args.files.clone())?);
    let shadow = match &args.shadow {
        None => None,
        Some(candidate) => Some(Arc::new(
            Versions::load(vec![candidate.clone()]).map_err(ServeError::Shadow)?,
        )),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(limits::MAX_BLOCKING_THREADS)
        .build()
        .map_err(ServeError::Runtime)?;
    let header_timeout = Duration::from_millis(args.header_timeout_ms);
    runtime.block_on(async {
        let (otlp, flush) = match &args.otlp_endpoint {
            Some(endpoint) => {
                let timeout = Duration::from_millis(args.otlp_timeout_ms);
                let (queue, flush) =
                    crate::otlp::OtlpQueue::start(endpoint.clone(), headers, timeout);
                (Some(queue), Some(flush))
            }
            None => (None, None),
        };
        let server = Arc::new(Server {
            versions: Arc::clone(&versions),
            fail_open: args.fail_open,
            log: args.log.clone(),
            shadow: shadow.clone(),
            mask: args.mask.clone(),
            otlp,
            body_timeout: Duration::from_millis(args.body_timeout_ms),
        });
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: args.addr,
                source,
            })?;
        let bound = listener.local_addr().map_err(|source| ServeError::Bind {
            addr: args.addr,
            source,
        })?;
        let current = versions.current();
        eprintln!(
            "hookc serve: listening on http://{bound} (policy version {}, {})",
            current.version,
            reload::hex(current.fingerprint)
        );
        tokio::spawn(reload::watch(versions, Duration::from_millis(args.poll_ms)));
        if let Some(shadow) = shadow {
            tokio::spawn(reload::watch(shadow, Duration::from_millis(args.poll_ms)));
        }
        tokio::select! {
            () = http::accept(listener, server, header_timeout) => {}
            () = shutdown() => eprintln!("hookc serve: stopped"),
        }
        if let Some(flush) = flush {
            flush.stop().await;
        }
        Ok(())
    })
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM (how service managers stop
/// it); a signal handler that cannot be installed never resolves.
async fn shutdown() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
