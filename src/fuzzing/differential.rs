//! The differential target: each input decoded as DHCPv4 and as DHCPv6 by poolshark and by
//! dhcproto, an independent implementation; when both decode without error, what both decode
//! must agree. dhcproto's known departures from the RFCs (the protocol notes list them) are left
//! out below, each with the clause it departs from.

use std::collections::BTreeMap;

use dhcproto::{v4 as d4, v6 as d6, Decodable, Decoder};

use crate::proto::{dhcpv4 as v4, dhcpv6 as v6};

/// DHCPv4 and DHCPv6, each compared when both decoders read the input without error.
pub fn dhcp_differential(data: &[u8]) {
    compare_v4(data);
    compare_v6(data);
}

/// The value bytes of the dhcproto options whose type both decoders give the same meaning
/// (addresses, times, identifiers, codes, text), as they are on the wire; `None` for the rest.
fn v4_value(o: &d4::DhcpOption) -> Option<Vec<u8>> {
    use d4::DhcpOption::*;
    let addrs = |a: &[std::net::Ipv4Addr]| a.iter().flat_map(|x| x.octets()).collect();
    Some(match o {
        SubnetMask(a) | ServerIdentifier(a) | RequestedIpAddress(a) => a.octets().to_vec(),
        Router(a) | DomainNameServer(a) => addrs(a),
        AddressLeaseTime(t) | Renewal(t) | Rebinding(t) => t.to_be_bytes().to_vec(),
        MessageType(t) => vec![u8::from(*t)],
        ClientIdentifier(b) => b.clone(),
        ParameterRequestList(c) => c.iter().map(|c| u8::from(*c)).collect(),
        Hostname(s) | DomainName(s) => s.as_bytes().to_vec(),
        _ => return None,
    })
}

fn compare_v4(data: &[u8]) {
    let (p, errors) = v4::parse(data);
    if !errors.is_empty() {
        return;
    }
    // dhcproto's `chaddr()` slices the 16-byte field to `hlen` and panics beyond (RFC 2131
    // section 2 allows any hlen up to 255 in the byte; poolshark keeps it): not given such input.
    if p.hlen > 16 {
        return;
    }
    // dhcproto asserts (debug builds, such as the fuzz build) on the length of a few options
    // whatever the message says: rapid commit (80) other than empty (RFC 4039 section 4), client
    // FQDN (81) under 3 bytes (RFC 4702 section 2), client network interface identifier (94)
    // other than 3 (RFC 4578 section 2.2), the bulk leasequery status code (151) empty and its
    // times (152 to 155) other than 4 (RFC 6926 section 6.2). It reads options after `file`
    // whether or not the cookie is there, and joins repeats (RFC 3396): inputs where it would
    // meet one of those with another length, or repeated, are not given to it.
    if dhcproto_v4_asserts(data.get(240..).unwrap_or_default()) {
        return;
    }
    let Ok(d) = d4::Message::decode(&mut Decoder::new(data)) else {
        return;
    };
    assert_eq!(u8::from(d.opcode()), p.op, "op");
    assert_eq!(u8::from(d.htype()), p.htype, "htype");
    assert_eq!(d.hlen(), p.hlen, "hlen");
    assert_eq!(d.hops(), p.hops, "hops");
    assert_eq!(d.xid(), p.xid, "xid");
    assert_eq!(d.secs(), p.secs, "secs");
    assert_eq!(u16::from(d.flags()), p.flags, "flags");
    assert_eq!(d.ciaddr(), p.ciaddr, "ciaddr");
    assert_eq!(d.yiaddr(), p.yiaddr, "yiaddr");
    assert_eq!(d.siaddr(), p.siaddr, "siaddr");
    assert_eq!(d.giaddr(), p.giaddr, "giaddr");
    assert_eq!(d.chaddr(), &p.chaddr[..usize::from(p.hlen)], "chaddr");

    // Options follow the magic cookie only (RFC 2131 section 3, RFC 1497): dhcproto reads
    // whatever follows `file` as options (it does not check the cookie).
    if p.cookie != Some(v4::MAGIC_COOKIE) {
        return;
    }
    // poolshark's options in wire order (without PAD and END), as far as the first END.
    let ours: Vec<&v4::Opt<'_>> = p
        .options
        .iter()
        .take_while(|o| o.code != v4::code::END)
        .filter(|o| o.code != v4::code::PAD)
        .collect();
    // dhcproto 0.15 decodes option 37, TCP Default TTL (RFC 2132 section 6.1), as option 23,
    // Default IP TTL (section 4.5): the codes of a message with option 37 are not compared.
    if ours.iter().any(|o| o.code == 37) {
        return;
    }
    // dhcproto keeps one option per code (the last read) in code order, and stops reading at
    // the first option it cannot decode, silently: what it has must be exactly the codes of a
    // prefix of poolshark's list.
    let theirs: BTreeMap<u8, &d4::DhcpOption> =
        d.opts().iter().map(|(c, o)| (u8::from(*c), o)).collect();
    let k = ours
        .iter()
        .position(|o| !theirs.contains_key(&o.code))
        .unwrap_or(ours.len());
    let prefix: std::collections::BTreeSet<u8> = ours[..k].iter().map(|o| o.code).collect();
    let codes: std::collections::BTreeSet<u8> = theirs.keys().copied().collect();
    assert_eq!(
        codes, prefix,
        "option codes: dhcproto's against poolshark's first {k}"
    );
    // The values of the options that occur once in that prefix.
    for (code, o) in &theirs {
        let mut same = ours[..k].iter().filter(|x| x.code == *code);
        let (Some(x), None) = (same.next(), same.next()) else {
            continue;
        };
        if let Some(value) = v4_value(o) {
            assert_eq!(value, x.data().into_owned(), "option {code}");
        }
    }
}

fn compare_v6(data: &[u8]) {
    let (p, errors) = v6::parse(data);
    if !errors.is_empty() {
        return;
    }
    // A relayed message: dhcproto 0.15 decodes Relay-forward and Relay-reply (RFC 8415 section
    // 9) as client/server messages, reading the hop count and link address as a transaction id
    // and options: not compared.
    let Some(inner) = p.inner.as_ref().filter(|_| p.relays.is_empty()) else {
        return;
    };
    // dhcproto subtracts from an option's length without checking it (its debug build panics):
    // status code (13) under 2, vendor class and options (16, 17) under 4, at any depth (RFC 8415
    // sections 21.13, 21.16 and 21.17 give the minimums), including where it meets them only
    // because it read a fixed-size option at its size rather than its length. Not given such
    // input.
    if dhcproto_v6_underflows(&data[4.min(data.len())..], 0) {
        return;
    }
    let Ok(d) = d6::Message::decode(&mut Decoder::new(data)) else {
        return;
    };
    assert_eq!(u8::from(d.msg_type()), inner.msg_type, "msg-type");
    assert_eq!(
        u32::from_be_bytes([0, d.xid()[0], d.xid()[1], d.xid()[2]]),
        inner.xid,
        "transaction-id"
    );
    // dhcproto sorts the options by code and stops at the first it cannot decode: its codes
    // must be those of the first as many of poolshark's, sorted.
    let theirs: Vec<&d6::DhcpOption> = d.opts().iter().collect();
    let mut codes: Vec<u16> = theirs
        .iter()
        .map(|o| u16::from(d6::OptionCode::from(*o)))
        .collect();
    codes.sort_unstable();
    assert!(
        theirs.len() <= inner.options.len(),
        "dhcproto read {} options, poolshark {}",
        theirs.len(),
        inner.options.len()
    );
    let ours = &inner.options[..theirs.len()];
    let mut prefix: Vec<u16> = ours.iter().map(|o| o.code).collect();
    prefix.sort_unstable();
    assert_eq!(codes, prefix, "option codes");
    // dhcproto reads Preference (7), Elapsed Time (8), Server Unicast (12) and Reconfigure
    // Message (19) at their fixed size whatever the option length says (RFC 8415 sections 21.8,
    // 21.9, 21.12, 21.19 give 1, 2, 16 and 1): with another length, what it reads after is not
    // the message's options. Their values are compared only when the lengths are right.
    let fixed = |code: u16| match code {
        7 | 19 => Some(1),
        8 => Some(2),
        12 => Some(16),
        _ => None,
    };
    if inner.options.iter().any(|o| {
        fixed(o.code).is_some_and(|n| {
            let mut v = Vec::new();
            o.value.write_data(&mut v);
            n != v.len()
        })
    }) {
        return;
    }
    for o in theirs {
        let code = u16::from(d6::OptionCode::from(o));
        let mut same = ours.iter().filter(|x| x.code == code);
        let (Some(x), None) = (same.next(), same.next()) else {
            continue;
        };
        compare_v6_option(o, &x.value, code);
    }
}

/// The options both decoders type alike.
fn compare_v6_option(o: &d6::DhcpOption, ours: &v6::OptValue<'_>, code: u16) {
    use d6::DhcpOption as D;
    use v6::OptValue as P;
    match (o, ours) {
        (D::ClientId(b), P::ClientId(x)) | (D::ServerId(b), P::ServerId(x)) => {
            assert_eq!(&b[..], x.bytes(), "option {code}");
        }
        (D::ElapsedTime(t), P::ElapsedTime(x)) => assert_eq!(t, x, "elapsed time"),
        (D::Preference(t), P::Preference(x)) => assert_eq!(t, x, "preference"),
        (D::ORO(oro), P::Oro(x)) => {
            let codes: Vec<u16> = oro.opts.iter().map(|c| u16::from(*c)).collect();
            assert_eq!(&codes, x, "ORO");
        }
        (D::IANA(ia), P::IaNa(x)) => {
            assert_eq!((ia.id, ia.t1, ia.t2), (x.iaid, x.t1, x.t2), "IA_NA");
        }
        (D::ServerUnicast(a), P::Unicast(x)) => assert_eq!(a, x, "server unicast"),
        (D::DomainNameServers(a), P::Addresses(x)) => assert_eq!(a, x, "DNS servers"),
        (D::InterfaceId(b), P::InterfaceId(x)) => assert_eq!(&b[..], &x[..], "interface-id"),
        _ => {}
    }
}

/// Whether dhcproto's decoding of these DHCPv6 options (and of those nested in them) subtracts
/// past zero: its option loop, followed as it reads (a fixed-size option takes its size whatever
/// its length says, so what follows is read from there; an option that does not fit ends the
/// loop).
fn dhcproto_v6_underflows(buf: &[u8], depth: u8) -> bool {
    if depth > 8 {
        return true;
    }
    let mut i = 0;
    while let Some(&[a, b, c, d]) = buf.get(i..i + 4) {
        let code = u16::from_be_bytes([a, b]);
        let len = usize::from(u16::from_be_bytes([c, d]));
        i += 4;
        let left = buf.len() - i;
        // Preference, Reconfigure Message: one byte; Elapsed Time: two; Server Unicast: 16;
        // Rapid Commit and Reconfigure Accept: none.
        let fixed = match code {
            7 | 19 => Some(1),
            8 => Some(2),
            12 => Some(16),
            14 | 20 => Some(0),
            _ => None,
        };
        if let Some(n) = fixed {
            if left < n {
                return false;
            }
            i += n;
            continue;
        }
        // Status code reads two bytes, then `len - 2`; vendor class and options four, then
        // `len - 4`.
        let head = match code {
            13 => 2,
            16 | 17 => 4,
            _ => 0,
        };
        if head > 0 && len < head {
            return left >= head;
        }
        if left < len {
            return false;
        }
        let body = &buf[i..i + len];
        // Options that hold options after a fixed part: IA_NA, IA_PD (12), IA_TA (4), IAADDR
        // (24), IAPREFIX (25), vendor options (4); a relay message holds a relay message (34).
        let skip = match code {
            3 | 25 => Some(12),
            4 | 17 => Some(4),
            5 => Some(24),
            26 => Some(25),
            9 => Some(34),
            _ => None,
        };
        if let Some(skip) = skip {
            if body.len() >= skip && dhcproto_v6_underflows(&body[skip..], depth + 1) {
                return true;
            }
        }
        i += len;
    }
    false
}

/// Whether dhcproto's DHCPv4 option loop would meet an option whose length it asserts on.
fn dhcproto_v4_asserts(mut buf: &[u8]) -> bool {
    let mut seen = [false; 256];
    while let [code, rest @ ..] = buf {
        match *code {
            0 => {
                buf = rest;
                continue;
            }
            255 => break,
            _ => {}
        }
        let [len, rest @ ..] = rest else {
            break;
        };
        let len = usize::from(*len);
        let bad = match code {
            80 => len != 0,
            81 => len < 3,
            94 => len != 3,
            151 => len < 1,
            152..=155 => len != 4,
            _ => false,
        };
        let risky = matches!(code, 80 | 81 | 94 | 151..=155);
        if bad || (risky && seen[usize::from(*code)]) {
            return true;
        }
        seen[usize::from(*code)] = true;
        buf = &rest[len.min(rest.len())..];
    }
    false
}
