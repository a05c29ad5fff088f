//! From decoded failover messages to [`Event`]s, and which server is which.
//!
//! The capture pipeline knows each message's sender address; [`Roles`] turns it into primary or
//! secondary. ISC DHCP's primary is the one that sends CONNECT (the secondary answers with
//! CONNECTACK), so the roles are learnt from the first CONNECT or CONNECTACK seen, or given.
//! Roles go by IP address alone: each server of a pair has one address, while the TCP port of a
//! connection is whichever ephemeral port the connecting server drew.

use std::fmt;
use std::net::IpAddr;

use super::events::{Client, Event, EventKind, LeaseUpdate};
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::KeyBytes;
use crate::base::Timestamp;
use crate::proto::failover::{Message, MessageType};

/// Why a message yields no event (it is still counted by the caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unusable(pub &'static str);

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The client options of an update, each as present.
fn client(msg: &Message) -> Client {
    Client {
        id: msg.client_identifier().map(KeyBytes::from_slice),
        hardware: msg.chaddr().map(|(t, a)| (t, KeyBytes::from_slice(a))),
    }
}

/// The event one message carries. `from` is the sender's role (see [`Roles`]).
pub fn derive(msg: &Message, frame: u64, time: Timestamp, from: Role) -> Result<Event, Unusable> {
    let kind = match msg.msg_type {
        MessageType::BndUpd => {
            let address = msg
                .assigned_address()
                .ok_or(Unusable("BNDUPD without an assigned IP address"))?;
            let status = msg
                .binding_status()
                .ok_or(Unusable("BNDUPD without a binding status"))?;
            EventKind::LeaseUpdate(LeaseUpdate {
                address,
                status,
                client: client(msg),
                ends: msg.lease_expiration_time(),
                since: msg.start_time_of_state(),
                potential_expiry: msg.potential_expiration_time(),
                client_last_transaction: msg.client_last_transaction_time(),
            })
        }
        MessageType::BndAck => EventKind::LeaseAck {
            address: msg.assigned_address(),
            reject: msg.reject_reason(),
        },
        MessageType::PoolReq => EventKind::PoolRequest,
        MessageType::PoolResp => EventKind::PoolResponse {
            transferred: msg.addresses_transferred(),
        },
        MessageType::State => {
            let state = msg
                .server_state()
                .ok_or(Unusable("STATE without a server state"))?;
            let startup = msg
                .server_flags()
                .is_some_and(|f| f & crate::proto::failover::option::server_flag::STARTUP != 0);
            EventKind::State { state, startup }
        }
        MessageType::Connect => EventKind::Connect {
            hba: msg
                .hash_bucket_assignment()
                .and_then(|b| Hba::try_from(b).ok()),
            mclt: msg.mclt(),
            receive_timer: receive_timer(msg),
        },
        MessageType::ConnectAck => EventKind::ConnectAck {
            receive_timer: receive_timer(msg),
            reject: msg.reject_reason(),
        },
        MessageType::UpdReqAll => EventKind::UpdateRequest { all: true },
        MessageType::UpdReq => EventKind::UpdateRequest { all: false },
        MessageType::UpdDone => EventKind::UpdateDone,
        MessageType::Contact => EventKind::Contact,
        MessageType::Disconnect => EventKind::Disconnect,
        MessageType::Other(_) => return Err(Unusable("unknown failover message type")),
    };
    Ok(Event {
        frame,
        time,
        from,
        kind,
    })
}

/// The event of a DHCPOFFER sent by the server `from` (the capture pipeline decodes the DHCP
/// message and finds the client's identifier in the DISCOVER it answers).
pub fn offer(
    frame: u64,
    time: Timestamp,
    from: Role,
    address: std::net::Ipv4Addr,
    client: Client,
    lease_time: Option<u32>,
) -> Event {
    Event {
        frame,
        time,
        from,
        kind: EventKind::Offer {
            address,
            client,
            lease_time,
        },
    }
}

fn receive_timer(msg: &Message) -> Option<u32> {
    use crate::proto::failover::FoOption;
    msg.options.iter().find_map(|o| match o {
        FoOption::ReceiveTimer(t) => Some(*t),
        _ => None,
    })
}

/// Which address is the primary and which the secondary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    primary: Option<IpAddr>,
    secondary: Option<IpAddr>,
}

impl Roles {
    /// Nothing known yet: learn from CONNECT / CONNECTACK.
    pub fn new() -> Self {
        Roles::default()
    }

    /// Both addresses given (e.g. from the servers' configuration).
    pub fn configured(primary: IpAddr, secondary: IpAddr) -> Self {
        Roles {
            primary: Some(primary),
            secondary: Some(secondary),
        }
    }

    /// Learns the roles from a message sent from `src` to `dst`: CONNECT goes from the primary to
    /// the secondary, CONNECTACK back. Roles already known are kept.
    pub fn learn(&mut self, msg: &Message, src: IpAddr, dst: IpAddr) {
        let (p, s) = match msg.msg_type {
            MessageType::Connect => (src, dst),
            MessageType::ConnectAck => (dst, src),
            _ => return,
        };
        if self.primary.is_none() && self.secondary != Some(p) {
            self.primary = Some(p);
        }
        if self.secondary.is_none() && self.primary != Some(s) {
            self.secondary = Some(s);
        }
    }

    /// The role of the server at `addr`; when only one side is known, the other address is the
    /// other role.
    pub fn role_of(&self, addr: IpAddr) -> Option<Role> {
        match (self.primary, self.secondary) {
            (Some(p), _) if p == addr => Some(Role::Primary),
            (_, Some(s)) if s == addr => Some(Role::Secondary),
            (Some(_), None) => Some(Role::Secondary),
            (None, Some(_)) => Some(Role::Primary),
            _ => None,
        }
    }

    pub fn primary(&self) -> Option<IpAddr> {
        self.primary
    }

    pub fn secondary(&self) -> Option<IpAddr> {
        self.secondary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::failover::events::ClientKey;
    use crate::proto::failover::{self, BindingStatus, FoOption, ServerState};
    use std::net::Ipv4Addr;

    fn t() -> Timestamp {
        Timestamp::new(1_796_012_556, 0)
    }

    #[test]
    fn bndupd_through_the_wire_and_back() {
        let m = Message::new(
            MessageType::BndUpd,
            1,
            0x47,
            vec![
                FoOption::AssignedIpAddress(Ipv4Addr::new(192, 0, 2, 128)),
                FoOption::BindingStatus(BindingStatus::Backup),
                FoOption::ClientIdentifier(vec![0xff, 0x36, 0x54]),
                FoOption::ClientHardwareAddress {
                    htype: 1,
                    address: vec![2, 0xc1, 0x11, 0x87, 0, 0x1d],
                },
                FoOption::LeaseExpirationTime(1_796_012_583),
                FoOption::StartTimeOfState(1_796_012_584),
            ],
        );
        let (back, errors) = failover::parse(&m.emit().unwrap());
        assert!(errors.is_empty());
        let ev = derive(&back, 109, t(), Role::Primary).unwrap();
        let EventKind::LeaseUpdate(u) = ev.kind else {
            panic!("{ev:?}")
        };
        assert_eq!(u.address, Ipv4Addr::new(192, 0, 2, 128));
        assert_eq!(u.status, BindingStatus::Backup);
        // The identifier wins over chaddr, as in ISC's peer_wants_lease.
        assert_eq!(
            u.client.key(),
            Some(ClientKey::ClientId(vec![0xff, 0x36, 0x54]))
        );
        assert_eq!(
            u.client.hardware,
            Some((1, vec![2, 0xc1, 0x11, 0x87, 0, 0x1d].into()))
        );
        assert_eq!(u.ends, Some(1_796_012_583));
        assert_eq!(u.since, Some(1_796_012_584));
        assert_eq!(ev.frame, 109);
    }

    #[test]
    fn chaddr_when_there_is_no_identifier_and_what_is_hashed() {
        let m = Message::new(
            MessageType::BndUpd,
            1,
            2,
            vec![
                FoOption::AssignedIpAddress(Ipv4Addr::new(10, 0, 0, 1)),
                FoOption::BindingStatus(BindingStatus::Active),
                FoOption::ClientIdentifier(vec![]),
                FoOption::ClientHardwareAddress {
                    htype: 1,
                    address: vec![1, 2, 3],
                },
            ],
        );
        let EventKind::LeaseUpdate(u) = derive(&m, 1, t(), Role::Secondary).unwrap().kind else {
            panic!()
        };
        assert_eq!(u.client.id.as_deref(), Some(&[][..]));
        let key = u.client.key().unwrap();
        assert_eq!(key.stid(), Some(&[1u8, 2, 3][..]), "no htype byte");
        assert_eq!(key.label(), "hw:01:02:03");
        assert_eq!(ClientKey::ClientId(vec![]).stid(), None);
    }

    #[test]
    fn messages_that_say_too_little() {
        let m = Message::new(MessageType::BndUpd, 1, 2, vec![]);
        assert!(derive(&m, 1, t(), Role::Primary).is_err());
        let m = Message::new(
            MessageType::BndUpd,
            1,
            2,
            vec![FoOption::AssignedIpAddress(Ipv4Addr::LOCALHOST)],
        );
        assert_eq!(
            derive(&m, 1, t(), Role::Primary).unwrap_err().0,
            "BNDUPD without a binding status"
        );
        let m = Message::new(MessageType::State, 1, 2, vec![]);
        assert!(derive(&m, 1, t(), Role::Primary).is_err());
        let m = Message::new(MessageType::Other(99), 1, 2, vec![]);
        assert!(derive(&m, 1, t(), Role::Primary).is_err());
    }

    #[test]
    fn state_poolreq_poolresp_connect() {
        let st = Message::new(
            MessageType::State,
            1,
            2,
            vec![
                FoOption::ServerState(ServerState::Normal),
                FoOption::ServerFlags(1),
            ],
        );
        assert_eq!(
            derive(&st, 1, t(), Role::Primary).unwrap().kind,
            EventKind::State {
                state: ServerState::Normal,
                startup: true
            }
        );
        let resp = Message::new(
            MessageType::PoolResp,
            1,
            2,
            vec![FoOption::AddressesTransferred(6)],
        );
        assert_eq!(
            derive(&resp, 1, t(), Role::Primary).unwrap().kind,
            EventKind::PoolResponse {
                transferred: Some(6)
            }
        );
        let conn = Message::new(
            MessageType::Connect,
            1,
            2,
            vec![
                FoOption::HashBucketAssignment(Hba::split(128).unwrap().bytes().to_vec()),
                FoOption::Mclt(60),
                FoOption::ReceiveTimer(15),
            ],
        );
        assert_eq!(
            derive(&conn, 1, t(), Role::Primary).unwrap().kind,
            EventKind::Connect {
                hba: Some(Hba::split(128).unwrap()),
                mclt: Some(60),
                receive_timer: Some(15)
            }
        );
        // A bucket map of the wrong size is no map.
        let bad = Message::new(
            MessageType::Connect,
            1,
            2,
            vec![FoOption::HashBucketAssignment(vec![0xff; 4])],
        );
        let EventKind::Connect { hba, .. } = derive(&bad, 1, t(), Role::Primary).unwrap().kind
        else {
            panic!()
        };
        assert_eq!(hba, None);
    }

    #[test]
    fn roles_from_connect_and_connectack() {
        let p: IpAddr = Ipv4Addr::new(192, 0, 2, 1).into();
        let s: IpAddr = Ipv4Addr::new(192, 0, 2, 2).into();
        let mut r = Roles::new();
        assert_eq!(r.role_of(p), None);
        let contact = Message::new(MessageType::Contact, 1, 2, vec![]);
        r.learn(&contact, s, p);
        assert_eq!(r.role_of(p), None, "CONTACT says nothing about roles");
        let ack = Message::new(MessageType::ConnectAck, 1, 2, vec![]);
        r.learn(&ack, s, p);
        assert_eq!(r.role_of(p), Some(Role::Primary));
        assert_eq!(r.role_of(s), Some(Role::Secondary));
        // Known roles stay, whatever a later (odd) CONNECT says.
        let conn = Message::new(MessageType::Connect, 1, 2, vec![]);
        r.learn(&conn, s, p);
        assert_eq!(r.primary(), Some(p));
        assert_eq!(Roles::configured(s, p).role_of(s), Some(Role::Primary));
    }
}
