//! The typed events the pool-balance analyser consumes: what one failover message says about the
//! pool, with the frame it completed in, the capture time, and which server sent it; and the
//! [`EventSource`] that makes them from decoded messages: failover messages (roles learnt from
//! CONNECT) and the servers' DHCPOFFERs (the client taken from the DISCOVER with the same xid).

use std::net::{IpAddr, Ipv4Addr};

use super::{derive, offer, Roles};
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::KeyBytes;
use crate::base::Timestamp;
use crate::dissect::lru::LruMap;
use crate::pipeline::Decoded;
use crate::proto::failover::{BindingStatus, ServerState};
use crate::proto::{dhcpv4, Message};

/// The last client of a lease: what the balancer's affinity pass hashes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// DHCP option 61 as the client sent it, type byte included.
    ClientId(Vec<u8>),
    /// Hardware type and the client's hardware address (chaddr cut to hlen).
    Hardware { htype: u8, address: Vec<u8> },
}

impl ClientKey {
    /// The bytes ISC's `peer_wants_lease` hashes: the whole client identifier when the lease has
    /// one, else the hardware address without its type byte. `None` when there is nothing to hash
    /// (ISC then counts the lease as wanted by neither server).
    pub fn stid(&self) -> Option<&[u8]> {
        match self {
            ClientKey::ClientId(id) if !id.is_empty() => Some(id),
            ClientKey::ClientId(_) => None,
            ClientKey::Hardware { address, .. } if !address.is_empty() => Some(address),
            ClientKey::Hardware { .. } => None,
        }
    }

    /// The key for people: `id:01:02:...` or `hw:02:c1:...`.
    pub fn label(&self) -> String {
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(":")
        };
        match self {
            ClientKey::ClientId(id) => format!("id:{}", hex(id)),
            ClientKey::Hardware { address, .. } => format!("hw:{}", hex(address)),
        }
    }
}

/// What a message says about a lease's client: DHCP option 61 and the hardware address, each
/// only if the message carries it. dhcpd keeps the two apart: a server that receives an update
/// without an identifier keeps the identifier it had (see [`super::state`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Client {
    /// DHCP option 61 as the client sent it, type byte included.
    pub id: Option<KeyBytes>,
    /// Hardware type and address (chaddr cut to hlen).
    pub hardware: Option<(u8, KeyBytes)>,
}

impl Client {
    /// The key ISC's affinity hashes: the identifier when there is a non-empty one, else the
    /// hardware address.
    pub fn key(&self) -> Option<ClientKey> {
        match (&self.id, &self.hardware) {
            (Some(id), _) if !id.is_empty() => Some(ClientKey::ClientId(id.to_vec())),
            (_, Some((htype, address))) => Some(ClientKey::Hardware {
                htype: *htype,
                address: address.to_vec(),
            }),
            _ => None,
        }
    }

    /// The hash bucket of the key and which server serves it, under `hba`.
    pub fn owner(&self, hba: &crate::analyse::dhcp_lb::Hba) -> Option<(u8, Role)> {
        match (&self.id, &self.hardware) {
            (Some(id), _) if !id.is_empty() => Some(hba.owner_of_key(id)),
            (_, Some((_, address))) if !address.is_empty() => Some(hba.owner_of_key(address)),
            _ => None,
        }
    }

    /// What the server receiving an update with this client remembers, given what it had and
    /// the update's binding status (ISC's `dhcp_failover_process_bind_update`): each part the
    /// update carries replaces the old one; without an identifier the old identifier stays only
    /// for FREE, BACKUP and RESET updates (dhcpd clears it otherwise), and without a hardware
    /// address the old one stays unless the lease is ABANDONED.
    pub fn received_over(&self, old: &Client, status: BindingStatus) -> Client {
        let keep_id = matches!(
            status,
            BindingStatus::Free | BindingStatus::Backup | BindingStatus::Reset
        );
        Client {
            id: self
                .id
                .clone()
                .or_else(|| old.id.clone().filter(|_| keep_id)),
            hardware: self.hardware.clone().or_else(|| {
                old.hardware
                    .clone()
                    .filter(|_| status != BindingStatus::Abandoned)
            }),
        }
    }
}

/// One BNDUPD: a server's new view of one lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseUpdate {
    pub address: Ipv4Addr,
    pub status: BindingStatus,
    /// The lease's client, as far as the update names it.
    pub client: Client,
    /// Lease expiration time (ISC's `ends`; 0 for a lease never used).
    pub ends: Option<u32>,
    /// Start time of the state: when the lease entered `status` (ISC's `starts`).
    pub since: Option<u32>,
    pub potential_expiry: Option<u32>,
    pub client_last_transaction: Option<u32>,
}

/// What one failover message contributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// BNDUPD.
    LeaseUpdate(LeaseUpdate),
    /// BNDACK; `reject` is the reject reason when the peer refused the update.
    LeaseAck {
        address: Option<Ipv4Addr>,
        reject: Option<u8>,
    },
    /// POOLREQ: the sender asks its peer to run a pool balance now.
    PoolRequest,
    /// POOLRESP: how many leases the responder's balance run moved.
    PoolResponse {
        transferred: Option<u32>,
    },
    /// STATE: the sender's failover state.
    State {
        state: ServerState,
        startup: bool,
    },
    /// CONNECT (ISC: sent by the primary): the hash bucket assignment and timers.
    Connect {
        hba: Option<Hba>,
        mclt: Option<u32>,
        receive_timer: Option<u32>,
    },
    /// CONNECTACK.
    ConnectAck {
        receive_timer: Option<u32>,
        reject: Option<u8>,
    },
    /// A DHCPOFFER of a FREE or BACKUP lease by the sending server (from the DHCP traffic, not
    /// the failover link). dhcpd holds an offered lease in memory with the client it was offered
    /// to and `ends` two minutes ahead, without telling its peer: the lease moves in its queue and
    /// counts as used from then on, which changes the next balance run.
    Offer {
        address: Ipv4Addr,
        /// The client offered to: the DISCOVER's option 61 (`None` when it had none, which
        /// clears the identifier dhcpd had for the lease) and chaddr.
        client: Client,
        /// The OFFER's lease time (option 51), seconds (for display: the hold is two minutes).
        lease_time: Option<u32>,
    },
    /// UPDREQ (`all` false) or UPDREQALL (`all` true).
    UpdateRequest {
        all: bool,
    },
    UpdateDone,
    /// CONTACT: a keep-alive.
    Contact,
    Disconnect,
}

/// A typed event: which frame, when (capture time), which server sent it, and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// 1-based frame number of the segment that completed the message.
    pub frame: u64,
    pub time: Timestamp,
    pub from: Role,
    pub kind: EventKind,
}

/// DISCOVERs remembered for their OFFERs.
const MAX_PENDING_DISCOVERS: usize = 65_536;
/// Seconds a DISCOVER is remembered after it was last sent: a server offers within seconds, and
/// a client retries its DISCOVER (the same xid) at most about 64 s apart (RFC 2131, 4.1). Older
/// ones are forgotten, so what is held depends on the rate of DISCOVERs, not on the capture's
/// length.
const DISCOVER_MEMORY_SECS: i64 = 120;

/// A DISCOVER's client, and when it was sent.
struct Discovered {
    client: Client,
    at: Timestamp,
}

/// Turns decoded messages into failover events: failover messages (the sender's role learnt
/// from CONNECT / CONNECTACK) and the servers' DHCPOFFERs (the client from the DISCOVER with the
/// same xid). Shared by the analyser and by anything else that wants the events.
pub struct EventSource {
    roles: Roles,
    discovers: LruMap<u32, Discovered>,
    /// When the DISCOVERs were last swept of the forgotten ones.
    swept: i64,
    /// Failover messages seen; DHCP is only looked at once there is a failover pair.
    messages: u64,
}

impl Default for EventSource {
    fn default() -> Self {
        EventSource {
            roles: Roles::new(),
            discovers: LruMap::new(MAX_PENDING_DISCOVERS),
            swept: i64::MIN,
            messages: 0,
        }
    }
}

impl EventSource {
    pub fn roles(&self) -> &Roles {
        &self.roles
    }

    /// Failover messages seen so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// The event a decoded message stands for, if any.
    pub fn event(&mut self, d: &Decoded<'_>) -> Option<Event> {
        match d.message {
            Message::Failover(m) => {
                self.messages += 1;
                let (src, dst): (IpAddr, IpAddr) = (d.payload.src, d.payload.dst);
                self.roles.learn(m, src, dst);
                let role = self.roles.role_of(src)?;
                derive(m, d.frame.number, d.frame.ts, role).ok()
            }
            Message::Dhcpv4(m) if self.messages > 0 => self.dhcp(d, m),
            _ => None,
        }
    }

    fn dhcp(&mut self, d: &Decoded<'_>, m: &dhcpv4::Message<'_>) -> Option<Event> {
        match m.message_type() {
            Some(dhcpv4::message_type::DISCOVER) => {
                let client = Client {
                    id: m.client_identifier().map(|c| KeyBytes::from_slice(&c)),
                    hardware: m.chaddr().map(|c| (m.htype, KeyBytes::from_slice(c))),
                };
                let now = d.frame.ts;
                if now.secs.saturating_sub(self.swept) > DISCOVER_MEMORY_SECS {
                    self.discovers
                        .retain(|x| now.secs.saturating_sub(x.at.secs) <= DISCOVER_MEMORY_SECS);
                    self.swept = now.secs;
                }
                // A retried DISCOVER replaces the earlier one.
                *self.discovers.get_or_insert_with(
                    &m.xid,
                    || Discovered {
                        client: Client::default(),
                        at: now,
                    },
                    |_| {},
                ) = Discovered { client, at: now };
                None
            }
            Some(dhcpv4::message_type::OFFER) => {
                let role = self.roles.role_of(d.payload.src)?;
                let now = d.frame.ts.secs;
                let client = self
                    .discovers
                    .get_mut(&m.xid)
                    .filter(|x| now.saturating_sub(x.at.secs) <= DISCOVER_MEMORY_SECS)
                    .map(|x| x.client.clone())
                    .unwrap_or(Client {
                        id: None,
                        hardware: m.chaddr().map(|c| (m.htype, KeyBytes::from_slice(c))),
                    });
                Some(offer(
                    d.frame.number,
                    d.frame.ts,
                    role,
                    m.yiaddr,
                    client,
                    m.lease_time(),
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::dissect::{Payload, Transport};
    use crate::proto::dhcpv4::{message_type as v4t, Opt};
    use crate::proto::failover::{self as fo, MessageType};
    use crate::proto::AppProtocol;
    use crate::source::Frame;

    const P: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
    const S: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
    const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 9);

    /// Hands `m` to `src` as if decoded from frame `number` at `secs`.
    fn feed(
        src: &mut EventSource,
        number: u64,
        secs: i64,
        m: Message<'_>,
        from: Ipv4Addr,
    ) -> Option<Event> {
        let frame = Frame {
            number,
            ts: Timestamp::new(secs, 0),
            ts_digits: 6,
            linktype: 1,
            orig_len: 0,
            interface: 0,
            data: &[],
            pcapng: None,
        };
        let payload = Payload::new(Transport::Udp, from.into(), 67, CLIENT.into(), 68, &[]);
        src.event(&Decoded {
            frame: &frame,
            payload: &payload,
            protocol: AppProtocol::Dhcpv4,
            message: &m,
            errors: &[],
            frame_offset: None,
            len: 0,
        })
    }

    fn offered_to(ev: Option<Event>) -> Option<Vec<u8>> {
        match ev.map(|e| e.kind) {
            Some(EventKind::Offer { client, .. }) => client.id.map(|id| id.to_vec()),
            other => panic!("not an offer: {other:?}"),
        }
    }

    #[test]
    fn an_offer_takes_its_discovers_client_while_the_discover_is_remembered() {
        let mut src = EventSource::default();
        let connect = fo::Message::new(MessageType::Connect, 1, 2, Vec::new());
        let mut fo_payload = Payload::new(Transport::Tcp, P.into(), 41000, S.into(), 647, &[]);
        fo_payload.stream_offset = Some(0);
        let frame = Frame {
            number: 1,
            ts: Timestamp::new(1000, 0),
            ts_digits: 6,
            linktype: 1,
            orig_len: 0,
            interface: 0,
            data: &[],
            pcapng: None,
        };
        let m = Message::Failover(connect);
        src.event(&Decoded {
            frame: &frame,
            payload: &fo_payload,
            protocol: AppProtocol::Failover,
            message: &m,
            errors: &[],
            frame_offset: None,
            len: 0,
        });
        let mac = [2, 0, 0, 0, 0, 9];
        let discover = |xid| {
            Message::Dhcpv4(
                dhcpv4::Message::request(v4t::DISCOVER, xid, mac)
                    .with(Opt::client_identifier(1, &mac)),
            )
        };
        let offer =
            |xid| Message::Dhcpv4(dhcpv4::Message::reply(v4t::OFFER, xid, mac).with_yiaddr(CLIENT));
        let id = Some([&[1u8][..], &mac].concat());
        // Offered 5 s after the DISCOVER: the client's identifier is the DISCOVER's.
        assert!(feed(&mut src, 2, 1000, discover(7), CLIENT).is_none());
        assert_eq!(offered_to(feed(&mut src, 3, 1005, offer(7), P)), id);
        // Retried 60 s later (the same xid): remembered from the retry.
        feed(&mut src, 4, 1060, discover(7), CLIENT);
        assert_eq!(offered_to(feed(&mut src, 5, 1170, offer(7), S)), id);
        // An OFFER more than DISCOVER_MEMORY_SECS after the DISCOVER: forgotten, the client is
        // the OFFER's chaddr alone.
        feed(&mut src, 6, 2000, discover(8), CLIENT);
        let late = 2000 + DISCOVER_MEMORY_SECS + 1;
        assert_eq!(offered_to(feed(&mut src, 7, late, offer(8), P)), None);
        // A steady stream of DISCOVERs, one a second for an hour: only the last
        // DISCOVER_MEMORY_SECS or so are held, not the hour's.
        for i in 0..3600u32 {
            feed(
                &mut src,
                100 + u64::from(i),
                10_000 + i64::from(i),
                discover(1000 + i),
                CLIENT,
            );
        }
        let held = src.discovers.len();
        assert!(
            (DISCOVER_MEMORY_SECS as usize..=2 * DISCOVER_MEMORY_SECS as usize + 2).contains(&held),
            "{held}"
        );
    }
}
