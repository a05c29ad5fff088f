//! Helpers shared by the integration tests: where the shared captures are, whether tshark is
//! there, and how to skip (or, under `.ci/run`, fail) when they are not.
#![allow(dead_code)]

pub mod tshark;
pub mod wrr_spread;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared` beside the checkout, when it is there. Tests that need it call this and return
/// early on `None`; `.ci/run` sets `POOLSHARK_REQUIRE_SHARED=1`, which turns the skip into a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("captures").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("POOLSHARK_REQUIRE_SHARED").is_some() {
        panic!(
            "POOLSHARK_REQUIRE_SHARED is set but {} has no captures/",
            dir.display()
        );
    }
    poolshark::test_support::skip("../shared beside the checkout is absent (the shared captures are not part of this repository)");
    None
}

/// A file under `../shared/captures`, or `None` (skip) when the folder is absent.
pub fn shared_capture(rel: &str) -> Option<PathBuf> {
    let p = shared_dir()?.join("captures").join(rel);
    assert!(p.is_file(), "missing shared capture {}", p.display());
    Some(p)
}

/// Whether tshark, and sharkd which comes with it (the filter tests ask it many filters in one
/// run), can be run. `.ci/run` sets `POOLSHARK_REQUIRE_TSHARK=1`, which turns their absence into
/// a failure. They are asked once per test binary: each start costs about 0.3 s of registering
/// dissectors, and some 80 tests ask.
pub fn have_tshark() -> bool {
    static RUNS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *RUNS.get_or_init(|| {
        ["tshark", "sharkd"].iter().all(|tool| {
            Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    });
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_some() {
            panic!("POOLSHARK_REQUIRE_TSHARK is set but tshark or sharkd cannot be run");
        }
        poolshark::test_support::skip(
            "tshark or sharkd is not installed (apt-get install tshark: sharkd comes with it)",
        );
    }
    ok
}

/// RFC 3074's Pearson table, read from the shared specs (`specs/pearson-table.txt`): the tests'
/// own copy, independent of poolshark's. `None` (skip) when `../shared` is absent.
pub fn rfc3074_table() -> Option<[u8; 256]> {
    let text = std::fs::read_to_string(shared_dir()?.join("specs/pearson-table.txt")).ok()?;
    let values: Vec<u8> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once(':').map(|(_, v)| v.to_string()))
        .flat_map(|v| {
            v.split_whitespace()
                .map(|x| x.parse::<u8>().expect("table entry"))
                .collect::<Vec<_>>()
        })
        .collect();
    values.try_into().ok()
}

/// The RFC 3074 bucket of a key with the table `t`: the state starts at the key's length
/// (mod 256), the key is read from its last byte to its first, `state = T[state ^ byte]`.
pub fn rfc3074_bucket(t: &[u8; 256], key: &[u8]) -> u8 {
    let mut h = (key.len() % 256) as u8;
    for b in key.iter().rev() {
        h = t[usize::from(h ^ b)];
    }
    h
}

/// xorshift64*: a small fixed-seed generator, so that what a test draws is the same on every run
/// and a failure reproduces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every capture file under `dir`, recursively, sorted.
pub fn captures_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pcap" || x == "pcapng") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The failover messages of the shared ISC DHCP 4.4.3 failover capture, by type, as its README
/// (captures/dhcp-failover/README.md) gives them: BNDUPD/BNDACK 1115 each, CONTACT 49, STATE 27,
/// UPDREQALL 6, UPDDONE 5, CONNECT/CONNECTACK 4 each, UPDREQ 2, POOLREQ/POOLRESP 1 each.
pub fn isc_failover_messages() -> BTreeMap<String, u64> {
    [
        ("BNDUPD", 1115),
        ("BNDACK", 1115),
        ("CONTACT", 49),
        ("STATE", 27),
        ("UPDREQALL", 6),
        ("UPDDONE", 5),
        ("CONNECT", 4),
        ("CONNECTACK", 4),
        ("UPDREQ", 2),
        ("POOLREQ", 1),
        ("POOLRESP", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The pools of the shared rserpool/rsplib-multi-pe.pcap and how many PEs each had, from its
/// README (all registered at the start, all gone at the end).
pub const MULTI_PE_POOLS: [(&str, u64); 9] = [
    ("RR-Pool", 5),
    ("WRR-Pool", 3),
    ("RAND-Pool", 4),
    ("WRAND-Pool", 3),
    ("PRIO-Pool", 4),
    ("LU-Pool", 4),
    ("LUD-Pool", 3),
    ("PLU-Pool", 3),
    ("RLU-Pool", 3),
];

/// A file in the project's own fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// A path's file name, or "" when it has none that is UTF-8.
pub fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

/// The built `poolshark` binary.
pub fn poolshark() -> Command {
    Command::new(env!("CARGO_BIN_EXE_poolshark"))
}

/// `poolshark read --no-progress -T fields`, to which a test adds its `-e` options and capture.
pub fn read_fields() -> Command {
    let mut cmd = poolshark();
    cmd.args(["read", "--no-progress", "-T", "fields"]);
    cmd
}

/// Feeds one analyser in-process, as `check` does, so that a test can look at its report.
pub struct Feed<A> {
    pub analyser: A,
    pub report: poolshark::analyse::Report,
}

impl<A: poolshark::analyse::Analyser> poolshark::pipeline::Sink for Feed<A> {
    fn message(&mut self, d: &poolshark::pipeline::Decoded<'_>) {
        self.analyser.message(d, &mut self.report);
    }
}

/// A capture of one failover connection whose framing breaks (a message length of 1, below the
/// 12-byte header), in a temporary file named after `name`; with `cut`, the data segment's IPv4
/// total length also claims 8 bytes more than were captured (an error of the lower layers in the
/// same frame). The caller removes the file.
pub fn broken_failover_stream(name: &str, cut: bool) -> PathBuf {
    use poolshark::base::Timestamp;
    use poolshark::generate::{PcapWriter, TcpFlow, TsResolution};
    let mut frames: Vec<Vec<u8>> = Vec::new();
    {
        let mut out = |f: &[u8]| frames.push(f.to_vec());
        let mut fo = TcpFlow::new(
            "192.0.2.1:40000".parse().expect("address"),
            "192.0.2.2:647".parse().expect("address"),
            [1, 2],
        );
        fo.handshake(&mut out);
        fo.send(true, &[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], &mut out);
        fo.close(&mut out);
    }
    if cut {
        // The data segment, after the handshake: IPv4 total length (Ethernet + 2) grown by 8.
        let data = &mut frames[3];
        let total = u16::from_be_bytes([data[16], data[17]]) + 8;
        data[16..18].copy_from_slice(&total.to_be_bytes());
    }
    let file = std::env::temp_dir().join(format!(
        "poolshark-{name}-{cut}-{}.pcap",
        std::process::id()
    ));
    let f = std::fs::File::create(&file).expect("create");
    let mut w = PcapWriter::new(f, 1, TsResolution::Micro).expect("header");
    for (i, f) in frames.iter().enumerate() {
        w.write(Timestamp::new(1_700_000_000 + i as i64, 0), f)
            .expect("write");
    }
    file
}

/// The encapsulations the tunnel tests rewrite captures into: a name, the layers (innermost
/// first) and the outer IPv4 fragment size, if any. Every decapsulator is in one of them, and the
/// last nests four (the most poolshark decodes).
pub fn encapsulations() -> Vec<(
    &'static str,
    Vec<poolshark::generate::tunnel::Layer>,
    Option<usize>,
)> {
    use poolshark::generate::tunnel::Layer;
    use poolshark::wire::tunnel::{GENEVE_PORT, VXLAN_PORT};
    use poolshark::wire::vlan::VlanTag;
    let gre = |v6, key, ethernet, vlans: Vec<VlanTag>| Layer::Gre {
        v6,
        key,
        sequence: key.map(|k| k ^ 0xffff),
        checksum: key.is_some(),
        ethernet,
        vlans,
    };
    vec![
        ("ipip4", vec![Layer::IpInIp { v6: false }], None),
        ("ipip6", vec![Layer::IpInIp { v6: true }], None),
        ("gre-key", vec![gre(false, Some(1000), false, vec![])], None),
        (
            "gre-eth-qinq",
            vec![gre(
                true,
                None,
                true,
                vec![
                    VlanTag {
                        tpid: 0x88a8,
                        tci: 30,
                    },
                    VlanTag::dot1q(100),
                ],
            )],
            None,
        ),
        (
            "vxlan",
            vec![Layer::Vxlan {
                v6: false,
                vni: 5000,
                port: VXLAN_PORT,
            }],
            None,
        ),
        (
            "geneve6",
            vec![Layer::Geneve {
                v6: true,
                vni: 77,
                port: GENEVE_PORT,
            }],
            None,
        ),
        (
            "mpls-gre",
            vec![
                Layer::Mpls {
                    labels: vec![16, 1_048_575],
                },
                gre(false, None, false, vec![]),
            ],
            None,
        ),
        (
            "vxlan-fragmented",
            vec![Layer::Vxlan {
                v6: false,
                vni: 1,
                port: VXLAN_PORT,
            }],
            Some(256),
        ),
        (
            "nested4",
            vec![
                Layer::Mpls { labels: vec![20] },
                gre(false, Some(7), true, vec![VlanTag::dot1q(9)]),
                Layer::Vxlan {
                    v6: true,
                    vni: 3,
                    port: VXLAN_PORT,
                },
                Layer::IpInIp { v6: false },
            ],
            None,
        ),
    ]
}

/// Tunnels on ports a decode-as rule gives them, with the rule in tshark's `-d` spelling (which
/// poolshark takes too): VXLAN on Linux's old port 8472, Geneve on VXLAN's 4789.
pub fn tunnels_on_decode_as_ports() -> [(
    &'static str,
    poolshark::generate::tunnel::Layer,
    &'static str,
); 2] {
    use poolshark::generate::tunnel::Layer;
    [
        (
            "vxlan-8472",
            Layer::Vxlan {
                v6: false,
                vni: 10,
                port: 8472,
            },
            "udp.port==8472,vxlan",
        ),
        (
            "geneve-4789",
            Layer::Geneve {
                v6: true,
                vni: 11,
                port: 4789,
            },
            "udp.port==4789,geneve",
        ),
    ]
}

/// `capture` rewritten with every frame inside `layers` (see
/// [`poolshark::generate::tunnel::encapsulate`]), as an Ethernet pcap in the temporary folder
/// named after `name`; the caller removes it. Times are kept, and a frame cut by its snap length
/// stays cut by as much.
pub fn tunnelled(
    capture: &Path,
    layers: &[poolshark::generate::tunnel::Layer],
    fragment: Option<usize>,
    name: &str,
) -> PathBuf {
    use poolshark::generate::{tunnel, PcapWriter, TsResolution};
    use poolshark::source::file::FileSource;
    use poolshark::source::FrameSource;
    let stem = capture
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let out = std::env::temp_dir().join(format!(
        "poolshark-tunnel-{}-{name}-{}.pcap",
        std::process::id(),
        stem.unwrap_or_default()
    ));
    let file = std::io::BufWriter::new(std::fs::File::create(&out).expect("create"));
    let mut w = PcapWriter::new(file, 1, TsResolution::Nano).expect("pcap header");
    let mut src = FileSource::open(capture).expect("open capture");
    while let Some(f) = src.next_frame().expect("read capture") {
        let cut = (f.orig_len as usize).saturating_sub(f.data.len()) as u32;
        let frames = tunnel::encapsulate(f.linktype, f.data, layers, fragment)
            .unwrap_or_else(|| vec![f.data.to_vec()]);
        for t in frames {
            w.write_cut(f.ts, &t, t.len() as u32 + cut).expect("write");
        }
    }
    w.flush().expect("flush");
    out
}
