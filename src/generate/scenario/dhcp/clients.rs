//! The client population: identities that exercise every key rule (DHCPv4 client identifiers of
//! types 0, 1 and 255 or none, DHCPv6 DUIDs of every type, some longer than 16 bytes), where each
//! client sits (on the servers' link or behind one or two relays), and the leases it holds.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::analyse::dhcp_lb::Role;
use crate::proto::dhcpv6::Duid;

/// One client.
#[derive(Clone, Debug)]
pub struct Client {
    pub index: usize,
    pub mac: [u8; 6],
    /// DHCPv4 option 61's payload (type byte first), if the client sends one.
    pub client_id: Option<Vec<u8>>,
    pub duid: Duid<'static>,
    /// The v4 relay agent (index) the client sits behind, `None` on the servers' link.
    pub relay: Option<usize>,
    /// DHCPv6: behind two relays (the inner one's messages relayed again).
    pub nested: bool,
    pub v4_lease: Option<(Role, Ipv4Addr)>,
    pub v6_lease: Option<(Role, Ipv6Addr)>,
}

impl Client {
    /// Client `k` of a population with `relays` relay agents.
    pub fn new(k: usize, relays: usize) -> Client {
        let k32 = k as u32;
        let kb = k32.to_be_bytes();
        let mac = [0x02, 0xc1, kb[1], kb[2], kb[3], 0x5a];
        let client_id = match k % 4 {
            0 => None,
            1 => Some([&[1u8][..], &mac].concat()),
            2 => Some([&[0u8][..], format!("client-{k}").as_bytes()].concat()),
            // RFC 4361: type 255, IAID, then a DUID: a DUID-LLT, as most clients that send one
            // make it, which takes the identifier past RFC 3074's 16 bytes (19): Kea and ISC
            // hash it whole, the draft's rule its first 16 bytes, so such answers tell the
            // profiles apart.
            _ => Some(
                [
                    &[255u8][..],
                    &kb,
                    &[0, 1, 0, 1],
                    &(0x2a00_0000 + k32).to_be_bytes(),
                    &mac,
                ]
                .concat(),
            ),
        };
        let duid = match k % 5 {
            0 => Duid::llt(1, 0x2a00_0000 + k32, &mac),
            1 => Duid::ll(1, &mac),
            2 => Duid::en(2495, &kb),
            3 => {
                let mut u = [0u8; 16];
                u[..4].copy_from_slice(&kb);
                u[4..10].copy_from_slice(&mac);
                u[6] = 0x40 | (u[6] & 0x0f); // a version-4 UUID layout
                Duid::uuid(u)
            }
            // DUID-EN with a 20-byte identifier: 26 bytes, longer than RFC 3074's 16.
            _ => {
                let mut id = b"poolshark-long-id-".to_vec();
                id.extend_from_slice(&kb[2..]);
                Duid::en(311, &id)
            }
        };
        let relay = if relays == 0 || k % (relays + 1) == 0 {
            None
        } else {
            Some(k % (relays + 1) - 1)
        };
        Client {
            index: k,
            mac,
            client_id,
            duid,
            relay,
            nested: relay.is_some() && (k / (relays + 1)) % 3 == 1,
            v4_lease: None,
            v6_lease: None,
        }
    }

    /// The `chaddr` field: the MAC then zeros.
    pub fn chaddr(&self) -> [u8; 16] {
        let mut c = [0u8; 16];
        c[..6].copy_from_slice(&self.mac);
        c
    }

    /// The client's IPv6 link-local address (from its MAC, EUI-64 style).
    pub fn link_local(&self) -> Ipv6Addr {
        let m = self.mac;
        Ipv6Addr::new(
            0xfe80,
            0,
            0,
            0,
            u16::from_be_bytes([m[0] ^ 0x02, m[1]]),
            u16::from_be_bytes([m[2], 0xff]),
            u16::from_be_bytes([0xfe, m[3]]),
            u16::from_be_bytes([m[4], m[5]]),
        )
    }

    /// The address server `role` leases this client: each server hands out its own half of the
    /// client's subnet (the subnet of its relay, or of the servers' link).
    pub fn v4_address(&self, role: Role) -> Ipv4Addr {
        let net = self.relay.map_or(0, |r| r + 1) as u8;
        let half = match role {
            Role::Primary => 0,
            Role::Secondary => 128,
        };
        let k = self.index as u32;
        Ipv4Addr::new(
            10,
            32u8.wrapping_add(net),
            half + ((k / 250) % 128) as u8,
            (k % 250 + 3) as u8,
        )
    }

    pub fn v6_address(&self, role: Role) -> Ipv6Addr {
        let net = self.relay.map_or(0, |r| r + 1) as u16;
        let half = match role {
            Role::Primary => 1,
            Role::Secondary => 2,
        };
        let k = self.index as u32;
        Ipv6Addr::new(
            0x2001,
            0xdb8,
            0x100 + net,
            0,
            0,
            half,
            (k >> 16) as u16,
            k as u16,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_covers_every_identity_kind() {
        let cs: Vec<Client> = (0..20).map(|k| Client::new(k, 2)).collect();
        let id_types: std::collections::BTreeSet<Option<u8>> = cs
            .iter()
            .map(|c| c.client_id.as_ref().map(|i| i[0]))
            .collect();
        assert_eq!(id_types.len(), 4, "{id_types:?}");
        let duid_types: std::collections::BTreeSet<Option<u16>> =
            cs.iter().map(|c| c.duid.duid_type()).collect();
        assert_eq!(duid_types.len(), 4, "LLT, EN, LL, UUID: {duid_types:?}");
        assert!(cs.iter().any(|c| c.duid.bytes().len() > 16));
        assert!(cs.iter().any(|c| c.relay.is_none()));
        assert!(cs.iter().any(|c| c.nested));
        let c = Client::new(5, 0);
        assert_ne!(c.v4_address(Role::Primary), c.v4_address(Role::Secondary));
    }
}
