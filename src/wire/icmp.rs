//! ICMP (RFC 792) and ICMPv6 (RFC 4443): the checked parse, the display fields and the emit of
//! the header, and the packet an error quotes.

use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// An ICMP or ICMPv6 message: its 8-byte header (type, code, checksum, the word of the type's
/// own) and what follows it (an error's quoted packet, an echo's data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Icmp<'a> {
    pub kind: u8,
    pub code: u8,
    pub checksum: u16,
    pub rest: [u8; 4],
    pub body: &'a [u8],
}

impl Icmp<'_> {
    /// Whether the message is an error, which quotes the packet that caused it: ICMP's
    /// destination unreachable, source quench, redirect, time exceeded and parameter problem;
    /// ICMPv6's types 1 to 4 (RFC 4443 2.1: the error messages below 128).
    pub fn is_error(&self, v6: bool) -> bool {
        if v6 {
            matches!(self.kind, 1..=4)
        } else {
            matches!(self.kind, 3 | 4 | 5 | 11 | 12)
        }
    }
}

/// Reads an ICMP or ICMPv6 header (8 bytes; the checksum is not verified).
pub fn parse(d: &[u8]) -> Result<Icmp<'_>, DecodeError> {
    let (Some(h), Some(body)) = (d.get(..8), d.get(8..)) else {
        return Err(DecodeError::truncated(0, "ICMP header", 8, d.len()));
    };
    Ok(Icmp {
        kind: h[0],
        code: h[1],
        checksum: u16::from_be_bytes([h[2], h[3]]),
        rest: [h[4], h[5], h[6], h[7]],
        body,
    })
}

/// The display fields of ICMP or ICMPv6 (`icmp`, `icmpv6`; its protocol name comes first):
/// type, code, checksum; then the packet an error message quotes (not in a
/// packet already `quoting`: quotes in quotes end there), or an echo's data.
pub fn fields(v: &View, s: Span, v6: bool, quoting: bool) -> (&'static str, Field, Next) {
    let a = s.at;
    let (proto, title, p) = if v6 {
        ("icmpv6", "Internet Control Message Protocol v6", "icmpv6.")
    } else {
        ("icmp", "Internet Control Message Protocol", "icmp.")
    };
    let mut tree = Field::node(proto, title, a, s.len());
    let names: [&'static str; 3] = if p == "icmp." {
        ["icmp.type", "icmp.code", "icmp.checksum"]
    } else {
        ["icmpv6.type", "icmpv6.code", "icmpv6.checksum"]
    };
    if let Some(t) = v.u8(a, s) {
        tree = tree.child(Field::uint(names[0], "Type", t, a, 1));
    }
    if let Some(c) = v.u8(a + 1, s) {
        tree = tree.child(Field::uint(names[1], "Code", c, a + 1, 1));
    }
    if let Some(c) = v.be16(a + 2, s) {
        tree = tree.child(hex(Field::uint(names[2], "Checksum", c, a + 2, 2), 4));
    }
    let Some(t) = v.u8(a, s) else {
        return (proto, tree, Next::End);
    };
    let body = s.from(8);
    if body.is_empty() {
        return (proto, tree, Next::End);
    }
    let quote = !quoting;
    let next = match (v6, t) {
        (false, 3 | 4 | 5 | 11 | 12) if quote => Next::Quoted {
            v6: false,
            icmp4: Some(t),
            packet: body,
        },
        (true, 1..=4) if quote => Next::Quoted {
            v6: true,
            icmp4: None,
            packet: body,
        },
        (false, 0 | 8) | (true, 128 | 129) => Next::Data,
        _ => Next::End,
    };
    (proto, tree, next)
}

/// The one-line summary of an ICMP message, as tshark's Info column writes it.
pub fn info(d: &[u8]) -> String {
    let (t, code) = (d.first().copied(), d.get(1).copied().unwrap_or(0));
    let (name, codes): (&str, &[&str]) = match t {
        Some(0) => ("Echo (ping) reply", &[]),
        Some(3) => ("Destination unreachable", &ICMP_UNREACHABLE),
        Some(4) => return "Source quench (flow control)".into(),
        Some(5) => ("Redirect", &ICMP_REDIRECT),
        Some(8) => ("Echo (ping) request", &[]),
        Some(11) => ("Time-to-live exceeded", &ICMP_TIME_EXCEEDED),
        Some(12) => ("Parameter problem", &ICMP_PARAMETER),
        _ => return "ICMP".into(),
    };
    if codes.is_empty() {
        return name.into();
    }
    // tshark pads the type's name to 20 characters before the code's.
    match codes.get(usize::from(code)) {
        Some(c) => format!("{name:<20} ({c})"),
        None => format!("{name:<20} (Unknown code: {code})"),
    }
}

/// The codes of ICMP's errors, as tshark 4.0 names them in its Info column.
const ICMP_UNREACHABLE: [&str; 16] = [
    "Network unreachable",
    "Host unreachable",
    "Protocol unreachable",
    "Port unreachable",
    "Fragmentation needed",
    "Source route failed",
    "Destination network unknown",
    "Destination host unknown",
    "Source host isolated",
    "Network administratively prohibited",
    "Host administratively prohibited",
    "Network unreachable for TOS",
    "Host unreachable for TOS",
    "Communication administratively filtered",
    "Host precedence violation",
    "Precedence cutoff in effect",
];
const ICMP_REDIRECT: [&str; 4] = [
    "Redirect for network",
    "Redirect for host",
    "Redirect for TOS and network",
    "Redirect for TOS and host",
];
const ICMP_TIME_EXCEEDED: [&str; 2] = [
    "Time to live exceeded in transit",
    "Fragment reassembly time exceeded",
];
const ICMP_PARAMETER: [&str; 3] = [
    "Pointer indicates the error",
    "Required option missing",
    "Bad length",
];

/// The codes of ICMPv6's errors, as tshark 4.0 names them in its Info column, and its name for
/// one it does not know.
fn icmpv6_code(t: u8, code: u8) -> Option<String> {
    let codes: &[&str] = match t {
        1 => &[
            "no route to destination",
            "Administratively prohibited",
            "Beyond scope of source address",
            "Address unreachable",
            "Port unreachable",
            "Source address failed ingress/egress policy",
            "Reject route to destination",
            "Error in Source Routing Header",
        ],
        3 => &[
            "hop limit exceeded in transit",
            "fragment reassembly time exceeded",
        ],
        4 => &[
            "erroneous header field encountered",
            "unrecognized Next Header type encountered",
            "unrecognized IPv6 option encountered",
            "IPv6 First Fragment has incomplete IPv6 Header Chain",
        ],
        _ => return None,
    };
    Some(match codes.get(usize::from(code)) {
        Some(c) => (*c).to_string(),
        None if t == 1 => "Unknown".to_string(),
        None => format!("Unknown ({code})"),
    })
}

/// The link-layer address option (`kind` 1 source, 2 target) among neighbour discovery options.
fn nd_lladdr(mut opts: &[u8], kind: u8) -> Option<String> {
    while let (Some(&t), Some(&l)) = (opts.first(), opts.get(1)) {
        let len = usize::from(l) * 8;
        if len == 0 {
            return None;
        }
        if t == kind {
            return opts.get(2..8).map(crate::field::hex_colons);
        }
        opts = opts.get(len..)?;
    }
    None
}

/// The one-line summary of an ICMPv6 message, as tshark's Info column writes it.
pub fn info_v6(d: &[u8]) -> String {
    let target = || {
        d.get(8..24)
            .and_then(|b| <[u8; 16]>::try_from(b).ok())
            .map(std::net::Ipv6Addr::from)
    };
    let opts = |at: usize| d.get(at..).unwrap_or(&[]);
    match (d.first(), target()) {
        (Some(135), Some(t)) => match nd_lladdr(opts(24), 1) {
            Some(m) => format!("Neighbor Solicitation for {t} from {m}"),
            None => format!("Neighbor Solicitation for {t}"),
        },
        (Some(136), Some(t)) => {
            let f = d.get(4).copied().unwrap_or(0);
            let flags: Vec<&str> = [(0x80, "rtr"), (0x40, "sol"), (0x20, "ovr")]
                .iter()
                .filter(|(bit, _)| f & bit != 0)
                .map(|(_, n)| *n)
                .collect();
            let mut s = format!("Neighbor Advertisement {t}");
            if !flags.is_empty() {
                s.push_str(&format!(" ({})", flags.join(", ")));
            }
            if let Some(m) = nd_lladdr(opts(24), 2) {
                s.push_str(&format!(" is at {m}"));
            }
            s
        }
        (Some(133), _) => match nd_lladdr(opts(8), 1) {
            Some(m) => format!("Router Solicitation from {m}"),
            None => "Router Solicitation".into(),
        },
        (Some(134), _) => match nd_lladdr(opts(16), 1) {
            Some(m) => format!("Router Advertisement from {m}"),
            None => "Router Advertisement".into(),
        },
        (Some(&t), _) => match icmpv6_code(t, d.get(1).copied().unwrap_or(0)) {
            Some(code) => format!("{} ({code})", icmpv6_name(Some(t))),
            None => icmpv6_name(Some(t)).into(),
        },
        (None, _) => icmpv6_name(None).into(),
    }
}

fn icmpv6_name(t: Option<u8>) -> &'static str {
    match t {
        Some(1) => "Destination Unreachable",
        Some(2) => "Packet Too Big",
        Some(3) => "Time Exceeded",
        Some(4) => "Parameter Problem",
        Some(128) => "Echo (ping) request",
        Some(129) => "Echo (ping) reply",
        Some(130) => "Multicast Listener Query",
        Some(131) => "Multicast Listener Report",
        Some(133) => "Router Solicitation",
        Some(134) => "Router Advertisement",
        Some(135) => "Neighbor Solicitation",
        Some(136) => "Neighbor Advertisement",
        Some(143) => "Multicast Listener Report Message v2",
        _ => "ICMPv6",
    }
}

/// Appends an ICMP (`pseudo` 0) or ICMPv6 (`pseudo` the IPv6 pseudo-header sum, see
/// [`super::ip::pseudo_header_sum`]) message of type `t` and code `code`, the four bytes after
/// the checksum `rest`, then `body` (the quoted packet of an error, an echo's data), with its
/// checksum.
pub fn emit(out: &mut Vec<u8>, t: u8, code: u8, rest: [u8; 4], body: &[u8], pseudo: u32) {
    let start = out.len();
    out.extend_from_slice(&[t, code, 0, 0]);
    out.extend_from_slice(&rest);
    out.extend_from_slice(body);
    let sum = super::ip::internet_checksum(pseudo, &out[start..]);
    super::bytes::set_be16(out, start + 2, sum);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::view::tests::{value, views};

    /// The display fields of an emitted error hold its type, code and checksum, and the packet
    /// it quotes follows; an echo is `data`; a quoted error quotes nothing further.
    #[test]
    fn fields_of_an_emitted_message() {
        let mut b = Vec::new();
        emit(&mut b, 3, 3, [0; 4], &[0x45; 20], 0);
        assert_eq!(super::super::ip::internet_checksum(0, &b), 0);
        for (v, s) in views(&b) {
            let (proto, tree, next) = fields(&v, s, false, false);
            assert_eq!(proto, "icmp");
            assert_eq!(value(&tree, "icmp.type"), "3");
            assert_eq!(value(&tree, "icmp.code"), "3");
            let sum = u16::from_be_bytes([b[2], b[3]]);
            assert_eq!(value(&tree, "icmp.checksum"), format!("0x{sum:04x}"));
            let quoted = Next::Quoted {
                v6: false,
                icmp4: Some(3),
                packet: s.from(8),
            };
            assert_eq!(next, quoted);
            assert_eq!(fields(&v, s, false, true).2, Next::End);
            for n in 0..b.len() {
                fields(&v, Span { at: 0, end: n }, false, false);
            }
        }
        assert_eq!(info(&b), "Destination unreachable (Port unreachable)");
        let h = parse(&b).unwrap();
        let sum = u16::from_be_bytes([b[2], b[3]]);
        assert_eq!((h.kind, h.code, h.checksum, h.rest), (3, 3, sum, [0; 4]));
        assert_eq!(h.body, &[0x45; 20]);
        // Type 3: ICMP's destination unreachable, ICMPv6's time exceeded: an error in both.
        assert!(h.is_error(false) && h.is_error(true));
        assert!(!Icmp { kind: 8, ..h }.is_error(false) && !Icmp { kind: 5, ..h }.is_error(true));
        for n in 0..8 {
            assert_eq!(
                parse(&b[..n]).map(|_| ()).unwrap_err().offset,
                0,
                "cut at {n}"
            );
        }
        let mut echo = Vec::new();
        emit(&mut echo, 128, 0, [0, 1, 0, 2], b"ping", 0);
        let (v, s) = views(&echo)[0];
        assert_eq!(fields(&v, s, true, false).2, Next::Data);
        let h = parse(&echo).unwrap();
        assert_eq!((h.kind, h.rest, h.body), (128, [0, 1, 0, 2], &b"ping"[..]));
        assert!(!h.is_error(true) && !h.is_error(false));
        for n in 0..echo.len() {
            info_v6(&echo[..n]);
        }
    }
}
