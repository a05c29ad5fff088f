//! Identity associations and their addresses and prefixes (RFC 8415 sections 21.4-21.6, 21.21,
//! 21.22): fixed fields followed by encapsulated options.

use std::net::Ipv6Addr;

use nom::number::complete::{be_u128, be_u32, be_u8};
use nom::{IResult, Parser};

use super::options::Opt;

/// IA_NA (3) and IA_PD (25).
#[derive(Clone, Debug, PartialEq)]
pub struct Ia<'a> {
    pub iaid: u32,
    pub t1: u32,
    pub t2: u32,
    pub options: Vec<Opt<'a>>,
}

/// IA_TA (4).
#[derive(Clone, Debug, PartialEq)]
pub struct IaTa<'a> {
    pub iaid: u32,
    pub options: Vec<Opt<'a>>,
}

/// IAADDR (5).
#[derive(Clone, Debug, PartialEq)]
pub struct IaAddr<'a> {
    pub address: Ipv6Addr,
    pub preferred_lifetime: u32,
    pub valid_lifetime: u32,
    pub options: Vec<Opt<'a>>,
}

/// IAPREFIX (26).
#[derive(Clone, Debug, PartialEq)]
pub struct IaPrefix<'a> {
    pub preferred_lifetime: u32,
    pub valid_lifetime: u32,
    pub prefix_len: u8,
    pub prefix: Ipv6Addr,
    pub options: Vec<Opt<'a>>,
}

/// Bytes before the encapsulated options.
pub const IA_FIXED: usize = 12;
pub const IA_TA_FIXED: usize = 4;
pub const IAADDR_FIXED: usize = 24;
pub const IAPREFIX_FIXED: usize = 25;

pub(crate) fn ia_fixed(i: &[u8]) -> IResult<&[u8], (u32, u32, u32)> {
    (be_u32, be_u32, be_u32).parse(i)
}

pub(crate) fn iaaddr_fixed(i: &[u8]) -> IResult<&[u8], (Ipv6Addr, u32, u32)> {
    let (i, (a, p, v)) = (be_u128, be_u32, be_u32).parse(i)?;
    Ok((i, (Ipv6Addr::from(a), p, v)))
}

pub(crate) fn iaprefix_fixed(i: &[u8]) -> IResult<&[u8], (u32, u32, u8, Ipv6Addr)> {
    let (i, (p, v, l, a)) = (be_u32, be_u32, be_u8, be_u128).parse(i)?;
    Ok((i, (p, v, l, Ipv6Addr::from(a))))
}

impl<'a> Ia<'a> {
    pub fn new(iaid: u32, t1: u32, t2: u32, options: Vec<Opt<'a>>) -> Self {
        Ia {
            iaid,
            t1,
            t2,
            options,
        }
    }
}

impl<'a> IaAddr<'a> {
    pub fn new(address: Ipv6Addr, preferred: u32, valid: u32, options: Vec<Opt<'a>>) -> Self {
        IaAddr {
            address,
            preferred_lifetime: preferred,
            valid_lifetime: valid,
            options,
        }
    }
}
