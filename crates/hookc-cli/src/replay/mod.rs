//! Streaming, parallel replay of an event log: the log is read in
//! [`Chunk`]s of whole lines, each chunk is handed to one of `jobs` worker
//! threads sharing the policy (a [`ChunkJob`]), and the chunks' results are
//! passed on in input order. At most a fixed number of chunks is in flight
//! (read and not yet passed on), so memory stays bounded whatever the log's
//! size. What a job does with a line (`eval --events`, `--summary`, `diff`)
//! is in the modules below; ARCHITECTURE.md ("hookc-cli") has the picture.

pub mod diff;
pub mod jobs;
pub mod log;
pub mod record;
pub mod summary;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use log::{Chunk, LogReader};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc::{channel, sync_channel, Receiver};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A replay that could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The log file does not open.
    #[error("cannot open the event log `{name}`: {source}")]
    Open {
        /// The log's path.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// Reading (or decompressing) the log failed part way.
    #[error("cannot read the event log `{name}`: {source} (a damaged or truncated gzip file?)")]
    Read {
        /// The log's path, or `<stdin>`.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// Writing the results failed (standard output closed?).
    #[error("cannot write to standard output: {0}")]
    Write(#[source] std::io::Error),
}

/// How a replay is split up.
#[derive(Debug, Clone, Copy)]
pub struct ReplaySettings {
    /// Worker threads; 1 evaluates on the reading thread, no threads.
    pub jobs: usize,
    /// A chunk is cut after the line that makes it this many bytes long.
    pub chunk_bytes: usize,
}

impl ReplaySettings {
    /// The default chunk size: large enough that handing a chunk to a
    /// thread costs little next to evaluating its ~100 seed-shaped lines,
    /// small enough that the chunks in flight take a few MB.
    pub const CHUNK_BYTES: usize = 128 << 10;

    /// Chunks in flight per worker: one being evaluated, one queued for
    /// it, one done waiting for an earlier chunk to be written.
    const IN_FLIGHT_PER_JOB: usize = 3;

    fn in_flight(&self) -> usize {
        self.jobs
            .saturating_mul(ReplaySettings::IN_FLIGHT_PER_JOB)
            .max(2)
    }
}

/// What a replay does with each chunk: run on a worker thread, so shared
/// (`Sync`) and without side effects; its output is passed on in order.
pub trait ChunkJob: Sync {
    /// What one chunk gives.
    type Output: Send;
    /// Evaluates every line of `chunk`.
    fn run(&self, chunk: &Chunk) -> Self::Output;
}

/// Replays `log`: `job` on every chunk, `sink` on the outputs in input
/// order, with the chunk they came from (for its size and line count).
/// Returns the first error of the reader or of `sink`; after a `sink` error
/// the rest of the log is not read.
pub fn replay<J, S>(
    log: &mut LogReader,
    settings: ReplaySettings,
    job: &J,
    mut sink: S,
) -> Result<(), ReplayError>
where
    J: ChunkJob,
    S: FnMut(J::Output, &Chunk) -> Result<(), ReplayError>,
{
    let target = settings.chunk_bytes.max(1);
    if settings.jobs <= 1 {
        let mut chunk = Chunk::default();
        while log.fill(&mut chunk, target)? {
            sink(job.run(&chunk), &chunk)?;
        }
        return Ok(());
    }
    let in_flight = settings.in_flight();
    // Empty chunks go round: reader -> worker -> writer -> reader. There
    // are `in_flight` of them, so the reader waits for the writer once
    // that many are out, and the recycling channel never blocks a send.
    let (recycle_tx, recycle_rx) = sync_channel::<Chunk>(in_flight);
    for _ in 0..in_flight {
        // Cannot fail: the receiver is alive and there is room for all.
        let _ = recycle_tx.send(Chunk::default());
    }
    let (work_tx, work_rx) = sync_channel::<(u64, Chunk)>(in_flight);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = channel::<(u64, J::Output, Chunk)>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || -> Result<(), ReplayError> {
            let mut seq = 0;
            // The writer gone (it failed) ends the reading.
            while let Ok(mut chunk) = recycle_rx.recv() {
                if !log.fill(&mut chunk, target)? || work_tx.send((seq, chunk)).is_err() {
                    break;
                }
                seq += 1;
            }
            Ok(())
        });
        for _ in 0..settings.jobs {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || loop {
                // The lock is held only to take the next chunk.
                let next = match work_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok((seq, chunk)) = next else { break };
                let output = job.run(&chunk);
                if done_tx.send((seq, output, chunk)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let written = write_in_order(done_rx, recycle_tx, &mut sink);
        // The reader's error first: a failed read explains a short output.
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        read.and(written)
    })
}

/// The writer of a parallel replay: holds back outputs that come early
/// until every earlier one is passed on, and sends each chunk back to the
/// reader once its output is.
fn write_in_order<O, S>(
    done: Receiver<(u64, O, Chunk)>,
    recycle: std::sync::mpsc::SyncSender<Chunk>,
    sink: &mut S,
) -> Result<(), ReplayError>
where
    S: FnMut(O, &Chunk) -> Result<(), ReplayError>,
{
    let mut waiting = BTreeMap::new();
    let mut next = 0u64;
    for (seq, output, chunk) in done {
        waiting.insert(seq, (output, chunk));
        while let Some((output, mut chunk)) = waiting.remove(&next) {
            sink(output, &chunk)?;
            chunk.clear();
            // The reader may have stopped (end of log); nothing to return to.
            let _ = recycle.send(chunk);
            next += 1;
        }
    }
    Ok(())
}

/// The default `--jobs`: every core.
pub fn available_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A progress bar for long replays on standard error: drawn only when
/// standard error is a terminal, and only once a replay has run for a
/// second (a short log shows nothing).
pub struct ReplayProgress {
    bar: Option<ProgressBar>,
    size: Option<u64>,
    started: Instant,
    bytes: u64,
    lines: u64,
}

impl ReplayProgress {
    /// Progress through a log of `size` bytes (unknown for standard input
    /// and gzip: then a counter, not a bar).
    pub fn new(size: Option<u64>) -> ReplayProgress {
        ReplayProgress {
            bar: None,
            size,
            started: Instant::now(),
            bytes: 0,
            lines: 0,
        }
    }

    /// A chunk was passed on.
    pub fn advance(&mut self, chunk: &Chunk) {
        self.bytes += chunk.bytes();
        self.lines += chunk.len() as u64;
        if self.bar.is_none() && self.started.elapsed() >= Duration::from_secs(1) {
            self.bar = Some(self.draw());
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.bytes);
            bar.set_message(format!("{} lines", self.lines));
        }
    }

    fn draw(&self) -> ProgressBar {
        // `stderr()` is itself hidden when standard error is not a terminal.
        let bar = ProgressBar::with_draw_target(self.size, ProgressDrawTarget::stderr());
        let template = match self.size {
            Some(_) => "replay [{bar:30}] {bytes}/{total_bytes} {elapsed} {wide_msg}",
            None => "replay {spinner} {bytes} {elapsed} {wide_msg}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    }

    /// The replay ended: the bar is cleared.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Reports a replay's bad lines (`LOG:N: ...`) on standard error.
pub fn report_lines(errors: &[String]) -> Result<(), ReplayError> {
    if errors.is_empty() {
        return Ok(());
    }
    let mut err = std::io::stderr().lock();
    for e in errors {
        writeln!(err, "error: {e}").map_err(ReplayError::Write)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line's number and text, as one string per chunk.
    struct Echo;

    impl ChunkJob for Echo {
        type Output = String;
        fn run(&self, chunk: &Chunk) -> String {
            let mut out = String::new();
            for (n, line) in chunk.lines() {
                out.push_str(&format!("{n}:{}\n", String::from_utf8_lossy(line.unwrap())));
            }
            out
        }
    }

    fn run(text: Vec<u8>, jobs: usize, chunk_bytes: usize) -> String {
        let mut log = LogReader::new("t".into(), None, std::io::Cursor::new(text)).unwrap();
        let mut out = String::new();
        let settings = ReplaySettings { jobs, chunk_bytes };
        replay(&mut log, settings, &Echo, |o, _| {
            out.push_str(&o);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn parallel_output_is_in_input_order() {
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let one = run(text.clone().into_bytes(), 1, 7);
        assert_eq!(one.lines().count(), 5000);
        for jobs in [2, 3, 8] {
            assert_eq!(run(text.clone().into_bytes(), jobs, 7), one, "jobs {jobs}");
        }
    }

    #[test]
    fn a_sink_error_stops_the_replay() {
        let text: Vec<u8> = (0..1000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let mut log = LogReader::new("t".into(), None, std::io::Cursor::new(text)).unwrap();
        let mut calls = 0;
        let settings = ReplaySettings {
            jobs: 2,
            chunk_bytes: 4,
        };
        let result = replay(&mut log, settings, &Echo, |_, _| {
            calls += 1;
            Err(ReplayError::Write(std::io::Error::other("closed")))
        });
        assert!(matches!(result, Err(ReplayError::Write(_))));
        assert_eq!(calls, 1);
    }
}
