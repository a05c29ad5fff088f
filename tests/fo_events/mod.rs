//! The shared failover capture as typed events: tshark extracts the TCP payloads on port 647,
//! each direction of each connection is put back in sequence order here, the project's framer and
//! decoder read the messages, and `derive` turns them into events (roles learnt from CONNECT).
//! Also the servers' own logs: each `balancing pool` line with the verdict line that follows it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::process::Command;

use poolshark::analyse::failover::{derive, offer, Client, Event, Roles};
use poolshark::proto::failover::{self, Framer, Message};
use poolshark::source::Timestamp;

pub const CAPTURE: &str = "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap";

/// One decoded message with where it came from.
pub struct Decoded {
    pub frame: u64,
    pub time: Timestamp,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub msg: Message,
}

fn unhex(s: &str) -> Vec<u8> {
    let s: Vec<u8> = s.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
    s.chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

fn parse_time(s: &str) -> Timestamp {
    let (secs, frac) = s.split_once('.').unwrap_or((s, "0"));
    let mut nanos = frac.to_string();
    nanos.truncate(9);
    while nanos.len() < 9 {
        nanos.push('0');
    }
    Timestamp::new(secs.parse().unwrap(), nanos.parse().unwrap())
}

/// Every failover message of the capture, in capture order.
pub fn messages(file: &Path) -> Vec<Decoded> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-Y", "tcp.port == 647", "-T", "fields"])
        .args(["-e", "frame.number", "-e", "frame.time_epoch"])
        .args([
            "-e",
            "ip.src",
            "-e",
            "tcp.srcport",
            "-e",
            "ip.dst",
            "-e",
            "tcp.dstport",
        ])
        .args([
            "-e",
            "tcp.seq_raw",
            "-e",
            "tcp.flags.syn",
            "-e",
            "tcp.payload",
        ])
        .output()
        .expect("run tshark");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    struct Stream {
        next_seq: Option<u32>,
        framer: Framer,
    }
    let mut streams: HashMap<(String, String, String, String), Stream> = HashMap::new();
    let mut msgs = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [frame, time, src, sport, dst, dport, seq, syn, payload] = cols[..] else {
            panic!("unexpected tshark line {line:?}");
        };
        let frame: u64 = frame.parse().unwrap();
        let seq: u32 = seq.parse().unwrap();
        let key = (src.into(), sport.into(), dst.into(), dport.into());
        let s = streams.entry(key).or_insert_with(|| Stream {
            next_seq: None,
            framer: Framer::new(),
        });
        if syn == "1" {
            s.next_seq = Some(seq.wrapping_add(1));
            s.framer.reset();
            continue;
        }
        let data = unhex(payload);
        if data.is_empty() {
            continue;
        }
        let next = *s.next_seq.get_or_insert(seq);
        let already = next.wrapping_sub(seq) as usize;
        assert!(already <= data.len(), "frame {frame}: gap in the stream");
        let fresh = &data[already..];
        s.next_seq = Some(next.wrapping_add(fresh.len() as u32));
        for r in s.framer.feed(fresh) {
            let framed = r.unwrap_or_else(|e| panic!("frame {frame}: {e}"));
            let (msg, errors) = failover::parse(&framed.bytes);
            assert!(errors.is_empty(), "frame {frame}: {errors:?}");
            msgs.push(Decoded {
                frame,
                time: parse_time(time),
                src: src.parse().unwrap(),
                dst: dst.parse().unwrap(),
                msg,
            });
        }
    }
    msgs
}

/// The capture's failover events, with the roles learnt from CONNECT.
pub fn events(file: &Path) -> Vec<Event> {
    let mut roles = Roles::new();
    let mut out = Vec::new();
    for d in messages(file) {
        roles.learn(&d.msg, d.src, d.dst);
        let role = roles.role_of(d.src).expect("a CONNECT comes first");
        if let Ok(ev) = derive(&d.msg, d.frame, d.time, role) {
            out.push(ev);
        }
    }
    out
}

/// One DHCPv4 message, read here from the UDP payload (RFC 2131 layout) as far as the offers
/// need: op, hlen, xid, yiaddr, chaddr, and options 51, 53 and 61.
struct Dhcp {
    frame: u64,
    time: Timestamp,
    src: IpAddr,
    xid: u32,
    yiaddr: std::net::Ipv4Addr,
    htype: u8,
    chaddr: Vec<u8>,
    msg_type: Option<u8>,
    lease_time: Option<u32>,
    client_id: Option<Vec<u8>>,
}

fn dhcp(frame: u64, time: Timestamp, src: IpAddr, b: &[u8]) -> Option<Dhcp> {
    let htype = *b.get(1)?;
    let hlen = usize::from(*b.get(2)?).min(16);
    let xid = u32::from_be_bytes(b.get(4..8)?.try_into().ok()?);
    let yiaddr = std::net::Ipv4Addr::new(*b.get(16)?, *b.get(17)?, *b.get(18)?, *b.get(19)?);
    let chaddr = b.get(28..28 + hlen)?.to_vec();
    if b.get(236..240)? != [99, 130, 83, 99] {
        return None;
    }
    let mut d = Dhcp {
        frame,
        time,
        src,
        xid,
        yiaddr,
        htype,
        chaddr,
        msg_type: None,
        lease_time: None,
        client_id: None,
    };
    let mut i = 240;
    while let Some(&code) = b.get(i) {
        match code {
            0 => i += 1,
            255 => break,
            _ => {
                let len = usize::from(*b.get(i + 1)?);
                let v = b.get(i + 2..i + 2 + len)?;
                match code {
                    53 => d.msg_type = v.first().copied(),
                    51 => d.lease_time = v.try_into().ok().map(u32::from_be_bytes),
                    61 => d.client_id = Some(v.to_vec()),
                    _ => {}
                }
                i += 2 + len;
            }
        }
    }
    Some(d)
}

/// The servers' DHCPOFFERs as offer events, the client taken from the DISCOVER they answer
/// (same xid): its option 61 if it has one, else chaddr.
pub fn offers(file: &Path, primary: IpAddr) -> Vec<Event> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-Y", "udp.port == 67", "-T", "fields"])
        .args([
            "-e",
            "frame.number",
            "-e",
            "frame.time_epoch",
            "-e",
            "ip.src",
            "-e",
            "udp.payload",
        ])
        .output()
        .expect("run tshark");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut discovers: HashMap<u32, Dhcp> = HashMap::new();
    let mut events = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [frame, time, src, payload] = cols[..] else {
            continue;
        };
        let Some(d) = dhcp(
            frame.parse().unwrap(),
            parse_time(time),
            src.parse().unwrap(),
            &unhex(payload),
        ) else {
            continue;
        };
        match d.msg_type {
            Some(1) => {
                discovers.insert(d.xid, d);
            }
            Some(2) => {
                let client = match discovers.get(&d.xid) {
                    Some(q) => Client {
                        id: q.client_id.clone(),
                        hardware: Some((q.htype, q.chaddr.clone())),
                    },
                    None => Client {
                        id: None,
                        hardware: Some((d.htype, d.chaddr.clone())),
                    },
                };
                let role = if d.src == primary {
                    poolshark::analyse::dhcp_lb::Role::Primary
                } else {
                    poolshark::analyse::dhcp_lb::Role::Secondary
                };
                events.push(offer(d.frame, d.time, role, d.yiaddr, client, d.lease_time));
            }
            _ => {}
        }
    }
    events
}

/// Failover events and offers together, in capture order.
pub fn all_events(file: &Path) -> Vec<Event> {
    let mut evs = events(file);
    evs.extend(offers(file, "192.0.2.1".parse().unwrap()));
    // Stable: messages of one frame keep their order.
    evs.sort_by_key(|e| e.frame);
    evs
}

/// One `balancing pool` line of a server's log and the verdict line after it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedRun {
    pub time: f64,
    pub total: u32,
    pub free: u32,
    pub backup: u32,
    pub lts: i64,
    pub max_own: i64,
    pub poolreq: bool,
    pub after_free: u32,
    pub after_backup: u32,
    pub after_lts: i64,
    pub max_misbal: i64,
    pub imbalanced: bool,
}

impl LoggedRun {
    /// Leases the run moved: one per step of lts.
    pub fn moved(&self) -> i64 {
        self.lts - self.after_lts
    }
}

fn number_after(words: &[&str], key: &str) -> i64 {
    let i = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("{key} in {words:?}"));
    let w = words[i + 1].trim_start_matches("(+/-)");
    w.parse().unwrap_or_else(|_| panic!("{key} {w}"))
}

/// Every balance run a log records.
pub fn logged_runs(log: &Path) -> Vec<LoggedRun> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut runs = Vec::new();
    let mut open: Option<LoggedRun> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.get(1) {
            Some(&"balancing") => {
                open = Some(LoggedRun {
                    time: words[0].parse().unwrap(),
                    total: number_after(&words, "total") as u32,
                    free: number_after(&words, "free") as u32,
                    backup: number_after(&words, "backup") as u32,
                    lts: number_after(&words, "lts"),
                    max_own: number_after(&words, "max-own"),
                    poolreq: line.contains("requesting peer rebalance"),
                    after_free: 0,
                    after_backup: 0,
                    after_lts: 0,
                    max_misbal: 0,
                    imbalanced: false,
                })
            }
            Some(&"balanced") | Some(&"IMBALANCED") => {
                let mut r = open.take().expect("a verdict follows a balancing line");
                r.after_free = number_after(&words, "free") as u32;
                r.after_backup = number_after(&words, "backup") as u32;
                r.after_lts = number_after(&words, "lts");
                r.max_misbal = number_after(&words, "max-misbal");
                r.imbalanced = words[1] == "IMBALANCED";
                runs.push(r);
            }
            _ => {}
        }
    }
    runs
}
