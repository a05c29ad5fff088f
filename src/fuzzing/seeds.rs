//! The seed corpora of the fuzz targets, made from capture files with poolshark's own reader,
//! dissector and dispatcher:
//!
//! * `pcap_read`, `pipeline`, `handoff`: small captures whole; of the larger ones, runs of
//!   consecutive frames written again as pcap (a few runs spread over the file).
//! * `dissect`: the same runs of frames in the target's own input format ([`super::records`]),
//!   and each again inside a tunnel (IP in IP, GRE, VXLAN, Geneve, MPLS, nested).
//! * `rserpool`, `dhcpv4`, `dhcpv6`, `failover`: every distinct message the captures carry (up to
//!   a few hundred per capture), as its target takes it.
//! * `display_filter`: the first DHCP messages, each after one of a few display filters.
//!
//! `examples/fuzz_seeds.rs` writes them into `fuzz/corpus/TARGET/`; `tests/it/fuzz_inputs.rs`
//! runs them, and mutants of them, through the targets.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};

use crate::base::{linktype, Timestamp};
use crate::dissect::Transport;
use crate::generate::{PcapWriter, TsResolution};
use crate::pipeline::{Decoded, Options, Pipeline, Sink};
use crate::proto::{AppProtocol, Message};
use crate::source::file::FileSource;
use crate::source::FrameSource;
use crate::wire::tunnel::{GENEVE_PORT, VXLAN_PORT};

/// Captures up to this size are seeds whole.
const WHOLE_FILE: u64 = 16 << 10;
/// Frames per run cut from a larger capture.
const RUN_FRAMES: usize = 24;
/// Runs taken from one larger capture.
const RUNS: usize = 8;
/// Messages kept per target and capture (the big captures repeat themselves).
const MESSAGES: usize = 300;
/// Seeds per capture of each structure-aware target.
const SEQUENCE_SEEDS: usize = 24;

/// A seed corpus in the making: each distinct input once per target.
#[derive(Default)]
pub struct Seeds {
    seen: HashSet<(&'static str, u64)>,
    counts: BTreeMap<&'static str, usize>,
    fresh: Vec<(&'static str, Vec<u8>)>,
}

impl Seeds {
    pub fn new() -> Self {
        Self::default()
    }

    /// A name for an input, the same from run to run: `seed-` and 16 hex digits of its hash.
    pub fn name(bytes: &[u8]) -> String {
        format!("seed-{:016x}", Self::id(bytes))
    }

    fn id(bytes: &[u8]) -> u64 {
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        h.finish()
    }

    /// Adds an input of `target`'s unless it has it already; whether it was new.
    pub fn add(&mut self, target: &'static str, bytes: Vec<u8>) -> bool {
        if !self.seen.insert((target, Self::id(&bytes))) {
            return false;
        }
        *self.counts.entry(target).or_default() += 1;
        self.fresh.push((target, bytes));
        true
    }

    /// The seeds added since the last call, as (target, input).
    pub fn take(&mut self) -> Vec<(&'static str, Vec<u8>)> {
        std::mem::take(&mut self.fresh)
    }

    /// How many distinct seeds each target has.
    pub fn counts(&self) -> &BTreeMap<&'static str, usize> {
        &self.counts
    }

    /// The seeds of one capture file; `index` (its place among the files) picks its tunnels.
    pub fn add_capture(&mut self, index: usize, path: &Path) -> io::Result<()> {
        let frames = read_frames(path);
        let size = std::fs::metadata(path)?.len();
        if size <= WHOLE_FILE {
            let bytes = std::fs::read(path)?;
            for target in ["pcap_read", "pipeline", "handoff"] {
                self.add(target, bytes.clone());
            }
            self.add("dissect", as_dissect_input(&frames));
            self.add("dissect", as_dissect_input(&tunnelled(&frames, index)));
        } else {
            let step = (frames.len() / RUNS).max(RUN_FRAMES);
            for start in (0..frames.len()).step_by(step).take(RUNS) {
                let run = &frames[start..(start + RUN_FRAMES).min(frames.len())];
                let pcap = as_pcap(run)?;
                for target in ["pcap_read", "pipeline", "handoff"] {
                    self.add(target, pcap.clone());
                }
                self.add("dissect", as_dissect_input(run));
                self.add("dissect", as_dissect_input(&tunnelled(run, index + start)));
            }
        }
        let Ok(mut source) = FileSource::open(path) else {
            return Ok(());
        };
        let mut sink = MessageSink {
            found: Vec::new(),
            per_target: BTreeMap::new(),
        };
        let mut pipeline = Pipeline::new(Options::default());
        let _ = pipeline.run(&mut source, &mut sink);
        let mut sequence_seeds: BTreeMap<&'static str, usize> = BTreeMap::new();
        for (target, bytes) in sink.found {
            if target == "dhcpv6" || target == "dhcpv4" {
                // A display filter, a newline and the message (the target's input).
                let n = self.counts.get("display_filter").copied().unwrap_or(0);
                if n < FILTERS.len() * 4 {
                    let mut input = FILTERS[n % FILTERS.len()].as_bytes().to_vec();
                    input.push(b'\n');
                    input.extend_from_slice(&bytes);
                    self.add("display_filter", input);
                }
            }
            // The differential target reads each DHCP message both ways.
            if target == "dhcpv6" || target == "dhcpv4" {
                self.add("dhcp_differential", bytes.clone());
            }
            // The structure-aware targets read their input as choices, not as a message: the
            // capture's messages are only varied entropy for them, a few per capture.
            let sequence = match target {
                "rserpool" => Some("rserpool_sequence"),
                "dhcpv4" | "dhcpv6" => Some("dhcp_sequence"),
                "failover" => Some("failover_sequence"),
                _ => None,
            };
            if let Some(seq) = sequence {
                if sequence_seeds.get(seq).copied().unwrap_or(0) < SEQUENCE_SEEDS
                    && self.add(seq, bytes.clone())
                {
                    *sequence_seeds.entry(seq).or_default() += 1;
                }
            }
            self.add(target, bytes);
        }
        Ok(())
    }
}

/// Every capture file under `dir` (`.pcap`, `.pcapng`, `.gz`), recursively, sorted.
pub fn capture_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| x == "pcap" || x == "pcapng" || x == "gz")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

struct OwnedFrame {
    ts: Timestamp,
    linktype: u32,
    data: Vec<u8>,
}

fn read_frames(path: &Path) -> Vec<OwnedFrame> {
    let Ok(mut src) = FileSource::open(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    loop {
        match src.next_frame() {
            Ok(Some(f)) => out.push(OwnedFrame {
                ts: f.ts,
                linktype: f.linktype,
                data: f.data.to_vec(),
            }),
            Ok(None) => break,
            Err(e) if e.fatal => break,
            Err(_) => {}
        }
    }
    out
}

/// A run of frames as a pcap file (frames of another link type than the first left out).
fn as_pcap(run: &[OwnedFrame]) -> io::Result<Vec<u8>> {
    let lt = run.first().map_or(linktype::ETHERNET, |f| f.linktype);
    let mut w = PcapWriter::new(Vec::new(), lt, TsResolution::Micro)?;
    for f in run.iter().filter(|f| f.linktype == lt) {
        w.write(f.ts, &f.data)?;
    }
    w.flush()?;
    Ok(w.into_inner())
}

/// A run of frames as the `dissect` target's input: mode byte, then
/// `link u8 | dt u8 | len u16 | bytes` per frame.
fn as_dissect_input(run: &[OwnedFrame]) -> Vec<u8> {
    let mut out = vec![0u8];
    let mut prev: Option<Timestamp> = None;
    for f in run {
        let Some(link) = super::LINKTYPES.iter().position(|&l| l == f.linktype) else {
            continue;
        };
        let Ok(len) = u16::try_from(f.data.len()) else {
            continue;
        };
        let dt = prev.map_or(0, |p| f.ts.since(p).clamp(0.0, 255.0) as u8);
        prev = Some(f.ts);
        out.extend_from_slice(&[link as u8, dt]);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&f.data);
    }
    out
}

/// A run of frames inside one of a few tunnels (the `n`th, in turn): IP in IP, GRE with a key
/// carrying Ethernet, VXLAN, MPLS in GRE, and four nested, so that the dissect target starts
/// from every decapsulator.
fn tunnelled(run: &[OwnedFrame], n: usize) -> Vec<OwnedFrame> {
    use crate::generate::tunnel::{encapsulate, Layer};
    let gre = |ethernet| Layer::Gre {
        v6: false,
        key: Some(5),
        sequence: Some(1),
        checksum: true,
        ethernet,
        vlans: Vec::new(),
    };
    let choices = [
        vec![Layer::IpInIp { v6: true }],
        vec![gre(true)],
        vec![Layer::Vxlan {
            v6: false,
            vni: 7,
            port: VXLAN_PORT,
        }],
        vec![Layer::Geneve {
            v6: true,
            vni: 7,
            port: GENEVE_PORT,
        }],
        vec![Layer::Mpls { labels: vec![16] }, gre(false)],
        vec![
            Layer::IpInIp { v6: false },
            gre(true),
            Layer::Vxlan {
                v6: false,
                vni: 7,
                port: VXLAN_PORT,
            },
            Layer::IpInIp { v6: true },
        ],
    ];
    let layers = &choices[n % choices.len()];
    run.iter()
        .flat_map(|f| {
            let frames = encapsulate(f.linktype, &f.data, layers, None).unwrap_or_default();
            frames.into_iter().map(|data| OwnedFrame {
                ts: f.ts,
                linktype: linktype::ETHERNET,
                data,
            })
        })
        .collect()
}

/// Collects the bytes of every message the pipeline decodes, by target.
struct MessageSink {
    found: Vec<(&'static str, Vec<u8>)>,
    per_target: BTreeMap<&'static str, usize>,
}

impl Sink for MessageSink {
    fn message(&mut self, d: &Decoded<'_>) {
        // UDP and SCTP: the payload is the message. TCP: the framed message, written again
        // (byte for byte for a well-formed message).
        let bytes = match (d.payload.transport, d.message) {
            (Transport::Tcp, Message::Failover(m)) => match m.emit() {
                Ok(b) => b,
                Err(_) => return,
            },
            (Transport::Tcp, Message::Rserpool(m)) => m.emit(),
            (Transport::Tcp, _) => return,
            _ => d.payload.data.to_vec(),
        };
        let (target, input) = match d.protocol {
            AppProtocol::Asap => ("rserpool", [&[0u8][..], &bytes].concat()),
            AppProtocol::Enrp => ("rserpool", [&[1u8][..], &bytes].concat()),
            AppProtocol::Dhcpv4 => ("dhcpv4", bytes),
            AppProtocol::Dhcpv6 => ("dhcpv6", bytes),
            // The first byte is the size of the pieces the stream is fed in, less one.
            AppProtocol::Failover => ("failover", [&[0xffu8][..], &bytes].concat()),
        };
        let n = self.per_target.entry(target).or_default();
        if *n < MESSAGES {
            *n += 1;
            self.found.push((target, input));
        }
    }
}

/// Display filters the `display_filter` target starts from, one of each construct.
const FILTERS: [&str; 10] = [
    "dhcpv6.msgtype == Solicit && !(dhcp.option.dhcp in {1, 3..5})",
    "dhcpv6.duid.bytes[0:2] == 00:01 || dhcp.hw.mac_addr[-2:] == 00:5a",
    "len(dhcpv6.duid.bytes) > 8 and count(dhcpv6.option.type) >= 3",
    "string(dhcpv6.xid) contains \"1\" || upper(dhcp.option.hostname) == \"A\"",
    "max(dhcpv6.option.type) == min(dhcpv6.option.type)",
    "ip.src == 192.0.2.0/24 && udp.port in {546 547} && frame.time_relative > 0.5",
    "dhcpv6.iaaddr.ip != ipv6.dst && ipv6.addr[0:2] == fe:80",
    "dhcp.secs !== 0 || dhcp.secs === 0 || dhcp.secs ~= 1",
    "abs(frame.time_relative) < 1 or dhcpv6.option[1-3] == 00:01:00",
    "dhcpv6.xid[0] == 00 || lower(dhcpv6.domain) contains \"example\"",
];
