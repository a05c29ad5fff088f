//! The relay agent information option (82, RFC 3046): sub-options `code u8 | length u8 | data`
//! (circuit id, remote id, link selection, subscriber id, server identifier override, ...).

use std::borrow::Cow;
use std::net::Ipv4Addr;

use super::pos::Pos;
use crate::error::DecodeError;

/// Sub-option codes poolshark gives a meaning to.
pub mod subcode {
    pub const CIRCUIT_ID: u8 = 1;
    pub const REMOTE_ID: u8 = 2;
    pub const LINK_SELECTION: u8 = 5;
    pub const SUBSCRIBER_ID: u8 = 6;
    pub const SERVER_ID_OVERRIDE: u8 = 11;
    pub const RELAY_AGENT_ID: u8 = 12;
}

/// One sub-option of option 82.
#[derive(Clone, Debug, PartialEq)]
pub struct SubOpt<'a> {
    pub code: u8,
    pub data: Cow<'a, [u8]>,
    pub pos: Pos,
}

impl<'a> SubOpt<'a> {
    pub fn new(code: u8, data: impl Into<Cow<'a, [u8]>>) -> Self {
        SubOpt {
            code,
            data: data.into(),
            pos: Pos::default(),
        }
    }

    /// Link selection (5) and server identifier override (11) carry an address.
    pub fn address(&self) -> Option<Ipv4Addr> {
        match (self.code, self.data.as_ref()) {
            (subcode::LINK_SELECTION | subcode::SERVER_ID_OVERRIDE, &[a, b, c, d]) => {
                Some(Ipv4Addr::new(a, b, c, d))
            }
            _ => None,
        }
    }

    pub fn into_owned(self) -> SubOpt<'static> {
        SubOpt {
            code: self.code,
            data: Cow::Owned(self.data.into_owned()),
            pos: self.pos,
        }
    }

    /// Appends `code | length | data`; data past 255 bytes cannot be expressed and is cut.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let n = self.data.len().min(255);
        out.push(self.code);
        out.push(n as u8);
        out.extend_from_slice(&self.data[..n]);
    }
}

/// How many sub-options `parse_suboptions` finds in `data`, walking the length bytes only: the
/// capacity of its list, allocated once.
fn suboption_count(data: &[u8]) -> usize {
    let (mut n, mut at) = (0usize, 0usize);
    while at < data.len() {
        n += 1;
        match data.get(at + 1) {
            Some(&len) => at += 2 + usize::from(len),
            None => break,
        }
    }
    n
}

/// Parses the sub-options of one option 82 whose data starts at `base` in the message.
pub(crate) fn parse_suboptions<'a>(
    data: &'a [u8],
    base: usize,
    errors: &mut Vec<DecodeError>,
) -> Vec<SubOpt<'a>> {
    let mut out = Vec::with_capacity(suboption_count(data));
    let mut at = 0usize;
    while let Some(&code) = data.get(at) {
        let offset = base.saturating_add(at);
        let Some(&len) = data.get(at + 1) else {
            errors.push(DecodeError::new(
                offset,
                format!("relay agent sub-option {code} has no length byte"),
            ));
            out.push(SubOpt {
                code,
                data: Cow::Borrowed(&[]),
                pos: Pos::new(offset, 1),
            });
            break;
        };
        let start = at + 2;
        let avail = data.len() - start;
        let len = usize::from(len);
        let take = if len > avail {
            errors.push(DecodeError::new(
                offset,
                format!("relay agent sub-option {code} says {len} bytes, only {avail} are left"),
            ));
            avail
        } else {
            len
        };
        out.push(SubOpt {
            code,
            data: Cow::Borrowed(&data[start..start + take]),
            pos: Pos::new(offset, 2 + take),
        });
        at = start + take;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuit_remote_subscriber() {
        let data = b"\x01\x03abc\x02\x01\x13\x06\x02id\x05\x04\x0a\x00\x00\x01";
        let mut e = Vec::new();
        let s = parse_suboptions(data, 100, &mut e);
        assert!(e.is_empty());
        assert_eq!(s.len(), 4);
        assert_eq!(suboption_count(data), 4);
        assert_eq!(suboption_count(&data[..data.len() - 1]), 4);
        assert_eq!(suboption_count(b"\x01"), 1);
        assert_eq!(s[0].data.as_ref(), b"abc");
        assert_eq!(s[1].pos.offset, 105);
        assert_eq!(s[2].data.as_ref(), b"id");
        assert_eq!(s[3].address(), Some(Ipv4Addr::new(10, 0, 0, 1)));
        let mut out = Vec::new();
        for x in &s {
            x.write(&mut out);
        }
        assert_eq!(out, data);
    }

    #[test]
    fn truncated_suboptions() {
        let mut e = Vec::new();
        let s = parse_suboptions(b"\x01\x09ab", 10, &mut e);
        assert_eq!(s[0].data.as_ref(), b"ab");
        assert_eq!(e[0].offset, 10);
        let mut e = Vec::new();
        let s = parse_suboptions(b"\x01\x01a\x02", 10, &mut e);
        assert_eq!(s.len(), 2);
        assert_eq!(e[0].offset, 13);
    }
}
