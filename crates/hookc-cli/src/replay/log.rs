//! Reading an event log: opening it (a file, standard input, gzip or not)
//! and cutting it into [`Chunk`]s of whole, numbered lines with a bounded
//! line length. (A line's members: `record.rs`.)
//!
//! A log is JSON lines, one `{"event": E, "context": {...}}` per line
//! (README, "Command line"). Nothing here holds more than one chunk and the
//! reader's buffer, whatever the log's size.

use super::ReplayError;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The first two bytes of every gzip member (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The longest line read: a longer one is reported as malformed and
/// skipped, so one runaway line cannot take the memory a streaming replay
/// promises to bound.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The reader's buffer size (and the decompressor's input buffer).
const READ_BUFFER: usize = 64 << 10;

/// An open event log, read line by line.
pub struct LogReader {
    /// How messages name the log: its path, or `<stdin>`.
    name: String,
    /// The log's size in bytes when it is a plain file (for a progress bar).
    size: Option<u64>,
    input: Box<dyn BufRead + Send>,
    /// The number of the next line to read (1-based).
    next_line: u64,
    max_line: usize,
}

impl LogReader {
    /// Opens `path` (`-` is standard input). Gzip-compressed input is
    /// recognized by its magic bytes, whatever the name.
    pub fn open(path: &Path) -> Result<LogReader, ReplayError> {
        if path.as_os_str() == "-" {
            let stdin = BufReader::with_capacity(READ_BUFFER, std::io::stdin());
            return LogReader::new("<stdin>".to_owned(), None, stdin);
        }
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| ReplayError::Open {
            name: name.clone(),
            source,
        })?;
        let size = file.metadata().ok().map(|m| m.len());
        LogReader::new(name, size, BufReader::with_capacity(READ_BUFFER, file))
    }

    /// A log read from `input`, decompressed if it starts as gzip does.
    pub fn new<R: BufRead + Send + 'static>(
        name: String,
        size: Option<u64>,
        mut input: R,
    ) -> Result<LogReader, ReplayError> {
        let head = input.fill_buf().map_err(|source| ReplayError::Read {
            name: name.clone(),
            source,
        })?;
        let gzip = head.starts_with(&GZIP_MAGIC);
        let input: Box<dyn BufRead + Send> = if gzip {
            // Multi-member: `cat a.gz b.gz` and `gzip` of a stream are
            // both sequences of members.
            let inflate = flate2::bufread::MultiGzDecoder::new(input);
            Box::new(BufReader::with_capacity(READ_BUFFER, inflate))
        } else {
            Box::new(input)
        };
        Ok(LogReader {
            name,
            // A compressed log's size says nothing about its lines.
            size: size.filter(|_| !gzip),
            input,
            next_line: 1,
            max_line: MAX_LINE_BYTES,
        })
    }

    /// The same reader with another line-length limit (tests).
    #[cfg(test)]
    fn with_max_line(self, max_line: usize) -> LogReader {
        LogReader { max_line, ..self }
    }

    /// How messages name the log.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The size of a plain-file log, in bytes.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// Fills the empty `chunk` with the next lines, until it holds at least
    /// `target` bytes or the log ends; false when there were no more lines.
    pub fn fill(&mut self, chunk: &mut Chunk, target: usize) -> Result<bool, ReplayError> {
        chunk.clear();
        chunk.first_line = self.next_line;
        while chunk.data.len() < target {
            if !self.read_line(chunk)? {
                break;
            }
        }
        Ok(!chunk.lines.is_empty())
    }

    /// Appends one line to `chunk`; false at the end of the log.
    fn read_line(&mut self, chunk: &mut Chunk) -> Result<bool, ReplayError> {
        let start = chunk.data.len();
        let mut read_any = false;
        let mut too_long = false;
        loop {
            let buf = self.input.fill_buf().map_err(|source| ReplayError::Read {
                name: self.name.clone(),
                source,
            })?;
            if buf.is_empty() {
                break;
            }
            read_any = true;
            let (piece, used, ended) = match memchr::memchr(b'\n', buf) {
                Some(at) => (buf.get(..at).unwrap_or_default(), at + 1, true),
                None => (buf, buf.len(), false),
            };
            let kept = chunk.data.len() - start;
            if too_long || kept + piece.len() > self.max_line {
                // Skip to the end of the line, keeping nothing of it.
                too_long = true;
                chunk.data.truncate(start);
            } else {
                chunk.data.extend_from_slice(piece);
            }
            chunk.bytes += used as u64;
            self.input.consume(used);
            if ended {
                break;
            }
        }
        if !read_any {
            return Ok(false);
        }
        self.next_line += 1;
        chunk.lines.push(LineEnd {
            end: chunk.data.len(),
            too_long,
        });
        Ok(true)
    }
}

/// Where one line of a [`Chunk`] ends in its data, and whether it was cut
/// for being longer than the limit.
#[derive(Clone, Copy)]
struct LineEnd {
    end: usize,
    too_long: bool,
}

/// Consecutive whole lines of a log, numbered from `first_line`, newlines
/// removed.
#[derive(Default)]
pub struct Chunk {
    first_line: u64,
    data: Vec<u8>,
    lines: Vec<LineEnd>,
    /// The log bytes these lines took, newlines included.
    bytes: u64,
}

impl Chunk {
    /// Empties the chunk, keeping its buffers for the next lines.
    pub fn clear(&mut self) {
        self.data.clear();
        self.lines.clear();
        self.bytes = 0;
    }

    /// The number of lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The log bytes these lines took (uncompressed), newlines included.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Each line with its number: its text, or [`LineTooLong`].
    pub fn lines(&self) -> impl Iterator<Item = (u64, Result<&[u8], LineTooLong>)> + '_ {
        let mut start = 0;
        (self.first_line..)
            .zip(self.lines.iter())
            .map(move |(n, line)| {
                let text = self.data.get(start..line.end).unwrap_or_default();
                start = line.end;
                (
                    n,
                    if line.too_long {
                        Err(LineTooLong)
                    } else {
                        Ok(text)
                    },
                )
            })
    }
}

/// A line longer than [`MAX_LINE_BYTES`].
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the line is longer than {} MiB", MAX_LINE_BYTES >> 20)]
pub struct LineTooLong;

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(text: &'static [u8]) -> LogReader {
        LogReader::new("t".to_owned(), None, text).unwrap()
    }

    fn all_lines(r: &mut LogReader, target: usize) -> Vec<(u64, Option<String>)> {
        let mut chunk = Chunk::default();
        let mut out = Vec::new();
        while r.fill(&mut chunk, target).unwrap() {
            for (n, line) in chunk.lines() {
                out.push((
                    n,
                    line.ok().map(|l| String::from_utf8_lossy(l).into_owned()),
                ));
            }
        }
        out
    }

    #[test]
    fn lines_are_numbered_across_chunks_and_the_last_needs_no_newline() {
        let mut r = reader(b"a\n\nccc\nd");
        let lines = all_lines(&mut r, 2);
        let want: Vec<(u64, Option<String>)> = vec![
            (1, Some("a".into())),
            (2, Some(String::new())),
            (3, Some("ccc".into())),
            (4, Some("d".into())),
        ];
        assert_eq!(lines, want);
    }

    #[test]
    fn a_line_over_the_limit_is_flagged_and_the_next_read_whole() {
        let mut r = reader(b"short\nthis one is long\nok\n").with_max_line(6);
        let lines = all_lines(&mut r, 1 << 10);
        let want: Vec<(u64, Option<String>)> =
            vec![(1, Some("short".into())), (2, None), (3, Some("ok".into()))];
        assert_eq!(lines, want);
    }
}
