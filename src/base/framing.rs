//! Cuts messages out of an in-order byte stream (one direction of a TCP connection) by a length
//! field in their header. The TCP reassembly delivers the bytes; this holds at most one
//! incomplete message.
//!
//! A length below the header or above the configured maximum means the stream is not where a
//! message starts: the framer reports it and drops every byte it holds, hoping that the next bytes
//! pushed (usually the next segment: servers write each message at once) start a message.

use crate::error::DecodeError;

/// Where a protocol keeps its message length and what lengths are plausible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthRule {
    /// Protocol name for error messages, e.g. "failover".
    pub name: &'static str,
    /// Offset of the big-endian u16 length field, which counts the whole message with its header.
    pub length_offset: usize,
    /// Bytes of the fixed header: shorter lengths are impossible.
    pub header_len: usize,
    /// Longest message accepted.
    pub max_len: usize,
    /// Messages are padded to this many bytes on the stream (1 for none); the length field
    /// excludes the padding.
    pub align: usize,
}

/// A complete message cut from the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framed {
    /// Offset of the message's first byte in the stream (bytes pushed since the start).
    pub stream_offset: u64,
    /// The message without its stream padding.
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
pub struct LengthFramer {
    rule: LengthRule,
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    /// Stream offset of `buf[start]`.
    offset: u64,
    dropped: u64,
}

impl LengthFramer {
    pub fn new(rule: LengthRule) -> Self {
        let rule = LengthRule {
            max_len: rule.max_len.max(rule.header_len),
            header_len: rule.header_len.max(rule.length_offset + 2),
            align: rule.align.max(1),
            ..rule
        };
        LengthFramer {
            rule,
            buf: Vec::new(),
            start: 0,
            offset: 0,
            dropped: 0,
        }
    }

    pub fn rule(&self) -> &LengthRule {
        &self.rule
    }

    /// Appends the next bytes of the stream.
    pub fn push(&mut self, data: &[u8]) {
        // Compact before growing, so the buffer never holds more than one partial message plus
        // the bytes of the current push.
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// The next complete message, or an error about bytes that had to be dropped; `None` when
    /// more bytes are needed.
    pub fn next_message(&mut self) -> Option<Result<Framed, DecodeError>> {
        let r = self.rule;
        let pending = self.buf.get(self.start..)?;
        let len = match pending.get(r.length_offset..r.length_offset + 2) {
            Some(&[a, b]) => usize::from(u16::from_be_bytes([a, b])),
            _ => return None,
        };
        if len < r.header_len || len > r.max_len {
            let n = pending.len();
            let err = DecodeError::new(
                usize::try_from(self.offset).unwrap_or(usize::MAX),
                format!(
                    "{} message length {len} is outside {}..={}: {n} buffered bytes dropped to \
                     find the next message",
                    r.name, r.header_len, r.max_len
                ),
            );
            self.drop_buffered();
            return Some(Err(err));
        }
        let padded = len.div_ceil(r.align) * r.align;
        // Wait for the padding too, except that a stream may end right after the last message.
        let bytes = pending.get(..len)?.to_vec();
        let consumed = if pending.len() >= padded {
            padded
        } else {
            return None;
        };
        let framed = Framed {
            stream_offset: self.offset,
            bytes,
        };
        self.start += consumed;
        self.offset += consumed as u64;
        Some(Ok(framed))
    }

    /// Pushes `data` and returns every message (or error) it completes.
    pub fn feed(&mut self, data: &[u8]) -> Vec<Result<Framed, DecodeError>> {
        self.push(data);
        std::iter::from_fn(|| self.next_message()).collect()
    }

    /// Stream offset just past the last byte pushed.
    pub fn stream_end(&self) -> u64 {
        self.offset + self.pending() as u64
    }

    /// Bytes held for a message not complete yet.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Bytes dropped so far to resynchronise.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Forgets the partial message (the connection ended, or a gap in the stream).
    pub fn reset(&mut self) {
        self.drop_buffered();
    }

    fn drop_buffered(&mut self) {
        let n = self.pending();
        self.dropped += n as u64;
        self.offset += n as u64;
        self.buf.clear();
        self.start = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE4: LengthRule = LengthRule {
        name: "test",
        length_offset: 2,
        header_len: 4,
        max_len: 100,
        align: 4,
    };

    #[test]
    fn padding_is_consumed_but_not_delivered() {
        // A 6-byte message padded to 8, then an 8-byte message.
        let stream = [1, 0, 0, 6, 0xaa, 0xbb, 0, 0, 2, 0, 0, 8, 1, 2, 3, 4];
        for cut in 0..=stream.len() {
            let mut f = LengthFramer::new(RULE4);
            let mut got = f.feed(&stream[..cut]);
            got.extend(f.feed(&stream[cut..]));
            let got: Vec<Framed> = got.into_iter().map(|r| r.expect("framed")).collect();
            assert_eq!(got.len(), 2, "cut at {cut}");
            assert_eq!(got[0].bytes, [1, 0, 0, 6, 0xaa, 0xbb]);
            assert_eq!(got[1].stream_offset, 8);
            assert_eq!(got[1].bytes, [2, 0, 0, 8, 1, 2, 3, 4]);
            assert_eq!(f.pending(), 0);
        }
    }

    #[test]
    fn impossible_length_resynchronises() {
        let mut f = LengthFramer::new(RULE4);
        let out = f.feed(&[1, 0, 0, 2, 9, 9]);
        assert_eq!(out.len(), 1);
        let e = out[0].clone().expect_err("length 2 is below the header");
        assert!(e.what.contains("test message length 2"), "{e}");
        assert_eq!(f.dropped(), 6);
        let out = f.feed(&[1, 0, 0, 4]);
        assert_eq!(out[0].clone().expect("framed").stream_offset, 6);
    }
}
