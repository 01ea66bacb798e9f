//! One line of an event log, `{"event": E, "context": {...}}` (and, for a
//! resumed evaluation, `"results": {HOOK_ID: RESULT}`): finding its members
//! in one pass, without building anything.
//!
//! The context is the larger part of a line, and the runtime reads it
//! anyway: `Context::Json` parses exactly what `serde_json` accepts, in one
//! pass that builds only the values the policy reads. So here the context
//! is only *delimited* (strings skipped eight bytes at a time, brackets
//! counted), and the runtime's pass is its validation: a malformed context
//! is that evaluation's error. Everything else on the line is checked with
//! `serde_json` as a `Value` would be, so a line is accepted exactly when
//! it is a JSON object with a string `event`, each member at most once, and
//! its context is JSON (the replay tests compare this with `serde_json` on
//! mutated lines). On seed-shaped lines this takes about 6,400 instructions
//! per line, where `serde_json` reading the line into a struct with a
//! `&RawValue` context (which checks the context as well) took 12,700
//! (callgrind; README, "Replay throughput and memory").

use serde::de::IgnoredAny;
use std::borrow::Cow;

/// A line that is not an event record.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The line is not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// The line is JSON, but not an object (an array, a string...).
    #[error("expected a JSON object")]
    NotAnObject,
    /// The line is not JSON where it was read.
    #[error("{what} at column {column}")]
    Syntax {
        /// What was expected or found.
        what: &'static str,
        /// 1-based byte column.
        column: usize,
    },
    /// A member's value is not JSON, or a key is not a JSON string.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// No `event` member.
    #[error("missing field `event`")]
    MissingEvent,
    /// `event` is there but not a string.
    #[error("`event` is not a string")]
    EventNotString,
    /// `event`, `context` or `results` given twice.
    #[error("duplicate field `{0}`")]
    Duplicate(&'static str),
    /// `results` is there but not an object of results by hook id.
    #[error("`results` is not an object of awaited hooks' results by hook id")]
    ResultsNotObject,
}

/// One event record: its event name and its context's JSON text, both
/// borrowed from the line (the name is decoded when it has escapes).
#[derive(Debug)]
pub struct LogRecord<'a> {
    /// The event name.
    pub event: Cow<'a, str>,
    context: Option<&'a str>,
    results: Option<&'a str>,
}

impl<'a> LogRecord<'a> {
    /// Reads one line (see the module doc for what is checked where).
    pub fn parse(line: &'a [u8]) -> Result<LogRecord<'a>, RecordError> {
        let text = std::str::from_utf8(line).map_err(|_| RecordError::NotUtf8)?;
        let mut s = Scanner { text, at: 0 };
        s.skip_ws();
        match s.peek() {
            Some(b'{') => s.at += 1,
            Some(b'[' | b'"' | b't' | b'f' | b'n' | b'-' | b'0'..=b'9') => {
                // JSON, but not an object (or not JSON at all: say which).
                serde_json::from_str::<IgnoredAny>(text)?;
                return Err(RecordError::NotAnObject);
            }
            _ => return Err(s.error("expected `{`")),
        }
        let (mut event, mut context, mut results) = (None, None, None);
        s.skip_ws();
        if s.peek() == Some(b'}') {
            s.at += 1;
        } else {
            loop {
                s.skip_ws();
                let key = s.string()?;
                s.skip_ws();
                s.expect(b':', "expected `:`")?;
                s.skip_ws();
                match key_name(key)?.as_ref() {
                    "event" => {
                        if event.is_some() {
                            return Err(RecordError::Duplicate("event"));
                        }
                        if s.peek() != Some(b'"') {
                            s.json_value()?;
                            return Err(RecordError::EventNotString);
                        }
                        event = Some(key_name(s.string()?)?);
                    }
                    "context" => {
                        if context.is_some() {
                            return Err(RecordError::Duplicate("context"));
                        }
                        context = Some(s.delimit_value()?);
                    }
                    "results" => {
                        if results.is_some() {
                            return Err(RecordError::Duplicate("results"));
                        }
                        results = Some(s.delimit_value()?);
                    }
                    _ => s.json_value()?,
                }
                s.skip_ws();
                match s.peek() {
                    Some(b',') => s.at += 1,
                    Some(b'}') => {
                        s.at += 1;
                        break;
                    }
                    _ => return Err(s.error("expected `,` or `}`")),
                }
            }
        }
        s.skip_ws();
        if s.at < text.len() {
            return Err(s.error("trailing characters"));
        }
        let event = event.ok_or(RecordError::MissingEvent)?;
        Ok(LogRecord {
            event,
            context,
            results,
        })
    }

    /// The line's `results`, parsed (only lines that have them pay for it):
    /// the awaited hooks' results this evaluation resumes with
    /// (`docs/src/semantics.md#resumable-decisions`).
    pub fn results(&self) -> Result<Option<hookc_runtime::Results>, RecordError> {
        let Some(text) = self.results else {
            return Ok(None);
        };
        match serde_json::from_str(text)? {
            serde_json::Value::Object(map) => Ok(Some(hookc_runtime::Results::from(map))),
            _ => Err(RecordError::ResultsNotObject),
        }
    }

    /// The context's JSON text; `null` when the line has none (as a
    /// missing context always read).
    pub fn context(&self) -> &'a str {
        self.context.unwrap_or("null")
    }
}

/// A string's contents (between its quotes) as its value: borrowed unless
/// it has escapes, which `serde_json` decodes (and checks).
fn key_name(quoted: &str) -> Result<Cow<'_, str>, RecordError> {
    let inner = quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default();
    if inner.contains('\\') {
        Ok(Cow::Owned(serde_json::from_str::<String>(quoted)?))
    } else {
        Ok(Cow::Borrowed(inner))
    }
}

/// The first `"` or `\\` in `bytes`. Most strings of a log line are keys and
/// short values, for which a call to `memchr2` costs more than the search:
/// eight bytes at a time here (the classic "has a zero byte" word trick on
/// the bytes XORed with each target; its lowest set bit is exact), the
/// remainder byte by byte.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let hits =
            zero_byte(w ^ (ONES * u64::from(b'"'))) | zero_byte(w ^ (ONES * u64::from(b'\\')));
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words
        .remainder()
        .iter()
        .position(|b| matches!(b, b'"' | b'\\'));
    tail.map(|i| at + i)
}

/// A position in a line.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn error(&self, what: &'static str) -> RecordError {
        RecordError::Syntax {
            what,
            column: self.at + 1,
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), RecordError> {
        if self.peek() != Some(byte) {
            return Err(self.error(what));
        }
        self.at += 1;
        Ok(())
    }

    /// A JSON string at the position, quotes included, checked as
    /// `serde_json` checks one (no control characters; escapes are
    /// checked where the string is decoded, by [`key_name`]).
    fn string(&mut self) -> Result<&'a str, RecordError> {
        let start = self.at;
        self.expect(b'"', "expected a string")?;
        let end = self.string_end()?;
        let quoted = self.text.get(start..end).unwrap_or_default();
        if quoted.bytes().any(|b| b < 0x20) {
            return Err(self.error("control character in a string"));
        }
        Ok(quoted)
    }

    /// Past the closing quote of the string whose opening quote is just
    /// before the position.
    fn string_end(&mut self) -> Result<usize, RecordError> {
        loop {
            let rest = self.bytes().get(self.at..).unwrap_or_default();
            match quote_or_backslash(rest) {
                Some(i) if rest.get(i) == Some(&b'"') => {
                    self.at += i + 1;
                    return Ok(self.at);
                }
                // A backslash: the byte after it is escaped.
                Some(i) => self.at += i + 2,
                None => {
                    self.at = self.text.len();
                    return Err(self.error("unterminated string"));
                }
            }
        }
    }

    /// One JSON value, checked by `serde_json` (as a member it ignores).
    fn json_value(&mut self) -> Result<(), RecordError> {
        let rest = self.text.get(self.at..).unwrap_or_default();
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                self.at += values.byte_offset();
                Ok(())
            }
            Some(Err(e)) => Err(e.into()),
            None => Err(self.error("expected a value")),
        }
    }

    /// The text of the value at the position, delimited but not checked:
    /// for a JSON value, exactly its text; for anything else, text that is
    /// not JSON either (the runtime's read of it fails), or an error here.
    fn delimit_value(&mut self) -> Result<&'a str, RecordError> {
        let start = self.at;
        match self.peek() {
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        Some(b'"') => {
                            self.at += 1;
                            self.string_end()?;
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        Some(_) => {}
                        None => return Err(self.error("unterminated context")),
                    }
                    self.at += 1;
                }
            }
            Some(b'"') => {
                self.at += 1;
                self.string_end()?;
            }
            // A scalar runs to the next delimiter.
            Some(_) => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.at += 1;
                }
            }
            None => return Err(self.error("expected a value")),
        }
        Ok(self.text.get(start..self.at).unwrap_or_default())
    }
}

/// Whether a line holds nothing but white space (skipped, not a record).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What `serde_json` says of a line: `Some((event, context))` for an
    /// event record, `None` otherwise. (The line-level half of the
    /// acceptance: duplicates are tested apart, as `Value` keeps the last.)
    fn reference(line: &[u8]) -> Option<(String, Value)> {
        let v: Value = serde_json::from_slice(line).ok()?;
        let o = v.as_object()?;
        let event = o.get("event")?.as_str()?.to_owned();
        Some((event, o.get("context").cloned().unwrap_or(Value::Null)))
    }

    /// What the scanner and the runtime's read of the context say together.
    fn scanned(line: &[u8]) -> Option<(String, Value)> {
        let rec = LogRecord::parse(line).ok()?;
        let ctx: Value = serde_json::from_str(rec.context()).ok()?;
        Some((rec.event.into_owned(), ctx))
    }

    #[test]
    fn a_record_borrows_its_members_text() {
        let rec = LogRecord::parse(
            br#" {"x": [1, {"y": "}"}], "event" : "e", "context": {"a": [1, "]\"", 2]} } "#,
        )
        .unwrap();
        assert!(matches!(rec.event, Cow::Borrowed("e")));
        assert_eq!(rec.context(), r#"{"a": [1, "]\"", 2]}"#);
        let bare = LogRecord::parse(br#"{"event": "e\u0041"}"#).unwrap();
        assert_eq!(bare.event, "eA");
        assert_eq!(bare.context(), "null");
        let scalar = LogRecord::parse(br#"{"context": 12.5e3 ,"event": "e"}"#).unwrap();
        assert_eq!(scalar.context(), "12.5e3");
    }

    #[test]
    fn the_word_search_finds_the_first_quote_or_backslash() {
        let text = b"abcdefgh\\ijklmnop\"q\"rstuvwxyz0123456789";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let slice = &text[start..end];
                let want = slice.iter().position(|b| matches!(b, b'"' | b'\\'));
                assert_eq!(quote_or_backslash(slice), want, "{start}..{end}");
            }
        }
        // A match after a byte that borrows (0x00, 0x80, 0xff) in the same word.
        for pre in [0x00u8, 0x01, 0x21, 0x22, 0x5b, 0x5d, 0x80, 0xfe, 0xff] {
            for at in 0..16 {
                let mut bytes = vec![b'x'; 24];
                bytes[at] = b'"';
                if at > 0 {
                    bytes[at - 1] = pre;
                }
                let want = bytes.iter().position(|b| matches!(b, b'"' | b'\\'));
                assert_eq!(quote_or_backslash(&bytes), want, "{pre:#x} before {at}");
            }
        }
    }

    #[test]
    fn what_is_not_a_record() {
        for (line, want) in [
            (&br#"{"context": {}}"#[..], "missing field `event`"),
            (br#"["e", {}]"#, "expected a JSON object"),
            (br#"{"event": 1}"#, "`event` is not a string"),
            (
                br#"{"event": "a", "event": "b"}"#,
                "duplicate field `event`",
            ),
            (
                br#"{"event": "a", "context": 1, "context": 2}"#,
                "duplicate field `context`",
            ),
            (br#"{"event": "a"} x"#, "trailing characters at column 16"),
            (
                br#"{"event": "a" "context": 1}"#,
                "expected `,` or `}` at column 15",
            ),
            (b"<event/>", "expected `{` at column 1"),
            (b"not json", "expected ident at line 1 column 2"),
            (b"{\"event\": \"a\xff\"}", "not UTF-8 text"),
        ] {
            let err = LogRecord::parse(line).unwrap_err().to_string();
            assert!(
                err.starts_with(want),
                "{}: {err}",
                String::from_utf8_lossy(line)
            );
        }
    }

    /// Every line of the CLI tests' log, and each of them with one byte
    /// changed at many places into JSON's structural characters: the
    /// scanner and the runtime's read of the context accept exactly what
    /// `serde_json` accepts, with the same event and context.
    #[test]
    fn mutated_lines_are_accepted_exactly_when_serde_json_accepts_them() {
        let log = include_str!("../../tests/data/seed000_eval/events.jsonl");
        let (mut same, mut accepted) = (0, 0);
        for line in log.lines() {
            let line = line.as_bytes();
            assert!(scanned(line).is_some());
            assert_eq!(scanned(line), reference(line));
            for (k, at) in (0..line.len()).step_by(3).enumerate() {
                let mut mutated = line.to_vec();
                mutated[at] = b"{}[]\",: \\0a"[k % 11];
                let want = reference(&mutated);
                let event_twice = LogRecord::parse(&mutated)
                    .is_err_and(|e| matches!(e, RecordError::Duplicate(_)));
                if event_twice {
                    continue;
                }
                assert_eq!(
                    scanned(&mutated),
                    want,
                    "{}",
                    String::from_utf8_lossy(&mutated)
                );
                same += 1;
                accepted += usize::from(want.is_some());
            }
        }
        assert!(
            same > 3000 && accepted > 100,
            "{same} mutations, {accepted} accepted"
        );
    }
}
