//! The packet an ICMP or ICMPv6 error quotes, as the display filters and `-T fields` columns
//! see it: tshark lists its addresses and ports as further occurrences of `ip.src`, `ipv6.dst`,
//! `udp.srcport`, ... after the frame's own (`ntop_nDPI_iphone.pcap` frame 193, the forge
//! capture's frames 8, 11, 14 and 17 among the shared captures). The frame's summary has the
//! outer packet's only; these come from the lower layers' trees, which `read` decodes for every
//! ICMP and ICMPv6 frame when a filter or a column is given ([`is_icmp`]).

use crate::dissect::FrameSummary;
use crate::field::{Field, Value};

/// Whether the frame's deepest lower layer is ICMP or ICMPv6, so that it may quote a packet.
pub fn is_icmp(summary: &FrameSummary) -> bool {
    matches!(summary.protocol, "ICMP" | "ICMPv6")
}

/// Calls `each` with the values of the fields named `names` in the quoted packet's headers: the
/// top-level trees after the frame's first ICMP or ICMPv6 tree, in order, each header's fields
/// in the order they are in the header (source before destination).
pub fn values(layers: &[Field], names: &[&str], each: &mut impl FnMut(Value)) {
    let trees = layers.iter().flat_map(|t| {
        // `read` puts the layers under a `frame` root; a bare list of layers is looked at as is.
        if t.name == "frame" {
            t.children.as_slice()
        } else {
            std::slice::from_ref(t)
        }
    });
    let mut quoted = false;
    for t in trees {
        if !quoted {
            quoted = t.name == "icmp" || t.name == "icmpv6";
            continue;
        }
        for c in &t.children {
            if names.contains(&c.name) {
                each(c.value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn only_the_headers_after_the_icmp_tree() {
        let ip = |s: u8, d: u8| {
            Field::node("ip", "IP", 0, 20)
                .child(Field::ipv4(
                    "ip.src",
                    "Source",
                    Ipv4Addr::new(10, 0, 0, s),
                    12,
                ))
                .child(Field::ipv4(
                    "ip.dst",
                    "Destination",
                    Ipv4Addr::new(10, 0, 0, d),
                    16,
                ))
        };
        let trees = vec![ip(1, 2), Field::node("icmp", "ICMP", 20, 8), ip(2, 1)];
        let mut got = Vec::new();
        values(&trees, &["ip.src", "ip.dst"], &mut |v| got.push(v));
        assert_eq!(
            got,
            [
                Value::Ipv4(Ipv4Addr::new(10, 0, 0, 2)),
                Value::Ipv4(Ipv4Addr::new(10, 0, 0, 1))
            ]
        );
        got.clear();
        values(&trees[..1], &["ip.src"], &mut |v| got.push(v));
        assert!(got.is_empty(), "no ICMP tree, no quoted packet");
    }
}
