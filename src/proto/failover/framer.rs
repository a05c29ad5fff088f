//! Splits one direction of a failover TCP connection into messages by their length field.
//!
//! The framer is fed in-order stream bytes (the TCP reassembly is someone else's job) and holds
//! at most one incomplete message. A length below the 12-byte header, or above the configured
//! maximum (ISC's DHCP_FAILOVER_MAX_MESSAGE_SIZE, 2048, by default: dhcpd drops a connection that
//! sends more), means the stream is not where a message starts: the framer reports it and drops
//! every byte it holds, hoping that the next bytes pushed (usually the next segment, and ISC
//! writes each message at once) start a message.

use crate::error::DecodeError;

use super::message::HEADER_LEN;

/// ISC DHCP's largest failover message.
pub const ISC_MAX_MESSAGE_LEN: u16 = 2048;

/// A complete message cut from the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framed {
    /// Offset of the message's first byte in the stream (bytes pushed since the start).
    pub stream_offset: u64,
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
pub struct Framer {
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    /// Stream offset of `buf[start]`.
    offset: u64,
    max_len: usize,
    dropped: u64,
}

impl Default for Framer {
    fn default() -> Self {
        Framer::new()
    }
}

impl Framer {
    /// A framer that accepts messages up to ISC's 2048 bytes.
    pub fn new() -> Self {
        Framer::with_max_len(ISC_MAX_MESSAGE_LEN)
    }

    /// A framer that accepts messages up to `max_len` bytes (at least the 12-byte header).
    pub fn with_max_len(max_len: u16) -> Self {
        Framer {
            buf: Vec::new(),
            start: 0,
            offset: 0,
            max_len: usize::from(max_len).max(HEADER_LEN),
            dropped: 0,
        }
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
        let pending = self.buf.get(self.start..)?;
        let len = match pending {
            [a, b, ..] => usize::from(u16::from_be_bytes([*a, *b])),
            _ => return None,
        };
        if len < HEADER_LEN || len > self.max_len {
            let n = pending.len();
            let err = DecodeError::new(
                usize::try_from(self.offset).unwrap_or(usize::MAX),
                format!(
                    "failover message length {len} is outside {HEADER_LEN}..={}: {n} buffered \
                     bytes dropped to find the next message",
                    self.max_len
                ),
            );
            self.drop_buffered();
            return Some(Err(err));
        }
        let bytes = pending.get(..len)?.to_vec();
        let framed = Framed {
            stream_offset: self.offset,
            bytes,
        };
        self.start += len;
        self.offset += len as u64;
        Some(Ok(framed))
    }

    /// Pushes `data` and returns every message (or error) it completes.
    pub fn feed(&mut self, data: &[u8]) -> Vec<Result<Framed, DecodeError>> {
        self.push(data);
        std::iter::from_fn(|| self.next_message()).collect()
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
    use crate::proto::failover::{FoOption, Message, MessageType};

    fn msg(xid: u32, text: &str) -> Vec<u8> {
        Message::new(
            MessageType::BndAck,
            1,
            xid,
            vec![FoOption::Message(text.as_bytes().to_vec())],
        )
        .emit()
        .unwrap()
    }

    #[test]
    fn messages_split_and_glued_across_pushes() {
        let a = msg(1, "a");
        let b = msg(2, "bb");
        let c = msg(3, "ccc");
        let stream: Vec<u8> = [a.clone(), b.clone(), c.clone()].concat();
        // Every way of cutting the stream in two, then byte by byte.
        for cut in 0..=stream.len() {
            let mut f = Framer::new();
            let mut got = f.feed(&stream[..cut]);
            got.extend(f.feed(&stream[cut..]));
            let got: Vec<Vec<u8>> = got.into_iter().map(|r| r.unwrap().bytes).collect();
            assert_eq!(got, [a.clone(), b.clone(), c.clone()], "cut at {cut}");
            assert_eq!(f.pending(), 0);
        }
        let mut f = Framer::new();
        let mut got = Vec::new();
        for byte in &stream {
            got.extend(f.feed(std::slice::from_ref(byte)));
        }
        let offsets: Vec<u64> = got.into_iter().map(|r| r.unwrap().stream_offset).collect();
        assert_eq!(offsets, [0, a.len() as u64, (a.len() + b.len()) as u64]);
    }

    #[test]
    fn bad_length_drops_the_buffer_and_resynchronises() {
        let good = msg(7, "x");
        let mut f = Framer::new();
        // A length of 5 cannot be a message.
        let out = f.feed(&[0, 5, 1, 2, 3, 4, 5, 6]);
        assert_eq!(out.len(), 1);
        let e = out[0].clone().unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.what.contains("length 5"), "{e}");
        assert_eq!(f.dropped(), 8);
        assert_eq!(f.pending(), 0);
        // The next push starts a message again.
        let out = f.feed(&good);
        assert_eq!(out.len(), 1);
        let framed = out[0].clone().unwrap();
        assert_eq!(framed.bytes, good);
        assert_eq!(framed.stream_offset, 8);

        // Absurdly large, above ISC's 2048.
        let mut f = Framer::new();
        let out = f.feed(&[0x40, 0x00, 3, 12]);
        assert!(out[0].is_err());
        // A larger limit accepts it and waits for the rest.
        let mut f = Framer::with_max_len(u16::MAX);
        assert!(f.feed(&[0x40, 0x00, 3, 12]).is_empty());
        assert_eq!(f.pending(), 4);
    }

    #[test]
    fn holds_at_most_one_partial_message() {
        let mut f = Framer::new();
        let m = msg(9, &"z".repeat(1000));
        for _ in 0..100 {
            let out = f.feed(&m);
            assert_eq!(out.len(), 1);
            assert!(f.pending() == 0);
        }
        f.push(&m[..500]);
        assert!(f.next_message().is_none());
        assert_eq!(f.pending(), 500);
        f.reset();
        assert_eq!(f.pending(), 0);
        assert_eq!(f.dropped(), 500);
    }

    #[test]
    fn garbage_never_panics_and_is_accounted_for() {
        let mut f = Framer::new();
        let (mut seen, mut framed) = (0u64, 0u64);
        let mut state = 0x1234_5678u32;
        for _ in 0..2000 {
            // A small xorshift: arbitrary bytes, arbitrary chunk sizes.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let chunk: Vec<u8> = (0..(state % 97))
                .map(|i| (state >> (i % 24)) as u8)
                .collect();
            seen += chunk.len() as u64;
            for m in f.feed(&chunk).into_iter().flatten() {
                assert!(m.bytes.len() >= HEADER_LEN && m.bytes.len() <= 2048);
                framed += m.bytes.len() as u64;
                let _ = crate::proto::failover::parse(&m.bytes);
            }
            assert!(f.pending() <= 2048 + 97);
        }
        // Every byte pushed was framed, dropped, or is still held.
        assert_eq!(framed + f.dropped() + f.pending() as u64, seen);
    }
}
