//! Source positions: the parser's character indexes as byte offsets, and the
//! scans of the text that rebuild tight spans (where a quoted scalar ends,
//! where a block scalar's header is, which line an offset is on).

/// Distance between two remembered char→byte checkpoints.
const STRIDE: usize = 64;

/// Converts the parser's character indexes into byte offsets.
///
/// ASCII text maps one to one; otherwise every [`STRIDE`]th character's byte
/// offset is remembered and the rest is walked, so a lookup costs at most
/// `STRIDE` steps and the table a 64th of the text.
pub(super) struct CharMap<'t> {
    text: &'t str,
    ascii: bool,
    checkpoints: Vec<usize>,
}

impl<'t> CharMap<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        let ascii = text.is_ascii();
        let checkpoints = if ascii {
            Vec::new()
        } else {
            text.char_indices()
                .step_by(STRIDE)
                .map(|(i, _)| i)
                .collect()
        };
        CharMap {
            text,
            ascii,
            checkpoints,
        }
    }

    /// The byte offset of character `index` (the text's length past the end).
    pub(super) fn byte(&self, index: usize) -> usize {
        let len = self.text.len();
        if self.ascii {
            return index.min(len);
        }
        let Some(&base) = self.checkpoints.get(index / STRIDE) else {
            return len;
        };
        self.text
            .get(base..)
            .and_then(|rest| rest.char_indices().nth(index % STRIDE))
            .map_or(len, |(offset, _)| base + offset)
    }
}

/// One past the closing quote of the quoted scalar opening at `start`.
pub(super) fn quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = *bytes.get(start)?;
    let mut i = start + 1;
    match quote {
        b'\'' => loop {
            match bytes.get(i)? {
                b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b'\'' => return Some(i + 1),
                _ => i += 1,
            }
        },
        b'"' => loop {
            match bytes.get(i)? {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        },
        _ => None,
    }
}

/// The `|` or `>` header of the block scalar whose content starts at `content`:
/// on the nearest non-blank line before it, followed only by chomping and
/// indentation indicators and a comment.
pub(super) fn block_header_before(text: &str, content: usize) -> Option<usize> {
    let before = text.get(..content)?;
    let mut line_start = before.rfind('\n').map_or(0, |i| i + 1);
    while line_start > 0 {
        let line_end = line_start - 1;
        let prev_start = text.get(..line_end)?.rfind('\n').map_or(0, |i| i + 1);
        let line = text.get(prev_start..line_end)?;
        if !line.trim().is_empty() {
            return line.char_indices().find_map(|(i, c)| {
                let rest = line.get(i + 1..)?;
                let rest =
                    rest.trim_start_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit());
                let rest = rest.trim_start_matches([' ', '\t']).trim_end_matches('\r');
                ((c == '|' || c == '>') && (rest.is_empty() || rest.starts_with('#')))
                    .then_some(prev_start + i)
            });
        }
        line_start = prev_start;
    }
    None
}

/// The 1-based line of a byte offset.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |s| s.bytes().filter(|&b| b == b'\n').count())
        + 1
}
