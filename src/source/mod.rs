//! Where frames come from: capture files (pcap, pcapng, gzip-compressed, stdin) and live
//! interfaces. A source hands out [`Frame`]s one at a time; the bytes borrow the source's buffer
//! until the next call, so nothing is copied and memory stays bounded by the largest record.

pub mod file;
pub mod leases;
pub mod live;

use std::fmt;

use crate::base::Timestamp;

/// One captured frame. `data` borrows the source's buffer.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// 1-based, as Wireshark numbers frames.
    pub number: u64,
    pub ts: Timestamp,
    /// Decimals of the second the capture's clock gives, 0 to 9: 6 for microseconds (pcap,
    /// pcapng's default, live captures), 9 for nanoseconds, 3 for a pcapng interface counting
    /// milliseconds ([`crate::base::ts_digits`]). The listing shows times with as many, as tshark does.
    pub ts_digits: u8,
    /// LINKTYPE_ of the interface the frame was captured on.
    pub linktype: u32,
    /// Length on the wire (may exceed `data.len()` when the capture was cut by a snap length).
    pub orig_len: u32,
    /// Interface index (pcapng), 0 for pcap.
    pub interface: u32,
    pub data: &'a [u8],
    /// What a pcapng file (or a live capture) says of the frame beyond its bytes and time: the
    /// section, the interface's names, the packet block's options. `None` for pcap, as tshark
    /// gives a pcap frame no `frame.interface_id`.
    pub pcapng: Option<Pcapng<'a>>,
}

/// The pcapng context of a frame ([`Frame::pcapng`]).
#[derive(Clone, Copy, Debug)]
pub struct Pcapng<'a> {
    /// Section of the file, from 1.
    pub section: u32,
    /// The block the frame was read from.
    pub block: Block,
    /// The names its interface description gives.
    pub names: &'a InterfaceNames,
    /// The packet block's options, undecoded (`opt_comment`, `epb_flags`, ...), and their byte
    /// order.
    pub options: &'a [u8],
    pub big_endian: bool,
}

/// The pcapng blocks that Wireshark makes frames of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// An Enhanced Packet Block, or the obsolete Packet Block: a packet and its time.
    Packet,
    /// A Simple Packet Block: a packet without a time.
    Simple,
    /// A Custom Block (`0x00000BAD`, or `0x40000BAD` when it may not be copied to another file):
    /// no packet and no time, but Wireshark numbers it as a frame, its bytes after the Private
    /// Enterprise Number `pen` (its custom data and options, which only the enterprise can tell
    /// apart) as the frame's data.
    Custom { pen: u32, copy: bool },
}

/// An interface's `if_name` and `if_description`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterfaceNames {
    pub name: Option<Box<str>>,
    pub description: Option<Box<str>>,
}

impl InterfaceNames {
    /// The name tshark shows for the interface: its name, else its description, else `unknown`.
    pub fn shown(&self) -> &str {
        self.name
            .as_deref()
            .or(self.description.as_deref())
            .unwrap_or("unknown")
    }
}

/// pcapng option codes of a packet block.
const OPT_COMMENT: u16 = 1;
const EPB_FLAGS: u16 = 2;

impl<'a> Pcapng<'a> {
    /// The options as (code, value), up to `opt_endofopt` or the first that does not fit.
    pub fn options(&self) -> impl Iterator<Item = (u16, &'a [u8])> + 'a {
        let (mut rest, big_endian) = (self.options, self.big_endian);
        std::iter::from_fn(move || {
            let word = |at: usize| -> Option<u16> {
                let b: [u8; 2] = rest.get(at..at + 2)?.try_into().ok()?;
                Some(if big_endian {
                    u16::from_be_bytes(b)
                } else {
                    u16::from_le_bytes(b)
                })
            };
            let (code, len) = (word(0)?, usize::from(word(2)?));
            if code == 0 {
                return None;
            }
            let value = rest.get(4..4 + len)?;
            rest = rest
                .get((4 + len).next_multiple_of(4)..)
                .unwrap_or_default();
            Some((code, value))
        })
    }

    /// The packet's comments (`opt_comment`), in order.
    pub fn comments(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.options()
            .filter(|(code, _)| *code == OPT_COMMENT)
            .map(|(_, v)| v)
    }

    /// The packet's flags word (`epb_flags`), if given.
    pub fn flags(&self) -> Option<u32> {
        let v = self
            .options()
            .find(|(code, v)| *code == EPB_FLAGS && v.len() == 4)?
            .1;
        let b: [u8; 4] = v.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }
}

/// A frame without its bytes, to outlive them (`Frame::meta`, `FrameMeta::with_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameMeta {
    pub number: u64,
    pub ts: Timestamp,
    pub ts_digits: u8,
    pub linktype: u32,
    pub orig_len: u32,
    pub interface: u32,
}

impl Frame<'_> {
    /// Whether the frame has a time of its own. A pcapng Simple Packet Block and a Custom Block
    /// have none: tshark shows no time for them (an empty time column, no `frame.time` fields),
    /// though it counts with one: 0 for a simple packet, the time of the record before for a
    /// custom block, which is what [`Frame::ts`] holds then (the next frame's `frame.time_delta`
    /// counts from it).
    pub fn has_time(&self) -> bool {
        self.pcapng.is_none_or(|p| matches!(p.block, Block::Packet))
    }

    /// The Private Enterprise Number of a pcapng Custom Block, and whether it may be copied.
    pub fn custom_block(&self) -> Option<(u32, bool)> {
        match self.pcapng?.block {
            Block::Custom { pen, copy } => Some((pen, copy)),
            _ => None,
        }
    }

    pub fn meta(&self) -> FrameMeta {
        FrameMeta {
            number: self.number,
            ts: self.ts,
            ts_digits: self.ts_digits,
            linktype: self.linktype,
            orig_len: self.orig_len,
            interface: self.interface,
        }
    }
}

impl FrameMeta {
    /// The frame again, with `data` for its bytes (without its pcapng context).
    pub fn with_data<'a>(&self, data: &'a [u8]) -> Frame<'a> {
        Frame {
            number: self.number,
            ts: self.ts,
            ts_digits: self.ts_digits,
            linktype: self.linktype,
            orig_len: self.orig_len,
            interface: self.interface,
            data,
            pcapng: None,
        }
    }
}

/// A problem reading the capture itself (not the packets in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    /// The frame number the problem concerns (the next frame when reading stopped), if known.
    pub frame: Option<u64>,
    /// Byte offset in the (decompressed) file, if known.
    pub offset: Option<u64>,
    pub what: String,
    /// After a fatal error the source yields nothing more.
    pub fatal: bool,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.frame, self.offset) {
            (Some(n), Some(o)) => write!(f, "frame {n} (file byte {o}): {}", self.what),
            (Some(n), None) => write!(f, "frame {n}: {}", self.what),
            (None, Some(o)) => write!(f, "file byte {o}: {}", self.what),
            (None, None) => write!(f, "{}", self.what),
        }
    }
}

impl std::error::Error for SourceError {}

/// Anything that yields frames: a file reader, a live capture.
pub trait FrameSource {
    /// The next frame, `Ok(None)` at the end. A non-fatal error may be followed by more frames.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcapng(options: &[u8], big_endian: bool) -> Pcapng<'_> {
        static NAMES: InterfaceNames = InterfaceNames {
            name: None,
            description: None,
        };
        Pcapng {
            section: 1,
            block: Block::Packet,
            names: &NAMES,
            options,
            big_endian,
        }
    }

    #[test]
    fn packet_options_comments_and_flags() {
        // Comment "ab" (padded), flags 0x01020304, a comment of 4 bytes, end of options.
        let le = [
            1, 0, 2, 0, b'a', b'b', 0, 0, 2, 0, 4, 0, 4, 3, 2, 1, 1, 0, 4, 0, b'w', b'x', b'y',
            b'z', 0, 0, 0, 0,
        ];
        let p = pcapng(&le, false);
        let comments: Vec<&[u8]> = p.comments().collect();
        assert_eq!(comments, [&b"ab"[..], &b"wxyz"[..]]);
        assert_eq!(p.flags(), Some(0x0102_0304));
        let be = [0, 2, 0, 4, 1, 2, 3, 4, 0, 1, 0, 1, b'c', 0, 0, 0];
        let p = pcapng(&be, true);
        assert_eq!(p.flags(), Some(0x0102_0304));
        assert_eq!(p.comments().collect::<Vec<_>>(), [&b"c"[..]]);
    }

    #[test]
    fn packet_options_that_do_not_fit_end_the_list() {
        // A comment claiming 200 bytes: nothing from it on; flags of the wrong length: none.
        let bad = [2, 0, 2, 0, 1, 2, 0, 0, 1, 0, 200, 0, b'a', b'b'];
        let p = pcapng(&bad, false);
        assert_eq!(p.options().count(), 1);
        assert_eq!(p.flags(), None);
        assert_eq!(p.comments().count(), 0);
        for n in 0..bad.len() {
            let p = pcapng(&bad[..n], false);
            assert!(p.options().count() <= 1);
        }
        assert_eq!(pcapng(&[], false).options().count(), 0);
        // End of options stops the walk even with more bytes after it.
        let ended = [0, 0, 0, 0, 1, 0, 1, 0, b'x', 0, 0, 0];
        assert_eq!(pcapng(&ended, false).comments().count(), 0);
    }

    #[test]
    fn interface_shown_name() {
        let mut n = InterfaceNames::default();
        assert_eq!(n.shown(), "unknown");
        n.description = Some("desc".into());
        assert_eq!(n.shown(), "desc");
        n.name = Some("eth0".into());
        assert_eq!(n.shown(), "eth0");
    }
}
