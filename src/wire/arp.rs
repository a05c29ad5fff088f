//! ARP (RFC 826): the checked parse, the display fields and the emit of a request or reply, with
//! Ethernet and IPv4 addresses.

use super::ethernet::ETHERTYPE_IPV4;
use super::view::{hex, Span, View};
use crate::error::DecodeError;
use crate::field::{Field, Value};

/// An ARP packet of Ethernet and IPv4 addresses (the only kind poolshark reads further than its
/// fixed header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arp {
    pub op: u16,
    pub sha: [u8; 6],
    pub spa: [u8; 4],
    pub tha: [u8; 6],
    pub tpa: [u8; 4],
}

/// Reads an ARP packet's opcode and its Ethernet and IPv4 addresses (28 bytes; the hardware and
/// protocol types and lengths are not checked, as tshark's Info column does not).
pub fn parse(d: &[u8]) -> Result<Arp, DecodeError> {
    let get = |r: std::ops::Range<usize>| d.get(r);
    let (Some(op), Some(sha), Some(spa), Some(tha), Some(tpa)) =
        (get(6..8), get(8..14), get(14..18), get(18..24), get(24..28))
    else {
        return Err(DecodeError::truncated(0, "ARP packet", 28, d.len()));
    };
    let array = |b: &[u8]| -> [u8; 6] { b.try_into().unwrap_or([0; 6]) };
    let quad = |b: &[u8]| -> [u8; 4] { b.try_into().unwrap_or([0; 4]) };
    Ok(Arp {
        op: u16::from_be_bytes([op[0], op[1]]),
        sha: array(sha),
        spa: quad(spa),
        tha: array(tha),
        tpa: quad(tpa),
    })
}

/// The display fields of an ARP packet (`arp`; the addresses of Ethernet and IPv4's);
/// `None` when its fixed header is cut short.
pub fn fields(v: &View, s: Span) -> Option<Field> {
    let a = s.at;
    let (Some(htype), Some(ptype), Some(hlen), Some(plen), Some(op)) = (
        v.be16(a, s),
        v.be16(a + 2, s),
        v.u8(a + 4, s),
        v.u8(a + 5, s),
        v.be16(a + 6, s),
    ) else {
        return None;
    };
    let what = match op {
        1 => "request",
        2 => "reply",
        3 => "reverse request",
        4 => "reverse reply",
        _ => "opcode",
    };
    let mut tree = Field::node(
        "arp",
        v.label(|| format!("Address Resolution Protocol ({what})")),
        a,
        8 + 2 * (usize::from(hlen) + usize::from(plen)),
    )
    .children(vec![
        Field::uint("arp.hw.type", "Hardware type", htype, a, 2),
        hex(
            Field::uint("arp.proto.type", "Protocol type", ptype, a + 2, 2),
            4,
        ),
        Field::uint("arp.hw.size", "Hardware size", hlen, a + 4, 1),
        Field::uint("arp.proto.size", "Protocol size", plen, a + 5, 1),
        Field::uint("arp.opcode", "Opcode", op, a + 6, 2),
    ]);
    if (htype, hlen, ptype, plen) == (1, 6, ETHERTYPE_IPV4, 4) {
        let b = a + 8;
        if let Some(m) = v.mac(b, s) {
            tree = tree.child(Field::new(
                "arp.src.hw_mac",
                "Sender MAC address",
                Value::Mac(m),
                b,
                6,
            ));
        }
        if let Some(ip) = v.v4(b + 6, s) {
            tree = tree.child(Field::ipv4(
                "arp.src.proto_ipv4",
                "Sender IP address",
                ip,
                b + 6,
            ));
        }
        if let Some(m) = v.mac(b + 10, s) {
            tree = tree.child(Field::new(
                "arp.dst.hw_mac",
                "Target MAC address",
                Value::Mac(m),
                b + 10,
                6,
            ));
        }
        if let Some(ip) = v.v4(b + 16, s) {
            tree = tree.child(Field::ipv4(
                "arp.dst.proto_ipv4",
                "Target IP address",
                ip,
                b + 16,
            ));
        }
    }
    Some(tree)
}

/// The one-line summary of an ARP packet, as tshark's Info column writes it.
pub fn info(d: &[u8]) -> String {
    let Ok(Arp {
        op,
        sha,
        spa,
        tha,
        tpa,
    }) = parse(d)
    else {
        return "ARP (truncated)".into();
    };
    let ip = std::net::Ipv4Addr::from;
    let request = op == 1;
    // RFC 5227's probe and announcement, then gratuitous ARP, as tshark names them.
    match op {
        1 if spa == [0; 4] => format!("Who has {}? (ARP Probe)", ip(tpa)),
        1 if spa == tpa && tha == [0; 6] => format!("ARP Announcement for {}", ip(spa)),
        1 | 2 if spa == tpa => format!(
            "Gratuitous ARP for {} ({})",
            ip(spa),
            if request { "Request" } else { "Reply" }
        ),
        1 => format!("Who has {}? Tell {}", ip(tpa), ip(spa)),
        2 => format!("{} is at {}", ip(spa), crate::field::hex_colons(&sha)),
        o => format!("ARP opcode {o}"),
    }
}

/// Appends an ARP packet over Ethernet for IPv4 (hardware type 1, protocol 0x0800) of opcode
/// `op` (1 request, 2 reply) from `sha`/`spa` about `tha`/`tpa`.
pub fn emit(out: &mut Vec<u8>, op: u16, sha: [u8; 6], spa: [u8; 4], tha: [u8; 6], tpa: [u8; 4]) {
    out.extend_from_slice(&[0, 1, 0x08, 0x00, 6, 4]);
    out.extend_from_slice(&op.to_be_bytes());
    out.extend_from_slice(&sha);
    out.extend_from_slice(&spa);
    out.extend_from_slice(&tha);
    out.extend_from_slice(&tpa);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::view::tests::{value, views};

    /// The display fields and the summary of an emitted reply hold the emitted values; a cut in
    /// the fixed header gives no tree, one in the addresses the addresses that are whole.
    #[test]
    fn fields_of_an_emitted_packet() {
        let mut b = Vec::new();
        emit(&mut b, 2, [2; 6], [10, 0, 0, 1], [4; 6], [10, 0, 0, 2]);
        for (v, s) in views(&b) {
            let tree = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "arp.opcode"), "2");
            assert_eq!(value(&tree, "arp.src.hw_mac"), "02:02:02:02:02:02");
            assert_eq!(value(&tree, "arp.src.proto_ipv4"), "10.0.0.1");
            assert_eq!(value(&tree, "arp.dst.proto_ipv4"), "10.0.0.2");
            for n in 0..8 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
            let cut = fields(&v, Span { at: 0, end: 20 }).unwrap();
            assert!(cut.find("arp.src.proto_ipv4").is_some());
            assert!(cut.find("arp.dst.hw_mac").is_none());
        }
        assert_eq!(info(&b), "10.0.0.1 is at 02:02:02:02:02:02");
        let arp = Arp {
            op: 2,
            sha: [2; 6],
            spa: [10, 0, 0, 1],
            tha: [4; 6],
            tpa: [10, 0, 0, 2],
        };
        assert_eq!(parse(&b), Ok(arp));
        for n in 0..b.len() {
            assert_eq!(parse(&b[..n]).map_err(|e| e.offset), Err(0), "cut at {n}");
            assert_eq!(info(&b[..n]), "ARP (truncated)");
        }
    }
}
