//! IEEE 802.1Q VLAN tags and 802.1ad service tags (QinQ), stacked after any header that ends in
//! an EtherType (Ethernet, the Linux cooked captures).

use etherparse::SingleVlanHeaderSlice;

use super::bytes::be16;
use super::link::{by_ethertype, Network};
use crate::error::DecodeError;

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
