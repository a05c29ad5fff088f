//! The RFC 3074 hash, the bucket map and the key rules against what the shared captures' READMEs
//! say and what the servers in them did. tshark extracts the fields (the project's own DHCP
//! decoder is written elsewhere).

use crate::common;
use crate::pdml;

use std::collections::{HashMap, HashSet};

use poolshark::analyse::dhcp_lb::profile::{self, KeyOutcome};
use poolshark::analyse::dhcp_lb::{bucket, Hba, Role};

/// The payload of DHCPv4 option `code` in a packet (tshark's `dhcp.option.type` node holds the
/// whole option, code and length included).
fn v4_option(p: &pdml::Packet, code: u8) -> Option<Vec<u8>> {
    let dhcp = p.proto("dhcp")?;
    dhcp.find_all("dhcp.option.type")
        .into_iter()
        .find(|n| n.show == code.to_string())
        .map(|n| n.bytes().get(2..).unwrap_or_default().to_vec())
}

/// The 16-byte chaddr field, `hlen`, `secs`, `xid` of a DHCPv4 packet, from its header fields.
struct V4Header {
    chaddr: Vec<u8>,
    hlen: u8,
    secs: u16,
    xid: u32,
    msg_type: Option<u8>,
}

fn v4_header(p: &pdml::Packet) -> Option<V4Header> {
    let dhcp = p.proto("dhcp")?;
    // chaddr sits at offset 28 of the DHCP header; every field of the header is a direct child.
    let child = |name: &str| dhcp.children.iter().find(|c| c.name == name);
    let mut chaddr = Vec::new();
    for n in dhcp
        .children
        .iter()
        .filter(|c| c.pos >= dhcp.pos + 28 && c.pos < dhcp.pos + 44)
    {
        chaddr.extend(n.bytes());
    }
    Some(V4Header {
        chaddr,
        hlen: child("dhcp.hw.len")?.show.parse().ok()?,
        secs: child("dhcp.secs")?.show.parse().ok()?,
        xid: u32::from_str_radix(child("dhcp.id")?.show.trim_start_matches("0x"), 16).ok()?,
        msg_type: v4_option(p, 53).and_then(|v| v.first().copied()),
    })
}

#[test]
fn zeek_client_id_and_chaddr_buckets() {
    let Some(file) = common::shared_capture("dhcp/zeek_dhcp_discover_param_req_and_client_id.pcap")
    else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let packets = pdml::tshark_pdml(&file, &["-Y", "dhcp"]);
    assert_eq!(packets.len(), 1);
    let p = &packets[0];
    let h = v4_header(p).expect("DHCP header");
    assert_eq!(h.chaddr.len(), 16);
    let client_id = v4_option(p, 61).expect("option 61");
    // The README: the option-61 key hashes to bucket 92, the chaddr to 23.
    assert_eq!(bucket(&client_id), 92);
    assert_eq!(bucket(&h.chaddr[..usize::from(h.hlen)]), 23);
    // Every profile takes option 61 when it is there; without it, chaddr cut to hlen.
    for prof in profile::ALL {
        let rule = prof.v4.expect("v4 rules").key;
        match rule.stid(Some(&client_id), &h.chaddr, h.hlen) {
            KeyOutcome::Key(k) => assert_eq!(k.bucket(), 92, "{}", prof.name),
            KeyOutcome::Dropped(w) => panic!("{}: {w}", prof.name),
        }
        match rule.stid(None, &h.chaddr, h.hlen) {
            KeyOutcome::Key(k) => assert_eq!(k.bucket(), 23, "{}", prof.name),
            KeyOutcome::Dropped(w) => panic!("{}: {w}", prof.name),
        }
    }
}

/// The DUIDs inside the Client Identifier (1) and Server Identifier (2) options of a DHCPv6
/// message (top level only: the capture has no relays).
fn v6_duid(p: &pdml::Packet, option: &str) -> Option<Vec<u8>> {
    let v6 = p.proto("dhcpv6")?;
    v6.children
        .iter()
        .filter(|c| c.name == "dhcpv6.option.type_str")
        .find(|c| {
            c.children
                .iter()
                .any(|t| t.name == "dhcpv6.option.type" && t.show == option)
        })
        .and_then(|c| c.find("dhcpv6.duid.bytes"))
        .map(|d| d.bytes())
}

#[test]
fn kea_server1_answers_the_even_buckets() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let server1 = pdml::unhex("00030001020000000101");
    let server2 = pdml::unhex("00030001020000000202");
    // README timeline, 2026-11-30 UTC (midnight = 1795996800 s since the epoch): server2 stopped
    // at 04:08:16.205, both load-balancing again from 04:08:50.39.
    let midnight = 1_795_996_800.0;
    let stopped = midnight + (4 * 3600 + 8 * 60) as f64 + 16.205;
    let resumed = midnight + (4 * 3600 + 8 * 60) as f64 + 50.39;

    let packets = pdml::tshark_pdml(&file, &["-Y", "dhcpv6"]);
    let mut request_type: HashMap<String, u8> = HashMap::new();
    let kea = Hba::kea();
    let rules = profile::KEA.v6.expect("v6");
    let (mut checked, mut by_server1, mut by_server2, mut info_replies) = (0, 0, 0, 0);
    for p in &packets {
        let msg_type: u8 = p.field("dhcpv6.msgtype").unwrap().show.parse().unwrap();
        let xid = p.field("dhcpv6.xid").unwrap().show.clone();
        let t: f64 = p.field("frame.time_epoch").unwrap().show.parse().unwrap();
        if msg_type != 2 && msg_type != 7 {
            request_type.insert(xid, msg_type);
            continue;
        }
        let Some(&req) = request_type.get(&xid) else {
            continue;
        };
        if !rules.balances(req) {
            // INFORMATION-REQUEST: both answer, so it says nothing about the hash.
            info_replies += 1;
            continue;
        }
        if t >= stopped && t < resumed {
            continue;
        }
        let server = v6_duid(p, "2").expect("server id");
        let client = v6_duid(p, "1").expect("client id");
        let expected = match kea.owner(bucket(&client)) {
            Role::Primary => &server1,
            Role::Secondary => &server2,
        };
        assert_eq!(
            &server,
            expected,
            "frame {}: client {:02x?} bucket {}",
            p.number(),
            client,
            bucket(&client)
        );
        if server == server1 {
            by_server1 += 1;
        } else {
            by_server2 += 1;
        }
        checked += 1;
    }
    // 500 clients each got an ADVERTISE and a REPLY, less those in the ~34 s failover window.
    assert!(checked > 700, "only {checked} balanced answers checked");
    assert!(
        by_server1 > 300 && by_server2 > 300,
        "{by_server1} / {by_server2}"
    );
    assert!(
        info_replies >= 10,
        "both servers answer INFORMATION-REQUEST"
    );
}

#[test]
fn isc_discovers_are_answered_by_their_buckets_owner() {
    let Some(file) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    // README: phase A (frames 49-1896) has both servers normal, `split 128`, `load balance max
    // seconds 3`; primary 192.0.2.1, secondary 192.0.2.2.
    let packets = pdml::tshark_pdml(
        &file,
        &["-Y", "dhcp && frame.number >= 49 && frame.number <= 1896"],
    );
    let hba = Hba::split(128).unwrap();
    let rules = profile::ISC.v4.expect("v4");
    let delay = rules.delayed_service.expect("isc has a secs cutoff");
    // The latest DISCOVER of each xid: who must answer it (None: both may).
    let mut pending: HashMap<u32, Option<Role>> = HashMap::new();
    let mut answered: HashSet<u32> = HashSet::new();
    let (mut balanced, mut both, mut offers) = (0, 0, 0);
    for p in &packets {
        let h = v4_header(p).expect("DHCP header");
        match h.msg_type {
            Some(profile::v4_type::DISCOVER) => {
                let KeyOutcome::Key(stid) =
                    rules
                        .key
                        .stid(v4_option(p, 61).as_deref(), &h.chaddr, h.hlen)
                else {
                    panic!("frame {}: no key", p.number());
                };
                let owner = hba.owner(stid.bucket());
                let must = if delay.nonowner_may_answer(h.secs, 3, false) {
                    both += 1;
                    None
                } else {
                    balanced += 1;
                    Some(owner)
                };
                pending.insert(h.xid, must);
                answered.remove(&h.xid);
            }
            Some(profile::v4_type::OFFER) => {
                let src = &p.field("ip.src").unwrap().show;
                let server = match src.as_str() {
                    "192.0.2.1" => Role::Primary,
                    "192.0.2.2" => Role::Secondary,
                    other => panic!("offer from {other}"),
                };
                let Some(must) = pending.get(&h.xid) else {
                    continue;
                };
                if let Some(owner) = must {
                    assert_eq!(
                        server,
                        *owner,
                        "frame {}: OFFER xid {:#x} from the non-owner",
                        p.number(),
                        h.xid
                    );
                }
                answered.insert(h.xid);
                offers += 1;
            }
            _ => {}
        }
    }
    assert!(balanced > 150, "{balanced} balanced DISCOVERs");
    assert!(both >= 1, "some DISCOVERs waited more than 3 s");
    assert!(offers > 150, "{offers} offers");
}
