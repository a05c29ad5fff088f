//! Which application protocol a payload carries, as Wireshark decides it: the user's decode-as
//! rules first, then SCTP payload protocol identifiers, then well-known ports. Also the
//! per-conversation state that decoding needs: the RSerPool encoding each association speaks and
//! the framers that cut TCP streams into messages.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use super::lru::LruMap;
use super::{ConversationKey, Limits, Payload, Transport};
use crate::base::framing::{LengthFramer, LengthRule};
use crate::error::DecodeError;
use crate::proto::rserpool::{self, Encoding};
use crate::proto::{failover, AppProtocol, Message};
use crate::wire::tunnel::{TunnelPorts, UdpTunnel};

/// SCTP payload protocol identifiers (IANA), and the ones of pre-RFC RSerPool.
pub mod ppid {
    pub const ASAP: u32 = 11;
    pub const ENRP: u32 = 12;
    pub const ASAP_LEGACY: u32 = 0xFAEE_B5D1;
    pub const ENRP_LEGACY: u32 = 0xFAEE_B5D2;
}

/// Well-known ports.
pub mod port {
    pub const ASAP: u16 = 3863;
    pub const ENRP: u16 = 9901;
    pub const DHCPV4_SERVER: u16 = 67;
    pub const DHCPV4_CLIENT: u16 = 68;
    pub const DHCPV6_CLIENT: u16 = 546;
    pub const DHCPV6_SERVER: u16 = 547;
    pub const FAILOVER: u16 = 647;
    pub const FAILOVER_ALT: u16 = 847;
}

/// What a decode-as rule matches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// `udp.port==N`, `tcp.port==N`, `sctp.port==N`, or `port==N` for any transport.
    Port(Option<Transport>, u16),
    /// `sctp.ppid==N`.
    Ppid(u32),
}

/// What a decode-as rule decodes its traffic as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One of the application protocols.
    App(AppProtocol),
    /// A tunnel over UDP, whose inner packet is decoded as a frame's.
    Tunnel(UdpTunnel),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::App(p) => write!(f, "{p}"),
            Target::Tunnel(t) => f.write_str(t.name()),
        }
    }
}

/// A user rule: `udp.port==2001:asap` (Wireshark's `-d udp.port==2001,asap` is accepted too), or
/// `udp.port==8472:vxlan` for a tunnel on a port of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeAs {
    pub selector: Selector,
    pub target: Target,
}

impl DecodeAs {
    /// The application protocol the rule decodes, unless it names a tunnel.
    pub fn app(&self) -> Option<AppProtocol> {
        match self.target {
            Target::App(p) => Some(p),
            Target::Tunnel(_) => None,
        }
    }
}

/// The tunnel ports: the defaults, with the rules for UDP ports among `rules` applied in order
/// (as tshark applies its `-d` rules): a tunnel rule puts that tunnel on its port, an application
/// rule takes its port from a tunnel (`udp.port==4789:asap` decodes ASAP there, not VXLAN).
pub fn tunnel_ports(rules: &[DecodeAs]) -> TunnelPorts {
    let mut ports = TunnelPorts::default();
    for r in rules {
        let Selector::Port(None | Some(Transport::Udp), p) = r.selector else {
            continue;
        };
        match r.target {
            Target::Tunnel(t) => ports.set(p, t),
            Target::App(_) => ports.remove(p),
        }
    }
    ports
}

impl FromStr for DecodeAs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let usage = || {
            format!(
                "bad --decode-as {s:?}: expected udp.port==N:PROTO, tcp.port==N:PROTO, \
                 sctp.port==N:PROTO, port==N:PROTO or sctp.ppid==N:PROTO, with PROTO one of asap, \
                 enrp, dhcpv4, dhcpv6, dhcpfo, or udp.port==N:vxlan, udp.port==N:geneve or \
                 udp.port==N:teredo"
            )
        };
        let (sel, proto) = s.rsplit_once([':', ',']).ok_or_else(usage)?;
        let target = match UdpTunnel::from_name(proto.trim()) {
            Some(t) => Target::Tunnel(t),
            None => Target::App(proto.trim().parse().map_err(|e: String| {
                format!("{e}, or vxlan, geneve or teredo for a tunnel over UDP")
            })?),
        };
        let (what, value) = sel.split_once("==").ok_or_else(usage)?;
        let value = value.trim();
        let number = |v: &str| -> Option<u64> {
            match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => v.parse().ok(),
            }
        };
        let n = number(value).ok_or_else(usage)?;
        let port = || {
            u16::try_from(n).map_err(|_| format!("bad --decode-as {s:?}: port {n} is above 65535"))
        };
        let selector = match what.trim() {
            "udp.port" => Selector::Port(Some(Transport::Udp), port()?),
            "tcp.port" => Selector::Port(Some(Transport::Tcp), port()?),
            "sctp.port" => Selector::Port(Some(Transport::Sctp), port()?),
            "port" => Selector::Port(None, port()?),
            "sctp.ppid" => Selector::Ppid(
                u32::try_from(n).map_err(|_| format!("bad --decode-as {s:?}: PPID above 2^32"))?,
            ),
            _ => return Err(usage()),
        };
        if let Target::Tunnel(t) = target {
            if !matches!(selector, Selector::Port(None | Some(Transport::Udp), _)) {
                return Err(format!(
                    "bad --decode-as {s:?}: {} is carried over UDP: use udp.port==N:{}",
                    t.title(),
                    t.name()
                ));
            }
        }
        Ok(DecodeAs { selector, target })
    }
}

impl fmt::Display for DecodeAs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.selector {
            Selector::Port(Some(t), p) => write!(f, "{}.port=={p}:{}", t.name(), self.target),
            Selector::Port(None, p) => write!(f, "port=={p}:{}", self.target),
            Selector::Ppid(p) => write!(f, "sctp.ppid=={p}:{}", self.target),
        }
    }
}

/// The dispatcher's settings.
#[derive(Clone, Debug, Default)]
pub struct DispatchOptions {
    pub decode_as: Vec<DecodeAs>,
    /// Forces one RSerPool encoding instead of detecting it per association.
    pub rserpool_encoding: Option<Encoding>,
    /// Conversations whose state is kept at once (encodings, TCP framers).
    pub conversations: usize,
    /// Bytes of incomplete messages the TCP framers hold, all conversations together (0: the
    /// default of [`Limits`]).
    pub framer_bytes: usize,
    /// Only these protocols are decoded (the others are recognised and left alone); `None`:
    /// all of them.
    pub only: Option<Vec<AppProtocol>>,
}

impl DispatchOptions {
    /// Whether a run with these options wants `protocol` decoded.
    pub fn wants(&self, protocol: AppProtocol) -> bool {
        self.only.as_ref().is_none_or(|o| o.contains(&protocol))
    }

    /// Whether anything wanted can come over SCTP: RSerPool, or a protocol a user rule puts
    /// on an SCTP port or payload protocol.
    pub fn wants_sctp(&self) -> bool {
        self.wants(AppProtocol::Asap)
            || self.wants(AppProtocol::Enrp)
            || self.decode_as.iter().any(|r| {
                r.app().is_some_and(|p| self.wants(p))
                    && match r.selector {
                        Selector::Ppid(_) => true,
                        Selector::Port(t, _) => t.is_none_or(|t| t == Transport::Sctp),
                    }
            })
    }
}

/// Decides the protocol of a payload from the rules, PPIDs and ports alone.
pub fn classify(rules: &[DecodeAs], p: &Payload<'_>) -> Option<AppProtocol> {
    let ports = [p.src_port, p.dst_port];
    for r in rules {
        let Target::App(protocol) = r.target else {
            continue;
        };
        let hit = match r.selector {
            Selector::Port(t, port) => t.is_none_or(|t| t == p.transport) && ports.contains(&port),
            Selector::Ppid(id) => p.transport == Transport::Sctp && p.ppid == Some(id),
        };
        if hit {
            return Some(protocol);
        }
    }
    if p.transport == Transport::Sctp {
        match p.ppid {
            Some(ppid::ASAP | ppid::ASAP_LEGACY) => return Some(AppProtocol::Asap),
            Some(ppid::ENRP | ppid::ENRP_LEGACY) => return Some(AppProtocol::Enrp),
            _ => {}
        }
    }
    // Like Wireshark, try the lower port first.
    let (lo, hi) = if p.src_port <= p.dst_port {
        (p.src_port, p.dst_port)
    } else {
        (p.dst_port, p.src_port)
    };
    [lo, hi]
        .into_iter()
        .find_map(|port| by_port(p.transport, port))
}

fn by_port(t: Transport, p: u16) -> Option<AppProtocol> {
    match (t, p) {
        (_, port::ASAP) => Some(AppProtocol::Asap),
        (_, port::ENRP) => Some(AppProtocol::Enrp),
        (Transport::Udp, port::DHCPV4_SERVER | port::DHCPV4_CLIENT) => Some(AppProtocol::Dhcpv4),
        (Transport::Udp, port::DHCPV6_CLIENT | port::DHCPV6_SERVER) => Some(AppProtocol::Dhcpv6),
        (Transport::Tcp, port::FAILOVER | port::FAILOVER_ALT) => Some(AppProtocol::Failover),
        _ => None,
    }
}

/// RSerPool over TCP: length in the common header, messages padded to 4 bytes.
const RSERPOOL_TCP: LengthRule = LengthRule {
    name: "RSerPool",
    length_offset: 2,
    header_len: 4,
    max_len: 65535,
    align: 4,
};

/// One message found in a payload, handed to the caller's sink.
pub struct Found<'m> {
    pub protocol: AppProtocol,
    pub message: Message<'m>,
    /// Offsets relative to the message start.
    pub errors: Vec<DecodeError>,
    /// Where the message starts in the payload, when it lies within this payload (always for
    /// UDP and SCTP; for TCP when the message did not span segments).
    pub payload_offset: Option<usize>,
    /// Length of the message in bytes.
    pub len: usize,
}

/// Counters of the dispatcher's bounded state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchCounters {
    /// Conversations whose remembered state was dropped to stay within the bound.
    pub conversations_evicted: u64,
    /// Stream bytes dropped by framers to find the next message.
    pub stream_bytes_dropped: u64,
    /// RSerPool messages read in another encoding than first assumed.
    pub rserpool_encoding_switches: u64,
}

/// Per-conversation decoding state.
pub struct Dispatcher {
    opts: DispatchOptions,
    encodings: LruMap<ConversationKey, Encoding>,
    framers: LruMap<(ConversationKey, IpAddr, u16), LengthFramer>,
    /// Bytes all framers hold now, and the bound on it.
    framer_held: usize,
    framer_bytes: usize,
    counters: DispatchCounters,
}

impl Dispatcher {
    pub fn new(opts: DispatchOptions) -> Self {
        let cap = opts.conversations.max(16);
        let framer_bytes = match opts.framer_bytes {
            0 => Limits::default().framer_bytes,
            n => n,
        };
        Dispatcher {
            opts,
            encodings: LruMap::new(cap),
            framers: LruMap::new(cap),
            framer_held: 0,
            framer_bytes,
            counters: DispatchCounters::default(),
        }
    }

    pub fn counters(&self) -> DispatchCounters {
        self.counters
    }

    /// Decodes every message `p` carries (or completes, on a TCP stream) and hands each to `sink`.
    /// Returns the protocol when the payload was one of ours, with the errors that concern the
    /// stream rather than a message (framing), offsets relative to the payload.
    pub fn dispatch(
        &mut self,
        p: &Payload<'_>,
        sink: &mut dyn FnMut(Found<'_>),
    ) -> Option<(AppProtocol, Vec<DecodeError>)> {
        let protocol = classify(&self.opts.decode_as, p)?;
        if !self.opts.wants(protocol) {
            return None;
        }
        if p.transport == Transport::Tcp {
            let errors = self.dispatch_stream(protocol, p, sink);
            return Some((protocol, errors));
        } else {
            let (message, errors) = self.parse(protocol, p.conversation(), p.data);
            sink(Found {
                protocol,
                message,
                errors,
                payload_offset: Some(0),
                len: p.data.len(),
            });
        }
        Some((protocol, Vec::new()))
    }

    fn dispatch_stream(
        &mut self,
        protocol: AppProtocol,
        p: &Payload<'_>,
        sink: &mut dyn FnMut(Found<'_>),
    ) -> Vec<DecodeError> {
        let rule = match protocol {
            AppProtocol::Failover => failover::framer::rule(failover::ISC_MAX_MESSAGE_LEN),
            AppProtocol::Asap | AppProtocol::Enrp => RSERPOOL_TCP,
            // DHCP over TCP is leasequery with a 2-byte length prefix: not framed here yet.
            AppProtocol::Dhcpv4 | AppProtocol::Dhcpv6 => return Vec::new(),
        };
        let conv = p.conversation();
        let key = (conv, p.src, p.src_port);
        let (mut evicted, mut lost) = (0u64, 0usize);
        let framer = self.framers.get_or_insert_with(
            &key,
            || LengthFramer::new(rule),
            |f| {
                evicted += 1;
                lost += f.pending();
            },
        );
        let held_before = framer.pending();
        if p.stream_offset == Some(0) || p.gap_before {
            framer.reset();
        }
        let before = framer.dropped();
        // Where this payload starts in the framer's stream, to tell whether a message lies in it.
        let start = framer.stream_end();
        framer.push(p.data);
        let mut out = Vec::new();
        while let Some(r) = framer.next_message() {
            out.push(r);
        }
        self.counters.stream_bytes_dropped += framer.dropped() - before;
        self.framer_held = (self.framer_held + framer.pending())
            .saturating_sub(held_before)
            .saturating_sub(lost);
        self.counters.conversations_evicted += evicted;
        self.counters.stream_bytes_dropped += lost as u64;
        self.shed_framers();
        let mut stream_errors = Vec::new();
        let in_payload = |o: u64| o.checked_sub(start).and_then(|o| usize::try_from(o).ok());
        for r in out {
            match r {
                Ok(framed) => {
                    let payload_offset = in_payload(framed.stream_offset);
                    let (message, errors) = self.parse(protocol, conv, &framed.bytes);
                    sink(Found {
                        protocol,
                        message,
                        errors,
                        payload_offset,
                        len: framed.bytes.len(),
                    });
                }
                Err(mut e) => {
                    e.offset = in_payload(e.offset as u64).unwrap_or(0);
                    stream_errors.push(e);
                }
            }
        }
        stream_errors
    }

    /// Forgets the partial messages of the least recently used framers until the bytes held are
    /// within the bound again (many connections each holding most of a 64 KiB message could
    /// otherwise hold gigabytes).
    fn shed_framers(&mut self) {
        while self.framer_held > self.framer_bytes {
            let (mut evicted, mut freed) = (0u64, 0usize);
            self.framers.evict_oldest(|f| {
                evicted += 1;
                freed += f.pending();
            });
            if evicted == 0 {
                break;
            }
            self.framer_held = self.framer_held.saturating_sub(freed);
            self.counters.conversations_evicted += evicted;
            self.counters.stream_bytes_dropped += freed as u64;
        }
    }

    /// Bytes the TCP framers hold now, all conversations together.
    pub fn framer_held_bytes(&self) -> usize {
        self.framer_held
    }

    fn parse<'m>(
        &mut self,
        protocol: AppProtocol,
        conv: ConversationKey,
        buf: &'m [u8],
    ) -> (Message<'m>, Vec<DecodeError>) {
        if !matches!(protocol, AppProtocol::Asap | AppProtocol::Enrp) {
            return Message::parse(buf, protocol, Encoding::Rfc);
        }
        if let Some(forced) = self.opts.rserpool_encoding {
            return Message::parse(buf, protocol, forced);
        }
        let rp = if protocol == AppProtocol::Asap {
            rserpool::Protocol::Asap
        } else {
            rserpool::Protocol::Enrp
        };
        let mut evicted = 0u64;
        let known = self.encodings.get_mut(&conv).copied();
        let enc = match known {
            Some(e) => e,
            None => {
                let e = rserpool::guess_encoding(buf, rp);
                if let Some(e) = e {
                    self.encodings
                        .get_or_insert_with(&conv, || e, |_| evicted += 1);
                }
                e.unwrap_or(Encoding::Rfc)
            }
        };
        let (m, errs) = Message::parse(buf, protocol, enc);
        self.counters.conversations_evicted += evicted;
        if errs.is_empty() {
            return (m, errs);
        }
        // The association may speak another encoding than the one remembered (or assumed).
        match rserpool::guess_encoding(buf, rp) {
            Some(g) if g != enc => {
                let (m2, errs2) = Message::parse(buf, protocol, g);
                if errs2.len() < errs.len() {
                    let mut evicted = 0u64;
                    *self
                        .encodings
                        .get_or_insert_with(&conv, || g, |_| evicted += 1) = g;
                    self.counters.conversations_evicted += evicted;
                    self.counters.rserpool_encoding_switches += 1;
                    return (m2, errs2);
                }
                (m, errs)
            }
            _ => (m, errs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(s: &str) -> Result<DecodeAs, String> {
        s.parse()
    }

    #[test]
    fn rules_name_a_protocol_or_a_tunnel_in_either_spelling() {
        let r = rule("udp.port==2001,asap").unwrap();
        assert_eq!(r.selector, Selector::Port(Some(Transport::Udp), 2001));
        assert_eq!(r.target, Target::App(AppProtocol::Asap));
        assert_eq!(r.to_string(), "udp.port==2001:asap");
        let r = rule("udp.port==8472,vxlan").unwrap();
        assert_eq!(r.target, Target::Tunnel(UdpTunnel::Vxlan));
        assert_eq!(r.app(), None);
        assert_eq!(r.to_string(), "udp.port==8472:vxlan");
        let r = rule("port==0x1f90:GENEVE").unwrap();
        assert_eq!(r.selector, Selector::Port(None, 8080));
        assert_eq!(r.target, Target::Tunnel(UdpTunnel::Geneve));
        // Round trip of the written form.
        for s in [
            "tcp.port==7911:dhcpfo",
            "sctp.ppid==99:enrp",
            "port==8472:vxlan",
            "udp.port==4789:geneve",
        ] {
            assert_eq!(rule(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn a_tunnel_is_refused_anywhere_but_udp() {
        for s in [
            "tcp.port==8472:vxlan",
            "sctp.port==8472:geneve",
            "sctp.ppid==5:vxlan",
        ] {
            let e = rule(s).unwrap_err();
            assert!(
                e.contains("is carried over UDP: use udp.port==N:"),
                "{s}: {e}"
            );
        }
        let e = rule("udp.port==8472:vxlan-gpe").unwrap_err();
        assert!(e.contains("or vxlan, geneve or teredo"), "{e}");
        let e = rule("udp.port==70000:vxlan").unwrap_err();
        assert!(e.contains("above 65535"), "{e}");
    }

    #[test]
    fn tunnel_rules_add_and_move_ports_and_are_not_application_rules() {
        let defaults = tunnel_ports(&[]);
        assert_eq!(defaults.by_port(4789), Some(UdpTunnel::Vxlan));
        assert_eq!(defaults.by_port(6081), Some(UdpTunnel::Geneve));
        assert_eq!(defaults.by_port(3544), Some(UdpTunnel::Teredo));
        assert_eq!(defaults.by_port(8472), None);
        // Teredo's port as the source too (a server's answer), the others as the destination.
        assert_eq!(defaults.by_ports(3544, 50000), Some(UdpTunnel::Teredo));
        assert_eq!(defaults.by_ports(4789, 50000), None);
        let rules = [
            rule("udp.port==8472:vxlan").unwrap(),
            rule("udp.port==4789:geneve").unwrap(),
            rule("udp.port==2001:asap").unwrap(),
        ];
        let ports = tunnel_ports(&rules);
        assert_eq!(ports.by_port(8472), Some(UdpTunnel::Vxlan));
        assert_eq!(ports.by_port(4789), Some(UdpTunnel::Geneve));
        assert_eq!(ports.by_port(6081), Some(UdpTunnel::Geneve));
        assert_eq!(ports.by_port(2001), None);
        let mut ps: Vec<u16> = ports.ports().collect();
        ps.sort_unstable();
        assert_eq!(ps, [3544, 4789, 6081, 8472]);
        // A later rule for the same port wins, as a later -d does in tshark.
        let ports = tunnel_ports(&[
            rule("udp.port==8472:vxlan").unwrap(),
            rule("udp.port==8472:geneve").unwrap(),
        ]);
        assert_eq!(ports.by_port(8472), Some(UdpTunnel::Geneve));
        // An application rule takes a UDP port from a tunnel, and a later tunnel rule back.
        let ports = tunnel_ports(&[rule("udp.port==4789:asap").unwrap()]);
        assert_eq!(ports.by_port(4789), None);
        assert_eq!(ports.by_port(6081), Some(UdpTunnel::Geneve));
        let ports = tunnel_ports(&[rule("port==6081:dhcpv4").unwrap()]);
        assert_eq!(ports.by_port(6081), None);
        let ports = tunnel_ports(&[rule("tcp.port==4789:dhcpfo").unwrap()]);
        assert_eq!(
            ports.by_port(4789),
            Some(UdpTunnel::Vxlan),
            "TCP's 4789 is not UDP's"
        );
        let ports = tunnel_ports(&[
            rule("udp.port==4789:asap").unwrap(),
            rule("udp.port==4789:vxlan").unwrap(),
        ]);
        assert_eq!(ports.by_port(4789), Some(UdpTunnel::Vxlan));
        // Tunnel rules never classify a payload as an application protocol.
        let p = Payload::new(
            Transport::Udp,
            IpAddr::from([10, 0, 0, 1]),
            40000,
            IpAddr::from([10, 0, 0, 2]),
            8472,
            &[],
        );
        assert_eq!(classify(&rules, &p), None);
        let opts = DispatchOptions {
            decode_as: vec![rule("port==8472:vxlan").unwrap()],
            only: Some(vec![AppProtocol::Dhcpv4]),
            ..DispatchOptions::default()
        };
        assert!(!opts.wants_sctp());
    }
}
