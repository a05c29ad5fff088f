//! The per-capture dissector: link, IP (with fragment reassembly), UDP, TCP (stream
//! reassembly), SCTP (chunks, CRC32c, user-message reassembly, SCTP over UDP), handing each
//! application payload to a callback and summing up each frame for a one-line listing.

use std::fmt::Write as _;
use std::net::IpAddr;

use super::ipfrag::{FragKey, FragmentTable, Outcome};
use super::sctp_reassembly::{ChunkContext, SctpReassembler};
use super::tcp::{SegmentContext, TcpTracker};
use super::{Address, Counters, FrameSummary, Limits, OuterLayer, Payload, Transport};
use crate::error::DecodeError;
use crate::source::Frame;
use crate::wire::link::{self, Network};
use crate::wire::mpls::{ETHERTYPE_MPLS, ETHERTYPE_MPLS_MULTICAST};
use crate::wire::sctp::{self, UnknownChunkAction};
use crate::wire::tunnel::{self, TunnelPorts, UdpTunnel, MAX_ENCAPSULATIONS};
use crate::wire::{
    arp, ethernet, geneve, gre, icmp, ip, ipv4, ipv6, mpls, tcp, teredo, udp, vxlan,
};

/// Decodes the frames of one capture, in order, keeping the reassembly state between them.
pub struct Dissector {
    limits: Limits,
    frags: FragmentTable,
    tcp: TcpTracker,
    sctp: SctpReassembler,
    counters: Counters,
    /// Whether frame summaries carry tshark's Info text (off for the analysers, which never show
    /// it: formatting it was a tenth of `check`'s time).
    info: bool,
    /// Whether SCTP is dissected (off for a run that wants nothing SCTP carries).
    sctp_wanted: bool,
    /// The UDP ports of VXLAN and Geneve.
    tunnels: TunnelPorts,
}

/// A transport-layer buffer: from the frame, or from a reassembled IP datagram.
struct Segment<'a> {
    src: IpAddr,
    dst: IpAddr,
    version: u8,
    protocol: u8,
    data: &'a [u8],
    /// Where `data` starts in the frame; `None` for a reassembled datagram.
    frame_offset: Option<usize>,
    /// For a reassembled datagram: where this frame's fragment starts, the place errors point at.
    fallback_offset: usize,
    /// For a reassembled datagram: the frames of its fragments.
    ip_frames: &'a [u64],
    /// Encapsulations this buffer is nested in (0 for a frame's own packet).
    depth: u8,
    /// The overlay network of a tunnelled packet: 0 outside one, else the VXLAN or Geneve VNI
    /// (tagged `1 << 24` and `2 << 24`) or the GRE key of the innermost tunnel that has one. It
    /// keeps IP fragments of tenants reusing addresses apart (conversations are not: README).
    tunnel: u32,
}

/// Where an IP packet sits, for its errors and what it carries: [`InFrame`] or a tunnel's
/// [`Segment`].
trait Place<'p>: Copy {
    /// Decodes the IP header (`ipv4::parse` or `ipv6::parse`).
    fn parse<'d>(
        self,
        v6: bool,
        data: &'d [u8],
        errors: &mut Vec<DecodeError>,
    ) -> Result<ip::IpPacket<'d>, DecodeError>;
    /// An error at `rel` bytes into the packet, as an offset in the frame.
    fn rebase(self, e: DecodeError) -> DecodeError;
    /// `rel` bytes into the packet, as an offset in the frame, if it is in the frame.
    fn at(self, rel: usize) -> Option<usize>;
    /// Where errors point when the packet is not in the frame.
    fn fallback(self) -> usize;
    fn ip_frames(self) -> &'p [u64];
    fn depth(self) -> u8;
    fn tunnel(self) -> u32;
}

/// A frame's own IP packet, at this offset.
#[derive(Clone, Copy)]
struct InFrame(usize);

impl Place<'static> for InFrame {
    fn parse<'d>(
        self,
        v6: bool,
        data: &'d [u8],
        errors: &mut Vec<DecodeError>,
    ) -> Result<ip::IpPacket<'d>, DecodeError> {
        if v6 {
            ipv6::parse(data, errors)
        } else {
            ipv4::parse(data, errors)
        }
    }
    fn rebase(self, e: DecodeError) -> DecodeError {
        e.shifted(self.0)
    }
    fn at(self, rel: usize) -> Option<usize> {
        Some(self.0 + rel)
    }
    fn fallback(self) -> usize {
        self.0
    }
    fn ip_frames(self) -> &'static [u64] {
        &[]
    }
    fn depth(self) -> u8 {
        0
    }
    fn tunnel(self) -> u32 {
        0
    }
}

impl<'p> Place<'p> for &Segment<'p> {
    /// Through pointers the compiler cannot see through (see [`cold`]): called directly from
    /// here too, the parsers had two callers and were no longer inlined into the frame's path.
    fn parse<'d>(
        self,
        v6: bool,
        data: &'d [u8],
        errors: &mut Vec<DecodeError>,
    ) -> Result<ip::IpPacket<'d>, DecodeError> {
        type Parser =
            for<'x> fn(&'x [u8], &mut Vec<DecodeError>) -> Result<ip::IpPacket<'x>, DecodeError>;
        let parse: Parser = if v6 {
            std::hint::black_box(ipv6::parse)
        } else {
            std::hint::black_box(ipv4::parse)
        };
        parse(data, errors)
    }
    fn rebase(self, e: DecodeError) -> DecodeError {
        Segment::rebase(self, e)
    }
    fn at(self, rel: usize) -> Option<usize> {
        Segment::at(self, rel)
    }
    fn fallback(self) -> usize {
        self.fallback_offset
    }
    fn ip_frames(self) -> &'p [u64] {
        self.ip_frames
    }
    fn depth(self) -> u8 {
        self.depth
    }
    fn tunnel(self) -> u32 {
        self.tunnel
    }
}

impl<'a> Segment<'a> {
    /// A frame's own bytes from `offset` on (no addresses yet).
    fn in_frame(data: &'a [u8], offset: usize) -> Self {
        let none = IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED);
        Segment {
            src: none,
            dst: none,
            version: 0,
            protocol: 0,
            data,
            frame_offset: Some(offset),
            fallback_offset: offset,
            ip_frames: &[],
            depth: 0,
            tunnel: 0,
        }
    }

    /// An error at `rel` bytes into `data`, as an offset in the frame.
    fn rebase(&self, e: DecodeError) -> DecodeError {
        match self.frame_offset {
            Some(o) => e.shifted(o),
            None => DecodeError::new(
                self.fallback_offset,
                format!(
                    "{} (at byte {} of the reassembled IP datagram)",
                    e.what, e.offset
                ),
            ),
        }
    }

    fn at(&self, rel: usize) -> Option<usize> {
        self.frame_offset.map(|o| o + rel)
    }

    /// The same buffer `skip` bytes further on.
    fn sub(&self, skip: usize) -> Segment<'a> {
        Segment {
            src: self.src,
            dst: self.dst,
            version: self.version,
            protocol: self.protocol,
            data: self.data.get(skip..).unwrap_or(&[]),
            frame_offset: self.at(skip),
            fallback_offset: self.fallback_offset,
            ip_frames: self.ip_frames,
            depth: self.depth,
            tunnel: self.tunnel,
        }
    }
}

impl Dissector {
    pub fn new(limits: Limits) -> Self {
        Dissector {
            limits,
            frags: FragmentTable::new(limits),
            tcp: TcpTracker::new(limits),
            sctp: SctpReassembler::new(limits),
            counters: Counters::default(),
            info: true,
            sctp_wanted: true,
            tunnels: TunnelPorts::default(),
        }
    }

    /// Decodes VXLAN and Geneve on these UDP destination ports (the defaults: 4789 and 6081).
    pub fn with_tunnels(mut self, tunnels: TunnelPorts) -> Self {
        self.tunnels = tunnels;
        self
    }

    /// Leaves tshark's Info text of TCP, UDP and SCTP out of the frame summaries (everything
    /// else, reassembly and errors included, is unchanged).
    pub fn without_info(mut self) -> Self {
        self.info = false;
        self.tcp.set_info(false);
        self
    }

    /// Leaves SCTP packets alone (no checksum, no reassembly, no payloads): for a run that
    /// wants none of what SCTP carries. The frame summary still names the protocol.
    pub fn without_sctp(mut self) -> Self {
        self.sctp_wanted = false;
        self
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Evictions and other bounded-state events so far.
    pub fn counters(&self) -> Counters {
        Counters {
            tcp_bytes_held: self.tcp.held_bytes() as u64,
            ..self.counters
        }
    }

    /// Decodes one frame: every application payload it completes goes to `sink` (borrowing the
    /// frame or a reassembly buffer for the duration of the call); the lower layers are summed
    /// up in the result.
    pub fn dissect(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut impl FnMut(&Payload<'_>),
    ) -> FrameSummary {
        let mut count = 0usize;
        let mut s = {
            let mut counting = |p: &mut Payload<'_>| {
                count += 1;
                sink(p)
            };
            self.dissect_dyn(frame, &mut counting)
        };
        s.payloads = count;
        super::cap_info(&mut s.info);
        self.counters.frames += 1;
        if !s.errors.is_empty() {
            self.counters.frames_with_errors += 1;
        }
        s
    }

    fn dissect_dyn(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) -> FrameSummary {
        let mut s = FrameSummary::default();
        if let Some((pen, copy)) = frame.custom_block() {
            // A pcapng custom block: numbered as a frame, but no packet (tshark's words).
            s.protocol = "PCAPNG";
            if self.info {
                let not = if copy { "" } else { " not" };
                s.info = format!("Custom Block: PEN = {pen}, will{not} be copied");
            }
            return s;
        }
        let l = match link::parse(frame.linktype, frame.data) {
            Ok(l) => l,
            Err(e) => {
                s.protocol = "Frame";
                if self.info {
                    s.info = e.what.to_string();
                }
                s.errors.push(e);
                return s;
            }
        };
        s.src = l.src_mac.map(Address::Mac);
        s.dst = l.dst_mac.map(Address::Mac);
        s.protocol = link::network_name(l.network);
        let rest = frame.data.get(l.offset..).unwrap_or(&[]);
        match l.network {
            Network::Ipv4 | Network::Ipv6 => self.ip(
                frame,
                rest,
                InFrame(l.offset),
                l.network == Network::Ipv6,
                &mut s,
                sink,
            ),
            Network::Other(ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST) => cold(Self::mpls)(
                self,
                frame,
                &Segment::in_frame(rest, l.offset),
                &mut s,
                sink,
            ),
            // Not decoded further: only the Info text, when it is made.
            _ if !self.info => {}
            n => s.info = not_decoded_info(n, rest),
        }
        s
    }

    /// What a tunnel carries, by its link-layer type.
    fn inner_network(
        &mut self,
        frame: &Frame<'_>,
        network: Network,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        match network {
            Network::Ipv4 | Network::Ipv6 => {
                self.ip(frame, seg.data, seg, network == Network::Ipv6, s, sink)
            }
            Network::Other(ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST) => {
                self.mpls(frame, seg, s, sink)
            }
            _ if !self.info => {}
            n => s.info = not_decoded_info(n, seg.data),
        }
    }

    /// An IP packet, `data`, at `at`: the frame's own (a place known when compiled, so that the
    /// frame's path compiles as it did before tunnels), or a tunnel's.
    fn ip<'p, P: Place<'p>>(
        &mut self,
        frame: &Frame<'_>,
        data: &[u8],
        at: P,
        v6: bool,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let mut errs = Vec::new();
        let parsed = at.parse(v6, data, &mut errs);
        s.errors.extend(errs.into_iter().map(|e| at.rebase(e)));
        let pkt = match parsed {
            Ok(p) => p,
            Err(e) => {
                if self.info {
                    s.info = e.what.to_string();
                }
                s.errors.push(at.rebase(e));
                return;
            }
        };
        if at.depth() > 0 {
            descend(s);
        }
        s.src = Some(Address::Ip(pkt.src));
        s.dst = Some(Address::Ip(pkt.dst));
        let payload_at = at.at(pkt.payload_offset);
        // Where errors about the payload point.
        let payload_off = payload_at.unwrap_or(at.fallback());
        // A fragment cut short by the capture can never be reassembled right: as tshark does,
        // decode what the first fragment shows and hold nothing.
        let fragment = pkt.fragment.filter(|f| !(pkt.cut && f.offset == 0));
        if pkt.cut && fragment.is_some() {
            if self.info {
                s.info = fragment_info(&pkt, pkt.fragment);
            }
            return;
        }
        let Some(frag) = fragment else {
            let seg = Segment {
                src: pkt.src,
                dst: pkt.dst,
                version: pkt.version,
                protocol: pkt.protocol,
                data: pkt.payload,
                frame_offset: payload_at,
                fallback_offset: payload_off,
                ip_frames: at.ip_frames(),
                depth: at.depth(),
                tunnel: at.tunnel(),
            };
            return self.transport(frame, &seg, s, sink);
        };
        let key = FragKey {
            src: pkt.src,
            dst: pkt.dst,
            protocol: if v6 { 0 } else { pkt.protocol },
            id: frag.id,
            tunnel: at.tunnel(),
        };
        let outcome = self.frags.add(
            key,
            pkt.protocol,
            frag,
            pkt.payload,
            frame.ts,
            frame.number,
            &mut self.counters,
            &mut s.errors,
            payload_off,
        );
        let r = match outcome {
            Outcome::Held | Outcome::Dropped => {
                if self.info {
                    s.info = fragment_info(&pkt, Some(frag));
                }
                return;
            }
            Outcome::Complete(r) => r,
        };
        // IPv6: extension headers after the fragment header are in the reassembled part.
        let (protocol, start) = if v6 {
            match ipv6::walk_extensions(r.protocol, &r.data) {
                Ok(w) if w.fragment.is_none() => (w.protocol, w.offset),
                Ok(_) => {
                    s.errors.push(DecodeError::new(
                        payload_off,
                        "a reassembled IPv6 datagram holds another fragment header",
                    ));
                    return;
                }
                Err(e) => {
                    s.errors.push(DecodeError::new(
                        payload_off,
                        format!("{} (in the reassembled IPv6 datagram)", e.what),
                    ));
                    return;
                }
            }
        } else {
            (r.protocol, 0)
        };
        let seg = Segment {
            src: pkt.src,
            dst: pkt.dst,
            version: pkt.version,
            protocol,
            data: r.data.get(start..).unwrap_or(&[]),
            frame_offset: None,
            fallback_offset: payload_off,
            ip_frames: &r.frames,
            depth: at.depth(),
            tunnel: at.tunnel(),
        };
        self.transport(frame, &seg, s, sink);
    }

    fn transport(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        s.protocol = ip::protocol_name(seg.protocol, seg.version);
        // Payloads of a reassembled IP datagram name its fragments' frames.
        let ip_frames = seg.ip_frames;
        let mut sink = |p: &mut Payload<'_>| {
            if p.reassembled_from.is_empty() && !ip_frames.is_empty() {
                p.reassembled_from = ip_frames.to_vec();
            }
            sink(p)
        };
        match seg.protocol {
            ip::PROTO_UDP => self.udp(frame, seg, s, &mut sink),
            ip::PROTO_TCP => self.tcp(frame, seg, s, &mut sink),
            ip::PROTO_SCTP => self.sctp(frame, seg, s, &mut sink),
            tunnel::PROTO_IPIP | tunnel::PROTO_IPV6 | tunnel::PROTO_GRE => {
                cold(Self::ip_tunnel)(self, frame, seg, s, &mut sink)
            }
            ip::PROTO_ICMP | ip::PROTO_ICMPV6 => cold(Self::icmp)(self, frame, seg, s, &mut sink),
            // Not decoded further: only the Info text, when it is made.
            _ if !self.info => {}
            p => {
                if s.info.is_empty() {
                    s.info = format!("IP protocol {p} (not decoded)");
                }
            }
        }
    }

    /// ICMP and ICMPv6: the Info text, and the UDP datagram an error quotes (its payload as far
    /// as the error holds it), handed on as a [`Payload::quoted`]. The quoted packet is
    /// shorter than its headers say, as a rule: that is no error of the frame's.
    fn icmp(
        &mut self,
        _frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let v6 = seg.protocol == ip::PROTO_ICMPV6;
        if self.info {
            s.info = if v6 {
                icmp::info_v6(seg.data)
            } else {
                icmp::info(seg.data)
            };
        }
        // Type, code, checksum and a word of its own before the quoted packet.
        let Ok(header) = icmp::parse(seg.data) else {
            return;
        };
        let quoted = header.body;
        if !header.is_error(v6) || quoted.is_empty() {
            return;
        }
        let mut ignored = Vec::new();
        let parsed = if v6 {
            ipv6::parse(quoted, &mut ignored)
        } else {
            ipv4::parse(quoted, &mut ignored)
        };
        let Ok(pkt) = parsed else { return };
        if pkt.protocol != ip::PROTO_UDP || pkt.fragment.is_some_and(|f| f.offset != 0) {
            return;
        }
        let Ok(u) = udp::parse(pkt.payload, &mut ignored) else {
            return;
        };
        let mut p = Payload::new(
            Transport::Udp,
            pkt.src,
            u.sport,
            pkt.dst,
            u.dport,
            u.payload,
        );
        p.frame_offset = seg.at(8 + pkt.payload_offset + 8);
        p.quoted = true;
        sink(&mut p);
    }

    /// One encapsulation deeper: `seg` itself (now the tunnel's header) one level down, or, past
    /// [`MAX_ENCAPSULATIONS`], an error at the header and `None`.
    fn deeper<'a>(
        &self,
        seg: &Segment<'a>,
        what: &str,
        s: &mut FrameSummary,
    ) -> Option<Segment<'a>> {
        if seg.depth >= MAX_ENCAPSULATIONS {
            s.errors.push(seg.rebase(DecodeError::new(
                0,
                format!(
                    "{what} nested in {MAX_ENCAPSULATIONS} encapsulations already: not decoded further"
                ),
            )));
            return None;
        }
        Some(Segment {
            depth: seg.depth + 1,
            ..seg.sub(0)
        })
    }

    /// IP in IP (IPv4 or IPv6 in either) and GRE.
    fn ip_tunnel(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let what = match seg.protocol {
            tunnel::PROTO_IPIP => "IPv4 in IP",
            tunnel::PROTO_IPV6 => "IPv6 in IP",
            _ => "GRE",
        };
        let Some(inner) = self.deeper(seg, what, s) else {
            return;
        };
        match seg.protocol {
            tunnel::PROTO_IPIP => self.inner_network(frame, Network::Ipv4, &inner, s, sink),
            tunnel::PROTO_IPV6 => self.inner_network(frame, Network::Ipv6, &inner, s, sink),
            _ => {
                let g = match gre::parse(inner.data) {
                    Ok(g) => g,
                    Err(e) => {
                        if self.info {
                            s.info = e.what.to_string();
                        }
                        s.errors.push(inner.rebase(e));
                        return;
                    }
                };
                let payload = Segment {
                    tunnel: g.key.unwrap_or(inner.tunnel),
                    ..inner.sub(g.header_len)
                };
                self.ethertype(frame, g.protocol, "GRE", &payload, s, sink);
            }
        }
    }

    /// VXLAN or Geneve (`kind`, by the UDP destination port); `seg` holds the UDP payload.
    fn udp_tunnel(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        kind: UdpTunnel,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let (what, tag) = match kind {
            UdpTunnel::Vxlan => ("VXLAN", 1 << 24),
            UdpTunnel::Geneve => ("Geneve", 2 << 24),
            UdpTunnel::Teredo => ("Teredo", 0),
        };
        let Some(inner) = self.deeper(seg, what, s) else {
            return;
        };
        let parsed = match kind {
            UdpTunnel::Vxlan => vxlan::parse(inner.data),
            UdpTunnel::Geneve => geneve::parse(inner.data),
            UdpTunnel::Teredo => teredo::parse(inner.data).ok_or_else(|| {
                DecodeError::new(
                    0,
                    "Teredo datagram without an IPv6 packet: not decoded further",
                )
            }),
        };
        let o = match parsed {
            Ok(o) => o,
            Err(e) => {
                s.errors.push(inner.rebase(e));
                return;
            }
        };
        if kind == UdpTunnel::Vxlan && o.vni.is_none() {
            s.errors.push(inner.rebase(DecodeError::new(
                0,
                "VXLAN I flag is clear: the VNI is not valid (the frame is decoded without it)",
            )));
        }
        let payload = Segment {
            tunnel: o.vni.map_or(inner.tunnel, |v| tag | v),
            ..inner.sub(o.header_len)
        };
        self.ethertype(frame, o.protocol, what, &payload, s, sink);
    }

    /// What a GRE or Geneve protocol type (an EtherType) carries.
    fn ethertype(
        &mut self,
        frame: &Frame<'_>,
        t: u16,
        what: &str,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        match t {
            ethernet::ETHERTYPE_IPV4 => self.inner_network(frame, Network::Ipv4, seg, s, sink),
            ethernet::ETHERTYPE_IPV6 => self.inner_network(frame, Network::Ipv6, seg, s, sink),
            ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => self.mpls(frame, seg, s, sink),
            // Through a pointer, as `Place::parse` calls the IP parsers: the frame's link layer
            // keeps its one call of it, inlined.
            tunnel::ETHERTYPE_TEB => match std::hint::black_box(
                ethernet::ethernet as fn(&[u8]) -> Result<link::LinkLayer, DecodeError>,
            )(seg.data)
            {
                Ok(l) => {
                    descend(s);
                    s.src = l.src_mac.map(Address::Mac);
                    s.dst = l.dst_mac.map(Address::Mac);
                    s.protocol = link::network_name(l.network);
                    self.inner_network(frame, l.network, &seg.sub(l.offset), s, sink);
                }
                Err(e) => s.errors.push(seg.rebase(e)),
            },
            _ if !self.info => {}
            t => s.info = format!("{what} protocol type {t:#06x} (not decoded)"),
        }
    }

    /// An MPLS label stack, then IPv4 or IPv6 by the first nibble after it, as tshark guesses.
    fn mpls(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        s.protocol = "MPLS";
        let Some(inner) = self.deeper(seg, "MPLS", s) else {
            return;
        };
        let end = match mpls::parse(inner.data) {
            Ok((end, _)) => end,
            Err(e) => {
                s.errors.push(inner.rebase(e));
                return;
            }
        };
        let payload = inner.sub(end);
        match payload.data.first().map(|b| b >> 4) {
            Some(4) => self.inner_network(frame, Network::Ipv4, &payload, s, sink),
            Some(6) => self.inner_network(frame, Network::Ipv6, &payload, s, sink),
            _ if !self.info => {}
            _ => s.info = "MPLS payload (not decoded)".into(),
        }
    }

    fn udp(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let mut errs = Vec::new();
        let parsed = udp::parse(seg.data, &mut errs);
        s.errors.extend(errs.into_iter().map(|e| seg.rebase(e)));
        let u = match parsed {
            Ok(u) => u,
            Err(e) => {
                s.errors.push(seg.rebase(e));
                return;
            }
        };
        s.src_port = Some(u.sport);
        s.dst_port = Some(u.dport);
        if self.info {
            s.info = format!("{} → {} Len={}", u.sport, u.dport, u.payload.len());
        }
        if u.sport == sctp::UDP_ENCAPSULATION_PORT || u.dport == sctp::UDP_ENCAPSULATION_PORT {
            let inner = Segment {
                data: u.payload,
                ..seg.sub(8)
            };
            return self.sctp(frame, &inner, s, sink);
        }
        let tunnel = self.tunnels.by_ports(u.sport, u.dport).filter(|&k| {
            // Teredo only where an IPv6 packet follows its headers (tshark tries IPv6 there).
            k != UdpTunnel::Teredo || teredo::parse(u.payload).is_some()
        });
        if let Some(kind) = tunnel {
            let inner = Segment {
                data: u.payload,
                ..seg.sub(8)
            };
            let decapsulate: UdpDecapsulator = std::hint::black_box(Self::udp_tunnel);
            return decapsulate(self, frame, &inner, kind, s, sink);
        }
        let mut p = Payload::new(
            Transport::Udp,
            seg.src,
            u.sport,
            seg.dst,
            u.dport,
            u.payload,
        );
        p.frame_offset = seg.at(8);
        sink(&mut p);
    }

    fn tcp(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let t = match tcp::parse_segment(seg.data) {
            Ok(t) => t,
            Err(e) => {
                s.errors.push(seg.rebase(e));
                return;
            }
        };
        s.src_port = Some(t.sport);
        s.dst_port = Some(t.dport);
        let ctx = SegmentContext {
            src: seg.src,
            dst: seg.dst,
            frame: frame.number,
            frame_offset: seg.frame_offset,
            time: frame.ts.as_f64(),
        };
        let mut errs = Vec::new();
        s.info = self
            .tcp
            .segment(&ctx, &t, &mut self.counters, &mut errs, sink);
        for mut e in errs {
            if seg.frame_offset.is_none() {
                e.offset = seg.fallback_offset;
            }
            s.errors.push(e);
        }
    }

    fn sctp(
        &mut self,
        frame: &Frame<'_>,
        seg: &Segment<'_>,
        s: &mut FrameSummary,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        s.protocol = "SCTP";
        if !self.sctp_wanted {
            return;
        }
        self.counters.sctp_packets += 1;
        let h = match sctp::parse_header(seg.data) {
            Ok(h) => h,
            Err(e) => {
                s.errors.push(seg.rebase(e));
                return;
            }
        };
        s.src_port = Some(h.sport);
        s.dst_port = Some(h.dport);
        let mut payload_errors = Vec::new();
        let computed = sctp::crc32c(seg.data);
        // RFC 2960's Adler-32, which old stacks still send, is accepted where it matches (as
        // tshark's sctp.checksum preference "automatic" does).
        if computed != h.checksum && sctp::adler32(seg.data) != h.checksum {
            self.counters.sctp_bad_checksums += 1;
            let e = seg.rebase(DecodeError::new(
                8,
                format!(
                    "SCTP checksum {:#010x} is wrong: the CRC32c of the packet is {computed:#010x} \
                     (its Adler-32, RFC 2960's checksum, {:#010x})",
                    h.checksum,
                    sctp::adler32(seg.data)
                ),
            ));
            s.errors.push(e.clone());
            payload_errors.push(e);
        }
        let mut errs = Vec::new();
        let chunks = sctp::chunks(seg.data, &mut errs);
        let ctx = ChunkContext {
            src: seg.src,
            dst: seg.dst,
            sport: h.sport,
            dport: h.dport,
            frame: frame.number,
            packet_offset: seg.frame_offset,
            payload_errors: &payload_errors,
        };
        let mut info = String::new();
        for c in &chunks {
            if !info.is_empty() {
                info.push(' ');
            }
            match c.kind {
                sctp::DATA | sctp::I_DATA => {
                    let name = sctp::chunk_name(c.kind).unwrap_or("DATA");
                    match sctp::data_chunk(c) {
                        Ok(d) => {
                            let st = self
                                .sctp
                                .chunk(&ctx, &d, &mut self.counters, &mut errs, sink);
                            if self.info {
                                let tsn =
                                    self.sctp.relative_tsn(&ctx, false, d.tsn).unwrap_or(d.tsn);
                                let _ = write!(info, "{name} (TSN={tsn})");
                                if st.duplicate {
                                    info.push_str(" (retransmission)");
                                } else if st.fragment_held {
                                    info.push_str(" (Message Fragment)");
                                }
                            }
                        }
                        Err(e) => {
                            if self.info {
                                info.push_str(name);
                            }
                            errs.push(e);
                        }
                    }
                }
                sctp::INIT | sctp::INIT_ACK => {
                    if self.info {
                        info.push_str(sctp::chunk_name(c.kind).unwrap_or("INIT"));
                    }
                    match c.value.get(12..16) {
                        Some(t) => {
                            let tsn = u32::from_be_bytes([t[0], t[1], t[2], t[3]]);
                            self.sctp.init(&ctx, tsn, &mut self.counters);
                        }
                        None => errs.push(DecodeError::truncated(
                            c.value_offset(),
                            "SCTP INIT chunk",
                            16,
                            c.value.len(),
                        )),
                    }
                }
                sctp::SACK => match c.value.get(..8) {
                    Some(v) if self.info => {
                        let cum = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
                        let ack = self.sctp.relative_tsn(&ctx, true, cum).unwrap_or(cum);
                        let _ = write!(
                            info,
                            "SACK (Ack={ack}, Arwnd={})",
                            u32::from_be_bytes([v[4], v[5], v[6], v[7]])
                        );
                    }
                    Some(_) => {}
                    None => {
                        if self.info {
                            info.push_str("SACK");
                        }
                        errs.push(DecodeError::truncated(
                            c.value_offset(),
                            "SCTP SACK chunk",
                            8,
                            c.value.len(),
                        ));
                    }
                },
                k => match sctp::chunk_name(k) {
                    Some(n) => {
                        if self.info {
                            info.push_str(n);
                        }
                    }
                    None => {
                        if self.info {
                            let _ = write!(info, "UNKNOWN ({k:#04x})");
                        }
                        let what = match sctp::unknown_chunk_action(k) {
                            UnknownChunkAction::Stop => {
                                "the receiver discards the rest of the packet"
                            }
                            UnknownChunkAction::StopAndReport => {
                                "the receiver discards the rest of the packet and reports it"
                            }
                            UnknownChunkAction::Skip => "the receiver skips it",
                            UnknownChunkAction::SkipAndReport => {
                                "the receiver skips it and reports it"
                            }
                        };
                        errs.push(DecodeError::new(
                            c.offset,
                            format!("unrecognised SCTP chunk type {k:#04x}: {what}"),
                        ));
                    }
                },
            }
        }
        if self.info {
            s.info = info;
        }
        s.errors.extend(errs.into_iter().map(|e| seg.rebase(e)));
    }
}

/// tshark's Info for a link payload that is not decoded further.
fn not_decoded_info(n: Network, data: &[u8]) -> String {
    match n {
        Network::Arp => arp::info(data),
        Network::Llc => "IEEE 802.3 frame (not decoded)".into(),
        Network::Other(t) => format!("Ethertype {t:#06x} (not decoded)"),
        Network::Ppp(p) => format!("PPP protocol {p:#06x} (not decoded)"),
        Network::Ipv4 | Network::Ipv6 => String::new(),
    }
}

/// A decapsulator, as the frame's own path calls it.
type Decapsulator = fn(
    &mut Dissector,
    &Frame<'_>,
    &Segment<'_>,
    &mut FrameSummary,
    &mut dyn FnMut(&mut Payload<'_>),
);
type UdpDecapsulator = fn(
    &mut Dissector,
    &Frame<'_>,
    &Segment<'_>,
    UdpTunnel,
    &mut FrameSummary,
    &mut dyn FnMut(&mut Payload<'_>),
);

/// `f`, called through a pointer the compiler cannot see through. The decapsulators call the
/// frame's own path again (`ip`, `transport`, ...) for the inner packet: called directly, they
/// would make that path recursive, and the compiler then stops inlining it (measured: 10% more
/// instructions to dissect an untunnelled frame). Through the pointer, the path has no cycle and
/// compiles as it did; the tunnelled frames pay an indirect call.
fn cold(f: Decapsulator) -> Decapsulator {
    std::hint::black_box(f)
}

/// A tunnel's inner packet starts: the addresses (and a VXLAN or Geneve datagram's ports) shown
/// so far become an outer layer.
fn descend(s: &mut FrameSummary) {
    if let (Some(Address::Ip(src)), Some(Address::Ip(dst))) = (s.src, s.dst) {
        let udp = match (s.protocol, s.src_port, s.dst_port) {
            ("UDP", Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        s.outer.push(OuterLayer { src, dst, udp });
    }
    s.src_port = None;
    s.dst_port = None;
}

fn fragment_info(pkt: &ip::IpPacket<'_>, frag: Option<ip::Fragment>) -> String {
    let (offset, id) = frag.map_or((0, 0), |f| (f.offset, f.id));
    format!(
        "Fragmented IP protocol (proto={} {}, off={offset}, ID={id:04x})",
        ip::protocol_name(pkt.protocol, pkt.version),
        pkt.protocol,
    )
}

#[cfg(test)]
mod tests;
