//! STID profiles: the rules by which each implementation decides which DHCP requests are load
//! balanced, what it hashes (the service transaction id, STID), and when a server that does not
//! own the bucket may answer anyway.
//!
//! The rules are data, one [`Profile`] per reading, so that the replay (written later, joining
//! the DHCP decoder and this module) applies whichever the user picks without copies of code:
//!
//! * `draft`: the DHCPv6 load-balancing draft (the seed text `dhcpv6-load-balancing.txt`) for v6,
//!   and RFC 3074 as the draft reads it for v4.
//! * `kea`: Kea's HA hook in load-balancing mode (`query_filter.cc`).
//! * `isc`: ISC DHCP 4.4 (`load_balance_mine` in `server/failover.c`, its callers in
//!   `server/dhcp.c` and `server/bootp.c`); DHCPv4 only.
//!
//! Message types are plain numbers here (option 53 for v4, the msg-type byte for v6).

use crate::analyse::KeyBytes;
use crate::proto::dhcpv4::secs_byte_swapped;
use crate::proto::lb::{hash, Hba};

/// DHCPv4 message types (RFC 2132 option 53, RFC 4388).
pub mod v4_type {
    pub const DISCOVER: u8 = 1;
    pub const OFFER: u8 = 2;
    pub const REQUEST: u8 = 3;
    pub const DECLINE: u8 = 4;
    pub const ACK: u8 = 5;
    pub const NAK: u8 = 6;
    pub const RELEASE: u8 = 7;
    pub const INFORM: u8 = 8;
    pub const LEASEQUERY: u8 = 10;
}

/// DHCPv6 message types (RFC 8415, RFC 5007, RFC 6977, RFC 7341).
pub mod v6_type {
    pub const SOLICIT: u8 = 1;
    pub const ADVERTISE: u8 = 2;
    pub const REQUEST: u8 = 3;
    pub const CONFIRM: u8 = 4;
    pub const RENEW: u8 = 5;
    pub const REBIND: u8 = 6;
    pub const REPLY: u8 = 7;
    pub const RELEASE: u8 = 8;
    pub const DECLINE: u8 = 9;
    pub const INFORMATION_REQUEST: u8 = 11;
    pub const RELAY_FORW: u8 = 12;
    pub const LEASEQUERY: u8 = 14;
    pub const RECONFIGURE_REQUEST: u8 = 18;
    pub const DHCPV4_QUERY: u8 = 20;
}

/// Where the map of bucket owners comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// The primary's failover CONNECT carries it (option 11, from `split N` or `hba`).
    FailoverConnect,
    /// Fixed: `hash % 2`, even buckets to the primary ([`crate::proto::lb::Hba::kea`]).
    EvenToPrimary,
    /// Configured on every server (RFC 3074's Hash Bucket Assignment).
    Configured,
}

/// In which state of the server pair the balancing applies at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateGate {
    /// Only while the failover pair is NORMAL (ISC's service state "cooperating"); in any other
    /// state each server answers or stays silent by its failover state, not by the hash.
    FailoverNormal,
    /// Only in Kea's HA "load-balancing" state; in partner-down the survivor serves every bucket.
    KeaLoadBalancing,
    /// The draft does not tie balancing to a server state.
    Always,
}

/// What a client's key is, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyOutcome {
    /// The request is balanced on these bytes.
    Key(Stid),
    /// The request is dropped by every server of the pair, before or instead of balancing.
    Dropped(&'static str),
}

/// A service transaction id and where it was taken from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stid {
    /// Inline when short (every hardware address, the usual identifiers and DUIDs): one is made
    /// per classified request.
    pub bytes: KeyBytes,
    pub source: StidSource,
}

impl Stid {
    pub fn bucket(&self) -> u8 {
        hash::bucket(&self.bytes)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StidSource {
    /// The whole payload of DHCPv4 option 61, type byte included.
    ClientIdentifier,
    /// `chaddr` cut (or padded) to `hlen`, without `htype`.
    Chaddr,
    /// The client's DUID in its entirety (DHCPv6 option 1).
    ClientDuid,
    /// The DUID inside OPTION_LQ_QUERY of a LEASEQUERY by client id.
    LeaseQueryDuid,
    /// No identifier: the empty key, bucket 0.
    Empty,
}

/// `hlen` above 16, the size of the `chaddr` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongHlen {
    /// The packet is discarded (ISC: "Discarding packet with bogus hlen").
    Drop,
    /// `chaddr`'s 16 bytes are zero-padded up to `hlen` when `hlen` is at most this bound; longer
    /// is dropped (Kea: `HWAddr` holds at most 20 bytes).
    ZeroPadUpTo(u8),
    /// Only the 16 bytes of the field are hashed.
    CutTo16,
}

/// DHCPv4 option 61 present with an empty payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyClientId {
    /// The empty payload is the key (ISC: the option evaluates, to zero bytes).
    IsTheKey,
    /// The option is ignored and `chaddr` is used (Kea checks `getData().empty()`).
    UseChaddr,
}

/// A request without any identifier to hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoKey {
    /// Hash the empty key: bucket 0.
    EmptyKey,
    /// Every server drops the request (Kea logs HA_LOAD_BALANCING_*_MISSING).
    Drop,
}

/// How the DHCPv4 key is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V4KeyRule {
    pub empty_client_id: EmptyClientId,
    pub long_hlen: LongHlen,
    /// `hlen` 0 and no client identifier.
    pub no_key: NoKey,
    /// The STID is cut to this many bytes (the seed says RFC 3074 limited it to 16).
    pub max_len: Option<usize>,
}

/// The size of the DHCPv4 `chaddr` field.
pub const CHADDR_LEN: usize = 16;

impl V4KeyRule {
    /// The key of a DHCPv4 request: `client_id` is option 61's payload when present, `chaddr` the
    /// 16-byte field (shorter if the packet was), `hlen` the header's hardware address length.
    pub fn stid(&self, client_id: Option<&[u8]>, chaddr: &[u8], hlen: u8) -> KeyOutcome {
        let hlen = usize::from(hlen);
        // Both servers check hlen while reading the packet, before any balancing.
        let chaddr_len = if hlen > CHADDR_LEN {
            match self.long_hlen {
                LongHlen::Drop => return KeyOutcome::Dropped("hlen above 16: packet discarded"),
                LongHlen::ZeroPadUpTo(max) if hlen > usize::from(max) => {
                    return KeyOutcome::Dropped(
                        "hlen above the longest hardware address: packet discarded",
                    )
                }
                LongHlen::ZeroPadUpTo(_) => hlen,
                LongHlen::CutTo16 => CHADDR_LEN,
            }
        } else {
            hlen
        };
        match client_id {
            Some(id) if !id.is_empty() || self.empty_client_id == EmptyClientId::IsTheKey => {
                return self.key(id, StidSource::ClientIdentifier);
            }
            _ => {}
        }
        if chaddr_len == 0 {
            return match self.no_key {
                NoKey::EmptyKey => self.key(&[], StidSource::Empty),
                NoKey::Drop => {
                    KeyOutcome::Dropped("neither client identifier nor hardware address")
                }
            };
        }
        let field = chaddr.get(..CHADDR_LEN).unwrap_or(chaddr);
        // Bytes beyond the field (hlen 17-20 in Kea) or beyond a short capture read as zeros.
        let bytes = (field.iter().copied().chain(std::iter::repeat(0)))
            .take(self.cut(chaddr_len))
            .collect();
        KeyOutcome::Key(Stid {
            bytes,
            source: StidSource::Chaddr,
        })
    }

    /// A key of `len` bytes cut to the rule's longest STID.
    fn cut(&self, len: usize) -> usize {
        self.max_len.map_or(len, |max| len.min(max))
    }

    /// `bytes` cut to the rule's longest STID.
    fn key(&self, bytes: &[u8], source: StidSource) -> KeyOutcome {
        let len = self.cut(bytes.len());
        KeyOutcome::Key(Stid {
            bytes: KeyBytes::from_slice(bytes.get(..len).unwrap_or(bytes)),
            source,
        })
    }
}

/// How long the client has waited, and the unit of the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElapsedField {
    /// DHCPv4 `secs`, seconds.
    Secs,
    /// DHCPv6 OPTION_ELAPSED_TIME, hundredths of a second.
    ElapsedTimeCentiseconds,
}

/// RFC 3074's "delayed service": a request that has waited longer than a threshold may be
/// answered by a server that does not own its bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedService {
    pub field: ElapsedField,
    /// A threshold of 0 switches balancing off (ISC: `load balance max seconds 0`).
    pub zero_disables: bool,
    /// ISC's optional `check-secs-byte-order`: a value above 255 whose low byte is 0 is read
    /// byte-swapped (clients that write `secs` little-endian).
    pub byte_swap_check: bool,
}

impl DelayedService {
    /// Whether a request that has waited `elapsed` (the raw field) may be answered by a server
    /// that does not own its bucket, with the threshold configured in seconds.
    /// `swap_check_enabled` is the server's `check-secs-byte-order` setting.
    pub fn nonowner_may_answer(
        &self,
        elapsed: u16,
        threshold_seconds: u32,
        swap_check_enabled: bool,
    ) -> bool {
        if self.zero_disables && threshold_seconds == 0 {
            return true;
        }
        // `secs` sent little-endian by some clients (tshark's `dhcp.secs_le`): the threshold
        // reads it swapped only where the server does. ISC dhcpd does with
        // `check-secs-byte-order` on (dhcpd.conf(5): "if it looks wrong (high byte non zero and
        // low byte zero) swap the bytes"; off by default, "only useful when doing load
        // balancing within failover"), by the same rule as tshark's, `secs_byte_swapped`; Kea's
        // HA load balancing does not look at `secs` at all (shared specs/NOTES.md section 2:
        // "secs / elapsed time does not change who answers"), nor does the draft's rule of
        // DHCPv6's elapsed time, a 16-bit field no client is known to swap. So the value the
        // tree shows swapped is not the one a server compares unless it was told to swap it.
        let mut elapsed = elapsed;
        if self.byte_swap_check && swap_check_enabled && secs_byte_swapped(elapsed) {
            elapsed = elapsed.swap_bytes();
        }
        // ISC answers when `max < secs`: a request at exactly the threshold is still balanced.
        let threshold = match self.field {
            ElapsedField::Secs => threshold_seconds,
            ElapsedField::ElapsedTimeCentiseconds => threshold_seconds.saturating_mul(100),
        };
        u32::from(elapsed) > threshold
    }
}

/// DHCPv4 rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V4Rules {
    /// Option-53 message types that are balanced.
    pub balanced: &'static [u8],
    /// BOOTREQUESTs (no option 53) are balanced.
    pub bootp: bool,
    /// A request that names a server (option 54) is answered as if balancing were off.
    pub server_id_exempt: bool,
    /// ISC answers a DISCOVER it does not own when the peer has no free lease to offer
    /// ("cancel load balance to peer ... no free leases").
    pub answer_if_peer_has_no_free_leases: bool,
    pub key: V4KeyRule,
    pub delayed_service: Option<DelayedService>,
}

impl V4Rules {
    /// Whether a request of this type (`None`: BOOTP, no option 53) is balanced at all.
    pub fn balances(&self, msg_type: Option<u8>) -> bool {
        match msg_type {
            Some(t) => self.balanced.contains(&t),
            None => self.bootp,
        }
    }
}

/// What a Server Identifier option in a DHCPv6 request changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerIdRule {
    /// Nothing: the request is balanced like any other (Kea).
    Ignored,
    /// Answered as if balancing were off, RENEW included (the seed's "SHOULD be processed").
    NotBalanced,
    /// Answered as if balancing were off, except RENEW, which a non-owner may ignore (the seed's
    /// "MAY choose to ignore").
    NotBalancedExceptRenew,
}

/// DHCPv6 LEASEQUERY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseQueryRule {
    /// Not balanced.
    NotBalanced,
    /// Balanced when querying by client id, on the DUID inside OPTION_LQ_QUERY; by address, not.
    ByClientIdOnly,
}

/// DHCPv6 rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V6Rules {
    pub balanced: &'static [u8],
    /// A RELAY-FORW is balanced by the innermost relayed message.
    pub relay_uses_innermost: bool,
    pub leasequery: LeaseQueryRule,
    pub server_id: ServerIdRule,
    /// No client DUID (or an empty one).
    pub no_duid: NoKey,
    pub delayed_service: Option<DelayedService>,
}

impl V6Rules {
    pub fn balances(&self, msg_type: u8) -> bool {
        self.balanced.contains(&msg_type)
    }

    /// The key of a DHCPv6 request: the client DUID in its entirety (option 1's payload).
    pub fn stid(&self, client_duid: Option<&[u8]>) -> KeyOutcome {
        match client_duid {
            Some(d) if !d.is_empty() => KeyOutcome::Key(Stid {
                bytes: KeyBytes::from_slice(d),
                source: StidSource::ClientDuid,
            }),
            _ => match self.no_duid {
                NoKey::EmptyKey => KeyOutcome::Key(Stid {
                    bytes: KeyBytes::default(),
                    source: StidSource::Empty,
                }),
                NoKey::Drop => KeyOutcome::Dropped("no client DUID"),
            },
        }
    }
}

/// One reading of "which server answers this request".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    pub ownership: Ownership,
    pub state_gate: StateGate,
    /// `None`: the implementation does not balance this family.
    pub v4: Option<V4Rules>,
    pub v6: Option<V6Rules>,
}

use v4_type as v4;
use v6_type as v6;

/// The seed draft for DHCPv6; RFC 3074 as the draft summarises it for DHCPv4 (its v6 list maps
/// DISCOVER to SOLICIT and REQUEST to REQUEST/CONFIRM/RENEW/REBIND; RELEASE, DECLINE and INFORM
/// are their v4 counterparts).
pub const DRAFT: Profile = Profile {
    name: "draft",
    summary: "DHCPv6 load-balancing draft (seed) and RFC 3074",
    ownership: Ownership::Configured,
    state_gate: StateGate::Always,
    v4: Some(V4Rules {
        balanced: &[
            v4::DISCOVER,
            v4::REQUEST,
            v4::DECLINE,
            v4::RELEASE,
            v4::INFORM,
        ],
        bootp: true,
        server_id_exempt: true,
        answer_if_peer_has_no_free_leases: false,
        key: V4KeyRule {
            empty_client_id: EmptyClientId::IsTheKey,
            long_hlen: LongHlen::CutTo16,
            no_key: NoKey::EmptyKey,
            max_len: Some(16),
        },
        delayed_service: Some(DelayedService {
            field: ElapsedField::Secs,
            zero_disables: false,
            byte_swap_check: false,
        }),
    }),
    v6: Some(V6Rules {
        balanced: &[
            v6::SOLICIT,
            v6::REQUEST,
            v6::CONFIRM,
            v6::RENEW,
            v6::REBIND,
            v6::RELEASE,
            v6::DECLINE,
            v6::INFORMATION_REQUEST,
            v6::RECONFIGURE_REQUEST,
        ],
        relay_uses_innermost: true,
        leasequery: LeaseQueryRule::ByClientIdOnly,
        // "SHOULD be processed as if load balancing were not in play" is the draft's final word;
        // NotBalancedExceptRenew is its "MAY" alternative.
        server_id: ServerIdRule::NotBalanced,
        // Only INFORMATION-REQUEST may lack a DUID; it hashes as the empty key (bucket 0).
        no_duid: NoKey::EmptyKey,
        delayed_service: Some(DelayedService {
            field: ElapsedField::ElapsedTimeCentiseconds,
            zero_disables: false,
            byte_swap_check: false,
        }),
    }),
};

/// Kea 2.x HA hook, load-balancing mode.
pub const KEA: Profile = Profile {
    name: "kea",
    summary: "Kea HA load-balancing: hash % 2, even buckets to the primary",
    ownership: Ownership::EvenToPrimary,
    state_gate: StateGate::KeaLoadBalancing,
    v4: Some(V4Rules {
        balanced: &[
            v4::DISCOVER,
            v4::REQUEST,
            v4::DECLINE,
            v4::RELEASE,
            v4::INFORM,
        ],
        // BOOTP has no option 53: Kea's type is 0 (DHCP_NOTYPE), not an HA type.
        bootp: false,
        server_id_exempt: false,
        answer_if_peer_has_no_free_leases: false,
        key: V4KeyRule {
            empty_client_id: EmptyClientId::UseChaddr,
            long_hlen: LongHlen::ZeroPadUpTo(20),
            no_key: NoKey::Drop,
            max_len: None,
        },
        delayed_service: None,
    }),
    v6: Some(V6Rules {
        balanced: &[
            v6::SOLICIT,
            v6::REQUEST,
            v6::CONFIRM,
            v6::RENEW,
            v6::REBIND,
            v6::RELEASE,
            v6::DECLINE,
        ],
        relay_uses_innermost: true,
        leasequery: LeaseQueryRule::NotBalanced,
        server_id: ServerIdRule::Ignored,
        no_duid: NoKey::Drop,
        delayed_service: None,
    }),
};

/// ISC DHCP 4.4 failover with load balancing (DHCPv4 only).
pub const ISC: Profile = Profile {
    name: "isc",
    summary: "ISC DHCP failover: DISCOVER and BOOTP only, in NORMAL state, secs cutoff",
    ownership: Ownership::FailoverConnect,
    state_gate: StateGate::FailoverNormal,
    v4: Some(V4Rules {
        // DHCPREQUEST is never filtered (INIT-REBOOT requests are answered by both).
        balanced: &[v4::DISCOVER],
        bootp: true,
        server_id_exempt: false,
        answer_if_peer_has_no_free_leases: true,
        key: V4KeyRule {
            empty_client_id: EmptyClientId::IsTheKey,
            long_hlen: LongHlen::Drop,
            // hlen 0 hashes zero bytes of chaddr: bucket 0.
            no_key: NoKey::EmptyKey,
            max_len: None,
        },
        delayed_service: Some(DelayedService {
            field: ElapsedField::Secs,
            zero_disables: true,
            byte_swap_check: true,
        }),
    }),
    v6: None,
};

/// Every profile, in the order the command line lists them.
pub const ALL: [&Profile; 3] = [&DRAFT, &KEA, &ISC];

impl Profile {
    /// The profile called `name` (`draft`, `kea`, `isc`).
    pub fn by_name(name: &str) -> Option<&'static Profile> {
        ALL.into_iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The owner map when the profile fixes it.
    pub fn fixed_hba(&self) -> Option<Hba> {
        match self.ownership {
            Ownership::EvenToPrimary => Some(Hba::kea()),
            Ownership::FailoverConnect | Ownership::Configured => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(o: KeyOutcome) -> Stid {
        match o {
            KeyOutcome::Key(s) => s,
            KeyOutcome::Dropped(why) => panic!("dropped: {why}"),
        }
    }

    fn chaddr(prefix: &[u8]) -> [u8; 16] {
        let mut c = [0u8; 16];
        c[..prefix.len()].copy_from_slice(prefix);
        c
    }

    #[test]
    fn lookup_by_name() {
        assert_eq!(Profile::by_name("kea"), Some(&KEA));
        assert_eq!(Profile::by_name("ISC"), Some(&ISC));
        assert_eq!(Profile::by_name("draft"), Some(&DRAFT));
        assert_eq!(Profile::by_name("rfc"), None);
        assert_eq!(KEA.fixed_hba(), Some(Hba::kea()));
        assert_eq!(ISC.fixed_hba(), None);
    }

    #[test]
    fn message_types_per_profile() {
        let isc = ISC.v4.unwrap();
        assert!(isc.balances(Some(v4::DISCOVER)));
        assert!(!isc.balances(Some(v4::REQUEST)));
        assert!(isc.balances(None), "BOOTP");
        assert!(ISC.v6.is_none());

        let kea4 = KEA.v4.unwrap();
        for t in [
            v4::DISCOVER,
            v4::REQUEST,
            v4::DECLINE,
            v4::RELEASE,
            v4::INFORM,
        ] {
            assert!(kea4.balances(Some(t)), "{t}");
        }
        for t in [v4::OFFER, v4::ACK, v4::NAK, v4::LEASEQUERY] {
            assert!(!kea4.balances(Some(t)), "{t}");
        }
        let kea6 = KEA.v6.unwrap();
        assert!(kea6.balances(v6::SOLICIT));
        assert!(!kea6.balances(v6::INFORMATION_REQUEST), "answered by both");
        assert!(!kea6.balances(v6::LEASEQUERY));

        let draft6 = DRAFT.v6.unwrap();
        assert!(draft6.balances(v6::INFORMATION_REQUEST));
        assert!(draft6.balances(v6::RECONFIGURE_REQUEST));
        assert!(!draft6.balances(v6::DHCPV4_QUERY));
        assert!(!draft6.balances(v6::ADVERTISE));
        assert_eq!(draft6.leasequery, LeaseQueryRule::ByClientIdOnly);
    }

    #[test]
    fn v4_key_is_option_61_whole_payload_else_chaddr() {
        // zeek_dhcp_discover_param_req_and_client_id.pcap: option 61 = 01 00:0b:82:01:fc:42.
        let id = [0x01, 0x00, 0x0b, 0x82, 0x01, 0xfc, 0x42];
        let ch = chaddr(&id[1..]);
        for p in ALL {
            let rule = p.v4.unwrap().key;
            let with_id = key(rule.stid(Some(&id), &ch, 6));
            assert_eq!(with_id.source, StidSource::ClientIdentifier);
            assert_eq!(with_id.bytes[..], id, "type byte included ({})", p.name);
            let without = key(rule.stid(None, &ch, 6));
            assert_eq!(without.source, StidSource::Chaddr);
            assert_eq!(without.bytes[..], id[1..], "htype excluded ({})", p.name);
        }
    }

    #[test]
    fn empty_client_id() {
        let ch = chaddr(&[1, 2, 3, 4, 5, 6]);
        let isc = key(ISC.v4.unwrap().key.stid(Some(&[]), &ch, 6));
        assert_eq!(isc.bytes[..], Vec::<u8>::new());
        assert_eq!(isc.bucket(), 0);
        let kea = key(KEA.v4.unwrap().key.stid(Some(&[]), &ch, 6));
        assert_eq!(kea.bytes[..], [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn long_hlen() {
        let ch = chaddr(&[0xaa; 16]);
        // ISC discards hlen 17 outright, whatever the client id.
        assert!(matches!(
            ISC.v4.unwrap().key.stid(Some(&[1, 2]), &ch, 17),
            KeyOutcome::Dropped(_)
        ));
        // Kea zero-pads 17-20 ...
        let k = key(KEA.v4.unwrap().key.stid(None, &ch, 20));
        assert_eq!(k.bytes.len(), 20);
        assert_eq!(k.bytes[..16], [0xaa; 16]);
        assert_eq!(k.bytes[16..], [0, 0, 0, 0]);
        // ... drops longer ...
        assert!(matches!(
            KEA.v4.unwrap().key.stid(None, &ch, 21),
            KeyOutcome::Dropped(_)
        ));
        // ... and hlen 16 is the field itself.
        assert_eq!(
            key(ISC.v4.unwrap().key.stid(None, &ch, 16)).bytes[..],
            [0xaa; 16]
        );
        // The draft cuts to 16 bytes, client ids too.
        assert_eq!(
            key(DRAFT.v4.unwrap().key.stid(None, &ch, 30)).bytes[..],
            [0xaa; 16]
        );
        let long_id = [7u8; 20];
        assert_eq!(
            key(DRAFT.v4.unwrap().key.stid(Some(&long_id), &ch, 6)).bytes[..],
            [7u8; 16]
        );
        assert_eq!(
            key(KEA.v4.unwrap().key.stid(Some(&long_id), &ch, 6)).bytes[..],
            long_id
        );
    }

    #[test]
    fn no_key_at_all() {
        let ch = [0u8; 16];
        let isc = key(ISC.v4.unwrap().key.stid(None, &ch, 0));
        assert_eq!((isc.source, isc.bucket()), (StidSource::Empty, 0));
        assert!(matches!(
            KEA.v4.unwrap().key.stid(None, &ch, 0),
            KeyOutcome::Dropped(_)
        ));
        assert!(matches!(KEA.v6.unwrap().stid(None), KeyOutcome::Dropped(_)));
        assert!(matches!(
            KEA.v6.unwrap().stid(Some(&[])),
            KeyOutcome::Dropped(_)
        ));
        // The draft: INFORMATION-REQUEST without a DUID is bucket 0.
        let d = key(DRAFT.v6.unwrap().stid(None));
        assert_eq!((d.source, d.bucket()), (StidSource::Empty, 0));
    }

    #[test]
    fn short_chaddr_reads_as_zeros() {
        // A truncated packet must not panic: missing bytes read as zeros.
        let k = key(ISC.v4.unwrap().key.stid(None, &[9, 9], 6));
        assert_eq!(k.bytes[..], [9, 9, 0, 0, 0, 0]);
    }

    #[test]
    fn v6_key_is_the_whole_duid() {
        let duid = [0u8, 3, 0, 1, 2, 0, 0, 0, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9];
        let k = key(DRAFT.v6.unwrap().stid(Some(&duid)));
        assert_eq!(k.bytes[..], duid, "no 16-byte limit in v6");
        assert_eq!(k.source, StidSource::ClientDuid);
    }

    #[test]
    fn isc_secs_cutoff_matches_its_unit_test() {
        // ISC's load_bal_unittest.c: max 5 seconds; secs 0 and 2 balanced; 6 and 257 answered by
        // both; with the byte-order check, 256 (= 1 swapped) balanced and 1536 (= 6) by both.
        let ds = ISC.v4.unwrap().delayed_service.unwrap();
        assert!(!ds.nonowner_may_answer(0, 5, false));
        assert!(!ds.nonowner_may_answer(2, 5, false));
        assert!(ds.nonowner_may_answer(6, 5, false));
        assert!(ds.nonowner_may_answer(257, 5, false));
        assert!(!ds.nonowner_may_answer(256, 5, true));
        assert!(ds.nonowner_may_answer(256 * 6, 5, true));
        // Without the check 256 is 256 seconds.
        assert!(ds.nonowner_may_answer(256, 5, false));
        // The capture's README: secs 3 is still balanced at max 3, 4 is not.
        assert!(!ds.nonowner_may_answer(3, 3, false));
        assert!(ds.nonowner_may_answer(4, 3, false));
        // `load balance max seconds 0` switches balancing off.
        assert!(ds.nonowner_may_answer(0, 0, false));
    }

    #[test]
    fn draft_v6_elapsed_time_is_in_hundredths() {
        let ds = DRAFT.v6.unwrap().delayed_service.unwrap();
        assert!(
            !ds.nonowner_may_answer(300, 3, false),
            "3.00 s is not above 3 s"
        );
        assert!(ds.nonowner_may_answer(301, 3, false));
        assert!(
            !ds.nonowner_may_answer(0, 0, false),
            "no zero-disables rule"
        );
        // A huge threshold saturates instead of overflowing.
        assert!(!ds.nonowner_may_answer(u16::MAX, u32::MAX, false));
        assert!(KEA.v4.unwrap().delayed_service.is_none());
        assert!(KEA.v6.unwrap().delayed_service.is_none());
    }
}
