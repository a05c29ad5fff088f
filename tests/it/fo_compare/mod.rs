//! Field-by-field comparison of a failover message's display tree with tshark's `dhcpfo` tree.
#![allow(dead_code)]

use poolshark::field::Field;
use poolshark::proto::failover::Message;

use crate::pdml;

/// Every field of our tree, flattened.
pub fn flatten(fields: &[Field]) -> Vec<&Field> {
    let mut out = Vec::new();
    for f in fields {
        f.walk(&mut |x| out.push(x));
    }
    out
}

/// Fields whose tshark `show` is the plain value our tree displays.
pub const SAME_SHOW: &[&str] = &[
    "dhcpfo.length",
    "dhcpfo.type",
    "dhcpfo.poffset",
    "dhcpfo.xid",
    "dhcpfo.optioncode",
    "dhcpfo.optionlength",
    "dhcpfo.bindingstatus",
    "dhcpfo.serverstatus",
    "dhcpfo.serverflag",
    "dhcpfo.rejectreason",
    "dhcpfo.assignedipaddress",
    "dhcpfo.addressestransferred",
    "dhcpfo.clienthardwaretype",
    "dhcpfo.clienthardwareaddress",
    "dhcpfo.leaseexpirationtime",
    "dhcpfo.potentialexpirationtime",
    "dhcpfo.clientlasttransactiontime",
    "dhcpfo.starttimeofstate",
    "dhcpfo.mclt",
    "dhcpfo.maxunackedbndupd",
    "dhcpfo.receivetimer",
    "dhcpfo.protocolversion",
    "dhcpfo.tls_request",
    "dhcpfo.tls_reply",
    "dhcpfo.relationshipname",
    "dhcpfo.vendorclass",
    "dhcpfo.message",
];

/// Compares one message's tree with tshark's `dhcpfo` node; returns how many fields matched.
/// `skip` lists tshark field names left out of the comparison (each with its reason at the
/// caller).
pub fn compare(
    frame: u64,
    bytes: &[u8],
    msg: &Message,
    theirs: &pdml::Node,
    skip: &[&str],
) -> usize {
    let fields = msg.fields();
    let mine = flatten(&fields);
    let mut used = vec![false; mine.len()];
    let base = theirs.pos;
    let mut matched = 0;
    let mut their_fields = Vec::new();
    theirs.walk(&mut |n| {
        if (n.name == "dhcpfo" || n.name.starts_with("dhcpfo.")) && !skip.contains(&n.name.as_str())
        {
            their_fields.push(n)
        }
    });
    for t in their_fields {
        let rel = t.pos - base;
        let Some(i) = mine
            .iter()
            .enumerate()
            .position(|(i, m)| !used[i] && m.name == t.name && m.offset == rel && m.len == t.size)
        else {
            panic!(
                "frame {frame} ({}): tshark's {} at {rel}+{} has no counterpart in {:#?}",
                msg.info(),
                t.name,
                t.size,
                mine.iter()
                    .map(|m| (m.name, m.offset, m.len))
                    .collect::<Vec<_>>()
            );
        };
        used[i] = true;
        let m = mine[i];
        if !t.value.is_empty() {
            assert_eq!(
                t.bytes(),
                bytes[m.offset..m.offset + m.len],
                "frame {frame}: bytes of {}",
                t.name
            );
        }
        if SAME_SHOW.contains(&t.name.as_str()) {
            assert_eq!(
                m.display_value(),
                t.show,
                "frame {frame} ({}): shown value of {}",
                msg.info(),
                t.name
            );
        }
        matched += 1;
    }
    // And nothing of ours under a Wireshark name that tshark does not have.
    for (i, m) in mine.iter().enumerate() {
        assert!(
            used[i] || m.name.starts_with("poolshark."),
            "frame {frame}: our {} at {}+{} is not in tshark's tree",
            m.name,
            m.offset,
            m.len
        );
    }
    matched
}
