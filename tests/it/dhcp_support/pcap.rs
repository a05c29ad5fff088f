//! A minimal, test-only capture reader: pcap (both byte orders, micro/nanoseconds) and pcapng
//! (SHB, IDB, EPB, SPB, the rest skipped), Ethernet with VLAN tags, IPv4, IPv6 with the common
//! extension headers, UDP. Enough to hand the DHCP tests their payloads with frame numbers; the
//! project's own reader lives elsewhere.

use std::net::IpAddr;

/// One UDP datagram of a capture.
#[derive(Debug, Clone)]
pub struct Udp {
    /// 1-based, as Wireshark numbers frames.
    pub frame: u64,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    pub payload: Vec<u8>,
}

/// Every frame's bytes, numbered from 1, with its link type.
pub fn frames(file: &[u8]) -> Vec<(u64, u32, Vec<u8>)> {
    match file.get(..4) {
        Some([0xd4, 0xc3, 0xb2, 0xa1]) | Some([0x4d, 0x3c, 0xb2, 0xa1]) => pcap(file, false),
        Some([0xa1, 0xb2, 0xc3, 0xd4]) | Some([0xa1, 0xb2, 0x3c, 0x4d]) => pcap(file, true),
        Some([0x0a, 0x0d, 0x0d, 0x0a]) => pcapng(file),
        _ => panic!("not a pcap or pcapng file"),
    }
}

fn rd32(b: &[u8], at: usize, be: bool) -> u32 {
    let x = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if be {
        u32::from_be_bytes(x)
    } else {
        u32::from_le_bytes(x)
    }
}

fn pcap(b: &[u8], be: bool) -> Vec<(u64, u32, Vec<u8>)> {
    // The upper bits may carry FCS information (pcap LINKTYPE_ field layout).
    let linktype = rd32(b, 20, be) & 0xffff;
    let mut at = 24;
    let mut out = Vec::new();
    let mut n = 0;
    while at + 16 <= b.len() {
        let incl = rd32(b, at + 8, be) as usize;
        let start = at + 16;
        let end = (start + incl).min(b.len());
        n += 1;
        out.push((n, linktype, b[start..end].to_vec()));
        at = start + incl;
    }
    out
}

fn pcapng(b: &[u8]) -> Vec<(u64, u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut be = false;
    let mut links: Vec<u32> = Vec::new();
    let mut at = 0;
    let mut n = 0;
    while at + 12 <= b.len() {
        let ty = rd32(b, at, be);
        if ty == 0x0a0d0d0a {
            be = b[at + 8..at + 12] == [0x1a, 0x2b, 0x3c, 0x4d];
            links.clear();
        }
        let len = rd32(b, at + 4, be) as usize;
        if len < 12 || at + len > b.len() {
            break;
        }
        let body = &b[at + 8..at + len - 4];
        match ty {
            1 => links.push(u32::from(if be {
                u16::from_be_bytes([body[0], body[1]])
            } else {
                u16::from_le_bytes([body[0], body[1]])
            })),
            6 => {
                let iface = rd32(body, 0, be) as usize;
                let cap = rd32(body, 12, be) as usize;
                n += 1;
                let lt = links.get(iface).copied().unwrap_or(1);
                out.push((n, lt, body[20..20 + cap.min(body.len() - 20)].to_vec()));
            }
            3 => {
                n += 1;
                let lt = links.first().copied().unwrap_or(1);
                out.push((n, lt, body[4..].to_vec()));
            }
            _ => {}
        }
        at += len;
    }
    out
}

/// The UDP datagrams of a capture (from unfragmented packets and first fragments).
pub fn udp_datagrams(file: &[u8]) -> Vec<Udp> {
    frames(file)
        .into_iter()
        .filter_map(|(n, lt, f)| {
            assert_eq!(lt, 1, "frame {n}: only Ethernet is needed here");
            udp(n, &f)
        })
        .collect()
}

fn udp(frame: u64, f: &[u8]) -> Option<Udp> {
    let mut at = 12;
    let mut ethertype = u16::from_be_bytes([*f.get(12)?, *f.get(13)?]);
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        at += 4;
        ethertype = u16::from_be_bytes([*f.get(at)?, *f.get(at + 1)?]);
    }
    let ip = f.get(at + 2..)?;
    let (src, dst, l4): (IpAddr, IpAddr, &[u8]) = match ethertype {
        0x0800 => {
            let ihl = usize::from(ip.first()? & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            let frag = u16::from_be_bytes([ip[6], ip[7]]);
            // A first fragment is decoded as it stands (tshark does so when it cannot
            // reassemble); later fragments are skipped.
            if ip[9] != 17 || frag & 0x1fff != 0 {
                return None;
            }
            let s: [u8; 4] = ip.get(12..16)?.try_into().ok()?;
            let d: [u8; 4] = ip.get(16..20)?.try_into().ok()?;
            let end = total.min(ip.len());
            (s.into(), d.into(), ip.get(ihl..end)?)
        }
        0x86dd => {
            let s: [u8; 16] = ip.get(8..24)?.try_into().ok()?;
            let d: [u8; 16] = ip.get(24..40)?.try_into().ok()?;
            let plen = usize::from(u16::from_be_bytes([ip[4], ip[5]]));
            let mut next = ip[6];
            let mut rest = ip.get(40..(40 + plen).min(ip.len()))?;
            loop {
                match next {
                    17 => break,
                    0 | 43 | 60 => {
                        next = *rest.first()?;
                        let l = (usize::from(*rest.get(1)?) + 1) * 8;
                        rest = rest.get(l..)?;
                    }
                    _ => return None,
                }
            }
            (s.into(), d.into(), rest)
        }
        _ => return None,
    };
    let sport = u16::from_be_bytes([*l4.first()?, *l4.get(1)?]);
    let dport = u16::from_be_bytes([*l4.get(2)?, *l4.get(3)?]);
    let ulen = usize::from(u16::from_be_bytes([*l4.get(4)?, *l4.get(5)?]));
    let end = ulen.clamp(8, l4.len().max(8)).min(l4.len());
    Some(Udp {
        frame,
        src,
        dst,
        sport,
        dport,
        payload: l4.get(8..end)?.to_vec(),
    })
}
