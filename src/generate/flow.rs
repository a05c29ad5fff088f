//! Conversations rather than single packets: a TCP connection that keeps its sequence numbers
//! and an SCTP association that keeps its TSNs and stream sequence numbers, each handing out
//! ready Ethernet frames. Fixtures and the large-capture generator describe what is said; these
//! take care of the transport bookkeeping.

use std::net::{IpAddr, SocketAddr};

use super::packet::{Ip, Link, Packet};
use crate::wire::sctp::build::{split_data, split_idata, Chunk};
use crate::wire::tcp::{self, TcpHeader};

fn ip_between(src: IpAddr, dst: IpAddr) -> Ip {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => Ip::v4(s, d),
        (IpAddr::V6(s), IpAddr::V6(d)) => Ip::v6(s, d),
        // Mixed families cannot share a packet: map the IPv4 side into IPv6.
        (s, d) => Ip::v6(to_v6(s), to_v6(d)),
    }
}

fn to_v6(a: IpAddr) -> std::net::Ipv6Addr {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// The link header as side `side` sends it: `link` is written as side 0 (the client or
/// initiator) sends, so the responder's frames swap the Ethernet addresses.
fn link_from(link: &Link, side: usize) -> Link {
    match link {
        Link::Ethernet { src, dst, vlans } if side == 1 => Link::Ethernet {
            src: *dst,
            dst: *src,
            vlans: vlans.clone(),
        },
        other => other.clone(),
    }
}

/// A TCP connection between a client and a server.
pub struct TcpFlow {
    /// The link header of the client's frames (the server's swap the Ethernet addresses).
    pub link: Link,
    ends: [SocketAddr; 2],
    /// Next sequence number of each side (0: client, 1: server).
    next: [u32; 2],
    /// Largest payload per segment.
    pub mss: usize,
    buf: Vec<u8>,
}

impl TcpFlow {
    /// A connection whose sides start at the given initial sequence numbers.
    pub fn new(client: SocketAddr, server: SocketAddr, isn: [u32; 2]) -> Self {
        TcpFlow {
            link: Link::ethernet(),
            ends: [client, server],
            next: isn,
            mss: 1448,
            buf: Vec::with_capacity(2048),
        }
    }

    fn segment(&mut self, side: usize, flags: u8, payload: &[u8], out: &mut dyn FnMut(&[u8])) {
        let (src, dst) = (self.ends[side], self.ends[1 - side]);
        let ack = if flags & tcp::ACK != 0 {
            self.next[1 - side]
        } else {
            0
        };
        let h = TcpHeader::new(src.port(), dst.port(), self.next[side], ack, flags);
        let p = Packet {
            link: link_from(&self.link, side),
            ip: ip_between(src.ip(), dst.ip()),
            transport: super::packet::Transport::Tcp(h),
            payload,
        };
        out(p.frame(&mut self.buf));
        let used = payload.len() as u32 + u32::from(flags & (tcp::SYN | tcp::FIN) != 0);
        self.next[side] = self.next[side].wrapping_add(used);
    }

    /// SYN, SYN-ACK, ACK.
    pub fn handshake(&mut self, out: &mut dyn FnMut(&[u8])) {
        self.segment(0, tcp::SYN, &[], out);
        self.segment(1, tcp::SYN | tcp::ACK, &[], out);
        self.segment(0, tcp::ACK, &[], out);
    }

    /// `data` from the client (`from_client`) or the server, in segments of at most `mss` bytes.
    pub fn send(&mut self, from_client: bool, data: &[u8], out: &mut dyn FnMut(&[u8])) {
        let side = usize::from(!from_client);
        for part in data.chunks(self.mss.max(1)) {
            self.segment(side, tcp::PSH | tcp::ACK, part, out);
        }
    }

    /// A bare acknowledgement.
    pub fn ack(&mut self, from_client: bool, out: &mut dyn FnMut(&[u8])) {
        self.segment(usize::from(!from_client), tcp::ACK, &[], out);
    }

    /// FIN from each side, each acknowledged.
    pub fn close(&mut self, out: &mut dyn FnMut(&[u8])) {
        self.segment(0, tcp::FIN | tcp::ACK, &[], out);
        self.segment(1, tcp::FIN | tcp::ACK, &[], out);
        self.segment(0, tcp::ACK, &[], out);
    }
}

/// How [`SctpAssociation::send_with`] sends a user message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendOptions {
    /// A SACK for everything the peer sent rides in front of the first chunk, as stacks bundle
    /// it with their next DATA.
    pub sack_first: bool,
    /// I-DATA chunks (RFC 8260) instead of DATA.
    pub idata: bool,
    /// The U bit.
    pub unordered: bool,
    /// Every chunk of the message in one packet instead of one packet per chunk.
    pub bundle: bool,
}

/// An SCTP association between two endpoints (0: the initiator, 1: the responder).
pub struct SctpAssociation {
    /// The link header of the initiator's frames (the responder's swap the Ethernet addresses).
    pub link: Link,
    ends: [SocketAddr; 2],
    /// The verification tag each side expects (the initiate tags).
    tags: [u32; 2],
    next_tsn: [u32; 2],
    /// Next stream sequence number (DATA) per side and stream; 32 bits so that I-DATA's
    /// message identifiers share the bookkeeping (DATA uses the low 16 bits).
    ssn: [Vec<u32>; 2],
    /// Next message identifier (I-DATA) per side and stream.
    mid: [Vec<u32>; 2],
    /// Largest user data per DATA chunk (a longer message is split).
    pub max_fragment: usize,
    /// Send over UDP port 9899 (RFC 6951) instead of IP protocol 132.
    pub over_udp: bool,
    buf: Vec<u8>,
}

impl SctpAssociation {
    pub fn new(
        initiator: SocketAddr,
        responder: SocketAddr,
        tags: [u32; 2],
        tsns: [u32; 2],
    ) -> Self {
        SctpAssociation {
            link: Link::ethernet(),
            ends: [initiator, responder],
            tags,
            next_tsn: tsns,
            ssn: [Vec::new(), Vec::new()],
            mid: [Vec::new(), Vec::new()],
            max_fragment: 1200,
            over_udp: false,
            buf: Vec::with_capacity(2048),
        }
    }

    fn packet(
        &mut self,
        side: usize,
        vtag: u32,
        chunks: Vec<Chunk<'_>>,
        out: &mut dyn FnMut(&[u8]),
    ) {
        let (src, dst) = (self.ends[side], self.ends[1 - side]);
        let transport = if self.over_udp {
            super::packet::Transport::SctpOverUdp {
                sport: src.port(),
                dport: dst.port(),
                vtag,
                chunks,
            }
        } else {
            super::packet::Transport::Sctp {
                sport: src.port(),
                dport: dst.port(),
                vtag,
                chunks,
            }
        };
        let p = Packet {
            link: link_from(&self.link, side),
            ip: ip_between(src.ip(), dst.ip()),
            transport,
            payload: &[],
        };
        out(p.frame(&mut self.buf));
    }

    /// INIT, INIT_ACK, COOKIE_ECHO, COOKIE_ACK.
    pub fn handshake(&mut self, out: &mut dyn FnMut(&[u8])) {
        let init = |ack, tag, tsn| Chunk::Init {
            ack,
            initiate_tag: tag,
            a_rwnd: 0x0010_0000,
            out_streams: 16,
            in_streams: 16,
            initial_tsn: tsn,
        };
        let (t, n) = (self.tags, self.next_tsn);
        self.packet(0, 0, vec![init(false, t[0], n[0])], out);
        self.packet(1, t[0], vec![init(true, t[1], n[1])], out);
        let cookie = Chunk::Raw {
            kind: 10,
            flags: 0,
            value: b"cook",
        };
        self.packet(0, t[1], vec![cookie], out);
        let cookie_ack = Chunk::Raw {
            kind: 11,
            flags: 0,
            value: &[],
        };
        self.packet(1, t[0], vec![cookie_ack], out);
    }

    /// A user message from side 0 (`from_initiator`) or 1 on `stream`: one packet per DATA chunk
    /// (several when the message is longer than `max_fragment`). Returns its first TSN.
    pub fn send(
        &mut self,
        from_initiator: bool,
        stream: u16,
        ppid: u32,
        msg: &[u8],
        out: &mut dyn FnMut(&[u8]),
    ) -> u32 {
        self.send_with(
            from_initiator,
            stream,
            ppid,
            msg,
            SendOptions::default(),
            out,
        )
    }

    /// A user message sent as `opts` says. Returns its first TSN.
    pub fn send_with(
        &mut self,
        from_initiator: bool,
        stream: u16,
        ppid: u32,
        msg: &[u8],
        opts: SendOptions,
        out: &mut dyn FnMut(&[u8]),
    ) -> u32 {
        let side = usize::from(!from_initiator);
        let counters = if opts.idata {
            &mut self.mid[side]
        } else {
            &mut self.ssn[side]
        };
        if counters.len() <= usize::from(stream) {
            counters.resize(usize::from(stream) + 1, 0);
        }
        let seq = counters[usize::from(stream)];
        counters[usize::from(stream)] = seq.wrapping_add(1);
        let first = self.next_tsn[side];
        let mut chunks = if opts.idata {
            split_idata(
                msg,
                self.max_fragment,
                first,
                stream,
                seq,
                ppid,
                opts.unordered,
            )
        } else {
            // DATA carries a 16-bit stream sequence number.
            split_data(
                msg,
                self.max_fragment,
                first,
                stream,
                seq as u16,
                ppid,
                opts.unordered,
            )
        };
        self.next_tsn[side] = first.wrapping_add(chunks.len() as u32);
        let vtag = self.tags[1 - side];
        if opts.sack_first {
            chunks.insert(0, self.sack_chunk(side));
        }
        if opts.bundle {
            self.packet(side, vtag, chunks, out);
        } else {
            // The SACK, if any, rides with the first DATA chunk.
            let mut pending: Vec<Chunk<'_>> = Vec::with_capacity(2);
            for c in chunks {
                let is_sack = matches!(c, Chunk::Sack { .. });
                pending.push(c);
                if !is_sack {
                    let packet = std::mem::take(&mut pending);
                    self.packet(side, vtag, packet, out);
                }
            }
        }
        first
    }

    /// The SACK `side` would send for everything its peer sent so far.
    fn sack_chunk(&self, side: usize) -> Chunk<'static> {
        Chunk::Sack {
            cum_tsn: self.next_tsn[1 - side].wrapping_sub(1),
            a_rwnd: 0x0010_0000,
        }
    }

    /// A SACK from a side acknowledging everything its peer sent.
    pub fn sack(&mut self, from_initiator: bool, out: &mut dyn FnMut(&[u8])) {
        let side = usize::from(!from_initiator);
        let vtag = self.tags[1 - side];
        let sack = self.sack_chunk(side);
        self.packet(side, vtag, vec![sack], out);
    }
}
