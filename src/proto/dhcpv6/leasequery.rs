//! Leasequery options (RFC 5007, RFC 5460): OPTION_LQ_QUERY with its query type, link address and
//! query options, and OPTION_LQ_RELAY_DATA with the peer address and the relayed message.

use std::net::Ipv6Addr;

use nom::number::complete::{be_u128, be_u8};
use nom::{IResult, Parser};

use super::duid::Duid;
use super::message::Message;
use super::options::{Opt, OptValue};

pub const QUERY_BY_ADDRESS: u8 = 1;
pub const QUERY_BY_CLIENTID: u8 = 2;
pub const QUERY_BY_RELAYID: u8 = 3;
pub const QUERY_BY_LINK_ADDRESS: u8 = 4;
pub const QUERY_BY_REMOTEID: u8 = 5;

/// OPTION_LQ_QUERY (44).
#[derive(Clone, Debug, PartialEq)]
pub struct LqQuery<'a> {
    pub query_type: u8,
    pub link_address: Ipv6Addr,
    pub options: Vec<Opt<'a>>,
}

/// Bytes before the query options.
pub const LQ_QUERY_FIXED: usize = 17;

impl<'a> LqQuery<'a> {
    /// The client DUID a by-clientID query asks about (what the load-balancing draft hashes).
    pub fn client_id(&self) -> Option<&Duid<'a>> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::ClientId(d) => Some(d),
            _ => None,
        })
    }

    /// The address a by-address query asks about.
    pub fn address(&self) -> Option<Ipv6Addr> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::IaAddr(a) => Some(a.address),
            _ => None,
        })
    }
}

pub(crate) fn lq_query_fixed(i: &[u8]) -> IResult<&[u8], (u8, Ipv6Addr)> {
    let (i, (t, a)) = (be_u8, be_u128).parse(i)?;
    Ok((i, (t, Ipv6Addr::from(a))))
}

/// OPTION_LQ_RELAY_DATA (47): the relay message the server last received from the client's relay.
#[derive(Clone, Debug, PartialEq)]
pub struct LqRelayData<'a> {
    pub peer_address: Ipv6Addr,
    pub message: Box<Message<'a>>,
}

pub const LQ_RELAY_DATA_FIXED: usize = 16;
