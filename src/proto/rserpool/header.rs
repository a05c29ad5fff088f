//! Message types and flag bits of ASAP (RFC 5352) and ENRP (RFC 5353). The message header itself
//! (`type u8 | flags u8 | length u16`) is read in `message.rs`.

/// ASAP message types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsapType {
    Registration = 1,
    Deregistration = 2,
    RegistrationResponse = 3,
    DeregistrationResponse = 4,
    HandleResolution = 5,
    HandleResolutionResponse = 6,
    EndpointKeepAlive = 7,
    EndpointKeepAliveAck = 8,
    EndpointUnreachable = 9,
    ServerAnnounce = 10,
    Cookie = 11,
    CookieEcho = 12,
    BusinessCard = 13,
    Error = 14,
}

pub const ASAP_TYPES: [AsapType; 14] = [
    AsapType::Registration,
    AsapType::Deregistration,
    AsapType::RegistrationResponse,
    AsapType::DeregistrationResponse,
    AsapType::HandleResolution,
    AsapType::HandleResolutionResponse,
    AsapType::EndpointKeepAlive,
    AsapType::EndpointKeepAliveAck,
    AsapType::EndpointUnreachable,
    AsapType::ServerAnnounce,
    AsapType::Cookie,
    AsapType::CookieEcho,
    AsapType::BusinessCard,
    AsapType::Error,
];

impl AsapType {
    pub fn from_u8(t: u8) -> Option<AsapType> {
        ASAP_TYPES.iter().copied().find(|x| *x as u8 == t)
    }

    /// Wireshark's name.
    pub fn name(self) -> &'static str {
        match self {
            AsapType::Registration => "ASAP Registration",
            AsapType::Deregistration => "ASAP Deregistration",
            AsapType::RegistrationResponse => "ASAP Registration Response",
            AsapType::DeregistrationResponse => "ASAP Deregistration Response",
            AsapType::HandleResolution => "ASAP Handle Resolution",
            AsapType::HandleResolutionResponse => "ASAP Handle Resolution Response",
            AsapType::EndpointKeepAlive => "ASAP Endpoint Keep-Alive",
            AsapType::EndpointKeepAliveAck => "ASAP Endpoint Keep-Alive Acknowledgement",
            AsapType::EndpointUnreachable => "ASAP Endpoint Unreachable",
            AsapType::ServerAnnounce => "ASAP Server Announce",
            AsapType::Cookie => "ASAP Cookie",
            AsapType::CookieEcho => "ASAP Cookie Echo",
            AsapType::BusinessCard => "ASAP Business Card",
            AsapType::Error => "ASAP Error",
        }
    }

    /// Whether a 32-bit server identifier follows the header.
    pub fn has_server_id(self) -> bool {
        matches!(self, AsapType::EndpointKeepAlive | AsapType::ServerAnnounce)
    }
}

/// ENRP message types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnrpType {
    Presence = 1,
    HandleTableRequest = 2,
    HandleTableResponse = 3,
    HandleUpdate = 4,
    ListRequest = 5,
    ListResponse = 6,
    InitTakeover = 7,
    InitTakeoverAck = 8,
    TakeoverServer = 9,
    Error = 10,
}

pub const ENRP_TYPES: [EnrpType; 10] = [
    EnrpType::Presence,
    EnrpType::HandleTableRequest,
    EnrpType::HandleTableResponse,
    EnrpType::HandleUpdate,
    EnrpType::ListRequest,
    EnrpType::ListResponse,
    EnrpType::InitTakeover,
    EnrpType::InitTakeoverAck,
    EnrpType::TakeoverServer,
    EnrpType::Error,
];

impl EnrpType {
    pub fn from_u8(t: u8) -> Option<EnrpType> {
        ENRP_TYPES.iter().copied().find(|x| *x as u8 == t)
    }

    /// Wireshark's name.
    pub fn name(self) -> &'static str {
        match self {
            EnrpType::Presence => "ENRP Presence",
            EnrpType::HandleTableRequest => "ENRP Handle Table Request",
            EnrpType::HandleTableResponse => "ENRP Handle Table Response",
            EnrpType::HandleUpdate => "ENRP Handle Update",
            EnrpType::ListRequest => "ENRP List Request",
            EnrpType::ListResponse => "ENRP List Response",
            EnrpType::InitTakeover => "ENRP Init Takeover",
            EnrpType::InitTakeoverAck => "ENRP Init Takeover Ack",
            EnrpType::TakeoverServer => "ENRP Takeover Server",
            EnrpType::Error => "ENRP Error",
        }
    }

    /// Bytes of fixed fields after the header: sender and receiver ids, plus the update action
    /// and reserved field, or the target server id.
    pub fn fixed_len(self) -> usize {
        match self {
            EnrpType::HandleUpdate
            | EnrpType::InitTakeover
            | EnrpType::InitTakeoverAck
            | EnrpType::TakeoverServer => 12,
            _ => 8,
        }
    }

    /// Whether parameters may follow the fixed fields.
    pub fn has_params(self) -> bool {
        !matches!(
            self,
            EnrpType::HandleTableRequest
                | EnrpType::ListRequest
                | EnrpType::InitTakeover
                | EnrpType::InitTakeoverAck
                | EnrpType::TakeoverServer
        )
    }
}

/// ASAP Registration Response, ENRP Handle Table Response and List Response: rejected.
pub const FLAG_REJECT: u8 = 0x01;
/// ASAP Endpoint Keep-Alive: the sender wants to become the PE's home ENRP server.
pub const FLAG_HOME: u8 = 0x01;
/// ASAP Handle Resolution: S bit (the pool user subscribes to updates, RSPLIB).
pub const FLAG_SUBSCRIBE: u8 = 0x01;
/// ASAP Handle Resolution Response: A bit (the answer is an update of a subscription, RSPLIB).
pub const FLAG_ACCEPT: u8 = 0x01;
/// ENRP Presence: reply required.
pub const FLAG_REPLY_REQUIRED: u8 = 0x01;
/// ENRP Handle Table Request: own PEs only.
pub const FLAG_OWN_CHILDREN_ONLY: u8 = 0x01;
/// ENRP Handle Table Response: more to send.
pub const FLAG_MORE: u8 = 0x02;
/// ENRP Handle Update: takeover suggested.
pub const FLAG_TAKEOVER_SUGGESTED: u8 = 0x01;

/// ENRP Handle Update action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UpdateAction {
    AddPe,
    DeletePe,
    Other(u16),
}

impl UpdateAction {
    pub fn of(v: u16) -> Self {
        match v {
            0 => UpdateAction::AddPe,
            1 => UpdateAction::DeletePe,
            x => UpdateAction::Other(x),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            UpdateAction::AddPe => "Add pool element",
            UpdateAction::DeletePe => "Delete pool element",
            UpdateAction::Other(_) => "Unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_map_both_ways() {
        for t in 0..=255u8 {
            if let Some(a) = AsapType::from_u8(t) {
                assert_eq!(a as u8, t);
            }
            if let Some(e) = EnrpType::from_u8(t) {
                assert_eq!(e as u8, t);
            }
        }
        assert_eq!(AsapType::from_u8(0), None);
        assert_eq!(AsapType::from_u8(15), None);
        assert_eq!(EnrpType::from_u8(11), None);
        assert_eq!(AsapType::from_u8(14), Some(AsapType::Error));
        assert_eq!(EnrpType::from_u8(4).map(EnrpType::fixed_len), Some(12));
    }
}
