//! Capture filters compiled to classic BPF by poolshark itself, so the default build needs no
//! libpcap: the default filter (only what poolshark decodes) and a documented subset of the
//! tcpdump filter language with libpcap's semantics.
//!
//! The subset (`-f`): primitives `ip`, `ip6`, `udp`, `tcp`, `sctp`,
//! `[udp|tcp|sctp] [src|dst] port N`, `[src|dst] host ADDR` (IPv4 or IPv6 literal), combined with
//! `and`/`&&`, `or`/`||`, `not`/`!` and parentheses. As in libpcap: `udp`, `tcp` and `sctp` also
//! match an IPv6 packet whose fragment header carries them; a port test never matches a
//! non-first IPv4 fragment; `host` with an IPv4 address matches ARP and RARP too. Anything else
//! is refused with a message naming the `libpcap` feature, which compiles full expressions.
//!
//! The live source ([`crate::source::live`]) takes a filter already compiled here
//! ([`compiled_default`], [`compiled_expression`]): a program for each way a device's frames
//! begin ([`Framing`]), and the same filter in libpcap's language for the `libpcap` backend. The
//! code generator, interpreter and disassembler of the programs are [`bpf`].

pub mod bpf;

use std::fmt;
use std::net::IpAddr;

use crate::dissect::dispatch::{port, DecodeAs, Selector};
use crate::dissect::Transport;
use crate::source::live::bpf::{ancillary, op, Insn, ACCEPT, MAX_INSNS};
use crate::source::live::{CompiledFilter, FilterChoice};
use crate::wire::tunnel::{GENEVE_PORT, PROTO_GRE, PROTO_IPIP, PROTO_IPV6, VXLAN_PORT};
use bpf::{Builder, Label};

const ETHERTYPE_IPV4: u32 = 0x0800;
const ETHERTYPE_IPV6: u32 = 0x86dd;
const ETHERTYPE_ARP: u32 = 0x0806;
const ETHERTYPE_RARP: u32 = 0x8035;
const PROTO_TCP: u32 = 6;
const PROTO_UDP: u32 = 17;
const PROTO_SCTP: u32 = 132;
/// IPv6 headers a port test cannot see through: hop-by-hop, routing, fragment, destination
/// options. The default filter keeps them rather than lose a DHCPv6 message behind one.
const IPV6_EXTENSION_HEADERS: [u32; 4] = [0, 43, 44, 60];
const IPV6_FRAGMENT: u32 = 44;

/// UDP ports poolshark decodes: DHCPv4, DHCPv6, ASAP, ENRP, SCTP over UDP (RFC 6951), and the
/// tunnels whose inner packets are decoded (VXLAN, Geneve).
pub const DEFAULT_UDP_PORTS: [u16; 9] = [
    port::DHCPV4_SERVER,
    port::DHCPV4_CLIENT,
    port::DHCPV6_CLIENT,
    port::DHCPV6_SERVER,
    port::ASAP,
    port::ENRP,
    9899,
    VXLAN_PORT,
    GENEVE_PORT,
];
/// IP protocols of the tunnels whose inner packets are decoded: IPv4 and IPv6 in IP, GRE. A
/// port filter cannot see inside them, so the default keeps them whole.
pub const TUNNEL_PROTOCOLS: [u8; 3] = [PROTO_IPIP, PROTO_IPV6, PROTO_GRE];
/// TCP ports poolshark decodes: ISC failover (647, 847), RSerPool over TCP.
pub const DEFAULT_TCP_PORTS: [u16; 4] =
    [port::FAILOVER, port::FAILOVER_ALT, port::ASAP, port::ENRP];

/// How the captured bytes begin, which decides where the network header is and how the
/// EtherType is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// An Ethernet header (14 bytes, EtherType at 12), as on Ethernet and loopback devices.
    Ethernet,
    /// The network header first (cooked sockets, `-i any`, tun devices): the EtherType comes
    /// from the kernel's metadata (an ancillary load).
    Network,
}

impl Framing {
    fn network_offset(self) -> u32 {
        match self {
            Framing::Ethernet => 14,
            Framing::Network => 0,
        }
    }
}

/// A capture filter as a tree of tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Ip,
    Ip6,
    /// `udp`, `tcp`, `sctp`.
    Proto(u8),
    /// `[proto] [src|dst] port N`: `protos` empty means TCP, UDP or SCTP.
    Port {
        protos: Vec<u8>,
        dir: Dir,
        ports: Vec<u16>,
    },
    Host {
        dir: Dir,
        addr: IpAddr,
    },
    /// The rest of an IPv4 datagram that was fragmented (fragment offset not zero).
    Ipv4LaterFragment,
    /// An IPv6 packet whose next header is one of these.
    Ipv6NextHeader(Vec<u8>),
}

/// Which address or port a test looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Src,
    Dst,
    Either,
}

impl Expr {
    fn or(self, other: Expr) -> Expr {
        Expr::Or(Box::new(self), Box::new(other))
    }

    fn and(self, other: Expr) -> Expr {
        Expr::And(Box::new(self), Box::new(other))
    }
}

/// The default filter: SCTP, the later fragments of IPv4 datagrams (a port filter cannot see
/// them, and reassembly needs them), IPv6 packets with an extension header before the transport,
/// IP-in-IP and GRE tunnels, and UDP and TCP on the ports poolshark decodes (VXLAN's and Geneve's
/// among them), plus those of the user's decode-as rules.
pub fn default_filter(decode_as: &[DecodeAs]) -> Expr {
    let mut udp: Vec<u16> = DEFAULT_UDP_PORTS.to_vec();
    let mut tcp: Vec<u16> = DEFAULT_TCP_PORTS.to_vec();
    for rule in decode_as {
        if let Selector::Port(t, p) = rule.selector {
            if matches!(t, None | Some(Transport::Udp)) && !udp.contains(&p) {
                udp.push(p);
            }
            if matches!(t, None | Some(Transport::Tcp)) && !tcp.contains(&p) {
                tcp.push(p);
            }
        }
    }
    let ext: Vec<u8> = IPV6_EXTENSION_HEADERS.iter().map(|&h| h as u8).collect();
    let tunnels = TUNNEL_PROTOCOLS
        .iter()
        .fold(Expr::Proto(PROTO_SCTP as u8), |e, &p| e.or(Expr::Proto(p)));
    tunnels
        .or(Expr::Ipv4LaterFragment)
        .or(Expr::Ipv6NextHeader(ext))
        .or(Expr::Port {
            protos: vec![PROTO_UDP as u8],
            dir: Dir::Either,
            ports: udp,
        })
        .or(Expr::Port {
            protos: vec![PROTO_TCP as u8],
            dir: Dir::Either,
            ports: tcp,
        })
}

/// A filter that could not be understood or compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    /// The word of the expression where understanding stopped (0-based), when known.
    pub word: Option<usize>,
    pub what: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.word {
            Some(w) => write!(f, "at word {}: {}", w + 1, self.what)?,
            None => write!(f, "{}", self.what)?,
        }
        write!(
            f,
            ". This build compiles a subset of the filter language: ip, ip6, udp, tcp, sctp, \
             [udp|tcp|sctp] [src|dst] port N, [src|dst] host ADDR, joined by and, or, not and \
             parentheses; build poolshark with `--features libpcap` for full libpcap expressions"
        )
    }
}

impl std::error::Error for FilterError {}

/// Parses an expression of the subset.
pub fn parse(text: &str) -> Result<Expr, FilterError> {
    let words = tokenize(text);
    if words.is_empty() {
        return Err(FilterError {
            word: None,
            what: "the filter is empty".into(),
        });
    }
    let mut p = Parser { words, at: 0 };
    let e = p.or_expr()?;
    match p.peek() {
        None => Ok(e),
        Some(w) => Err(p.error(format!("unexpected {w:?}"))),
    }
}

fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let single = matches!(c, '(' | ')') || (c == '!' && chars.peek() != Some(&'='));
        let double =
            (c == '&' && chars.peek() == Some(&'&')) || (c == '|' && chars.peek() == Some(&'|'));
        if c.is_whitespace() || single || double {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if single {
                out.push(c.to_string());
            } else if double {
                chars.next();
                out.push(format!("{c}{c}"));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

struct Parser {
    words: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> Option<String> {
        let w = self.words.get(self.at).cloned();
        if w.is_some() {
            self.at += 1;
        }
        w
    }

    fn error(&self, what: String) -> FilterError {
        FilterError {
            word: Some(self.at),
            what,
        }
    }

    fn or_expr(&mut self) -> Result<Expr, FilterError> {
        let mut e = self.and_expr()?;
        while matches!(self.peek(), Some("or" | "||")) {
            self.at += 1;
            e = e.or(self.and_expr()?);
        }
        Ok(e)
    }

    fn and_expr(&mut self) -> Result<Expr, FilterError> {
        let mut e = self.unary()?;
        while matches!(self.peek(), Some("and" | "&&")) {
            self.at += 1;
            e = e.and(self.unary()?);
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        match self.peek() {
            Some("not" | "!") => {
                self.at += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some("(") => {
                self.at += 1;
                let e = self.or_expr()?;
                if self.next().as_deref() != Some(")") {
                    return Err(self.error("expected \")\"".into()));
                }
                Ok(e)
            }
            _ => self.primitive(),
        }
    }

    fn primitive(&mut self) -> Result<Expr, FilterError> {
        let Some(first) = self.next() else {
            return Err(self.error("expected a primitive at the end of the filter".into()));
        };
        let proto = match first.as_str() {
            "udp" => Some(PROTO_UDP as u8),
            "tcp" => Some(PROTO_TCP as u8),
            "sctp" => Some(PROTO_SCTP as u8),
            _ => None,
        };
        let word = if proto.is_some() {
            // `udp` alone, or `udp [src|dst] port N`.
            match self.peek() {
                Some("src" | "dst" | "port") => self.next().unwrap_or_default(),
                _ => return Ok(Expr::Proto(proto.unwrap_or_default())),
            }
        } else {
            first
        };
        match word.as_str() {
            "ip" => return Ok(Expr::Ip),
            "ip6" => return Ok(Expr::Ip6),
            _ => {}
        }
        let (dir, kind) = match word.as_str() {
            "src" | "dst" => {
                let dir = if word == "src" { Dir::Src } else { Dir::Dst };
                match self.next() {
                    Some(k) if k == "port" || k == "host" => (dir, k),
                    Some(k) => {
                        return Err(
                            self.error(format!("expected port or host after {word}, found {k:?}"))
                        )
                    }
                    None => return Err(self.error(format!("expected port or host after {word}"))),
                }
            }
            "port" | "host" => (Dir::Either, word),
            other => {
                self.at = self.at.saturating_sub(1);
                return Err(self.error(format!("{other:?} is not a primitive this build knows")));
            }
        };
        let Some(value) = self.next() else {
            return Err(self.error(format!("expected a value after {kind}")));
        };
        // Errors about the value point at it.
        self.at = self.at.saturating_sub(1);
        if kind == "port" {
            let p: u16 = value.parse().map_err(|_| {
                self.error(format!("port {value:?} is not a number from 0 to 65535 (service names are not looked up)"))
            })?;
            self.at += 1;
            return Ok(Expr::Port {
                protos: proto.into_iter().collect(),
                dir,
                ports: vec![p],
            });
        }
        if proto.is_some() {
            return Err(
                self.error("a host test cannot follow udp, tcp or sctp; join them with and".into())
            );
        }
        let addr: IpAddr = value.parse().map_err(|_| {
            self.error(format!(
                "host {value:?} is not an IPv4 or IPv6 address (names are not resolved)"
            ))
        })?;
        self.at += 1;
        Ok(Expr::Host { dir, addr })
    }
}

/// Where a test reads its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Load {
    EtherType,
    /// `size` bytes at an absolute offset.
    Abs(u16, u32),
    /// A half-word at `offset` after the IPv4 header (whose length is read first).
    AfterIpv4(u32),
}

/// The low-level tree the code generator walks.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cond {
    /// True when the loaded value equals one of the values.
    Eq(Load, Vec<u32>),
    /// True when the loaded value has one of the bits set.
    Set(Load, u32),
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
}

fn lower(e: &Expr, framing: Framing) -> Cond {
    let l = framing.network_offset();
    let ethertype = |t: u32| Cond::Eq(Load::EtherType, vec![t]);
    let protos = |ps: &[u8]| -> Vec<u32> { ps.iter().map(|&p| u32::from(p)).collect() };
    match e {
        Expr::And(a, b) => Cond::All(vec![lower(a, framing), lower(b, framing)]),
        Expr::Or(a, b) => Cond::Any(vec![lower(a, framing), lower(b, framing)]),
        Expr::Not(a) => Cond::Not(Box::new(lower(a, framing))),
        Expr::Ip => ethertype(ETHERTYPE_IPV4),
        Expr::Ip6 => ethertype(ETHERTYPE_IPV6),
        Expr::Proto(p) => {
            let p = vec![u32::from(*p)];
            Cond::Any(vec![
                Cond::All(vec![
                    ethertype(ETHERTYPE_IPV4),
                    Cond::Eq(Load::Abs(op::B, l + 9), p.clone()),
                ]),
                Cond::All(vec![
                    ethertype(ETHERTYPE_IPV6),
                    Cond::Any(vec![
                        Cond::Eq(Load::Abs(op::B, l + 6), p.clone()),
                        Cond::All(vec![
                            Cond::Eq(Load::Abs(op::B, l + 6), vec![IPV6_FRAGMENT]),
                            Cond::Eq(Load::Abs(op::B, l + 40), p),
                        ]),
                    ]),
                ]),
            ])
        }
        Expr::Port {
            protos: ps,
            dir,
            ports,
        } => {
            let ps = if ps.is_empty() {
                vec![PROTO_SCTP, PROTO_TCP, PROTO_UDP]
            } else {
                protos(ps)
            };
            let ports: Vec<u32> = ports.iter().map(|&p| u32::from(p)).collect();
            let pick = |src: Load, dst: Load| -> Cond {
                match dir {
                    Dir::Src => Cond::Eq(src, ports.clone()),
                    Dir::Dst => Cond::Eq(dst, ports.clone()),
                    Dir::Either => Cond::Any(vec![
                        Cond::Eq(src, ports.clone()),
                        Cond::Eq(dst, ports.clone()),
                    ]),
                }
            };
            Cond::Any(vec![
                Cond::All(vec![
                    ethertype(ETHERTYPE_IPV6),
                    Cond::Eq(Load::Abs(op::B, l + 6), ps.clone()),
                    pick(Load::Abs(op::H, l + 40), Load::Abs(op::H, l + 42)),
                ]),
                Cond::All(vec![
                    ethertype(ETHERTYPE_IPV4),
                    Cond::Eq(Load::Abs(op::B, l + 9), ps),
                    Cond::Not(Box::new(Cond::Set(Load::Abs(op::H, l + 6), 0x1fff))),
                    pick(Load::AfterIpv4(0), Load::AfterIpv4(2)),
                ]),
            ])
        }
        Expr::Host { dir, addr } => match addr {
            IpAddr::V4(a) => {
                let a = vec![u32::from(*a)];
                let pick = |src: u32, dst: u32| -> Cond {
                    let s = Cond::Eq(Load::Abs(op::W, src), a.clone());
                    let d = Cond::Eq(Load::Abs(op::W, dst), a.clone());
                    match dir {
                        Dir::Src => s,
                        Dir::Dst => d,
                        Dir::Either => Cond::Any(vec![s, d]),
                    }
                };
                Cond::Any(vec![
                    Cond::All(vec![ethertype(ETHERTYPE_IPV4), pick(l + 12, l + 16)]),
                    Cond::All(vec![
                        Cond::Eq(Load::EtherType, vec![ETHERTYPE_ARP, ETHERTYPE_RARP]),
                        pick(l + 14, l + 24),
                    ]),
                ])
            }
            IpAddr::V6(a) => {
                let o = a.octets();
                let words: Vec<u32> = o
                    .chunks_exact(4)
                    .map(|c| c.iter().fold(0u32, |v, b| (v << 8) | u32::from(*b)))
                    .collect();
                let at = |base: u32| -> Cond {
                    Cond::All(
                        words
                            .iter()
                            .zip(0u32..)
                            .map(|(w, i)| Cond::Eq(Load::Abs(op::W, base + 4 * i), vec![*w]))
                            .collect(),
                    )
                };
                let test = match dir {
                    Dir::Src => at(l + 8),
                    Dir::Dst => at(l + 24),
                    Dir::Either => Cond::Any(vec![at(l + 8), at(l + 24)]),
                };
                Cond::All(vec![ethertype(ETHERTYPE_IPV6), test])
            }
        },
        Expr::Ipv4LaterFragment => Cond::All(vec![
            ethertype(ETHERTYPE_IPV4),
            Cond::Set(Load::Abs(op::H, l + 6), 0x1fff),
        ]),
        Expr::Ipv6NextHeader(hs) => Cond::All(vec![
            ethertype(ETHERTYPE_IPV6),
            Cond::Eq(Load::Abs(op::B, l + 6), protos(hs)),
        ]),
    }
}

fn emit_load(b: &mut Builder, load: Load, framing: Framing) {
    match load {
        Load::EtherType => match framing {
            Framing::Ethernet => b.insn(op::LD | op::H | op::ABS, 12),
            Framing::Network => b.insn(
                op::LD | op::H | op::ABS,
                ancillary::AD_OFF + ancillary::PROTOCOL,
            ),
        },
        Load::Abs(size, at) => b.insn(op::LD | size | op::ABS, at),
        Load::AfterIpv4(off) => {
            let l = framing.network_offset();
            b.insn(op::LDX | op::B | op::MSH, l);
            b.insn(op::LD | op::H | op::IND, l + off);
        }
    }
}

fn emit(b: &mut Builder, c: &Cond, t: Label, f: Label, framing: Framing) {
    match c {
        Cond::Eq(load, values) => {
            emit_load(b, *load, framing);
            let n = values.len();
            for (i, v) in values.iter().enumerate() {
                if i + 1 == n {
                    b.cond(op::JEQ, *v, t, f);
                } else {
                    let next = b.label();
                    b.cond(op::JEQ, *v, t, next);
                    b.place(next);
                }
            }
            if n == 0 {
                b.goto(f);
            }
        }
        Cond::Set(load, mask) => {
            emit_load(b, *load, framing);
            b.cond(op::JSET, *mask, t, f);
        }
        Cond::All(cs) => {
            for (i, c) in cs.iter().enumerate() {
                if i + 1 == cs.len() {
                    emit(b, c, t, f, framing);
                } else {
                    let next = b.label();
                    emit(b, c, next, f, framing);
                    b.place(next);
                }
            }
            if cs.is_empty() {
                b.goto(t);
            }
        }
        Cond::Any(cs) => {
            for (i, c) in cs.iter().enumerate() {
                if i + 1 == cs.len() {
                    emit(b, c, t, f, framing);
                } else {
                    let next = b.label();
                    emit(b, c, t, next, framing);
                    b.place(next);
                }
            }
            if cs.is_empty() {
                b.goto(f);
            }
        }
        Cond::Not(c) => emit(b, c, f, t, framing),
    }
}

/// Compiles a filter for packets that begin as `framing` says; the program keeps a matching
/// packet whole.
pub fn compile(e: &Expr, framing: Framing) -> Result<Vec<Insn>, FilterError> {
    let cond = lower(e, framing);
    let mut b = Builder::new();
    let accept = b.label();
    let reject = b.label();
    emit(&mut b, &cond, accept, reject, framing);
    b.place(accept);
    b.insn(op::RET | op::K, ACCEPT);
    b.place(reject);
    b.insn(op::RET | op::K, 0);
    b.finish().map_err(|e| FilterError {
        word: None,
        what: format!(
            "the compiled filter needs more than {} instructions ({})",
            MAX_INSNS, e.0
        ),
    })
}

/// The default filter compiled for the live source: what poolshark decodes, with the ports of
/// the decode-as rules.
pub fn compiled_default(decode_as: &[DecodeAs]) -> FilterChoice {
    let e = default_filter(decode_as);
    let description = if decode_as.is_empty() {
        "default (what poolshark decodes)"
    } else {
        "default (what poolshark decodes, with the decode-as ports)"
    };
    FilterChoice::Compiled(CompiledFilter {
        ethernet: compile(&e, Framing::Ethernet).map_err(|e| e.to_string()),
        network: compile(&e, Framing::Network).map_err(|e| e.to_string()),
        beyond_subset: false,
        expression: default_expression(decode_as),
        description: description.into(),
    })
}

/// A `-f` expression compiled for the live source: by poolshark when it is of the subset, else
/// left to libpcap (the programs then hold why poolshark could not take it).
pub fn compiled_expression(text: &str) -> FilterChoice {
    let (ethernet, network, beyond_subset) = match parse(text) {
        Ok(e) => (
            compile(&e, Framing::Ethernet).map_err(|e| e.to_string()),
            compile(&e, Framing::Network).map_err(|e| e.to_string()),
            false,
        ),
        Err(e) => (Err(e.to_string()), Err(e.to_string()), true),
    };
    FilterChoice::Compiled(CompiledFilter {
        ethernet,
        network,
        beyond_subset,
        expression: text.to_string(),
        description: text.to_string(),
    })
}

/// The default filter in libpcap's language: the same packets as the built-in program.
fn default_expression(rules: &[DecodeAs]) -> String {
    let mut udp: Vec<u16> = DEFAULT_UDP_PORTS.to_vec();
    let mut tcp: Vec<u16> = DEFAULT_TCP_PORTS.to_vec();
    for r in rules {
        if let Selector::Port(t, p) = r.selector {
            if matches!(t, None | Some(Transport::Udp)) && !udp.contains(&p) {
                udp.push(p);
            }
            if matches!(t, None | Some(Transport::Tcp)) && !tcp.contains(&p) {
                tcp.push(p);
            }
        }
    }
    let ports = |proto: &str, ps: &[u16]| {
        ps.iter()
            .map(|p| format!("{proto} port {p}"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let tunnels = TUNNEL_PROTOCOLS
        .iter()
        .map(|p| format!("ip proto {p} or ip6 proto {p}"))
        .collect::<Vec<_>>()
        .join(" or ");
    format!(
        "sctp or {tunnels} or (ip and ip[6:2] & 0x1fff != 0) or (ip6 and (ip6[6] == 0 or \
         ip6[6] == 43 or ip6[6] == 44 or ip6[6] == 60)) or {} or {}",
        ports("udp", &udp),
        ports("tcp", &tcp)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::live::bpf::without_loopback_echoes;

    #[test]
    fn parses_the_subset() {
        assert_eq!(parse("udp").unwrap(), Expr::Proto(17));
        assert_eq!(
            parse("udp port 3863").unwrap(),
            Expr::Port {
                protos: vec![17],
                dir: Dir::Either,
                ports: vec![3863]
            }
        );
        assert_eq!(
            parse("tcp dst port 647").unwrap(),
            Expr::Port {
                protos: vec![6],
                dir: Dir::Dst,
                ports: vec![647]
            }
        );
        assert_eq!(
            parse("src host ::1").unwrap(),
            Expr::Host {
                dir: Dir::Src,
                addr: "::1".parse().unwrap()
            }
        );
        let e = parse("not (udp port 67||sctp)&&ip6").unwrap();
        assert_eq!(
            e,
            Expr::Not(Box::new(
                Expr::Port {
                    protos: vec![17],
                    dir: Dir::Either,
                    ports: vec![67]
                }
                .or(Expr::Proto(132))
            ))
            .and(Expr::Ip6)
        );
        // `and` binds tighter than `or`, as in libpcap.
        assert_eq!(
            parse("ip or ip6 and udp").unwrap(),
            Expr::Ip.or(Expr::Ip6.and(Expr::Proto(17)))
        );
    }

    #[test]
    fn refuses_what_it_does_not_know_and_names_the_feature() {
        for (text, word) in [
            ("udp port bootps", Some(2)),
            ("net 10.0.0.0/8", Some(0)),
            ("host example.com", Some(1)),
            ("udp and", Some(2)),
            ("(udp", Some(2)),
            ("udp port 70000", Some(2)),
            ("", None),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.word, word, "{text}: {e}");
            assert!(e.to_string().contains("--features libpcap"), "{e}");
        }
    }

    #[test]
    fn loopback_echoes_are_dropped_and_nothing_else_changes() {
        let prog = without_loopback_echoes(&compile(&Expr::Proto(17), Framing::Network).unwrap());
        let mut pkt = vec![
            0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
        ];
        pkt.extend_from_slice(&[0x13, 0x88, 0x07, 0xd1, 0, 8, 0, 0]);
        let meta = |pkttype: u8, hatype: u16| bpf::Meta {
            protocol: 0x0800,
            pkttype,
            hatype,
            ..Default::default()
        };
        assert_eq!(bpf::run(&prog, &pkt, &meta(4, 772)), 0);
        assert_eq!(bpf::run(&prog, &pkt, &meta(0, 772)), ACCEPT);
        // Outgoing on Ethernet is real traffic.
        assert_eq!(bpf::run(&prog, &pkt, &meta(4, 1)), ACCEPT);
        pkt[9] = 6;
        assert_eq!(bpf::run(&prog, &pkt, &meta(0, 772)), 0);
    }

    #[test]
    fn the_default_filter_takes_decode_as_ports() {
        let rule: DecodeAs = "udp.port==2001:asap".parse().unwrap();
        let e = default_filter(&[rule]);
        let prog = compile(&e, Framing::Network).unwrap();
        // IPv4 UDP 5000 -> 2001, network framing.
        let mut pkt = vec![
            0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
        ];
        pkt.extend_from_slice(&[0x13, 0x88, 0x07, 0xd1, 0, 8, 0, 0]);
        let meta = bpf::Meta {
            protocol: 0x0800,
            ..Default::default()
        };
        assert_eq!(bpf::run(&prog, &pkt, &meta), ACCEPT);
        let plain = compile(&default_filter(&[]), Framing::Network).unwrap();
        assert_eq!(bpf::run(&plain, &pkt, &meta), 0);
    }

    /// Tunnels whose inner packets poolshark decodes pass the default filter (a port filter
    /// cannot see inside them): VXLAN and Geneve by their ports, a tunnel moved to another port
    /// by its decode-as rule, IP in IP and GRE by their protocol, over IPv4 and IPv6.
    #[test]
    fn the_default_filter_keeps_the_tunnels() {
        let v4 = |proto: u8, ports: Option<(u16, u16)>| {
            let mut p = vec![
                0x45, 0, 0, 28, 0, 0, 0, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
            ];
            if let Some((s, d)) = ports {
                p.extend_from_slice(&s.to_be_bytes());
                p.extend_from_slice(&d.to_be_bytes());
                p.extend_from_slice(&[0, 8, 0, 0]);
            }
            p
        };
        let v6 = |next: u8| {
            let mut p = vec![0x60, 0, 0, 0, 0, 8, next, 64];
            p.extend_from_slice(&[0; 32]);
            p.extend_from_slice(&[0; 8]);
            p
        };
        let meta = |protocol| bpf::Meta {
            protocol,
            ..Default::default()
        };
        let plain = compile(&default_filter(&[]), Framing::Network).unwrap();
        let rules: Vec<DecodeAs> = vec!["udp.port==8472,vxlan".parse().unwrap()];
        let with_rule = compile(&default_filter(&rules), Framing::Network).unwrap();
        for (pkt, kept) in [
            (v4(17, Some((40000, 4789))), true),
            (v4(17, Some((40000, 6081))), true),
            (v4(4, None), true),
            (v4(41, None), true),
            (v4(47, None), true),
            (v4(17, Some((40000, 8472))), false),
            (v4(17, Some((40000, 5000))), false),
            (v4(50, None), false),
        ] {
            let got = bpf::run(&plain, &pkt, &meta(0x0800)) == ACCEPT;
            assert_eq!(got, kept, "{pkt:?}");
        }
        assert_eq!(
            bpf::run(&with_rule, &v4(17, Some((40000, 8472))), &meta(0x0800)),
            ACCEPT
        );
        for next in [4, 41, 47] {
            assert_eq!(bpf::run(&plain, &v6(next), &meta(0x86dd)), ACCEPT, "{next}");
        }
        assert_eq!(bpf::run(&plain, &v6(50), &meta(0x86dd)), 0);
    }
}
