//! The typed events the pool-balance analyser consumes: what one failover message says about the
//! pool, with the frame it completed in, the capture time, and which server sent it.

use std::net::Ipv4Addr;

use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::KeyBytes;
use crate::base::Timestamp;
use crate::proto::failover::{BindingStatus, ServerState};

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
