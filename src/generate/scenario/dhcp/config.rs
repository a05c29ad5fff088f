//! What a DHCP load-balancing scenario is made of.

use crate::analyse::dhcp_lb::{Hba, Profile};

/// One client exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Exchange {
    /// DHCPv4 DISCOVER, OFFER, REQUEST (selecting, naming the server), ACK.
    Dora,
    /// DORA whose DISCOVER is sent twice (the client missed the first OFFER), 2 s apart.
    DoraRetry,
    /// REQUEST from INIT-REBOOT (broadcast, requested address, no server named), ACK.
    InitReboot,
    /// REQUEST unicast to the lease's server (ciaddr), ACK.
    Renew,
    /// RELEASE unicast to the lease's server (no answer).
    Release,
    /// INFORM (broadcast, ciaddr), ACK.
    Inform,
    /// DECLINE of the offered address (broadcast, naming the server; no answer).
    Decline,
    /// DHCPv4 LEASEQUERY by address from a relay agent to both servers (RFC 4388).
    LeaseQuery,
    /// DHCPv6 SOLICIT, ADVERTISE, REQUEST (naming the server), REPLY.
    Sarr,
    /// RENEW naming the lease's server, REPLY.
    Renew6,
    /// REBIND (no server named), REPLY.
    Rebind6,
    /// CONFIRM, REPLY.
    Confirm6,
    /// RELEASE naming the server, REPLY.
    Release6,
    /// DECLINE naming the server, REPLY.
    Decline6,
    /// INFORMATION-REQUEST with the client's DUID, REPLY.
    InfoRequest,
    /// INFORMATION-REQUEST without a client identifier (the empty key: bucket 0), REPLY.
    InfoRequestAnonymous,
    /// LEASEQUERY by client id from a relay (requestor) to both servers, LEASEQUERY-REPLY.
    LeaseQueryClientId,
    /// LEASEQUERY by address, LEASEQUERY-REPLY.
    LeaseQueryAddress,
    /// DHCPV4-QUERY carrying a DISCOVER (RFC 7341), DHCPV4-RESPONSE carrying the OFFER.
    Dhcpv4Query,
}

impl Exchange {
    pub const V4: [Exchange; 8] = [
        Exchange::Dora,
        Exchange::DoraRetry,
        Exchange::InitReboot,
        Exchange::Renew,
        Exchange::Release,
        Exchange::Inform,
        Exchange::Decline,
        Exchange::LeaseQuery,
    ];

    pub const V6: [Exchange; 11] = [
        Exchange::Sarr,
        Exchange::Renew6,
        Exchange::Rebind6,
        Exchange::Confirm6,
        Exchange::Release6,
        Exchange::Decline6,
        Exchange::InfoRequest,
        Exchange::InfoRequestAnonymous,
        Exchange::LeaseQueryClientId,
        Exchange::LeaseQueryAddress,
        Exchange::Dhcpv4Query,
    ];

    pub fn is_v6(self) -> bool {
        Exchange::V6.contains(&self)
    }
}

/// One thing that happens, for scripted scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DhcpAction {
    /// Client `client` (index into the population) does `exchange`; `elapsed` is how long it
    /// says it has been trying, in seconds (v4 `secs`; v6 elapsed time, converted).
    Do {
        client: usize,
        exchange: Exchange,
        elapsed: u16,
    },
    /// Nothing for a while (milliseconds).
    Pause(u64),
}

/// A deviation of the server pair, planted in one transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DhcpPlant {
    /// The first transaction (0-based, every exchange counts) it may apply to: it applies to the
    /// first transaction from there on where it can (a balanced request for the first three
    /// faults, a request naming a server for `IgnoreDirected`), once.
    pub nth: u64,
    pub fault: DhcpFault,
    /// `Some(ns)`: instead of waiting for a transaction where it can apply, the first client
    /// free from this capture time (nanoseconds since the epoch) on makes a transaction of its
    /// own for the fault, chosen so that the fault shows as one finding where the profile allows
    /// (see [`DhcpFault`]). The first three faults only.
    pub after: Option<u64>,
}

impl DhcpPlant {
    /// Applies to the first transaction from the `nth` on where it can.
    pub fn at(nth: u64, fault: DhcpFault) -> Self {
        DhcpPlant {
            nth,
            fault,
            after: None,
        }
    }

    /// A transaction of its own for the fault from `ns` (nanoseconds since the epoch) on.
    pub fn after(ns: u64, fault: DhcpFault) -> Self {
        DhcpPlant {
            nth: 0,
            fault,
            after: Some(ns),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DhcpFault {
    /// The non-owner answers a balanced request, the owner does not: `dhcp.lb.wrong-server` on
    /// the answer, and `dhcp.lb.no-answer` on the request, which reached the silent owner (the
    /// other face of the fault). The client goes on with that server; where the profile
    /// balances the follow-up (Kea balances REQUEST), the non-owner answers that too and its
    /// answer is marked as well (the owner, not named, has nothing to answer there). As a
    /// transaction of its own ([`DhcpPlant::after`]), where the profile balances a DHCPv4
    /// REQUEST without a Server Identifier (Kea, the draft): a client renewing by unicast with
    /// the non-owner, which answers a request it does not own, and the owner, which never saw
    /// it, owes nothing: one finding. Otherwise (ISC) a DORA whose DISCOVER the non-owner
    /// answers: both findings.
    WrongServer,
    /// Both answer: `dhcp.lb.double-answer` on the non-owner's answer (and on its answer to a
    /// balanced follow-up, as for `WrongServer`). As a transaction of its own: an INIT-REBOOT
    /// REQUEST where the profile balances it (Kea, the draft), else a DORA: one finding.
    DoubleAnswer,
    /// Nobody answers; the client retries 2 s later (elapsed time up by 2 s, within the usual
    /// 3 s delayed-service threshold) and the owner answers: `dhcp.lb.no-answer` on the
    /// unanswered request (a relayed request goes out once to each server: the mark is on the
    /// first copy, where `check` reports it). As a transaction of its own: a DORA.
    NoAnswer,
    /// The server a request names (REQUEST after an offer or an advertise, DHCPv6 RENEW) does not
    /// answer; the client sends it again 2 s later and is answered:
    /// `dhcp.lb.directed-ignored` on the unanswered request.
    IgnoreDirected,
}

impl DhcpFault {
    pub fn rule(self) -> &'static str {
        match self {
            DhcpFault::WrongServer => "dhcp.lb.wrong-server",
            DhcpFault::DoubleAnswer => "dhcp.lb.double-answer",
            DhcpFault::NoAnswer => "dhcp.lb.no-answer",
            DhcpFault::IgnoreDirected => "dhcp.lb.directed-ignored",
        }
    }
}

/// How often each exchange happens in random mode (relative weights; v4 ones only with `v4`,
/// v6 ones only with `v6`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DhcpActivity(pub Vec<(Exchange, u32)>);

impl Default for DhcpActivity {
    fn default() -> Self {
        use Exchange::*;
        DhcpActivity(vec![
            (Dora, 300),
            (DoraRetry, 20),
            (InitReboot, 40),
            (Renew, 250),
            (Release, 20),
            (Inform, 30),
            (Decline, 5),
            (LeaseQuery, 15),
            (Sarr, 250),
            (Renew6, 200),
            (Rebind6, 20),
            (Confirm6, 20),
            (Release6, 20),
            (Decline6, 5),
            (InfoRequest, 30),
            (InfoRequestAnonymous, 10),
            (LeaseQueryClientId, 15),
            (LeaseQueryAddress, 10),
            (Dhcpv4Query, 10),
        ])
    }
}

/// A DHCP load-balancing scenario: a primary (192.0.2.1, 2001:db8::1) and a secondary
/// (192.0.2.2, 2001:db8::2) on one link, relay agents 10.33.0.1, 10.34.0.1, ... (v4) and
/// 2001:db8:101::1, ... (v6).
#[derive(Clone, Debug)]
pub struct DhcpConfig {
    /// Whose rules the servers follow (which types are balanced, the key, delayed service).
    pub profile: &'static Profile,
    /// The bucket map (ISC orientation: a set bit means the primary serves the bucket).
    pub hba: Hba,
    /// A different map the secondary uses (`dhcp.lb.hba-conflict`); `None` in a correct pair.
    pub secondary_hba: Option<Hba>,
    /// Servers that hash only this many bytes of a DHCPv6 key (`dhcp.lb.stid-truncated` when 16);
    /// `None` in a correct pair.
    pub stid_max_len: Option<usize>,
    /// Delayed-service threshold, seconds (ISC's `load balance max seconds`).
    pub threshold_secs: u32,
    pub v4: bool,
    /// DHCPv6 traffic (ignored when the profile does not balance v6: ISC).
    pub v6: bool,
    pub clients: usize,
    pub relays: usize,
    /// Exchanges per second in random mode.
    pub rate: f64,
    /// Random mode ends after this many exchanges (`None`: never).
    pub transactions: Option<u64>,
    /// `Some`: exactly these actions, then the end.
    pub script: Option<Vec<DhcpAction>>,
    pub plants: Vec<DhcpPlant>,
    pub activity: DhcpActivity,
    /// Share of v4 DORAs whose client says it has waited past the threshold.
    pub late_share: f64,
}

impl DhcpConfig {
    pub fn new(profile: &'static Profile, hba: Hba) -> Self {
        DhcpConfig {
            profile,
            hba,
            secondary_hba: None,
            stid_max_len: None,
            threshold_secs: 3,
            v4: true,
            v6: true,
            clients: 64,
            relays: 2,
            rate: 300.0,
            transactions: None,
            script: None,
            plants: Vec::new(),
            activity: DhcpActivity::default(),
            late_share: 0.05,
        }
    }
}
