//! IEEE 802.1Q VLAN tags and 802.1ad service tags (QinQ), stacked after any header that ends in
//! an EtherType (Ethernet, the Linux cooked captures).

use etherparse::SingleVlanHeaderSlice;

use super::bytes::be16;
use super::link::{by_ethertype, Network};
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// The tag protocol identifiers of a VLAN tag: 802.1Q, 802.1ad, and the old QinQ 0x9100.
pub const VLAN_TPIDS: [u16; 3] = [0x8100, 0x88a8, 0x9100];
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const ETHERTYPE_QINQ: u16 = 0x88a8;
/// Stacked tags beyond this are taken for garbage rather than walked forever.
pub const MAX_VLAN_TAGS: usize = 8;

/// The VLAN tags an EtherType `ethertype` (its field ending at `offset`) announces, and what
/// follows them: (what the frame carries, where it starts, tags).
#[inline(always)]
pub(crate) fn tagged(
    data: &[u8],
    offset: usize,
    ethertype: u16,
) -> Result<(Network, usize, usize), DecodeError> {
    let (mut ethertype, mut offset, mut tags) = (ethertype, offset, 0);
    while VLAN_TPIDS.contains(&ethertype) {
        if tags == MAX_VLAN_TAGS {
            return Err(DecodeError::new(
                offset,
                format!("more than {MAX_VLAN_TAGS} stacked VLAN tags"),
            ));
        }
        let rest = data.get(offset..).unwrap_or(&[]);
        let tag = SingleVlanHeaderSlice::from_slice(rest)
            .map_err(|_| DecodeError::truncated(offset, "VLAN tag", 4, rest.len()))?;
        ethertype = tag.ether_type().0;
        offset += 4;
        tags += 1;
    }
    let network = by_ethertype(ethertype);
    if let Network::Other(t) = network {
        if t < 0x0600 {
            return Err(DecodeError::new(
                offset - 2,
                format!("type/length field {t:#06x} is neither a length (up to 1500) nor an EtherType (from 0x0600)"),
            ));
        }
    }
    Ok((network, offset, tags))
}

/// One VLAN tag: the tag protocol (0x8100, 0x88a8 or 0x9100) and the tag control information
/// (priority, DEI, VLAN id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanTag {
    pub tpid: u16,
    pub tci: u16,
}

impl VlanTag {
    pub fn dot1q(vid: u16) -> Self {
        VlanTag {
            tpid: ETHERTYPE_VLAN,
            tci: vid & 0x0fff,
        }
    }

    /// Appends the tag (its TPID and TCI; the EtherType after it is the next tag's or the
    /// header's).
    pub fn emit(&self, out: &mut Vec<u8>) {
        be16(out, self.tpid);
        be16(out, self.tci);
    }
}

/// The display fields of one VLAN tag (802.1Q `vlan`, or 802.1ad's service tag `ieee8021ad`)
/// of tag protocol `t` at `s.at`: its protocol name, its tree, and what follows it (the next
/// tag or what the EtherType carries: [`Next::Tagged`]); `None` when it is cut short.
pub fn fields(v: &View, t: u16, s: Span) -> Option<(&'static str, Field, Next)> {
    let (Some(tci), Some(next)) = (v.be16(s.at, s), v.be16(s.at + 2, s)) else {
        return None;
    };
    let (proto, title) = if t == 0x88a8 {
        ("ieee8021ad", "IEEE 802.1ad")
    } else {
        ("vlan", "802.1Q Virtual LAN")
    };
    let (pri, dei, id) = (tci >> 13, tci & 0x1000 != 0, tci & 0x0fff);
    let (pri_n, dei_n, id_n) = if t == 0x88a8 {
        ("ieee8021ad.priority", "ieee8021ad.dei", "ieee8021ad.id")
    } else {
        ("vlan.priority", "vlan.dei", "vlan.id")
    };
    let mut tree = Field::node(
        proto,
        v.label(|| format!("{title}, PRI: {pri}, DEI: {}, ID: {id}", u8::from(dei))),
        s.at,
        4,
    )
    .children(vec![
        Field::uint(pri_n, "Priority", pri, s.at, 2),
        Field::boolean(dei_n, "DEI", dei, s.at, 2),
        Field::uint(id_n, "ID", id, s.at, 2),
    ]);
    // IEEE 802.3 inside the tag: a length where the type would be.
    let ieee802_3 = next <= 1500;
    if t != 0x88a8 {
        tree = tree.child(if ieee802_3 {
            Field::uint("vlan.len", "Length", next, s.at + 2, 2)
        } else {
            hex(Field::uint("vlan.etype", "Type", next, s.at + 2, 2), 4)
        });
    }
    // After a length, LLC: not decoded.
    let after = if ieee802_3 {
        Next::End
    } else {
        Next::Tagged(next, s.from(4))
    };
    Some((proto, tree, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_an_emitted_tag() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        VlanTag {
            tpid: ETHERTYPE_VLAN,
            tci: 0xa00c,
        }
        .emit(&mut b);
        b.extend_from_slice(&0x0800u16.to_be_bytes());
        // The tag's own fields start after its TPID (the header before ends in it).
        let b = &b[2..];
        for (v, s) in views(b) {
            let (proto, tree, next) = fields(&v, ETHERTYPE_VLAN, s).unwrap();
            assert_eq!(proto, "vlan");
            assert_eq!(value(&tree, "vlan.priority"), "5");
            assert_eq!(value(&tree, "vlan.id"), "12");
            assert_eq!(value(&tree, "vlan.etype"), "0x0800");
            assert_eq!(next, Next::Tagged(0x0800, s.from(4)));
            for n in 0..4 {
                assert!(fields(&v, ETHERTYPE_VLAN, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
