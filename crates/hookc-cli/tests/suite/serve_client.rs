//! A minimal HTTP/1.1 client over one keep-alive connection, for the
//! `hookc serve` tests (`tests/suite/serve.rs`) and its load generator
//! (`examples/serve_load.rs`): no client library, so the tests see the
//! bytes the server writes and can send the bytes a broken client would.
//!
//! [`Served`] runs `hookc serve` on a free loopback port and stops it when
//! dropped, whatever happened meanwhile.
//!
//! Every read and write has a deadline ([`IO_TIMEOUT`]): a test that waits
//! on a silent server fails instead of hanging.

#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long `hookc serve` may take to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `hookc serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its standard error, line by line, as it comes (read all along, so
    /// the server never blocks on a full pipe).
    pub stderr: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// `hookc serve --addr 127.0.0.1:0 ARGS...` run by the binary `hookc`
    /// in `dir`; waits for its `listening on` line.
    pub fn start(hookc: &str, args: &[&str], dir: &Path) -> io::Result<Served> {
        let mut child = Command::new(hookc)
            // Session memory (`remember`) in a temporary folder of this
            // server's own.
            .env(
                "HOOKC_STATE_DIR",
                std::env::temp_dir().join(format!("hookc-serve-state-{}", std::process::id())),
            )
            // The artifact cache of policy sources likewise, not beside
            // the repository's policies.
            .env(
                "HOOKC_CACHE_DIR",
                std::env::temp_dir().join(format!("hookc-serve-cache-{}", std::process::id())),
            )
            .arg("serve")
            .args(["--addr", "127.0.0.1:0"])
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let Some(pipe) = child.stderr.take() else {
            let _ = child.kill();
            return Err(bad("no standard error pipe"));
        };
        let (tx, rx) = mpsc::channel();
        let lines = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(at.split(' ').next().unwrap_or_default().to_owned());
                }
                if let Ok(mut all) = lines.lock() {
                    all.push(line);
                }
            }
        });
        // The guard owns the child from here: an early return kills it.
        let mut served = Served {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stderr,
        };
        let addr = rx
            .recv_timeout(START_TIMEOUT)
            .map_err(|_| bad(&format!("no `listening on` line: {:?}", served.errors())))?;
        served.addr = addr
            .parse()
            .map_err(|_| bad(&format!("not an address: {addr}")))?;
        Ok(served)
    }

    /// A new connection to it.
    pub fn client(&self) -> io::Result<Client> {
        Client::connect(self.addr)
    }

    /// Its standard error so far.
    pub fn errors(&self) -> String {
        self.stderr.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    /// The process id (for its memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long one read or write may wait.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// A response: status, headers (names lower-cased), body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One keep-alive connection.
pub struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    /// Connects to `addr`.
    pub fn connect(addr: SocketAddr) -> io::Result<Client> {
        let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// `POST path` with `body`.
    pub fn post(&mut self, path: &str, body: &[u8]) -> io::Result<Response> {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: hookc\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        self.send(&request)?;
        self.read_response()
    }

    /// `GET path`.
    pub fn get(&mut self, path: &str) -> io::Result<Response> {
        self.send(format!("GET {path} HTTP/1.1\r\nhost: hookc\r\n\r\n").as_bytes())?;
        self.read_response()
    }

    /// Writes raw bytes.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)?;
        self.writer.flush()
    }

    /// Reads one response (its body by `content-length`; none without one).
    pub fn read_response(&mut self) -> io::Result<Response> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&format!("not a status line: {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header
                .split_once(':')
                .ok_or_else(|| bad(&format!("not a header: {header:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok(Response {
            status,
            headers,
            body,
        })
    }

    /// Whether the server closed the connection: a read that ends (or is
    /// reset) rather than times out. Any bytes it sent first are skipped.
    pub fn is_closed(&mut self) -> bool {
        let mut rest = Vec::new();
        match self.reader.read_to_end(&mut rest) {
            Ok(_) => true,
            Err(e) => e.kind() != io::ErrorKind::WouldBlock && e.kind() != io::ErrorKind::TimedOut,
        }
    }
}

/// An `InvalidData` error.
fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// The `p`-th percentile (0-100) of sorted `values`, nearest rank.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.saturating_sub(1).min(sorted.len() - 1))
        .copied()
        .unwrap_or_default()
}
