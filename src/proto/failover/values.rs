//! The numbered values of the failover protocol: message types, binding status, server states,
//! reject reasons, as draft-ietf-dhc-failover-12 and ISC DHCP 4.4 (`includes/failover.h`) number
//! them.

use std::fmt;

/// Failover message types (draft-12 section 6.1; ISC's FTM_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageType {
    PoolReq,
    PoolResp,
    BndUpd,
    BndAck,
    Connect,
    ConnectAck,
    UpdReqAll,
    UpdDone,
    UpdReq,
    State,
    Contact,
    Disconnect,
    Other(u8),
}

impl MessageType {
    pub fn from_u8(v: u8) -> Self {
        use MessageType::*;
        match v {
            1 => PoolReq,
            2 => PoolResp,
            3 => BndUpd,
            4 => BndAck,
            5 => Connect,
            6 => ConnectAck,
            // Wireshark 4.0 calls 7 "Update request" and 9 "Update request all"; draft-12 and
            // ISC DHCP (the only implementation) have them the other way round.
            7 => UpdReqAll,
            8 => UpdDone,
            9 => UpdReq,
            10 => State,
            11 => Contact,
            12 => Disconnect,
            v => Other(v),
        }
    }

    pub fn to_u8(self) -> u8 {
        use MessageType::*;
        match self {
            PoolReq => 1,
            PoolResp => 2,
            BndUpd => 3,
            BndAck => 4,
            Connect => 5,
            ConnectAck => 6,
            UpdReqAll => 7,
            UpdDone => 8,
            UpdReq => 9,
            State => 10,
            Contact => 11,
            Disconnect => 12,
            Other(v) => v,
        }
    }

    /// ISC's abbreviation, as its logs and the draft write it ("BNDUPD"); `None` for unknown types.
    pub fn abbrev(self) -> Option<&'static str> {
        use MessageType::*;
        Some(match self {
            PoolReq => "POOLREQ",
            PoolResp => "POOLRESP",
            BndUpd => "BNDUPD",
            BndAck => "BNDACK",
            Connect => "CONNECT",
            ConnectAck => "CONNECTACK",
            UpdReqAll => "UPDREQALL",
            UpdDone => "UPDDONE",
            UpdReq => "UPDREQ",
            State => "STATE",
            Contact => "CONTACT",
            Disconnect => "DISCONNECT",
            Other(_) => return None,
        })
    }

    /// The draft's name for people ("binding update").
    pub fn description(self) -> &'static str {
        use MessageType::*;
        match self {
            PoolReq => "pool request",
            PoolResp => "pool response",
            BndUpd => "binding update",
            BndAck => "binding acknowledge",
            Connect => "connect",
            ConnectAck => "connect acknowledge",
            UpdReqAll => "update request all",
            UpdDone => "update done",
            UpdReq => "update request",
            State => "state",
            Contact => "contact",
            Disconnect => "disconnect",
            Other(_) => "unknown",
        }
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.abbrev() {
            Some(a) => f.write_str(a),
            None => write!(f, "type {}", self.to_u8()),
        }
    }
}

/// Binding status of a lease (draft-12 section 12.3; ISC's FTS_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingStatus {
    Free,
    Active,
    Expired,
    Released,
    Abandoned,
    Reset,
    Backup,
    Other(u8),
}

impl BindingStatus {
    pub fn from_u8(v: u8) -> Self {
        use BindingStatus::*;
        match v {
            1 => Free,
            2 => Active,
            3 => Expired,
            4 => Released,
            5 => Abandoned,
            6 => Reset,
            7 => Backup,
            v => Other(v),
        }
    }

    pub fn to_u8(self) -> u8 {
        use BindingStatus::*;
        match self {
            Free => 1,
            Active => 2,
            Expired => 3,
            Released => 4,
            Abandoned => 5,
            Reset => 6,
            Backup => 7,
            Other(v) => v,
        }
    }

    pub fn name(self) -> &'static str {
        use BindingStatus::*;
        match self {
            Free => "FREE",
            Active => "ACTIVE",
            Expired => "EXPIRED",
            Released => "RELEASED",
            Abandoned => "ABANDONED",
            Reset => "RESET",
            Backup => "BACKUP",
            Other(_) => "unknown",
        }
    }
}

/// A failover server state (draft-12 section 12.24, ISC's `enum failover_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerState {
    Startup,
    Normal,
    CommunicationsInterrupted,
    PartnerDown,
    PotentialConflict,
    Recover,
    Paused,
    Shutdown,
    RecoverDone,
    ResolutionInterrupted,
    ConflictDone,
    /// Documented by draft-12 without a number; ISC sends 254 (Wireshark 4.0 shows "Unknown").
    RecoverWait,
    Other(u8),
}

impl ServerState {
    pub fn from_u8(v: u8) -> Self {
        use ServerState::*;
        match v {
            1 => Startup,
            2 => Normal,
            3 => CommunicationsInterrupted,
            4 => PartnerDown,
            5 => PotentialConflict,
            6 => Recover,
            7 => Paused,
            8 => Shutdown,
            9 => RecoverDone,
            10 => ResolutionInterrupted,
            11 => ConflictDone,
            254 => RecoverWait,
            v => Other(v),
        }
    }

    pub fn to_u8(self) -> u8 {
        use ServerState::*;
        match self {
            Startup => 1,
            Normal => 2,
            CommunicationsInterrupted => 3,
            PartnerDown => 4,
            PotentialConflict => 5,
            Recover => 6,
            Paused => 7,
            Shutdown => 8,
            RecoverDone => 9,
            ResolutionInterrupted => 10,
            ConflictDone => 11,
            RecoverWait => 254,
            Other(v) => v,
        }
    }

    /// ISC's spelling, as in its logs ("communications-interrupted").
    pub fn name(self) -> &'static str {
        use ServerState::*;
        match self {
            Startup => "startup",
            Normal => "normal",
            CommunicationsInterrupted => "communications-interrupted",
            PartnerDown => "partner-down",
            PotentialConflict => "potential-conflict",
            Recover => "recover",
            Paused => "paused",
            Shutdown => "shutdown",
            RecoverDone => "recover-done",
            ResolutionInterrupted => "resolution-interrupted",
            ConflictDone => "conflict-done",
            RecoverWait => "recover-wait",
            Other(_) => "unknown",
        }
    }
}

/// The reject reason's meaning (draft-12 section 12.21, ISC's FTR_*).
pub fn reject_reason_name(v: u8) -> &'static str {
    match v {
        1 => "illegal IP address (not part of any address pool)",
        2 => "fatal conflict exists: address in use by other client",
        3 => "missing binding information",
        4 => "connection rejected, time mismatch too great",
        5 => "connection rejected, invalid MCLT",
        6 => "connection rejected, unknown reason",
        7 => "connection rejected, duplicate connection",
        8 => "connection rejected, invalid failover partner",
        9 => "TLS not supported",
        10 => "TLS supported but not configured",
        11 => "TLS required but not supported by partner",
        12 => "message digest not supported",
        13 => "message digest not configured",
        14 => "protocol version mismatch",
        15 => "outdated binding information",
        16 => "less critical binding information",
        17 => "no traffic within sufficient time",
        18 => "hash bucket assignment conflict",
        19 => "IP not reserved on this server",
        20 => "message digest failed to compare",
        21 => "missing message digest",
        254 => "unknown: error occurred but does not match any reason",
        _ => "unknown",
    }
}

/// TLS-request values (draft-12 section 12.27).
pub fn tls_request_name(v: u8) -> &'static str {
    match v {
        0 => "no TLS operation",
        1 => "TLS operation desired but not required",
        2 => "TLS operation is required",
        _ => "unknown",
    }
}

/// TLS-reply values (draft-12 section 12.26).
pub fn tls_reply_name(v: u8) -> &'static str {
    match v {
        0 => "no TLS operation",
        1 => "TLS operation is required",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for v in 0..=255u8 {
            assert_eq!(MessageType::from_u8(v).to_u8(), v);
            assert_eq!(BindingStatus::from_u8(v).to_u8(), v);
            assert_eq!(ServerState::from_u8(v).to_u8(), v);
        }
    }

    #[test]
    fn isc_numbering() {
        // includes/failover.h of ISC DHCP 4.4: FTM_UPDREQALL 7, FTM_UPDREQ 9.
        assert_eq!(MessageType::from_u8(7).abbrev(), Some("UPDREQALL"));
        assert_eq!(MessageType::from_u8(9).abbrev(), Some("UPDREQ"));
        assert_eq!(MessageType::from_u8(13).abbrev(), None);
        assert_eq!(MessageType::from_u8(13).to_string(), "type 13");
        assert_eq!(ServerState::from_u8(4), ServerState::PartnerDown);
        assert_eq!(ServerState::from_u8(254).name(), "recover-wait");
        assert_eq!(BindingStatus::from_u8(7).name(), "BACKUP");
        assert_eq!(reject_reason_name(16), "less critical binding information");
    }
}
