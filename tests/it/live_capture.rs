//! `poolshark capture` on the loopback device, as root: the test sends DHCPv6, DHCPv4, ASAP and
//! ENRP over UDP and ASAP over SCTP (through a raw IP socket: the kernel has no SCTP, yet the
//! packet crosses `lo`), all built with the project's emitters, and checks that every one is
//! decoded exactly once (the outgoing loopback copies are left out), that nothing else passed
//! the default filter, that `-w` wrote a pcapng that `poolshark read` decodes to the very same
//! records and that tshark reads with the interface name, and that Ctrl-C ends a capture cleanly.
//!
//! Without root (or where AF_PACKET is not permitted) the tests skip, saying so;
//! `POOLSHARK_REQUIRE_LIVE=1` turns the skip into a failure.
#![cfg(target_os = "linux")]

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::poolshark;
use poolshark::generate::packet::{Ip, Packet};
use poolshark::proto::dhcpv4::{self, message_type};
use poolshark::proto::dhcpv6::{self, msg_type, ClientMessage, Duid, Opt};
use poolshark::proto::rserpool::{self, Encoding, Fixed, Parameter, Protocol};
use poolshark::source::live::{LiveErrorKind, LiveOptions, LiveSource};
use poolshark::wire::sctp::build::{Chunk, DataFlags};

/// Live tests share `lo`: one at a time, or each would see the other's packets.
static LO: Mutex<()> = Mutex::new(());

const XID6: u32 = 0x4c1f01;
const XID4: u32 = 0x4c1f0002;
const ANNOUNCE_ID: u32 = 0x4c1f_0003;
const PRESENCE_ID: u32 = 0x4c1f_0004;
const POOL: &[u8] = b"live-test-pool";

/// Whether this process may open an AF_PACKET socket on `lo`.
fn live_permitted() -> bool {
    match LiveSource::open(&LiveOptions::new("lo")) {
        Ok(_) => true,
        Err(e)
            if matches!(
                e.kind,
                LiveErrorKind::Permission | LiveErrorKind::Unsupported
            ) =>
        {
            if std::env::var_os("POOLSHARK_REQUIRE_LIVE").is_some() {
                panic!("POOLSHARK_REQUIRE_LIVE is set but live capture is not possible: {e}");
            }
            poolshark::test_support::skip(format_args!(
                "live capture is not possible here (run as root): {e}"
            ));
            false
        }
        Err(e) => panic!("opening a capture on lo failed: {e}"),
    }
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("poolshark-live-{}-{name}", std::process::id()))
}

/// A running `poolshark capture`, its stderr collected by a thread.
struct Running {
    child: Child,
    stderr: mpsc::Receiver<String>,
    stderr_lines: Vec<String>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        Running::start_in(None, args)
    }

    /// `capture ARGS`, in the working directory `dir` if given.
    fn start_in(dir: Option<&Path>, args: &[&str]) -> Running {
        Running::start_with(dir, Stdio::piped(), args)
    }

    /// `capture ARGS` in `dir` (if given), its standard output to `stdout` (a file, for a long
    /// listing that nobody reads while it runs).
    fn start_with(dir: Option<&Path>, stdout: Stdio, args: &[&str]) -> Running {
        let mut cmd = poolshark();
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        Running::start_full(cmd, stdout, args)
    }

    /// `capture ARGS` through `cmd` (poolshark, or what runs it: setpriv, ip netns exec).
    fn start_cmd(cmd: Command, args: &[&str]) -> Running {
        Running::start_full(cmd, Stdio::piped(), args)
    }

    fn start_full(mut cmd: Command, stdout: Stdio, args: &[&str]) -> Running {
        let mut child = cmd
            .arg("capture")
            .args(args)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut r = Running {
            child,
            stderr: rx,
            stderr_lines: Vec::new(),
        };
        // The socket is filtered and bound once this line is out: what is sent after is seen.
        let deadline = Instant::now() + Duration::from_secs(20);
        while !r.stderr_lines.iter().any(|l| l.contains("capturing on")) {
            let left = deadline.saturating_duration_since(Instant::now());
            match r.stderr.recv_timeout(left) {
                Ok(l) => r.stderr_lines.push(l),
                Err(_) => panic!("capture did not start: {:?}", r.stderr_lines),
            }
        }
        r
    }

    /// Waits for the process to end; (exit code, stdout, stderr).
    fn finish(self) -> (i32, String, String) {
        let (code, out, err) = self.finish_bytes();
        (code, String::from_utf8(out).unwrap(), err)
    }

    /// Waits for the process to end; (exit code, stdout's bytes, stderr).
    fn finish_bytes(mut self) -> (i32, Vec<u8>, String) {
        let mut out = Vec::new();
        if let Some(mut o) = self.child.stdout.take() {
            o.read_to_end(&mut out).unwrap();
        }
        let status = self.child.wait().unwrap();
        while let Ok(l) = self.stderr.recv_timeout(Duration::from_secs(5)) {
            self.stderr_lines.push(l);
        }
        (
            status.code().unwrap_or(-1),
            out,
            self.stderr_lines.join("\n"),
        )
    }
}

fn dhcpv6_solicit() -> Vec<u8> {
    let duid = Duid::ll(1, &[2, 0, 0, 0x4c, 0x1f, 1]);
    dhcpv6::Message::client(ClientMessage::new(
        msg_type::SOLICIT,
        XID6,
        vec![
            Opt::client_id(duid),
            Opt::elapsed_time(0),
            Opt::ia_na(1, 0, 0, vec![]),
        ],
    ))
    .emit()
}

fn dhcpv4_discover() -> Vec<u8> {
    dhcpv4::Message::request(message_type::DISCOVER, XID4, [2, 0, 0, 0x4c, 0x1f, 2])
        .with(dhcpv4::Opt::client_identifier(1, &[2, 0, 0, 0x4c, 0x1f, 2]))
        .padded_to(300)
        .emit()
}

fn asap_announce() -> Vec<u8> {
    rserpool::Message::new(
        Protocol::Asap,
        Encoding::Rfc,
        10,
        0,
        Fixed::ServerId(ANNOUNCE_ID),
        vec![],
    )
    .emit()
}

fn enrp_presence() -> Vec<u8> {
    rserpool::Message::new(
        Protocol::Enrp,
        Encoding::Rfc,
        1,
        0,
        Fixed::Servers {
            sender: PRESENCE_ID,
            receiver: 0,
        },
        vec![],
    )
    .emit()
}

fn asap_registration_over_sctp() -> Vec<u8> {
    let reg = rserpool::Message::new(
        Protocol::Asap,
        Encoding::Rfc,
        1,
        0,
        Fixed::None,
        vec![Parameter::PoolHandle(POOL.into())],
    )
    .emit();
    let chunks = vec![Chunk::Data {
        tsn: 1,
        stream: 0,
        ssn: 0,
        ppid: 11,
        flags: DataFlags::WHOLE,
        data: &reg,
    }];
    let p = Packet::sctp(
        Ip::v4(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST),
        40000,
        3863,
        0x4c1f_0005,
        chunks,
    );
    let mut ip = Vec::new();
    p.build_ip(&mut ip);
    // The raw socket writes the IPv4 header itself: hand it the SCTP packet only.
    ip[20..].to_vec()
}

/// Sends an SCTP packet to 127.0.0.1 through a raw IP socket (protocol 132).
fn send_sctp(sctp: &[u8]) {
    // SAFETY: plain socket calls on a descriptor owned here, with valid buffers and lengths.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_RAW, 132);
        assert!(fd >= 0, "raw socket: {}", std::io::Error::last_os_error());
        let mut to: libc::sockaddr_in = std::mem::zeroed();
        to.sin_family = libc::AF_INET as libc::sa_family_t;
        to.sin_addr.s_addr = u32::from(Ipv4Addr::LOCALHOST).to_be();
        let n = libc::sendto(
            fd,
            sctp.as_ptr().cast(),
            sctp.len(),
            0,
            (&to as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        assert_eq!(n, sctp.len() as isize, "raw send: {err}");
    }
}

fn send_udp(to: (IpAddr, u16), payload: &[u8]) {
    let bind: IpAddr = match to.0 {
        IpAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
        IpAddr::V6(_) => Ipv6Addr::LOCALHOST.into(),
    };
    let s = UdpSocket::bind((bind, 0)).unwrap();
    s.send_to(payload, to).unwrap();
}

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn field<'a>(r: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    r.get("fields").and_then(|f| f.get(name))
}

fn tshark_fields(file: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut c = Command::new("tshark");
    c.arg("-r")
        .arg(file)
        .args(["-T", "fields", "-E", "separator=|"]);
    for f in fields {
        c.args(["-e", f]);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect()
}

#[test]
fn every_message_sent_on_lo_is_decoded_once_and_the_file_reads_back_the_same() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let file = temp_path("all.pcapng");
    let file_s = file.to_str().unwrap();
    let run = Running::start(&[
        "-i",
        "lo",
        "--count",
        "5",
        "--duration",
        "30",
        "--format",
        "jsonl",
        "-w",
        file_s,
    ]);
    let before = now_secs();
    // Not ours: the default filter must keep it out (else it would take one of the 5).
    send_udp((Ipv4Addr::LOCALHOST.into(), 5555), b"not poolshark's");
    send_udp((Ipv6Addr::LOCALHOST.into(), 547), &dhcpv6_solicit());
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    send_udp((Ipv4Addr::LOCALHOST.into(), 3863), &asap_announce());
    send_udp((Ipv6Addr::LOCALHOST.into(), 9901), &enrp_presence());
    send_sctp(&asap_registration_over_sctp());
    let (code, out, err) = run.finish();
    let after = now_secs();
    assert_eq!(code, 0, "stderr: {err}");
    assert!(err.contains("captured 5 frames on lo"), "{err}");

    let records = json_lines(&out);
    assert_eq!(records.len(), 5, "{out}");
    let frames: Vec<u64> = records
        .iter()
        .map(|r| r["frame"].as_u64().unwrap())
        .collect();
    assert_eq!(frames, vec![1, 2, 3, 4, 5]);
    for r in &records {
        let t = r["time"].as_f64().unwrap();
        assert!(
            t >= before - 1.0 && t <= after + 1.0,
            "kernel time {t} outside the run"
        );
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }
    let by = |proto: &str| -> Vec<&serde_json::Value> {
        records.iter().filter(|r| r["protocol"] == proto).collect()
    };
    let v6 = by("dhcpv6");
    assert_eq!(v6.len(), 1, "{out}");
    assert_eq!(field(v6[0], "dhcpv6.xid"), Some(&serde_json::json!(XID6)));
    assert_eq!(v6[0]["src"], "::1");
    let v4 = by("dhcpv4");
    assert_eq!(v4.len(), 1, "{out}");
    assert_eq!(field(v4[0], "dhcp.id"), Some(&serde_json::json!(XID4)));
    assert_eq!(v4[0]["dst"], "127.0.0.1");
    let asap = by("asap");
    assert_eq!(asap.len(), 2, "{out}");
    assert_eq!(
        field(asap[0], "asap.message_type"),
        Some(&serde_json::json!(10))
    );
    assert_eq!(
        field(asap[0], "asap.server_identifier"),
        Some(&serde_json::json!(ANNOUNCE_ID))
    );
    assert_eq!(
        field(asap[1], "asap.message_type"),
        Some(&serde_json::json!(1))
    );
    assert_eq!(
        field(asap[1], "asap.pool_handle_pool_handle"),
        Some(&serde_json::json!(hex(POOL)))
    );
    let enrp = by("enrp");
    assert_eq!(enrp.len(), 1, "{out}");
    assert_eq!(
        field(enrp[0], "enrp.sender_servers_id"),
        Some(&serde_json::json!(PRESENCE_ID))
    );

    // The file decodes to the very same records.
    let o = poolshark()
        .args(["read", file_s, "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), out);

    // tshark reads it: the interface name, the protocols, the values sent.
    if common::have_tshark() {
        let rows = tshark_fields(
            &file,
            &[
                "frame.interface_name",
                "frame.protocols",
                "dhcpv6.xid",
                "dhcp.id",
                "asap.server_identifier",
                "enrp.sender_servers_id",
                "asap.pool_handle_pool_handle",
            ],
        );
        assert_eq!(rows.len(), 5, "{rows:?}");
        assert!(rows.iter().all(|r| r[0] == "lo"), "{rows:?}");
        let protos: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
        assert!(protos[0].ends_with("udp:dhcpv6"), "{protos:?}");
        assert!(protos[1].ends_with("udp:dhcp"), "{protos:?}");
        assert!(protos[2].ends_with("udp:asap"), "{protos:?}");
        assert!(protos[3].ends_with("udp:enrp"), "{protos:?}");
        assert!(protos[4].ends_with("sctp:asap"), "{protos:?}");
        assert_eq!(rows[0][2], format!("{XID6:#08x}"));
        assert_eq!(rows[1][3], format!("{XID4:#010x}"));
        assert_eq!(rows[2][4], format!("{ANNOUNCE_ID:#010x}"));
        assert_eq!(rows[3][5], format!("{PRESENCE_ID:#010x}"));
        assert_eq!(rows[4][6], hex(POOL));
    }
    let _ = std::fs::remove_file(&file);
}

/// `capture -w -`: the pcapng goes to standard output, alone (no listing), as `read -w -` and
/// `tshark -w -` do; it used to create a file named `-` in the working directory and list the
/// frames on standard output.
#[test]
fn dash_writes_the_capture_file_to_standard_output() {
    // Refused before any capture opens (no privilege needed): the --check report would share
    // standard output with the file.
    let o = poolshark()
        .args(["capture", "-i", "lo", "-w", "-", "--check", "--count", "1"])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--check with -w -"), "{err}");
    assert!(o.stdout.is_empty());

    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let dir = temp_path("dash");
    std::fs::create_dir_all(&dir).unwrap();
    let run = Running::start_in(
        Some(&dir),
        &[
            "-i",
            "lo",
            "--count",
            "2",
            "--duration",
            "30",
            "-f",
            "udp dst port 67 and dst host 127.0.0.1",
            "-w",
            "-",
            "-T",
            "json",
        ],
    );
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish_bytes();
    assert_eq!(code, 0, "{err}");
    assert!(!dir.join("-").exists(), "a file named '-' was created");
    // Nothing but the pcapng: its section header first, and it reads back with both frames.
    assert_eq!(
        &out[..4],
        &[0x0a, 0x0d, 0x0d, 0x0a],
        "{:?}",
        &out[..16.min(out.len())]
    );
    let file = dir.join("out.pcapng");
    std::fs::write(&file, &out).unwrap();
    let back = poolshark()
        .args(["read", "--format", "jsonl"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(back.status.success());
    let records = json_lines(&String::from_utf8_lossy(&back.stdout));
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records.iter().all(|r| r["protocol"] == "dhcpv4"),
        "{records:?}"
    );
    if common::have_tshark() {
        let rows = tshark_fields(&file, &["frame.interface_name", "dhcp.id"]);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows.iter().all(|r| r[0] == "lo"), "{rows:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `-f`, alone and with `-Y`: the capture filter decides what is captured (and counted by
/// `--count`), the display filter what is shown of it.
#[test]
fn a_user_filter_is_applied_in_the_kernel() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    for (filters, count, shown) in [
        (
            &["-f", "udp dst port 3863 and dst host 127.0.0.1"][..],
            "1",
            1,
        ),
        (
            &["-f", "udp and dst host 127.0.0.1", "-Y", "asap"][..],
            "3",
            2,
        ),
    ] {
        let mut args = vec!["-i", "lo", "--count", count, "--duration", "30"];
        args.extend(["--format", "jsonl"]);
        args.extend(filters);
        let run = Running::start(&args);
        // DHCP is decoded by default but not kept by the first filter; the IPv6 frame is kept
        // by neither.
        send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
        send_udp((Ipv6Addr::LOCALHOST.into(), 3863), &asap_announce());
        send_udp((Ipv4Addr::LOCALHOST.into(), 3863), &asap_announce());
        send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
        let (code, out, err) = run.finish();
        assert_eq!(code, 0, "{filters:?}: {err}");
        let records = json_lines(&out);
        assert_eq!(records.len(), 1, "{filters:?}: {out}");
        assert_eq!(records[0]["protocol"], "asap");
        assert_eq!(records[0]["dst"], "127.0.0.1");
        assert_eq!(records[0]["frame"], shown, "{filters:?}: {out}");
    }
}

/// Tunnelled DHCP, live: the default kernel filter keeps VXLAN (4789) and a VXLAN port a decode-as
/// rule names (Linux's old 8472), where a port filter alone would have dropped both, and the
/// DHCP inside is decoded; an unrelated datagram is still left out by the kernel.
#[test]
fn the_default_filter_keeps_tunnels_and_their_dhcp_is_decoded() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let discover = dhcpv4_discover();
    let mut inner = Vec::new();
    Packet::udp(
        Ip::v4(Ipv4Addr::new(0, 0, 0, 0), Ipv4Addr::BROADCAST),
        68,
        67,
        &discover,
    )
    .build(&mut inner);
    let vxlan = |vni: u32| {
        let mut v = vec![0x08, 0, 0, 0];
        v.extend_from_slice(&(vni << 8).to_be_bytes());
        v.extend_from_slice(&inner);
        v
    };
    let run = Running::start(&[
        "-i",
        "lo",
        "--count",
        "2",
        "--duration",
        "30",
        "--format",
        "jsonl",
        "-d",
        "udp.port==8472,vxlan",
    ]);
    send_udp((Ipv4Addr::LOCALHOST.into(), 5000), &vxlan(1));
    send_udp((Ipv4Addr::LOCALHOST.into(), 4789), &vxlan(2));
    send_udp((Ipv4Addr::LOCALHOST.into(), 8472), &vxlan(3));
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    let records = json_lines(&out);
    assert_eq!(records.len(), 2, "{out}\n{err}");
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["frame"], i as u64 + 1, "{out}");
        assert_eq!(r["protocol"], "dhcpv4", "{out}");
        // The inner datagram's addresses, as tshark's columns show them.
        assert_eq!(r["dst"], "255.255.255.255", "{out}");
        assert_eq!(field(r, "dhcp.type"), Some(&serde_json::json!(1)), "{out}");
    }
}

/// `capture -T fields`: tshark's columns, live, one line per frame as it comes.
#[test]
fn fields_are_written_as_frames_come() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let run = Running::start(&[
        "-i",
        "lo",
        "-f",
        "udp dst port 67 and dst host 127.0.0.1",
        "--count",
        "1",
        "--duration",
        "30",
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "ip.dst",
        "-e",
        "udp.dstport",
        "-e",
        "dhcp.option.dhcp",
        "-E",
        "header=y",
    ]);
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "frame.number\tip.dst\tudp.dstport\tdhcp.option.dhcp\n1\t127.0.0.1\t67\t1\n"
    );
}

#[test]
fn any_captures_cooked_frames_without_loopback_duplicates() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let file = temp_path("any.pcapng");
    let run = Running::start(&[
        "-i",
        "any",
        "-f",
        "udp dst port 67 and host 127.0.0.1",
        "--duration",
        "3",
        "--format",
        "jsonl",
        "-w",
        file.to_str().unwrap(),
    ]);
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    let records = json_lines(&out);
    assert_eq!(records.len(), 1, "one message, seen once: {out}");
    assert_eq!(
        field(&records[0], "dhcp.id"),
        Some(&serde_json::json!(XID4))
    );
    if common::have_tshark() {
        let rows = tshark_fields(
            &file,
            &["frame.interface_name", "frame.protocols", "dhcp.id"],
        );
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0][0], "any");
        assert!(rows[0][1].starts_with("sll:"), "{rows:?}");
        assert_eq!(rows[0][2], format!("{XID4:#010x}"));
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn ctrl_c_stops_flushes_and_prints_the_check_report() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let file = temp_path("int.pcapng");
    let started = Instant::now();
    let run = Running::start(&[
        "-i",
        "lo",
        "--check",
        "--duration",
        "60",
        "-w",
        file.to_str().unwrap(),
    ]);
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    // Let the frame reach the output before the interrupt.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: a signal to our own child process.
    let r = unsafe { libc::kill(run.child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let (code, out, err) = run.finish();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the interrupt did not stop it"
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("DHCP Discover - Transaction ID 0x4c1f0002"),
        "{out}"
    );
    // The report `check` prints, after the frames.
    assert!(
        out.contains("findings: 0 (0 error, 0 warning, 0 info)"),
        "{out}"
    );
    assert!(err.contains("captured 1 frames on lo"), "{err}");
    let o = poolshark()
        .args(["read", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("DHCP Discover - Transaction ID 0x4c1f0002"));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn without_privileges_the_error_names_cap_net_raw_and_root() {
    // As root, drop to nobody (which drops every capability); otherwise run as we are.
    let is_root = unsafe { libc::geteuid() } == 0;
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let mut c = if is_root {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let o = match c.args(["capture", "-i", "lo", "--count", "1"]).output() {
        Ok(o) => o,
        Err(e) => {
            poolshark::test_support::skip(format_args!("setpriv cannot be run: {e}"));
            return;
        }
    };
    let err = String::from_utf8_lossy(&o.stderr);
    if err.contains("failed to execute") || err.contains("cannot execute") {
        poolshark::test_support::skip(format_args!(
            "the unprivileged user cannot reach the binary: {err}"
        ));
        return;
    }
    if o.status.success() {
        // Only possible when this user holds CAP_NET_RAW (a capability on the binary).
        poolshark::test_support::skip("this user may capture");
        return;
    }
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot capture on lo"), "{err}");
    assert!(err.contains("CAP_NET_RAW") && err.contains("root"), "{err}");
}

/// The address `capture --metrics` said it serves on.
fn metrics_address(run: &Running) -> std::net::SocketAddr {
    run.stderr_lines
        .iter()
        .find_map(|l| l.strip_prefix("poolshark: metrics at http://"))
        .and_then(|l| l.strip_suffix("/metrics"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no metrics address: {:?}", run.stderr_lines))
}

/// An HTTP/1.1 request to `addr`: (status line, body).
fn http(addr: std::net::SocketAddr, request: &str) -> (String, String) {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    let (head, body) = all.split_once("\r\n\r\n").unwrap_or((&all, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

fn scrape(addr: std::net::SocketAddr) -> String {
    let (status, body) = http(addr, "GET /metrics HTTP/1.1\r\nHost: poolshark\r\n\r\n");
    assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
    body
}

/// Whether tcpreplay can be run; skips (or fails, with live capture required) otherwise.
fn have_tcpreplay() -> bool {
    let ok = Command::new("tcpreplay")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_LIVE").is_some() {
            panic!("POOLSHARK_REQUIRE_LIVE is set but tcpreplay cannot be run");
        }
        poolshark::test_support::skip("tcpreplay is not installed (apt-get install tcpreplay)");
    }
    ok
}

/// Shared captures replayed onto `lo` while `capture --check --metrics` runs: what a scrape says
/// during the capture and what the last page says at its end agree with `check --format json` on
/// the capture file it wrote (the same frames, with the times they were seen), and promtool
/// accepts both pages.
#[test]
fn metrics_served_while_capturing_agree_with_check_on_the_same_frames() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() || !have_tcpreplay() {
        return;
    }
    let (Some(rserpool), Some(kea)) = (
        common::shared_capture("rserpool/rsplib-multi-pe.pcap"),
        common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"),
    ) else {
        return;
    };
    let promtool = crate::metrics::have_promtool();
    let (file, last, listing) = (
        temp_path("metrics.pcapng"),
        temp_path("last.prom"),
        temp_path("listing.txt"),
    );
    let run = Running::start_with(
        None,
        Stdio::from(std::fs::File::create(&listing).unwrap()),
        &[
            "-i",
            "lo",
            "--check",
            "--metrics",
            "127.0.0.1:0",
            "--metrics-file",
            last.to_str().unwrap(),
            "-w",
            file.to_str().unwrap(),
            "--duration",
            "120",
        ],
    );
    let addr = metrics_address(&run);
    assert!(addr.ip().is_loopback() && addr.port() != 0, "{addr}");
    // Before any frame: the page is there, with the capture's own counts.
    std::thread::sleep(Duration::from_millis(1200));
    let first = crate::metrics::Page::parse(&scrape(addr));
    assert_eq!(first.get("poolshark_frames_total", &[]), Some(0.0));
    for capture in [&rserpool, &kea] {
        // A rate lo takes without a drop (the kernel's drops are checked below).
        let o = Command::new("tcpreplay")
            .args(["-q", "-i", "lo", "--pps", "4000"])
            .arg(capture)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // The frames of both files, counted by a scrape while the capture goes on.
    let want = |c: &Path| {
        let o = poolshark()
            .args(["check", "--no-progress", "--format", "json"])
            .arg(c)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let (rs, k) = (want(&rserpool), want(&kea));
    let deadline = Instant::now() + Duration::from_secs(20);
    let live = loop {
        let text = scrape(addr);
        let page = crate::metrics::Page::parse(&text);
        let rs_messages = page.sum_by("poolshark_messages_total", "protocol");
        // Every RSerPool and DHCPv6 message of the two files (the Kea file's neighbour
        // discovery is not captured: the default filter keeps what poolshark decodes).
        if rs_messages.get("asap").copied().unwrap_or(0.0)
            + rs_messages.get("enrp").copied().unwrap_or(0.0)
            == rs["summary"]["messages"].as_f64().unwrap()
            && rs_messages.get("dhcpv6").copied() == k["summary"]["messages"].as_f64()
        {
            break (text, page);
        }
        assert!(Instant::now() < deadline, "{text}");
        std::thread::sleep(Duration::from_millis(300));
    };
    let (text, page) = live;
    assert_eq!(
        page.get(
            "poolshark_capture_kernel_dropped_total",
            &[("interface", "lo")]
        ),
        Some(0.0),
        "{text}"
    );
    // RSerPool resolutions are counted as they are answered: the scrape has every one.
    for p in rs["pools"].as_array().unwrap() {
        assert_eq!(
            page.get(
                "poolshark_rserpool_resolutions_total",
                &[
                    ("registrar", p["registrar"].as_str().unwrap()),
                    ("pool", p["handle"].as_str().unwrap())
                ]
            ),
            p["resolutions"].as_f64(),
            "{p}"
        );
    }
    if promtool {
        crate::metrics::promtool_accepts(&text);
    }
    // SAFETY: a signal to our own child process.
    let r = unsafe { libc::kill(run.child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let (code, _, err) = run.finish();
    assert!(matches!(code, 0 | 1), "{err}");
    // The last page against check on the frames the capture wrote.
    let o = poolshark()
        .args(["check", "--no-progress", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let last_text = std::fs::read_to_string(&last).unwrap();
    let last_page = crate::metrics::Page::parse(&last_text);
    crate::metrics::names_follow_the_conventions(&last_page);
    crate::metrics::agrees_with_report(&last_page, &report, None);
    assert_eq!(
        last_page.get("poolshark_capture_frames_total", &[]),
        report["summary"]["frames"].as_f64()
    );
    // Both files' analyses are in it: the Kea pair and the rsplib registrars.
    assert!(!last_page
        .all("poolshark_dhcp_balanced_answers_total")
        .is_empty());
    assert!(!last_page
        .all("poolshark_rserpool_resolutions_total")
        .is_empty());
    if promtool {
        crate::metrics::promtool_accepts(&last_text);
    }
    for f in [&file, &last, &listing] {
        let _ = std::fs::remove_file(f);
    }
}

/// The endpoint while capturing: 404 and 405 where due, a client that never sends and one that
/// never reads block neither the capture nor the other scrapes, concurrent scrapes are served.
#[test]
fn the_metrics_endpoint_serves_scrapes_alongside_stuck_clients() {
    use std::io::Write;
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() {
        return;
    }
    let run = Running::start(&[
        "-i",
        "lo",
        "--check",
        "--metrics",
        "127.0.0.1:0",
        "--duration",
        "60",
    ]);
    let addr = metrics_address(&run);
    assert_eq!(
        http(addr, "GET / HTTP/1.1\r\n\r\n").0,
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(
        http(addr, "GET /metric HTTP/1.1\r\n\r\n").0,
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(
        http(addr, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").0,
        "HTTP/1.1 405 Method Not Allowed"
    );
    // One sends nothing; one asks and never reads (its answer waits in the socket buffers).
    let silent: Vec<_> = (0..4)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    let mut deaf = std::net::TcpStream::connect(addr).unwrap();
    deaf.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
    // The capture goes on: a frame sent now is counted by the next snapshots.
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let started = Instant::now();
    let deadline = started + Duration::from_secs(10);
    loop {
        let page = crate::metrics::Page::parse(&scrape(addr));
        // At least: another program may send on lo too.
        if page.get("poolshark_frames_total", &[]) >= Some(1.0) {
            break;
        }
        assert!(Instant::now() < deadline, "the frame was never counted");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Eight scrapes at once, each answered in full and soon.
    let t = Instant::now();
    let scrapes: Vec<_> = (0..8)
        .map(|_| std::thread::spawn(move || scrape(addr)))
        .collect();
    for s in scrapes {
        let text = s.join().unwrap();
        assert!(text.contains("\npoolshark_frames_total "), "{text}");
    }
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // SAFETY: a signal to our own child process.
    let r = unsafe { libc::kill(run.child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let stopping = Instant::now();
    let (code, _, err) = run.finish();
    // The stuck clients do not hold the end of the run.
    assert!(stopping.elapsed() < Duration::from_secs(5), "{err}");
    assert_eq!(code, 0, "{err}");
    drop((silent, deaf));
}

#[test]
fn a_metrics_port_that_cannot_be_bound_stops_the_run_before_capturing() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let o = poolshark()
        .args(["capture", "-i", "lo", "--metrics", &port.to_string()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    assert!(!err.contains("capturing on"), "{err}");
}

/// Whether this test may run as root (it must, under POOLSHARK_REQUIRE_LIVE=1).
fn root_or_skip(what: &str) -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return true;
    }
    if std::env::var_os("POOLSHARK_REQUIRE_LIVE").is_some() {
        panic!("POOLSHARK_REQUIRE_LIVE is set but this test is not root: {what} needs root");
    }
    poolshark::test_support::skip(format_args!("{what} needs root"));
    false
}

/// The fields of /proc/PID/task/TID/status for every thread of `pid`: (Uid, Gid, CapEff,
/// CapPrm, NoNewPrivs) lines, by thread name.
fn thread_credentials(pid: u32) -> Vec<(String, [String; 5])> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(t.path().join("status")) else {
            continue;
        };
        let get = |k: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default()
        };
        out.push((
            get("Name:"),
            [
                get("Uid:"),
                get("Gid:"),
                get("CapEff:"),
                get("CapPrm:"),
                get("NoNewPrivs:"),
            ],
        ));
    }
    out
}

/// Waits until `pid` has a thread named `capture` (the one that reads the rings), then returns
/// every thread's credentials.
fn credentials_once_capturing(pid: u32) -> Vec<(String, [String; 5])> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let c = thread_credentials(pid);
        if c.iter().any(|(n, _)| n == "capture") {
            return c;
        }
        assert!(Instant::now() < deadline, "no capture thread: {c:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Started as root, the capture runs as nobody (every thread: real, effective, saved and file
/// ids), with no capability and no_new_privs, while it decodes what crosses lo; the -w file
/// was created before and belongs to the user sudo names.
#[test]
fn a_capture_started_as_root_parses_packets_as_nobody_without_capabilities() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !root_or_skip("dropping root") || !live_permitted() {
        return;
    }
    let dir = temp_path("drop");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("as-nobody.pcapng");
    let mut cmd = poolshark();
    cmd.env("SUDO_UID", "4242").env("SUDO_GID", "4343");
    let run = Running::start_cmd(
        cmd,
        &[
            "-i",
            "lo",
            "--count",
            "1",
            "--duration",
            "30",
            "--format",
            "jsonl",
            "-w",
            file.to_str().unwrap(),
        ],
    );
    let creds = credentials_once_capturing(run.child.id());
    assert!(creds.len() >= 2, "{creds:?}");
    for (name, [uid, gid, eff, prm, nnp]) in &creds {
        assert_eq!(uid, "65534 65534 65534 65534", "thread {name}");
        assert_eq!(gid, "65534 65534 65534 65534", "thread {name}");
        assert_eq!(eff, "0000000000000000", "thread {name}");
        assert_eq!(prm, "0000000000000000", "thread {name}");
        assert_eq!(nnp, "1", "thread {name}");
    }
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("running as nobody (uid 65534"), "{err}");
    let records = json_lines(&out);
    assert_eq!(records.len(), 1, "{out}");
    assert_eq!(
        field(&records[0], "dhcp.id"),
        Some(&serde_json::json!(XID4)),
        "{out}"
    );
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4242, 4343));
    // Written after the drop through the descriptor opened before: the frame is in it.
    let o = poolshark().arg("read").arg(&file).output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("DHCP Discover - Transaction ID 0x4c1f0002"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-Z root` keeps root and says so on stderr; no_new_privs is set all the same.
#[test]
fn dash_z_root_keeps_root_and_says_so() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !root_or_skip("-Z root") || !live_permitted() {
        return;
    }
    let run = Running::start(&["-i", "lo", "-Z", "root", "--count", "1", "--duration", "30"]);
    let creds = credentials_once_capturing(run.child.id());
    for (name, [uid, _, eff, _, nnp]) in &creds {
        assert_eq!(uid, "0 0 0 0", "thread {name}");
        assert_ne!(eff, "0000000000000000", "thread {name}");
        assert_eq!(nnp, "1", "thread {name}");
    }
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("-Z root: still running as root"), "{err}");
    assert!(out.contains("DHCP Discover"), "{out}");
}

/// Started as an unprivileged user holding only CAP_NET_RAW (ambient, as `setcap` on the binary
/// would give it), the capture drops it once the socket is open.
#[test]
fn a_capture_with_only_cap_net_raw_drops_it_after_opening() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !root_or_skip("setting up a CAP_NET_RAW-only process") || !live_permitted() {
        return;
    }
    let mut cmd = Command::new("setpriv");
    cmd.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=-all,+net_raw",
        "--ambient-caps=-all,+net_raw",
        env!("CARGO_BIN_EXE_poolshark"),
    ]);
    let probe = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_poolshark"))
        .arg("--version")
        .output();
    match probe {
        Ok(o) if o.status.success() => {}
        other => {
            poolshark::test_support::skip(format_args!(
                "nobody cannot run the binary here: {other:?}"
            ));
            return;
        }
    }
    let run = Running::start_cmd(
        cmd,
        &[
            "-i",
            "lo",
            "--count",
            "1",
            "--duration",
            "30",
            "--format",
            "jsonl",
        ],
    );
    let creds = credentials_once_capturing(run.child.id());
    for (name, [uid, _, eff, prm, nnp]) in &creds {
        assert_eq!(uid, "65534 65534 65534 65534", "thread {name}");
        assert_eq!(eff, "0000000000000000", "thread {name}");
        assert_eq!(prm, "0000000000000000", "thread {name}");
        assert_eq!(nnp, "1", "thread {name}");
    }
    send_udp((Ipv4Addr::LOCALHOST.into(), 67), &dhcpv4_discover());
    let (code, out, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("capabilities dropped"), "{err}");
    assert_eq!(json_lines(&out).len(), 1, "{out}");
}

/// A network namespace of the test's own, deleted (with the veth pair in it) when dropped,
/// a failed assertion included.
struct Netns(String);

impl Netns {
    fn create() -> Option<Netns> {
        let name = format!("psh-live-{}", std::process::id());
        let ip = |args: &[&str]| {
            Command::new("ip")
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !ip(&["netns", "add", &name]) {
            return None;
        }
        let ns = Netns(name);
        let n = ns.0.as_str();
        for args in [
            &["-n", n, "link", "set", "lo", "up"][..],
            &[
                "-n", n, "link", "add", "va", "type", "veth", "peer", "name", "vb",
            ],
            &["-n", n, "link", "set", "va", "up"],
            &["-n", n, "link", "set", "vb", "up"],
        ] {
            assert!(ip(args), "ip {args:?} failed");
        }
        Some(ns)
    }

    fn exec(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.0]).arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).output();
    }
}

/// Two interfaces at once, lo and one end of a veth pair in a namespace of the test's own:
/// a shared DHCPv6 capture replayed on lo and an RSerPool one on the other end of the pair,
/// at the same time. The -w file describes both interfaces and tshark finds every DHCPv6
/// message of the first file on lo and every ASAP/ENRP message of the second on va, none
/// elsewhere; the summary counts each interface's frames as the file holds them, no drop.
#[test]
fn two_interfaces_at_once_keep_each_frame_s_interface() {
    if !root_or_skip("a network namespace") || !have_tcpreplay() || !common::have_tshark() {
        return;
    }
    let (Some(rserpool), Some(kea)) = (
        common::shared_capture("rserpool/rsplib-multi-pe.pcap"),
        common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"),
    ) else {
        return;
    };
    let Some(ns) = Netns::create() else {
        if std::env::var_os("POOLSHARK_REQUIRE_LIVE").is_some() {
            panic!("POOLSHARK_REQUIRE_LIVE is set but no network namespace can be made");
        }
        poolshark::test_support::skip("no network namespace can be made (ip netns add)");
        return;
    };
    let file = temp_path("two.pcapng");
    let run = Running::start_cmd(
        ns.exec(env!("CARGO_BIN_EXE_poolshark")),
        &[
            "-i",
            "lo",
            "-i",
            "va",
            "-w",
            file.to_str().unwrap(),
            "--duration",
            "120",
        ],
    );
    let replay = |iface: &'static str, capture: PathBuf| {
        let mut c = ns.exec("tcpreplay");
        c.args(["-q", "-i", iface, "--pps", "3000"]).arg(capture);
        std::thread::spawn(move || c.output().unwrap())
    };
    let (a, b) = (replay("lo", kea.clone()), replay("vb", rserpool.clone()));
    for o in [a.join().unwrap(), b.join().unwrap()] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: a signal to our own child process (ip netns exec became poolshark).
    let r = unsafe { libc::kill(run.child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let (code, _, err) = run.finish();
    assert_eq!(code, 0, "{err}");
    let count =
        |capture: &Path, filter: &str| common::tshark::fields(capture, filter, &[], &[]).len();
    let on = |iface: &str, filter: &str| {
        count(
            &file,
            &format!("frame.interface_name == \"{iface}\" && ({filter})"),
        )
    };
    let dhcpv6 = count(&kea, "dhcpv6");
    let rsp = count(&rserpool, "asap || enrp");
    assert!(dhcpv6 > 0 && rsp > 0);
    assert_eq!(on("lo", "dhcpv6"), dhcpv6, "{err}");
    assert_eq!(on("va", "asap || enrp"), rsp, "{err}");
    assert_eq!(on("lo", "asap || enrp"), 0);
    assert_eq!(on("va", "dhcpv6"), 0);
    for iface in ["lo", "va"] {
        let frames = on(iface, "frame");
        assert!(
            err.contains(&format!(
                "captured {frames} frames on {iface} (0 dropped by the kernel, 0 dropped in poolshark"
            )),
            "{iface}: {err}"
        );
    }
    let _ = std::fs::remove_file(&file);
}

/// The DHCP analyser learns its model from the first events (up to its learn limit, else the
/// whole run): on the small traffic of one pair it would show nothing before the capture ended.
/// Live, each snapshot learns a provisional model from the events so far: the Kea pair replayed
/// slowly onto `lo` shows in a scrape while the replay still runs, its two servers (the ones the
/// capture's README names) with balanced answers, shares and the pair's episode, each count
/// within what `check` finds in the whole file.
#[test]
fn a_dhcp_pair_shows_in_the_metrics_while_its_traffic_goes_on() {
    let _lo = LO.lock().unwrap_or_else(|e| e.into_inner());
    if !live_permitted() || !have_tcpreplay() {
        return;
    }
    let Some(kea) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let servers = [
        ("00:03:00:01:02:00:00:00:01:01", "primary"),
        ("00:03:00:01:02:00:00:00:02:02", "secondary"),
    ];
    let o = poolshark()
        .args(["check", "--no-progress", "--format", "json"])
        .arg(&kea)
        .output()
        .unwrap();
    let whole: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let whole_answers = |server: &str| {
        whole["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == server)
            .and_then(|s| s["balanced_answers"].as_f64())
            .unwrap_or_else(|| panic!("check has no {server}: {whole}"))
    };
    let dhcpv6_messages = whole["summary"]["messages"].as_f64().unwrap();
    let run = Running::start(&[
        "-i",
        "lo",
        "--check",
        "--metrics",
        "127.0.0.1:0",
        "--duration",
        "120",
    ]);
    let addr = metrics_address(&run);
    // 3115 frames at 150 a second: about 20 s of replay.
    let mut replay = Command::new("tcpreplay")
        .args(["-q", "-i", "lo", "--pps", "150"])
        .arg(&kea)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let seen = loop {
        let text = scrape(addr);
        // Read before the scrape's values are looked at: the replay was still going on when
        // the scrape was answered.
        let replaying = replay.try_wait().unwrap().is_none();
        let page = crate::metrics::Page::parse(&text);
        let answers: Vec<Option<f64>> = servers
            .iter()
            .map(|(s, role)| {
                page.get(
                    "poolshark_dhcp_balanced_answers_total",
                    &[("server", s), ("role", role)],
                )
            })
            .collect();
        if answers.iter().all(|a| a.is_some_and(|n| n > 0.0)) {
            assert!(replaying, "seen only once the replay had ended: {text}");
            break (text, page, answers);
        }
        assert!(
            replaying,
            "the pair's servers had no balanced answers before the replay ended: {text}"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    let (text, page, answers) = seen;
    let messages = page.sum_by("poolshark_messages_total", "protocol");
    let live_dhcpv6 = messages.get("dhcpv6").copied().unwrap_or(0.0);
    assert!(live_dhcpv6 < dhcpv6_messages, "{text}");
    for ((server, _), n) in servers.iter().zip(&answers) {
        assert!(
            n.unwrap_or(0.0) <= whole_answers(server),
            "{server}: {text}"
        );
    }
    let shares: Vec<f64> = servers
        .iter()
        .map(|(s, _)| {
            page.get("poolshark_dhcp_share", &[("server", s)])
                .unwrap_or_else(|| panic!("no share of {s}: {text}"))
        })
        .collect();
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 0.01, "{text}");
    let episode: Vec<_> = page
        .all("poolshark_dhcp_episode")
        .iter()
        .filter(|(_, v)| *v == 1.0)
        .collect();
    assert_eq!(episode.len(), 1, "one current episode: {text}");
    let _ = replay.wait();
    // SAFETY: a signal to our own child process.
    let r = unsafe { libc::kill(run.child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let (code, _, err) = run.finish();
    assert!(matches!(code, 0 | 1), "{err}");
}
