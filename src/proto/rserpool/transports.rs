//! The transport parameters (RFC 5354 section 3.3-3.7): a port, a 16-bit transport-use or reserved
//! field, the DCCP service code, then nested address parameters.

use std::net::IpAddr;

use nom::{IResult, Parser};

use crate::proto::be::{be_u16, be_u32};

use super::parameters::{parse_params, Ctx, Parameter};

/// Which transport a transport parameter describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransportProtocol {
    Sctp,
    Tcp,
    Udp,
    UdpLite,
    /// DCCP carries a 32-bit service code after the reserved field.
    Dccp {
        service_code: u32,
    },
}

impl TransportProtocol {
    pub fn name(self) -> &'static str {
        match self {
            TransportProtocol::Sctp => "SCTP",
            TransportProtocol::Tcp => "TCP",
            TransportProtocol::Udp => "UDP",
            TransportProtocol::UdpLite => "UDP-Lite",
            TransportProtocol::Dccp { .. } => "DCCP",
        }
    }

    /// Bytes before the nested address parameters.
    pub(crate) fn fixed_len(self) -> usize {
        match self {
            TransportProtocol::Dccp { .. } => 8,
            _ => 4,
        }
    }
}

/// SCTP's and TCP's transport-use values.
pub const TRANSPORT_USE_DATA_ONLY: u16 = 0;
pub const TRANSPORT_USE_DATA_PLUS_CONTROL: u16 = 1;

/// A transport parameter before its addresses: the port, the transport use (or reserved field),
/// and DCCP's service code.
fn transport_fixed(
    i: &[u8],
    protocol: TransportProtocol,
) -> IResult<&[u8], (TransportProtocol, u16, u16)> {
    let (i, (port, transport_use)) = (be_u16, be_u16).parse(i)?;
    match protocol {
        TransportProtocol::Dccp { .. } => {
            let (i, service_code) = be_u32(i)?;
            Ok((
                i,
                (
                    TransportProtocol::Dccp { service_code },
                    port,
                    transport_use,
                ),
            ))
        }
        p => Ok((i, (p, port, transport_use))),
    }
}

/// A transport parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    pub protocol: TransportProtocol,
    pub port: u16,
    /// SCTP and TCP: transport use (0 data only, 1 data plus control); the others: reserved.
    pub transport_use: u16,
    /// The nested address parameters (IPv4/IPv6; anything else as it came).
    pub addresses: Vec<Parameter>,
}

impl Transport {
    /// The IP addresses among the nested parameters.
    pub fn ip_addresses(&self) -> Vec<IpAddr> {
        self.addresses
            .iter()
            .filter_map(|p| match p {
                Parameter::Ipv4(a) => Some(IpAddr::V4(*a)),
                Parameter::Ipv6(a) => Some(IpAddr::V6(*a)),
                _ => None,
            })
            .collect()
    }

    /// Decodes the value of a transport parameter whose kind says `protocol` (for DCCP the
    /// service code given is replaced by the one read). `None` when the fixed part is cut short.
    pub(crate) fn parse(
        ctx: &mut Ctx<'_>,
        protocol: TransportProtocol,
        value: &[u8],
        base: usize,
        depth: usize,
    ) -> Option<Transport> {
        let (nested, (protocol, port, transport_use)) = transport_fixed(value, protocol).ok()?;
        let fixed = protocol.fixed_len();
        let addresses = parse_params(ctx, nested, base + fixed, depth + 1);
        if addresses.is_empty() {
            ctx.error(
                base + fixed,
                format!(
                    "{} transport parameter carries no address parameter",
                    protocol.name()
                ),
            );
        }
        Some(Transport {
            protocol,
            port,
            transport_use,
            addresses,
        })
    }

    pub(crate) fn emit_value(&self, ctx: &super::emit::EmitCtx, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.port.to_be_bytes());
        out.extend_from_slice(&self.transport_use.to_be_bytes());
        if let TransportProtocol::Dccp { service_code } = self.protocol {
            out.extend_from_slice(&service_code.to_be_bytes());
        }
        for p in &self.addresses {
            ctx.emit_param(p, out);
        }
    }
}
