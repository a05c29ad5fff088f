//! What the display functions of the protocols share: the bytes of the frame and whether the
//! labels `read -V` prints are wanted ([`View`]), where a header is in the frame ([`Span`]), and
//! what follows a header ([`Next`]), which the walk over a frame
//! ([`crate::dissect::layers`]) follows. A display function reads only within its span, never
//! panics, and gives the fields that are whole when the header is cut short.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::field::Field;

/// Where a header is: from `at` to `end` (exclusive) in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub at: usize,
    pub end: usize,
}

impl Span {
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.at)
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The span `skip` bytes further in (empty past the end).
    pub fn from(self, skip: usize) -> Span {
        Span {
            at: self.at.saturating_add(skip).min(self.end),
            end: self.end,
        }
    }
}

/// A frame's bytes as the display functions read them (offsets are the frame's), and whether
/// the labels formatted from the values are written (`read -V`) or left empty (display filters
/// and `-T fields` columns, which read names, values, notes, offsets and lengths only).
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub data: &'a [u8],
    pub labels: bool,
}

impl View<'_> {
    /// `f` with `-V`'s wording of its value, when the labels are wanted.
    pub fn show(&self, f: Field, text: impl FnOnce() -> String) -> Field {
        if self.labels {
            f.show(text())
        } else {
            f
        }
    }

    /// `f` with the name of its value as a note, when the labels are wanted and it has one.
    pub fn name(&self, f: Field, name: Option<&'static str>) -> Field {
        match (self.labels, name) {
            (true, Some(n)) => f.note(n),
            _ => f,
        }
    }

    /// A line of `-V` alone (no field), when the labels are wanted; else one left out.
    pub fn text(&self, text: impl FnOnce() -> String) -> Field {
        Field::node("", self.label(text), 0, 0)
    }

    /// A label made of the values: `text()` when the labels are wanted, else empty (and never
    /// formatted).
    pub fn label(&self, text: impl FnOnce() -> String) -> Cow<'static, str> {
        if self.labels {
            Cow::Owned(text())
        } else {
            Cow::Borrowed("")
        }
    }

    pub fn u8(&self, at: usize, s: Span) -> Option<u8> {
        (at < s.end).then(|| self.data.get(at).copied()).flatten()
    }
    pub fn be16(&self, at: usize, s: Span) -> Option<u16> {
        Some(u16::from_be_bytes([self.u8(at, s)?, self.u8(at + 1, s)?]))
    }
    pub fn be24(&self, at: usize, s: Span) -> Option<u32> {
        Some(u32::from_be_bytes([
            0,
            self.u8(at, s)?,
            self.u8(at + 1, s)?,
            self.u8(at + 2, s)?,
        ]))
    }
    pub fn be32(&self, at: usize, s: Span) -> Option<u32> {
        Some(u32::from_be_bytes([
            self.u8(at, s)?,
            self.u8(at + 1, s)?,
            self.u8(at + 2, s)?,
            self.u8(at + 3, s)?,
        ]))
    }
    pub fn mac(&self, at: usize, s: Span) -> Option<[u8; 6]> {
        if at.checked_add(6)? > s.end {
            return None;
        }
        self.data.get(at..at + 6)?.try_into().ok()
    }
    pub fn v4(&self, at: usize, s: Span) -> Option<Ipv4Addr> {
        self.be32(at, s).map(Ipv4Addr::from)
    }
    pub fn v6(&self, at: usize, s: Span) -> Option<Ipv6Addr> {
        if at.checked_add(16)? > s.end {
            return None;
        }
        let b: [u8; 16] = self.data.get(at..at + 16)?.try_into().ok()?;
        Some(Ipv6Addr::from(b))
    }
    /// The bytes of `s`.
    pub fn bytes(&self, s: Span) -> &[u8] {
        self.data.get(s.at..s.end).unwrap_or_default()
    }
}

/// `f` shown in hexadecimal with `digits` digits (tshark's BASE_HEX: two per byte of the type).
pub fn hex(f: Field, digits: u8) -> Field {
    f.hex(digits)
}

/// What follows a header, for the walk to decode next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Nothing the walk decodes.
    End,
    /// Data tshark names `data` in `frame.protocols` (an IP fragment's payload, an echo's).
    Data,
    /// An Ethernet frame (or Cisco FabricPath around one).
    Ethernet(Span),
    /// The Ethernet frame inside a FabricPath header.
    EthernetFrame(Span),
    /// After a link header ending in EtherType `0`: `ethertype` in `frame.protocols`, the VLAN
    /// tags, then what the EtherType carries.
    Tagged(u16, Span),
    /// What EtherType `0` carries (GRE's and Geneve's protocol type).
    Ethertype(u16, Span),
    Ipv4(Span),
    Ipv6(Span),
    /// The payload of an IP packet from `src` to `dst`, of IP protocol `protocol`; `fragment`
    /// when it is the first fragment of a datagram cut short by the capture.
    Ip {
        protocol: u8,
        span: Span,
        src: IpAddr,
        dst: IpAddr,
        fragment: bool,
    },
    /// IPv6 extension headers, the first of type `next`, then the payload.
    Ipv6Extensions {
        next: u8,
        span: Span,
        src: IpAddr,
        dst: IpAddr,
    },
    /// The IPv4 (`v6` false) or IPv6 packet an ICMP error quotes; `icmp4` the ICMPv4 type.
    Quoted {
        v6: bool,
        icmp4: Option<u8>,
        packet: Span,
    },
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The value of the field `name` in `tree`, as `-T fields` writes it.
    pub(crate) fn value(tree: &Field, name: &str) -> String {
        tree.find(name)
            .map(|f| f.display_value())
            .unwrap_or_else(|| panic!("no {name} in {tree:?}"))
    }

    /// The whole frame `data` as a span, without and with the labels.
    pub(crate) fn views(data: &[u8]) -> [(View<'_>, Span); 2] {
        let s = Span {
            at: 0,
            end: data.len(),
        };
        [
            (
                View {
                    data,
                    labels: false,
                },
                s,
            ),
            (View { data, labels: true }, s),
        ]
    }

    #[test]
    fn reads_stay_within_the_span() {
        let data = [1, 2, 3, 4, 5, 6];
        let v = View {
            data: &data,
            labels: false,
        };
        let s = Span { at: 1, end: 4 };
        assert_eq!(v.be16(2, s), Some(0x0304));
        assert_eq!(v.be16(3, s), None);
        assert_eq!(v.be32(1, s), None);
        assert_eq!(v.u8(usize::MAX, s), None);
        assert_eq!(v.mac(usize::MAX - 2, s), None);
        assert_eq!(s.from(10), Span { at: 4, end: 4 });
    }
}
