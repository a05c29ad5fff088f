//! Writes a capture built to make a dissector keep as much state as it can, for the memory bound
//! measurements (`scripts/memory-bound`):
//!
//! * `fragments`: first fragments of IPv4 datagrams that never complete, each with a new id;
//! * `sctp`: SCTP associations each sending the first part of a message that never ends;
//! * `tcp`: TCP connections each sending data after a gap (held out of order);
//! * `framer`: TCP connections to the ASAP port each sending part of a 64 KiB message in order;
//! * `dhcp`: DHCPv4 and DHCPv6 clients, each with a new transaction id and client identity;
//! * `rserpool`: ASAP registrations of new PEs into new pools, and resolutions of those pools;
//! * `mixed`: all of the above in turn.
//!
//! `cargo run --release --example adversarial_capture -- KIND FRAMES FILE`

use std::io::{self, BufWriter};
use std::net::{Ipv4Addr, Ipv6Addr};

use poolshark::base::{linktype, Timestamp};
use poolshark::generate::{Ip, Packet, PcapWriter, TsResolution};
use poolshark::proto::dhcpv4::{self, message_type};
use poolshark::proto::dhcpv6::{self, msg_type, ClientMessage, Duid, Opt};
use poolshark::proto::rserpool::{
    AsapType, Encoding, Fixed, Message, Parameter, Policy, PolicyKind, PoolElement, Protocol,
    Transport, TransportProtocol,
};
use poolshark::wire::ipv4::Ipv4Header;
use poolshark::wire::sctp::build::{Chunk, DataFlags};
use poolshark::wire::tcp::TcpHeader;

const KINDS: [&str; 6] = ["fragments", "sctp", "tcp", "framer", "dhcp", "rserpool"];
const ACK: u8 = 0x10;
const SYN: u8 = 0x02;

/// A distinct IPv4 address for each `i` (10.0.0.0/8, then 11.0.0.0/8, ...).
fn addr(i: u64) -> Ipv4Addr {
    Ipv4Addr::from(0x0a00_0000u32.wrapping_add(i as u32))
}

fn server() -> Ipv4Addr {
    Ipv4Addr::new(192, 0, 2, 1)
}

/// Frame `i` of the capture of `kind`, built into `out`.
fn build(kind: &str, i: u64, out: &mut Vec<u8>) {
    out.clear();
    let body = [0x5au8; 1200];
    match kind {
        "fragments" => {
            let mut h = Ipv4Header::new(addr(i / 65536), server(), 0);
            h.id = i as u16;
            h.more_fragments = true;
            Packet::udp(Ip::V4(h), 40000, 5000, &body).build(out);
        }
        "sctp" => {
            let chunk = Chunk::Data {
                tsn: 1,
                stream: 0,
                ssn: 0,
                ppid: 11,
                flags: DataFlags {
                    begin: true,
                    end: false,
                    unordered: false,
                    immediate: false,
                },
                data: &body,
            };
            Packet::sctp(Ip::v4(addr(i), server()), 40000, 3863, 1, vec![chunk]).build(out);
        }
        "tcp" => {
            // Every other frame opens a connection; the next one sends data 1000 bytes ahead.
            let c = i / 2;
            let h = if i % 2 == 0 {
                TcpHeader::new(40000, 5000, 100, 0, SYN)
            } else {
                TcpHeader::new(40000, 5000, 1101, 1, ACK)
            };
            let payload: &[u8] = if i % 2 == 0 { &[] } else { &body };
            Packet::tcp(Ip::v4(addr(c), server()), h, payload).build(out);
        }
        "framer" => {
            // Eight segments per connection, in order: an ASAP header claiming 65532 bytes, then
            // more of the message; it never completes within the capture.
            let (c, k) = (i / 8, (i % 8) as u32);
            let mut seg = body.to_vec();
            if k == 0 {
                seg[..4].copy_from_slice(&[1, 0, 0xff, 0xfc]);
            }
            let h = TcpHeader::new(40000, 3863, 1 + k * body.len() as u32, 1, ACK);
            Packet::tcp(Ip::v4(addr(c), server()), h, &seg).build(out);
        }
        "dhcp" => {
            let mac = i.to_be_bytes();
            let mac = [0x02, mac[3], mac[4], mac[5], mac[6], mac[7]];
            if i % 2 == 0 {
                let m = dhcpv4::Message::request(message_type::DISCOVER, i as u32, mac)
                    .with(dhcpv4::Opt::client_identifier(1, &mac))
                    .padded_to(300)
                    .emit();
                Packet::udp(
                    Ip::v4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::BROADCAST),
                    68,
                    67,
                    &m,
                )
                .build(out);
            } else {
                let m = dhcpv6::Message::client(ClientMessage::new(
                    msg_type::SOLICIT,
                    i as u32 & 0xff_ffff,
                    vec![
                        Opt::client_id(Duid::ll(1, &mac)),
                        Opt::elapsed_time(0),
                        Opt::ia_na(i as u32, 0, 0, vec![]),
                    ],
                ))
                .emit();
                let src =
                    Ipv6Addr::from(0xfe80_0000_0000_0000_0000_0000_0000_0000u128 | u128::from(i));
                let dst: Ipv6Addr = "ff02::1:2".parse().unwrap_or(Ipv6Addr::LOCALHOST);
                Packet::udp(Ip::v6(src, dst), 546, 547, &m).build(out);
            }
        }
        "rserpool" => {
            let handle = format!("pool-{}", i / 2).into_bytes();
            let msg = if i % 2 == 0 {
                let pe = PoolElement {
                    pe_id: i as u32,
                    home_server_id: 1,
                    registration_life: 30_000,
                    params: vec![
                        Parameter::Transport(Transport {
                            protocol: TransportProtocol::Sctp,
                            port: 5000,
                            transport_use: 0,
                            addresses: vec![Parameter::Ipv4(addr(i))],
                        }),
                        Policy::new(Encoding::Rfc, PolicyKind::RoundRobin, &[])
                            .map(Parameter::Policy)
                            .unwrap_or(Parameter::PeIdentifier(0)),
                    ],
                };
                Message::new(
                    Protocol::Asap,
                    Encoding::Rfc,
                    AsapType::Registration as u8,
                    0,
                    Fixed::None,
                    vec![
                        Parameter::PoolHandle(handle.into()),
                        Parameter::PoolElement(pe),
                    ],
                )
            } else {
                Message::new(
                    Protocol::Asap,
                    Encoding::Rfc,
                    AsapType::HandleResolution as u8,
                    0,
                    Fixed::None,
                    vec![Parameter::PoolHandle(handle.into())],
                )
            }
            .emit();
            let chunk = Chunk::Data {
                tsn: i as u32,
                stream: 0,
                ssn: i as u16,
                ppid: 11,
                flags: DataFlags::WHOLE,
                data: &msg,
            };
            Packet::sctp(Ip::v4(addr(i % 512), server()), 40000, 3863, 1, vec![chunk]).build(out);
        }
        _ => {}
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, frames, path] = args.as_slice() else {
        eprintln!(
            "usage: adversarial_capture {}|mixed FRAMES FILE",
            KINDS.join("|")
        );
        std::process::exit(2);
    };
    if kind != "mixed" && !KINDS.contains(&kind.as_str()) {
        eprintln!("unknown kind {kind:?}");
        std::process::exit(2);
    }
    let frames: u64 = frames.parse().map_err(io::Error::other)?;
    let file = std::fs::File::create(path)?;
    let mut w = PcapWriter::new(
        BufWriter::with_capacity(1 << 20, file),
        linktype::ETHERNET,
        TsResolution::Micro,
    )?;
    let mut buf = Vec::with_capacity(2048);
    for i in 0..frames {
        let k = if kind == "mixed" {
            KINDS[(i % KINDS.len() as u64) as usize]
        } else {
            kind.as_str()
        };
        // In `mixed`, each kind numbers its own frames.
        let n = if kind == "mixed" {
            i / KINDS.len() as u64
        } else {
            i
        };
        build(k, n, &mut buf);
        // A millisecond apart: well within every timeout.
        w.write(
            Timestamp::new(
                1_700_000_000 + (i / 1000) as i64,
                (i % 1000) as u32 * 1_000_000,
            ),
            &buf,
        )?;
    }
    w.flush()
}
