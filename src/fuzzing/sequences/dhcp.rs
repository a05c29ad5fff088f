//! The DHCP half of the structure-aware targets: DHCPv4 and DHCPv6 messages of every type, from
//! a few clients, a relay and the two servers of a pair, built in code and emitted. What the two
//! families share (the clients, transaction ids, a message's path, the waiting times, the extra
//! options some messages carry) is written once.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::RangeInclusive;

use arbitrary::{Arbitrary, Result, Unstructured};

use super::{bytes, ipv4, ipv6, Carrier, Path};
use crate::proto::{dhcpv4 as v4, dhcpv6 as v6};

/// A UDP path from `src` to `dst`.
fn udp(src: impl Into<IpAddr>, src_port: u16, dst: impl Into<IpAddr>, dst_port: u16) -> Path {
    Path {
        carrier: Carrier::Udp,
        src: src.into(),
        src_port,
        dst: dst.into(),
        dst_port,
        ppid: None,
    }
}

/// Sometimes (one message in four) one to four more options, made by `option`.
fn more<T>(
    u: &mut Unstructured<'_>,
    option: fn(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    if u.ratio(1u8, 4)? {
        for _ in 0..u.int_in_range(1u8..=4)? {
            out.push(option(u)?);
        }
    }
    Ok(out)
}

/// How long the client has waited, in `unit`s (DHCPv4's seconds, DHCPv6's hundredths): mostly
/// 0 to 20 s, where a load-balanced pair's peer starts answering, else any.
fn waited(u: &mut Unstructured<'_>, unit: u16) -> Result<u16> {
    if u.arbitrary()? {
        Ok(u16::from(u.int_in_range(0u8..=20)?) * unit)
    } else {
        u.arbitrary()
    }
}

/// A text of `len` characters from `alphabet`.
fn text(u: &mut Unstructured<'_>, len: RangeInclusive<usize>, alphabet: &[u8]) -> Result<String> {
    let n = u.int_in_range(len)?;
    (0..n)
        .map(|_| u.choose(alphabet).map(|c| char::from(*c)))
        .collect()
}

/// The load-balancing pair (and failover pair): 192.0.2.1 and 192.0.2.2.
pub(super) const SERVERS4: [[u8; 4]; 2] = [[192, 0, 2, 1], [192, 0, 2, 2]];
const RELAY4: [u8; 4] = [192, 0, 2, 254];
const SERVERS6: [u16; 2] = [1, 2];
/// Clients' MAC addresses.
const MACS: [[u8; 6]; 6] = [
    [0x02, 0, 0, 0, 0, 0x01],
    [0x02, 0, 0, 0, 0, 0x02],
    [0x02, 0, 0, 0, 0, 0x03],
    [0x00, 0x16, 0x3e, 0x11, 0x22, 0x33],
    [0x00, 0x16, 0x3e, 0x44, 0x55, 0x66],
    [0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc],
];

pub(super) fn mac(u: &mut Unstructured<'_>) -> Result<[u8; 6]> {
    if u.ratio(7u8, 8)? {
        Ok(*u.choose(&MACS)?)
    } else {
        u.arbitrary()
    }
}

/// A transaction id: one of a few per client, or any.
fn xid(u: &mut Unstructured<'_>, mac: [u8; 6]) -> Result<u32> {
    if u.ratio(7u8, 8)? {
        Ok(u32::from_be_bytes([
            mac[3],
            mac[4],
            mac[5],
            u.int_in_range(0u8..=3)?,
        ]))
    } else {
        u.arbitrary()
    }
}

/// A pool address (192.0.2.100 to .115), or any.
pub(super) fn lease4(u: &mut Unstructured<'_>) -> Result<Ipv4Addr> {
    if u.ratio(7u8, 8)? {
        Ok(Ipv4Addr::new(192, 0, 2, 100 + u.int_in_range(0u8..=15)?))
    } else {
        ipv4(u)
    }
}

fn server4(u: &mut Unstructured<'_>) -> Result<Ipv4Addr> {
    Ok(Ipv4Addr::from(*u.choose(&SERVERS4)?))
}

/// Any DHCPv4 option the parser reads back as it was written.
fn dhcpv4_option(u: &mut Unstructured<'_>) -> Result<v4::Opt<'static>> {
    use v4::{Opt, Route, SubOpt};
    Ok(match u.int_in_range(0u8..=12)? {
        0 => Opt::server_identifier(server4(u)?),
        1 => Opt::requested_address(lease4(u)?),
        2 => Opt::lease_time(u.arbitrary()?),
        3 => Opt::client_identifier(u.arbitrary()?, &bytes(u, 1, 19)?),
        4 => {
            let n = u.int_in_range(1usize..=19)?;
            let codes: Vec<u8> = (0..n)
                .map(|_| u.int_in_range(1u8..=254))
                .collect::<Result<_>>()?;
            Opt::parameter_request_list(&codes)
        }
        5 => {
            let code = *u.choose(&[12u8, 15, 60])?;
            Opt::text(
                code,
                &text(u, 1..=30, b"abcdefghijklmnopqrstuvwxyz0123456789.-")?,
            )
        }
        6 => {
            let mut subs = Vec::new();
            for _ in 0..u.int_in_range(1u8..=3)? {
                subs.push(SubOpt::new(u.int_in_range(1u8..=254)?, bytes(u, 0, 11)?));
            }
            Opt::relay_agent_info(subs)
        }
        7 => {
            let mut routes = Vec::new();
            for _ in 0..u.int_in_range(1u8..=3)? {
                routes.push(Route {
                    width: u.int_in_range(0u8..=32)?,
                    destination: ipv4(u)?,
                    router: ipv4(u)?,
                });
            }
            Opt::classless_routes(routes)
        }
        8 => {
            // Address lists: subnet mask (one), routers, DNS servers.
            let code = *u.choose(&[1u8, 3, 6])?;
            let n = if code == 1 {
                1
            } else {
                u.int_in_range(1usize..=3)?
            };
            let mut d = Vec::new();
            for _ in 0..n {
                d.extend_from_slice(&ipv4(u)?.octets());
            }
            Opt::raw(code, &d)
        }
        9 => {
            // Renewal and rebinding times.
            let code = *u.choose(&[58u8, 59])?;
            Opt::raw(code, &u32::arbitrary(u)?.to_be_bytes())
        }
        10 => Opt::raw(*u.choose(&[224u8, 240, 250, 251, 253])?, &bytes(u, 0, 40)?),
        11 => Opt::raw(
            // Vendor-specific information: opaque.
            43,
            &bytes(u, 1, 16)?,
        ),
        _ => Opt::pad(u.int_in_range(1usize..=3)?),
    })
}

/// A DHCPv4 message of any type (or plain BOOTP), from a client, a relay or a server, with the
/// options its type carries and sometimes more.
pub(super) fn dhcpv4_step(u: &mut Unstructured<'_>) -> Result<(Path, Vec<u8>)> {
    use v4::message_type as mt;
    let mac = mac(u)?;
    let xid = xid(u, mac)?;
    let mtype: Option<u8> = if u.ratio(15u8, 16)? {
        Some(if u.ratio(3u8, 4)? {
            *u.choose(&[
                mt::DISCOVER,
                mt::OFFER,
                mt::REQUEST,
                mt::ACK,
                mt::NAK,
                mt::RELEASE,
            ])?
        } else {
            u.int_in_range(1u8..=18)?
        })
    } else {
        None
    };
    let reply = match mtype {
        Some(mt::OFFER | mt::ACK | mt::NAK) => !u.ratio(1u8, 16)?,
        Some(mt::DISCOVER | mt::REQUEST | mt::RELEASE | mt::DECLINE | mt::INFORM) => {
            u.ratio(1u8, 16)?
        }
        _ => u.arbitrary()?,
    };
    let server = server4(u)?;
    let relayed = u.ratio(1u8, 4)?;
    let mut m = match (mtype, reply) {
        (Some(t), false) => v4::Message::request(t, xid, mac),
        (Some(t), true) => v4::Message::reply(t, xid, mac),
        (None, r) => v4::Message::new(if r { v4::BOOTREPLY } else { v4::BOOTREQUEST }, xid, mac),
    };
    // Seconds since the client began: a load-balanced pair's peer answers after a threshold.
    m = m.with_secs(waited(u, 1)?);
    if u.ratio(1u8, 4)? {
        m = m.with_broadcast();
    }
    if relayed {
        m = m.with_giaddr(Ipv4Addr::from(RELAY4)).with_hops(1);
    }
    match (mtype, reply) {
        (Some(mt::DISCOVER), false) => {
            if u.arbitrary()? {
                m = m.with(v4::Opt::client_identifier(1, &mac));
            }
            m = m.with(v4::Opt::parameter_request_list(&[1, 3, 6, 15, 51]));
        }
        (Some(mt::REQUEST), false) => {
            if u.arbitrary()? {
                m = m
                    .with(v4::Opt::requested_address(lease4(u)?))
                    .with(v4::Opt::server_identifier(server4(u)?));
            } else {
                m = m.with_ciaddr(lease4(u)?);
            }
        }
        (Some(mt::RELEASE | mt::DECLINE), false) => {
            m = m
                .with_ciaddr(lease4(u)?)
                .with(v4::Opt::server_identifier(server4(u)?));
        }
        (Some(_), true) => {
            m = m
                .with_yiaddr(lease4(u)?)
                .with(v4::Opt::server_identifier(server))
                .with(v4::Opt::lease_time(u32::from(u.int_in_range(0u16..=7200)?)));
        }
        _ => {}
    }
    for o in more(u, dhcpv4_option)? {
        m = m.with(o);
    }
    let len = m.emit().len() + usize::from(u.int_in_range(0u8..=100)?);
    let m = m.padded_to(len);
    let (src, sport, dst, dport) = match (reply, relayed) {
        (false, false) => ([0, 0, 0, 0], 68, [255, 255, 255, 255], 67),
        (false, true) => (RELAY4, 67, server.octets(), 67),
        (true, false) => (server.octets(), 67, [255, 255, 255, 255], 68),
        (true, true) => (server.octets(), 67, RELAY4, 67),
    };
    Ok((udp(src, sport, dst, dport), m.emit()))
}

fn duid_of(mac: [u8; 6]) -> v6::Duid<'static> {
    v6::Duid::ll(1, &mac)
}

fn server6(i: u16) -> Ipv6Addr {
    Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, i)
}

fn client6(mac: [u8; 6]) -> Ipv6Addr {
    Ipv6Addr::new(
        0xfe80,
        0,
        0,
        0,
        u16::from_be_bytes([mac[0] ^ 2, mac[1]]),
        u16::from_be_bytes([mac[2], 0xff]),
        u16::from_be_bytes([0xfe, mac[3]]),
        u16::from_be_bytes([mac[4], mac[5]]),
    )
}

fn lease6(u: &mut Unstructured<'_>) -> Result<Ipv6Addr> {
    if u.ratio(7u8, 8)? {
        Ok(Ipv6Addr::new(
            0x2001,
            0xdb8,
            1,
            0,
            0,
            0,
            0,
            0x100 + u16::from(u.int_in_range(0u8..=15)?),
        ))
    } else {
        ipv6(u)
    }
}

fn duid(u: &mut Unstructured<'_>) -> Result<v6::Duid<'static>> {
    use v6::Duid;
    Ok(match u.int_in_range(0u8..=3)? {
        0 => Duid::ll(u.arbitrary()?, &mac(u)?),
        1 => Duid::llt(u.arbitrary()?, u.arbitrary()?, &mac(u)?),
        2 => Duid::en(u.arbitrary()?, &bytes(u, 1, 15)?),
        _ => Duid::uuid(u.arbitrary()?),
    })
}

/// Any DHCPv6 option the parser reads back as written.
fn dhcpv6_option(u: &mut Unstructured<'_>) -> Result<v6::Opt<'static>> {
    use v6::Opt;
    Ok(match u.int_in_range(0u8..=12)? {
        0 => Opt::client_id(duid(u)?),
        1 => Opt::server_id(duid(u)?),
        2 => Opt::elapsed_time(u.arbitrary()?),
        3 => {
            let mut addrs = Vec::new();
            for _ in 0..u.int_in_range(0u8..=2)? {
                addrs.push(Opt::iaaddr(
                    lease6(u)?,
                    u.arbitrary()?,
                    u.arbitrary()?,
                    vec![],
                ));
            }
            Opt::ia_na(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?, addrs)
        }
        4 => {
            let n = u.int_in_range(1usize..=5)?;
            let codes: Vec<u16> = (0..n)
                .map(|_| u.int_in_range(1u16..=199))
                .collect::<Result<_>>()?;
            Opt::oro(&codes)
        }
        5 => Opt::preference(u.arbitrary()?),
        6 => {
            let s = text(u, 0..=20, b"abcdefghij KLMNOPQRST")?;
            Opt::status_code(u.int_in_range(0u16..=7)?, &s)
        }
        7 => Opt::rapid_commit(),
        8 => {
            let n = u.int_in_range(1usize..=2)?;
            let a: Vec<Ipv6Addr> = (0..n).map(|_| ipv6(u)).collect::<Result<_>>()?;
            Opt::addresses(23, &a)
        }
        9 => {
            let mut prefixes = Vec::new();
            for _ in 0..u.int_in_range(0u8..=2)? {
                prefixes.push(Opt::iaprefix(
                    ipv6(u)?,
                    u.int_in_range(0u8..=128)?,
                    u.arbitrary()?,
                    u.arbitrary()?,
                    vec![],
                ));
            }
            Opt::ia_pd(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?, prefixes)
        }
        10 => Opt::ia_ta(
            u.arbitrary()?,
            vec![Opt::iaaddr(
                lease6(u)?,
                u.arbitrary()?,
                u.arbitrary()?,
                vec![],
            )],
        ),
        11 => Opt::reconf_accept(),
        _ => Opt::raw(u.int_in_range(201u16..=u16::MAX)?, &bytes(u, 0, 19)?),
    })
}

/// A DHCPv6 message of any client/server type, from a client (directly or through one to three
/// relays) or from a server, with the options its type carries and sometimes more.
pub(super) fn dhcpv6_step(u: &mut Unstructured<'_>) -> Result<(Path, Vec<u8>)> {
    use v6::msg_type as mt;
    use v6::Opt;
    let mac = mac(u)?;
    let xid = xid(u, mac)? & 0xff_ffff;
    let types: Vec<u8> = (1u8..=21).filter(|t| !v6::is_relay(*t)).collect();
    let t = if u.ratio(3u8, 4)? {
        *u.choose(&[
            mt::SOLICIT,
            mt::ADVERTISE,
            mt::REQUEST,
            mt::REPLY,
            mt::RENEW,
            mt::RELEASE,
        ])?
    } else {
        *u.choose(&types)?
    };
    let from_server =
        matches!(t, mt::ADVERTISE | mt::REPLY | mt::RECONFIGURE) ^ u.ratio(1u8, 16)?;
    let s = *u.choose(&SERVERS6)?;
    let mut opts = vec![Opt::client_id(duid_of(mac))];
    if from_server || matches!(t, mt::REQUEST | mt::RENEW | mt::RELEASE | mt::DECLINE) {
        opts.push(Opt::server_id(v6::Duid::ll(
            1,
            &[0x02, 0, 0, 0, 0xff, s as u8],
        )));
    }
    if !from_server {
        opts.push(Opt::elapsed_time(waited(u, 100)?));
    }
    if u.ratio(3u8, 4)? {
        let addrs = if from_server || t != mt::SOLICIT {
            vec![Opt::iaaddr(lease6(u)?, 3600, 7200, vec![])]
        } else {
            vec![]
        };
        opts.push(Opt::ia_na(
            u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]]),
            0,
            0,
            addrs,
        ));
    }
    opts.extend(more(u, dhcpv6_option)?);
    let mut m = v6::Message::client(v6::ClientMessage::new(t, xid, opts));
    let relays = if u.ratio(1u8, 4)? {
        u.int_in_range(1u8..=3)?
    } else {
        0
    };
    for hop in 0..relays {
        let rt = if from_server {
            mt::RELAY_REPL
        } else {
            mt::RELAY_FORW
        };
        let rt = if u.ratio(1u8, 16)? {
            mt::RELAY_FORW + mt::RELAY_REPL - rt
        } else {
            rt
        };
        let opts = if u.arbitrary()? {
            vec![Opt::interface_id(&bytes(u, 1, 7)?)]
        } else {
            vec![]
        };
        let link = Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, u16::from(hop) + 1);
        m = m.relayed(rt, hop, link, client6(mac), opts);
    }
    let relay = Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 1);
    let all_servers = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 1, 2);
    let (src, sport, dst, dport) = match (from_server, relays > 0) {
        (false, false) => (client6(mac), 546, all_servers, 547),
        (false, true) => (relay, 547, server6(s), 547),
        (true, false) => (server6(s), 547, client6(mac), 546),
        (true, true) => (server6(s), 547, relay, 547),
    };
    Ok((udp(src, sport, dst, dport), m.emit()))
}
