//! Messages the capture does not hold (every message type, every option of draft-12, an extra
//! header, unknown options), emitted by poolshark, wrapped into TCP packets by text2pcap and
//! decoded by tshark: tshark's tree must match ours field by field.
//!
//! Where Wireshark 4.0 and the draft/ISC disagree, the tshark fields are left out here, for these
//! reasons:
//! * `dhcpfo.ipflags.reserved`, `.bootp`, `.mbz`: Wireshark masks a 16-bit field with 8-bit masks
//!   (0x80, 0x40, 0x3f); ISC defines reserved = 0x0001 and BOOTP = 0x0002. poolshark shows the
//!   ISC bits as `poolshark.dhcpfo.ipflags.*`.

use crate::common;
use crate::fo_compare;
use crate::pdml;

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::proto::failover::{
    self, BindingStatus, FoOption, Message, MessageType, ServerState,
};

fn have_text2pcap() -> bool {
    let ok = Command::new("text2pcap")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_some() {
            panic!(
                "POOLSHARK_REQUIRE_TSHARK is set but text2pcap (wireshark-common) cannot be run"
            );
        }
        poolshark::test_support::skip("text2pcap is not installed");
    }
    ok
}

fn messages() -> Vec<Message> {
    let mut out = Vec::new();
    // Every message type, and one unknown.
    for t in 1..=13u8 {
        out.push(Message::new(
            MessageType::from_u8(t),
            0x6b0c_fa0c,
            u32::from(t) * 0x0101,
            vec![FoOption::BindingStatus(BindingStatus::from_u8(t % 8))],
        ));
    }
    // Every option draft-12 defines, and an unknown one.
    out.push(Message::new(
        MessageType::BndUpd,
        1_796_012_579,
        0xdead_beef,
        vec![
            FoOption::AddressesTransferred(6),
            FoOption::AssignedIpAddress(Ipv4Addr::new(192, 0, 2, 77)),
            FoOption::BindingStatus(BindingStatus::Abandoned),
            FoOption::ClientIdentifier(b"\x00client-7".to_vec()),
            FoOption::ClientHardwareAddress {
                htype: 1,
                address: vec![2, 0, 0, 0, 0x0f, 0x77],
            },
            FoOption::ClientLastTransactionTime(1_796_012_570),
            FoOption::ClientReplyOptions(vec![0x35, 1, 5, 0x33, 4, 0, 0, 0, 90]),
            FoOption::ClientRequestOptions(vec![0x35, 1, 3]),
            FoOption::Ddns {
                flags: 0x0005,
                name: b"host7.fo.example".to_vec(),
            },
            FoOption::DelayedService(7),
            FoOption::HashBucketAssignment([0x55; 32].to_vec()),
            FoOption::IpFlags(0x0003),
            FoOption::LeaseExpirationTime(1_796_012_669),
            FoOption::MaxUnackedBndupd(10),
            FoOption::Mclt(3600),
            FoOption::Message(b"incoming update is less critical".to_vec()),
            FoOption::MessageDigest {
                digest_type: 1,
                digest: vec![0xaa; 16],
            },
            FoOption::PotentialExpirationTime(1_796_012_729),
            FoOption::ReceiveTimer(15),
            FoOption::ProtocolVersion(1),
            FoOption::RejectReason(19),
            FoOption::RelationshipName(b"pair-7".to_vec()),
            FoOption::ServerFlags(1),
            FoOption::ServerState(ServerState::RecoverWait),
            FoOption::StartTimeOfState(1_796_012_500),
            FoOption::TlsReply(1),
            FoOption::TlsRequest(2),
            FoOption::VendorClass(b"isc-4.4.3-P1".to_vec()),
            FoOption::VendorOptions(vec![1, 2, 3, 4]),
            FoOption::Raw {
                code: 300,
                data: vec![9, 9],
            },
        ],
    ));
    // An extra header between the fixed header and the options.
    let mut m = Message::new(
        MessageType::Disconnect,
        2,
        3,
        vec![
            FoOption::RejectReason(7),
            FoOption::Message(b"duplicate connection".to_vec()),
        ],
    );
    m.payload_offset = 15;
    m.extra_header = vec![0xee; 3];
    out.push(m);
    // Every server state.
    for s in [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 254] {
        out.push(Message::new(
            MessageType::State,
            3,
            u32::from(s),
            vec![
                FoOption::ServerState(ServerState::from_u8(s)),
                FoOption::ServerFlags(0),
            ],
        ));
    }
    out
}

/// Writes the messages as text2pcap input, one packet each, and converts it.
fn write_pcap(dir: &Path, wires: &[Vec<u8>]) -> PathBuf {
    let mut text = String::new();
    for w in wires {
        text.push_str("0000");
        for b in w {
            text.push_str(&format!(" {b:02x}"));
        }
        text.push('\n');
    }
    let txt = dir.join("crafted.txt");
    let pcap = dir.join("crafted.pcap");
    std::fs::write(&txt, text).unwrap();
    let st = Command::new("text2pcap")
        .args([
            "-q",
            "-T",
            "40000,647",
            "-4",
            "192.0.2.9,192.0.2.10",
            "-e",
            "0x800",
        ])
        .arg(&txt)
        .arg(&pcap)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    pcap
}

#[test]
fn crafted_messages_match_tshark() {
    if !common::have_tshark() || !have_text2pcap() {
        return;
    }
    let msgs = messages();
    let wires: Vec<Vec<u8>> = msgs.iter().map(|m| m.emit().unwrap()).collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("failover_crafted");
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = write_pcap(&dir, &wires);
    let packets = pdml::tshark_pdml(&pcap, &[]);
    assert_eq!(packets.len(), msgs.len());
    let skip = [
        "dhcpfo.ipflags.reserved",
        "dhcpfo.ipflags.bootp",
        "dhcpfo.ipflags.mbz",
    ];
    let mut matched = 0;
    for (i, p) in packets.iter().enumerate() {
        let pdus: Vec<&pdml::Node> = p.protos_named("dhcpfo").collect();
        assert_eq!(pdus.len(), 1, "packet {}", i + 1);
        let (parsed, errors) = failover::parse(&wires[i]);
        assert_eq!(parsed, msgs[i]);
        let expected_errors = usize::from(
            parsed
                .hash_bucket_assignment()
                .is_some_and(|h| h.len() != 32),
        );
        assert_eq!(errors.len(), expected_errors, "{errors:?}");
        matched += fo_compare::compare(p.number(), &wires[i], &parsed, pdus[0], &skip);
    }
    assert!(matched > 200, "{matched}");
    // The IP flags are there on both sides, only the bits differ.
    let all = packets.iter().flat_map(|p| p.protos_named("dhcpfo"));
    assert!(all
        .into_iter()
        .any(|n| n.find("dhcpfo.ipflags.bootp").is_some()));
}
