//! Measurements, not checks (ignored by default; run with
//! `cargo test --release --test it -- --ignored --nocapture failover_throughput::`): how fast the
//! failover replay takes events and the lease-file reader takes bytes, on synthetic input shaped
//! like a busy pair (100 pools of 200 leases, clients coming and going, a balance run now and
//! then) and a lease file of 200 000 blocks.

use std::net::Ipv4Addr;
use std::time::Instant;

use poolshark::analyse::dhcp_lb::{Hba, Role};
use poolshark::analyse::failover::{Client, Config, Event, EventKind, LeaseUpdate, Params, Replay};
use poolshark::base::Timestamp;
use poolshark::proto::failover::{BindingStatus, ServerState};
use poolshark::source::leases;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const T0: i64 = 1_800_000_000;

fn ev(frame: u64, secs: f64, from: Role, kind: EventKind) -> Event {
    Event {
        frame,
        time: Timestamp::new(T0 + secs as i64, ((secs.fract()) * 1e9) as u32),
        from,
        kind,
    }
}

fn update(address: Ipv4Addr, status: BindingStatus, client: Client, ends: u32) -> EventKind {
    EventKind::LeaseUpdate(LeaseUpdate {
        address,
        status,
        client,
        ends: Some(ends),
        since: Some(ends.saturating_sub(60)),
        potential_expiry: None,
        client_last_transaction: None,
    })
}

#[test]
#[ignore]
fn replay_events_per_second() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut events = Vec::new();
    let mut frame = 0u64;
    let mut push = |secs: f64, from: Role, kind: EventKind| {
        frame += 1;
        events.push(ev(frame, secs, from, kind));
    };
    let hba = Hba::split(128).unwrap();
    push(
        0.0,
        Role::Primary,
        EventKind::Connect {
            hba: Some(hba),
            mclt: Some(3600),
            receive_timer: Some(60),
        },
    );
    for role in [Role::Primary, Role::Secondary] {
        push(
            0.0,
            role,
            EventKind::State {
                state: ServerState::Normal,
                startup: false,
            },
        );
    }
    let pools = 100u32;
    let per_pool = 200u32;
    for p in 0..pools {
        for i in 0..per_pool {
            let a = Ipv4Addr::new(10, (p / 256) as u8, (p % 256) as u8, i as u8);
            let st = if i % 2 == 0 {
                BindingStatus::Free
            } else {
                BindingStatus::Backup
            };
            push(0.0, Role::Primary, update(a, st, Client::default(), 0));
        }
    }
    let n = 1_000_000u64;
    for k in 0..n {
        let secs = 1.0 + k as f64 * 0.01;
        let p = (r.next() % u64::from(pools)) as u32;
        let a = Ipv4Addr::new(
            10,
            (p / 256) as u8,
            (p % 256) as u8,
            (r.next() % u64::from(per_pool)) as u8,
        );
        let from = if r.next() % 2 == 0 {
            Role::Primary
        } else {
            Role::Secondary
        };
        let client = Client {
            id: Some(r.next().to_be_bytes()[..7].into()),
            hardware: Some((1, r.next().to_be_bytes()[..6].into())),
        };
        let now = (T0 as f64 + secs) as u32;
        let kind = match r.next() % 10 {
            0..=2 => update(a, BindingStatus::Active, client, now + 600),
            3 => update(a, BindingStatus::Expired, client, now),
            4 => update(a, BindingStatus::Released, client, now),
            5 => EventKind::LeaseAck {
                address: Some(a),
                reject: None,
            },
            6 => EventKind::Offer {
                address: a,
                client,
                lease_time: Some(600),
            },
            7 => update(
                a,
                if from == Role::Primary {
                    BindingStatus::Backup
                } else {
                    BindingStatus::Free
                },
                client,
                now,
            ),
            _ => EventKind::Contact,
        };
        push(secs, from, kind);
    }
    let mut replay = Replay::new(Config {
        params: Params::default(),
        ..Config::default()
    });
    let mut out = Vec::new();
    let t = Instant::now();
    for e in &events {
        replay.push(e, &mut out);
    }
    replay.finish(&mut out);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{} events, {} pools of {} leases: {:.2} s, {:.0} events/s; {} findings, {} runs",
        events.len(),
        pools,
        per_pool,
        dt,
        events.len() as f64 / dt,
        out.len(),
        replay.runs().len() as u64 + replay.runs_dropped()
    );
}

#[test]
#[ignore]
fn lease_file_bytes_per_second() {
    let mut text = String::from("authoring-byte-order little-endian;\n");
    for i in 0..200_000u32 {
        let a = Ipv4Addr::from(0x0a00_0000 + (i % 65_536));
        text.push_str(&format!(
            "lease {a} {{\n  starts 3 2024/03/06 10:{:02}:{:02};\n  ends 3 2024/03/06 11:{:02}:{:02};\n  tstp 3 2024/03/06 11:00:00;\n  cltt 3 2024/03/06 10:00:00;\n  binding state active;\n  next binding state expired;\n  hardware ethernet 02:00:00:{:02x}:{:02x}:{:02x};\n  uid \"\\001\\002\\000\\000{}\";\n  client-hostname \"host-{i}\";\n}}\n",
            i % 60, i % 60, i % 60, i % 60, i >> 16, (i >> 8) & 255, i & 255, i % 10
        ));
    }
    let t = Instant::now();
    let f = leases::parse(text.as_bytes());
    let dt = t.elapsed().as_secs_f64();
    assert!(f.errors.is_empty());
    assert_eq!(f.lease_blocks, 200_000);
    println!(
        "{} bytes, {} lease blocks, {} addresses: {:.2} s, {:.1} MB/s, {:.0} blocks/s",
        text.len(),
        f.lease_blocks,
        f.leases.len(),
        dt,
        text.len() as f64 / dt / 1e6,
        f.lease_blocks as f64 / dt
    );
}
