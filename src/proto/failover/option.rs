//! Failover options: `code u16 | length u16 | data`, numbered as draft-ietf-dhc-failover-12
//! section 12 and ISC DHCP 4.4 number them.

use std::net::Ipv4Addr;

use nom::combinator::{all_consuming, map};
use nom::{IResult, Parser};

use crate::proto::be::{be_u16, be_u32, be_u8};

use super::values::{BindingStatus, ServerState};

/// Option codes (ISC's FTO_*).
pub mod code {
    pub const ADDRESSES_TRANSFERRED: u16 = 1;
    pub const ASSIGNED_IP_ADDRESS: u16 = 2;
    pub const BINDING_STATUS: u16 = 3;
    pub const CLIENT_IDENTIFIER: u16 = 4;
    pub const CLIENT_HARDWARE_ADDRESS: u16 = 5;
    pub const CLIENT_LAST_TRANSACTION_TIME: u16 = 6;
    pub const CLIENT_REPLY_OPTIONS: u16 = 7;
    pub const CLIENT_REQUEST_OPTIONS: u16 = 8;
    pub const DDNS: u16 = 9;
    pub const DELAYED_SERVICE: u16 = 10;
    pub const HASH_BUCKET_ASSIGNMENT: u16 = 11;
    pub const IP_FLAGS: u16 = 12;
    pub const LEASE_EXPIRATION_TIME: u16 = 13;
    pub const MAX_UNACKED_BNDUPD: u16 = 14;
    pub const MCLT: u16 = 15;
    pub const MESSAGE: u16 = 16;
    pub const MESSAGE_DIGEST: u16 = 17;
    pub const POTENTIAL_EXPIRATION_TIME: u16 = 18;
    pub const RECEIVE_TIMER: u16 = 19;
    pub const PROTOCOL_VERSION: u16 = 20;
    pub const REJECT_REASON: u16 = 21;
    pub const RELATIONSHIP_NAME: u16 = 22;
    pub const SERVER_FLAGS: u16 = 23;
    pub const SERVER_STATE: u16 = 24;
    pub const START_TIME_OF_STATE: u16 = 25;
    pub const TLS_REPLY: u16 = 26;
    pub const TLS_REQUEST: u16 = 27;
    pub const VENDOR_CLASS: u16 = 28;
    pub const VENDOR_OPTIONS: u16 = 29;
}

/// The option's name as ISC DHCP prints it (`server/stables.c`), `None` when unknown.
pub fn option_name(c: u16) -> Option<&'static str> {
    Some(match c {
        code::ADDRESSES_TRANSFERRED => "addresses-transferred",
        code::ASSIGNED_IP_ADDRESS => "assigned-IP-address",
        code::BINDING_STATUS => "binding-status",
        code::CLIENT_IDENTIFIER => "client-identifier",
        code::CLIENT_HARDWARE_ADDRESS => "client-hardware-address",
        code::CLIENT_LAST_TRANSACTION_TIME => "client-last-transaction-time",
        code::CLIENT_REPLY_OPTIONS => "client-reply-options",
        code::CLIENT_REQUEST_OPTIONS => "client-request-options",
        code::DDNS => "DDNS",
        code::DELAYED_SERVICE => "delayed-service",
        code::HASH_BUCKET_ASSIGNMENT => "hash-bucket-assignment",
        code::IP_FLAGS => "IP-flags",
        code::LEASE_EXPIRATION_TIME => "lease-expiration-time",
        code::MAX_UNACKED_BNDUPD => "max-unacked-BNDUPD",
        code::MCLT => "MCLT",
        code::MESSAGE => "message",
        code::MESSAGE_DIGEST => "message-digest",
        code::POTENTIAL_EXPIRATION_TIME => "potential-expiration-time",
        code::RECEIVE_TIMER => "receive-timer",
        code::PROTOCOL_VERSION => "protocol-version",
        code::REJECT_REASON => "reject-reason",
        code::RELATIONSHIP_NAME => "relationship-name",
        code::SERVER_FLAGS => "server-flags",
        code::SERVER_STATE => "server-state",
        code::START_TIME_OF_STATE => "start-time-of-state",
        code::TLS_REPLY => "TLS-reply",
        code::TLS_REQUEST => "TLS-request",
        code::VENDOR_CLASS => "vendor-class-identifier",
        code::VENDOR_OPTIONS => "vendor-specific-options",
        _ => return None,
    })
}

/// IP-flags bits (draft-12 section 12.12 as ISC defines them).
pub mod ip_flag {
    /// The address is reserved for the client.
    pub const RESERVED: u16 = 0x0001;
    /// The lease was given to a BOOTP client.
    pub const BOOTP: u16 = 0x0002;
}

/// Server-flags bits (draft-12 section 12.23).
pub mod server_flag {
    pub const STARTUP: u8 = 0x01;
}

/// One failover option, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoOption {
    /// 1: how many addresses a POOLRESP moved.
    AddressesTransferred(u32),
    /// 2
    AssignedIpAddress(Ipv4Addr),
    /// 3
    BindingStatus(BindingStatus),
    /// 4: DHCP option 61 as the client sent it.
    ClientIdentifier(Vec<u8>),
    /// 5: hardware type, then the address (DHCP's htype and chaddr cut to hlen).
    ClientHardwareAddress { htype: u8, address: Vec<u8> },
    /// 6: seconds since the epoch.
    ClientLastTransactionTime(u32),
    /// 7: DHCP options the server sent the client.
    ClientReplyOptions(Vec<u8>),
    /// 8: DHCP options the client sent.
    ClientRequestOptions(Vec<u8>),
    /// 9: flags (C, A, D, P), then the client's domain name.
    Ddns { flags: u16, name: Vec<u8> },
    /// 10
    DelayedService(u8),
    /// 11: the 256-bit hash bucket map, 32 bytes from ISC (set bit: primary serves the bucket).
    HashBucketAssignment(Vec<u8>),
    /// 12
    IpFlags(u16),
    /// 13: seconds since the epoch.
    LeaseExpirationTime(u32),
    /// 14
    MaxUnackedBndupd(u32),
    /// 15: maximum client lead time, seconds.
    Mclt(u32),
    /// 16: text.
    Message(Vec<u8>),
    /// 17: digest type (1 = HMAC-MD5), then the digest.
    MessageDigest { digest_type: u8, digest: Vec<u8> },
    /// 18: seconds since the epoch.
    PotentialExpirationTime(u32),
    /// 19: seconds.
    ReceiveTimer(u32),
    /// 20
    ProtocolVersion(u8),
    /// 21
    RejectReason(u8),
    /// 22: text.
    RelationshipName(Vec<u8>),
    /// 23
    ServerFlags(u8),
    /// 24
    ServerState(ServerState),
    /// 25: seconds since the epoch.
    StartTimeOfState(u32),
    /// 26
    TlsReply(u8),
    /// 27
    TlsRequest(u8),
    /// 28
    VendorClass(Vec<u8>),
    /// 29
    VendorOptions(Vec<u8>),
    /// An option this decoder does not know, or a known one whose length is wrong: kept as it
    /// arrived.
    Raw { code: u16, data: Vec<u8> },
}

/// What `parser` reads from the whole of `data`, an option of `n` bytes; otherwise what is
/// wrong with the length.
fn whole<'a, O>(
    data: &'a [u8],
    n: usize,
    parser: impl Parser<&'a [u8], Output = O, Error = nom::error::Error<&'a [u8]>>,
) -> Result<O, String> {
    all_consuming(parser)
        .parse(data)
        .map(|(_, o)| o)
        .map_err(|_| format!("length {}, expected {n}", data.len()))
}

/// Options of one 32-bit number (times, counts).
fn u32_of(data: &[u8]) -> Result<u32, String> {
    whole(data, 4, be_u32)
}

/// Options of one byte (states, flags, versions).
fn u8_of(data: &[u8]) -> Result<u8, String> {
    whole(data, 1, be_u8)
}

/// IP-flags: 16 bits.
fn ip_flags(data: &[u8]) -> Result<u16, String> {
    whole(data, 2, be_u16)
}

/// assigned-IP-address.
fn ipv4_of(data: &[u8]) -> Result<Ipv4Addr, String> {
    whole(data, 4, map(be_u32, Ipv4Addr::from))
}

/// A type byte, then bytes: client-hardware-address (htype, address), message-digest (type,
/// digest).
fn typed_bytes(i: &[u8]) -> IResult<&[u8], (u8, &[u8])> {
    let (rest, t) = be_u8(i)?;
    Ok((&rest[rest.len()..], (t, rest)))
}

/// DDNS: 16 bits of flags, then the client's domain name.
fn ddns(i: &[u8]) -> IResult<&[u8], (u16, &[u8])> {
    let (name, flags) = be_u16(i)?;
    Ok((&name[name.len()..], (flags, name)))
}

impl FoOption {
    /// The typed option for `code` and its payload, or what is wrong with the payload.
    pub fn decode(c: u16, data: &[u8]) -> Result<FoOption, String> {
        use FoOption::*;
        Ok(match c {
            code::ADDRESSES_TRANSFERRED => AddressesTransferred(u32_of(data)?),
            code::ASSIGNED_IP_ADDRESS => AssignedIpAddress(ipv4_of(data)?),
            code::BINDING_STATUS => {
                BindingStatus(super::values::BindingStatus::from_u8(u8_of(data)?))
            }
            code::CLIENT_IDENTIFIER => ClientIdentifier(data.to_vec()),
            code::CLIENT_HARDWARE_ADDRESS => match typed_bytes(data) {
                Ok((_, (htype, address))) => ClientHardwareAddress {
                    htype,
                    address: address.to_vec(),
                },
                Err(_) => return Err("length 0, expected a hardware type byte".into()),
            },
            code::CLIENT_LAST_TRANSACTION_TIME => ClientLastTransactionTime(u32_of(data)?),
            code::CLIENT_REPLY_OPTIONS => ClientReplyOptions(data.to_vec()),
            code::CLIENT_REQUEST_OPTIONS => ClientRequestOptions(data.to_vec()),
            code::DDNS => match ddns(data) {
                Ok((_, (flags, name))) => Ddns {
                    flags,
                    name: name.to_vec(),
                },
                Err(_) => return Err(format!("length {}, expected at least 2", data.len())),
            },
            code::DELAYED_SERVICE => DelayedService(u8_of(data)?),
            code::HASH_BUCKET_ASSIGNMENT => HashBucketAssignment(data.to_vec()),
            code::IP_FLAGS => IpFlags(ip_flags(data)?),
            code::LEASE_EXPIRATION_TIME => LeaseExpirationTime(u32_of(data)?),
            code::MAX_UNACKED_BNDUPD => MaxUnackedBndupd(u32_of(data)?),
            code::MCLT => Mclt(u32_of(data)?),
            code::MESSAGE => Message(data.to_vec()),
            code::MESSAGE_DIGEST => match typed_bytes(data) {
                Ok((_, (digest_type, digest))) => MessageDigest {
                    digest_type,
                    digest: digest.to_vec(),
                },
                Err(_) => return Err("length 0, expected a digest type byte".into()),
            },
            code::POTENTIAL_EXPIRATION_TIME => PotentialExpirationTime(u32_of(data)?),
            code::RECEIVE_TIMER => ReceiveTimer(u32_of(data)?),
            code::PROTOCOL_VERSION => ProtocolVersion(u8_of(data)?),
            code::REJECT_REASON => RejectReason(u8_of(data)?),
            code::RELATIONSHIP_NAME => RelationshipName(data.to_vec()),
            code::SERVER_FLAGS => ServerFlags(u8_of(data)?),
            code::SERVER_STATE => ServerState(super::values::ServerState::from_u8(u8_of(data)?)),
            code::START_TIME_OF_STATE => StartTimeOfState(u32_of(data)?),
            code::TLS_REPLY => TlsReply(u8_of(data)?),
            code::TLS_REQUEST => TlsRequest(u8_of(data)?),
            code::VENDOR_CLASS => VendorClass(data.to_vec()),
            code::VENDOR_OPTIONS => VendorOptions(data.to_vec()),
            _ => Raw {
                code: c,
                data: data.to_vec(),
            },
        })
    }

    pub fn code(&self) -> u16 {
        use FoOption::*;
        match self {
            AddressesTransferred(_) => code::ADDRESSES_TRANSFERRED,
            AssignedIpAddress(_) => code::ASSIGNED_IP_ADDRESS,
            BindingStatus(_) => code::BINDING_STATUS,
            ClientIdentifier(_) => code::CLIENT_IDENTIFIER,
            ClientHardwareAddress { .. } => code::CLIENT_HARDWARE_ADDRESS,
            ClientLastTransactionTime(_) => code::CLIENT_LAST_TRANSACTION_TIME,
            ClientReplyOptions(_) => code::CLIENT_REPLY_OPTIONS,
            ClientRequestOptions(_) => code::CLIENT_REQUEST_OPTIONS,
            Ddns { .. } => code::DDNS,
            DelayedService(_) => code::DELAYED_SERVICE,
            HashBucketAssignment(_) => code::HASH_BUCKET_ASSIGNMENT,
            IpFlags(_) => code::IP_FLAGS,
            LeaseExpirationTime(_) => code::LEASE_EXPIRATION_TIME,
            MaxUnackedBndupd(_) => code::MAX_UNACKED_BNDUPD,
            Mclt(_) => code::MCLT,
            Message(_) => code::MESSAGE,
            MessageDigest { .. } => code::MESSAGE_DIGEST,
            PotentialExpirationTime(_) => code::POTENTIAL_EXPIRATION_TIME,
            ReceiveTimer(_) => code::RECEIVE_TIMER,
            ProtocolVersion(_) => code::PROTOCOL_VERSION,
            RejectReason(_) => code::REJECT_REASON,
            RelationshipName(_) => code::RELATIONSHIP_NAME,
            ServerFlags(_) => code::SERVER_FLAGS,
            ServerState(_) => code::SERVER_STATE,
            StartTimeOfState(_) => code::START_TIME_OF_STATE,
            TlsReply(_) => code::TLS_REPLY,
            TlsRequest(_) => code::TLS_REQUEST,
            VendorClass(_) => code::VENDOR_CLASS,
            VendorOptions(_) => code::VENDOR_OPTIONS,
            Raw { code, .. } => *code,
        }
    }

    /// The option's payload as it goes on the wire.
    pub fn data(&self) -> Vec<u8> {
        use FoOption::*;
        match self {
            AddressesTransferred(v)
            | ClientLastTransactionTime(v)
            | LeaseExpirationTime(v)
            | MaxUnackedBndupd(v)
            | Mclt(v)
            | PotentialExpirationTime(v)
            | ReceiveTimer(v)
            | StartTimeOfState(v) => v.to_be_bytes().to_vec(),
            AssignedIpAddress(a) => a.octets().to_vec(),
            BindingStatus(s) => vec![s.to_u8()],
            ServerState(s) => vec![s.to_u8()],
            DelayedService(v) | ProtocolVersion(v) | RejectReason(v) | ServerFlags(v)
            | TlsReply(v) | TlsRequest(v) => vec![*v],
            IpFlags(v) => v.to_be_bytes().to_vec(),
            ClientIdentifier(b)
            | ClientReplyOptions(b)
            | ClientRequestOptions(b)
            | HashBucketAssignment(b)
            | Message(b)
            | RelationshipName(b)
            | VendorClass(b)
            | VendorOptions(b)
            | Raw { data: b, .. } => b.clone(),
            ClientHardwareAddress { htype, address } => {
                let mut v = Vec::with_capacity(1 + address.len());
                v.push(*htype);
                v.extend_from_slice(address);
                v
            }
            Ddns { flags, name } => {
                let mut v = flags.to_be_bytes().to_vec();
                v.extend_from_slice(name);
                v
            }
            MessageDigest {
                digest_type,
                digest,
            } => {
                let mut v = Vec::with_capacity(1 + digest.len());
                v.push(*digest_type);
                v.extend_from_slice(digest);
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_code_decodes_and_encodes_back() {
        for c in 1..=29u16 {
            let data: Vec<u8> = match c {
                code::ADDRESSES_TRANSFERRED
                | code::ASSIGNED_IP_ADDRESS
                | code::CLIENT_LAST_TRANSACTION_TIME
                | code::LEASE_EXPIRATION_TIME
                | code::MAX_UNACKED_BNDUPD
                | code::MCLT
                | code::POTENTIAL_EXPIRATION_TIME
                | code::RECEIVE_TIMER
                | code::START_TIME_OF_STATE => vec![1, 2, 3, 4],
                code::IP_FLAGS | code::DDNS => vec![0, 3],
                code::BINDING_STATUS
                | code::DELAYED_SERVICE
                | code::PROTOCOL_VERSION
                | code::REJECT_REASON
                | code::SERVER_FLAGS
                | code::SERVER_STATE
                | code::TLS_REPLY
                | code::TLS_REQUEST => vec![2],
                _ => b"\x01abc".to_vec(),
            };
            let o = FoOption::decode(c, &data).unwrap();
            assert!(!matches!(o, FoOption::Raw { .. }), "code {c} is typed");
            assert!(option_name(c).is_some());
            assert_eq!(o.code(), c);
            assert_eq!(o.data(), data, "code {c}");
        }
    }

    #[test]
    fn wrong_lengths_are_errors() {
        assert!(FoOption::decode(code::ASSIGNED_IP_ADDRESS, &[1, 2, 3]).is_err());
        assert!(FoOption::decode(code::BINDING_STATUS, &[]).is_err());
        assert!(FoOption::decode(code::BINDING_STATUS, &[1, 2]).is_err());
        assert!(FoOption::decode(code::CLIENT_HARDWARE_ADDRESS, &[]).is_err());
        assert!(FoOption::decode(code::DDNS, &[1]).is_err());
        assert!(FoOption::decode(code::IP_FLAGS, &[1, 2, 3]).is_err());
        assert!(FoOption::decode(code::MESSAGE_DIGEST, &[]).is_err());
        // Variable-length options accept anything, including nothing.
        assert_eq!(
            FoOption::decode(code::CLIENT_IDENTIFIER, &[]),
            Ok(FoOption::ClientIdentifier(vec![]))
        );
    }

    #[test]
    fn unknown_codes_stay_raw() {
        let o = FoOption::decode(300, &[9, 9]).unwrap();
        assert_eq!(
            o,
            FoOption::Raw {
                code: 300,
                data: vec![9, 9]
            }
        );
        assert_eq!(option_name(0), None);
        assert_eq!(option_name(30), None);
    }

    #[test]
    fn hardware_address_splits_off_the_type() {
        let o = FoOption::decode(
            code::CLIENT_HARDWARE_ADDRESS,
            &[1, 2, 0xc1, 0x11, 0x87, 0, 0x1d],
        )
        .unwrap();
        assert_eq!(
            o,
            FoOption::ClientHardwareAddress {
                htype: 1,
                address: vec![2, 0xc1, 0x11, 0x87, 0, 0x1d]
            }
        );
    }
}
