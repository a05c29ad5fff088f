//! The failover decoder against tshark over the shared ISC DHCP failover capture: TCP payloads
//! extracted by tshark and reassembled here per direction, framed by `Framer`, parsed, and
//! compared field by field (name, position, size, bytes, and the shown value where it is a number
//! or text) with tshark's `dhcpfo` tree; the README's message counts are checked too.

use crate::common;
use crate::fo_compare;
use crate::pdml;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use poolshark::analyse::dhcp_lb::Hba;
use poolshark::proto::failover::{self, Framer, MessageType};

const CAPTURE: &str = "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap";

/// One message our side framed, with the frame whose segment completed it.
struct Ours {
    frame: u64,
    src: String,
    bytes: Vec<u8>,
}

/// Reassembles each direction of each connection by sequence number and frames it.
fn frame_with_our_framer(file: &Path) -> Vec<Ours> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-Y", "tcp.port == 647", "-T", "fields"])
        .args(["-e", "frame.number", "-e", "ip.src", "-e", "tcp.srcport"])
        .args(["-e", "ip.dst", "-e", "tcp.dstport", "-e", "tcp.seq_raw"])
        .args(["-e", "tcp.flags.syn", "-e", "tcp.payload"])
        .output()
        .expect("run tshark");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");

    struct Stream {
        next_seq: Option<u32>,
        framer: Framer,
    }
    let mut streams: HashMap<(String, String, String, String), Stream> = HashMap::new();
    let mut ours = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [frame, src, sport, dst, dport, seq, syn, payload] = cols[..] else {
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
            // A new connection on this 4-tuple: the SYN takes one sequence number.
            s.next_seq = Some(seq.wrapping_add(1));
            s.framer.reset();
            continue;
        }
        let data = pdml::unhex(payload);
        if data.is_empty() {
            continue;
        }
        let next = *s.next_seq.get_or_insert(seq);
        // Keep only bytes beyond what the stream already has (retransmissions overlap).
        let already = next.wrapping_sub(seq) as usize;
        assert!(
            already <= data.len() || next.wrapping_sub(seq) > u32::MAX / 2,
            "frame {frame}: gap in the stream"
        );
        assert!(
            next.wrapping_sub(seq) <= u32::MAX / 2,
            "frame {frame}: segment after a gap (the capture has no loss)"
        );
        let fresh = &data[already.min(data.len())..];
        s.next_seq = Some(next.wrapping_add(fresh.len() as u32));
        for r in s.framer.feed(fresh) {
            let framed = r.unwrap_or_else(|e| panic!("frame {frame}: {e}"));
            ours.push(Ours {
                frame,
                src: src.to_string(),
                bytes: framed.bytes,
            });
        }
    }
    for (k, s) in &streams {
        assert_eq!(s.framer.pending(), 0, "{k:?} ends inside a message");
        assert_eq!(s.framer.dropped(), 0, "{k:?}");
    }
    ours
}

#[test]
fn failover_capture_matches_tshark_field_by_field() {
    let Some(file) = common::shared_capture(CAPTURE) else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let ours = frame_with_our_framer(&file);
    let theirs = pdml::tshark_pdml(&file, &["-Y", "dhcpfo"]);

    // Messages per frame, in order, on both sides.
    let mut by_frame: BTreeMap<u64, Vec<&Ours>> = BTreeMap::new();
    for o in &ours {
        by_frame.entry(o.frame).or_default().push(o);
    }
    let their_count: usize = theirs
        .iter()
        .map(|p| p.protos_named("dhcpfo").count())
        .sum();
    assert_eq!(ours.len(), their_count, "messages framed vs tshark's PDUs");

    let mut fields_matched = 0;
    for p in &theirs {
        let frame = p.number();
        let mine = by_frame.remove(&frame).unwrap_or_default();
        let their_pdus: Vec<&pdml::Node> = p.protos_named("dhcpfo").collect();
        assert_eq!(mine.len(), their_pdus.len(), "frame {frame}: message count");
        for (o, t) in mine.iter().zip(their_pdus) {
            let (msg, errors) = failover::parse(&o.bytes);
            assert!(errors.is_empty(), "frame {frame}: {errors:?}");
            assert_eq!(msg.emit().unwrap(), o.bytes, "frame {frame}: round trip");
            fields_matched += fo_compare::compare(frame, &o.bytes, &msg, t, &[]);
        }
    }
    assert!(
        by_frame.is_empty(),
        "frames tshark has no dhcpfo in: {:?}",
        by_frame.keys()
    );
    assert!(fields_matched > 30_000, "{fields_matched} fields compared");
}

#[test]
fn failover_capture_readme_facts() {
    let Some(file) = common::shared_capture(CAPTURE) else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let ours = frame_with_our_framer(&file);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_sender: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut connects = 0;
    for o in &ours {
        let (m, errors) = failover::parse(&o.bytes);
        assert!(errors.is_empty());
        *counts.entry(m.msg_type.to_string()).or_default() += 1;
        *by_sender
            .entry((o.src.clone(), m.msg_type.to_string()))
            .or_default() += 1;
        match m.msg_type {
            MessageType::Connect => {
                // split 128 in primary.conf, sent by the primary.
                assert_eq!(o.src, "192.0.2.1");
                let hba = Hba::try_from(m.hash_bucket_assignment().expect("hba")).unwrap();
                assert_eq!(hba.to_string(), "split:128");
                connects += 1;
            }
            MessageType::PoolReq => assert_eq!(o.src, "192.0.2.2", "the secondary asked"),
            MessageType::PoolResp => {
                assert_eq!(o.src, "192.0.2.1");
                assert_eq!(m.addresses_transferred(), Some(6), "POOLRESP carried 6");
            }
            MessageType::BndUpd | MessageType::BndAck => {
                assert!(m.assigned_address().is_some());
            }
            _ => {}
        }
    }
    assert_eq!(counts, common::isc_failover_messages());
    assert_eq!(connects, 4);

    // Each server's own log names what it sent; this is what settles 7 = UPDREQALL and
    // 9 = UPDREQ (Wireshark 4.0 labels them the other way round).
    let dir = file.parent().unwrap();
    for (log, addr) in [("primary.log", "192.0.2.1"), ("secondary.log", "192.0.2.2")] {
        let text = std::fs::read_to_string(dir.join(log)).unwrap();
        for (line, abbrev) in [
            ("Sent update request all message", "UPDREQALL"),
            ("Sent update request message", "UPDREQ"),
            ("Sent update done message", "UPDDONE"),
        ] {
            let logged = text.lines().filter(|l| l.contains(line)).count();
            let sent = by_sender
                .get(&(addr.to_string(), abbrev.to_string()))
                .copied()
                .unwrap_or(0);
            assert_eq!(sent, logged, "{log}: '{line}'");
        }
    }
}

/// The `dhcpfo.type` values of every failover message in the capture `cmd` reads, as `poolshark
/// read -T fields` or tshark gives them (a frame's several messages joined by commas), sorted.
fn message_types(mut cmd: Command) -> Vec<String> {
    let out = cmd
        .args(["-Y", "dhcpfo", "-T", "fields", "-e", "dhcpfo.type"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{:?}", out);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut types: Vec<String> = text
        .lines()
        .flat_map(|l| l.split(','))
        .map(str::to_string)
        .collect();
    types.sort();
    types
}

/// A capture of one server's side only (a mirror of its outbound traffic, say) that also missed
/// one data segment: nothing will ever acknowledge the missing bytes, so the messages after them
/// must not wait for the end of the connection (or be lost at the end of the capture). They are
/// decoded once the sender's next segment comes more than the hole timeout later, and every
/// message tshark finds is found: only those of the missing segment are lost.
#[test]
fn a_one_way_capture_that_missed_a_segment_loses_only_that_segment() {
    let Some(file) = common::shared_capture(CAPTURE) else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let cut = std::env::temp_dir().join(format!("poolshark-one-way-{}.pcapng", std::process::id()));
    // Frame 26: the primary's first BNDUPD burst after the connect (520 bytes at 1.04 s); the
    // primary's next segment after it is a CONTACT 5 s later.
    let filter = "ip.src == 192.0.2.1 && frame.number != 26";
    assert!(crate::read_write::poolshark_write(&file, filter, &cut) > 0);

    let mut tshark = Command::new("tshark");
    tshark.arg("-r").arg(&cut);
    let theirs = message_types(tshark);
    let mut read = common::poolshark();
    read.arg("read").arg(&cut);
    let ours = message_types(read);
    // Without the missing segment, the primary sent 1163 messages.
    assert_eq!(theirs.len(), 1152, "tshark's count");
    assert_eq!(ours, theirs);

    let out = common::poolshark()
        .args(["read", "--format", "jsonl"])
        .arg(&cut)
        .output()
        .expect("run poolshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("520 TCP bytes skipped"), "{stderr}");
    assert!(!stderr.contains("still waiting"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let error = stdout
        .lines()
        .find(|l| l.contains("are missing (not captured"))
        .expect("the frame that gave the hole up has the error");
    assert!(
        error.contains("520 bytes of the TCP stream 192.0.2.1:647 → 192.0.2.2:36549 are missing (not captured, or in a frame that could not be decoded): the data after them waited 5.0 s and the other direction is silent"),
        "{error}"
    );

    // With a timeout longer than the wait, the held messages wait for the connection's end,
    // where (its FIN follows a hole, nothing acknowledges) they are still held when the capture
    // ends: counted, not silently dropped.
    let out = common::poolshark()
        .args(["read", "--tcp-hole-timeout", "600"])
        .arg(&cut)
        .output()
        .expect("run poolshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "TCP bytes still waiting for bytes missing before them at the end, not decoded"
        ),
        "{stderr}"
    );
    std::fs::remove_file(&cut).ok();
}
