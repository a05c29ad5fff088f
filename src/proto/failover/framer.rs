//! Splits one direction of a failover TCP connection into messages by their length field: the
//! shared [`LengthFramer`] with the failover header's rule. The length (the first u16) counts the
//! whole message; a length below the 12-byte header, or above ISC's DHCP_FAILOVER_MAX_MESSAGE_SIZE
//! (2048: dhcpd drops a connection that sends more), is not where a message starts.

use std::ops::{Deref, DerefMut};

pub use crate::base::framing::Framed;
use crate::base::framing::{LengthFramer, LengthRule};

use super::message::HEADER_LEN;

/// ISC DHCP's largest failover message.
pub const ISC_MAX_MESSAGE_LEN: u16 = 2048;

/// The failover header's length rule, accepting messages up to `max_len` bytes.
pub fn rule(max_len: u16) -> LengthRule {
    LengthRule {
        name: "failover",
        length_offset: 0,
        header_len: HEADER_LEN,
        max_len: usize::from(max_len),
        align: 1,
    }
}

/// A [`LengthFramer`] for failover messages.
#[derive(Debug)]
pub struct Framer(LengthFramer);

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
        Framer(LengthFramer::new(rule(max_len)))
    }
}

impl Deref for Framer {
    type Target = LengthFramer;
    fn deref(&self) -> &LengthFramer {
        &self.0
    }
}

impl DerefMut for Framer {
    fn deref_mut(&mut self) -> &mut LengthFramer {
        &mut self.0
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
