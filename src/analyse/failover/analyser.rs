//! The failover pool balance replay as an [`Analyser`]: failover messages from the pipeline become
//! events (roles learnt from CONNECT), the servers' DHCPOFFERs become offer events (the client
//! taken from the DISCOVER with the same xid), and the replay's findings and free/backup counts go
//! into the report. Lease files given as seeds ([`super::seed`]) are loaded before the first
//! message when they may stand for the state at the capture's start.

use std::net::IpAddr;

use super::seed::{self, LeaseSeed, Outcome};
use super::{derive, offer, Client, Config, Event, EventKind, Replay, Roles};
use crate::analyse::finding::{Finding, Subject};
use crate::analyse::{Analyser, KeyBytes, Report};
use crate::base::Timestamp;
use crate::dissect::lru::LruMap;
use crate::pipeline::Decoded;
use crate::proto::{dhcpv4, AppProtocol, Message};

/// DISCOVERs remembered for their OFFERs.
const MAX_PENDING_DISCOVERS: usize = 65_536;
/// Seconds a DISCOVER is remembered after it was last sent: a server offers within seconds, and
/// a client retries its DISCOVER (the same xid) at most about 64 s apart (RFC 2131, 4.1). Older
/// ones are forgotten, so what is held depends on the rate of DISCOVERs, not on the capture's
/// length.
const DISCOVER_MEMORY_SECS: i64 = 120;

/// A DISCOVER's client, and when it was sent.
struct Discovered {
    client: Client,
    at: Timestamp,
}

/// Turns decoded messages into failover events: failover messages (the sender's role learnt
/// from CONNECT / CONNECTACK) and the servers' DHCPOFFERs (the client from the DISCOVER with the
/// same xid). Shared by the analyser and by anything else that wants the events.
pub struct EventSource {
    roles: Roles,
    discovers: LruMap<u32, Discovered>,
    /// When the DISCOVERs were last swept of the forgotten ones.
    swept: i64,
    /// Failover messages seen; DHCP is only looked at once there is a failover pair.
    messages: u64,
}

impl Default for EventSource {
    fn default() -> Self {
        EventSource {
            roles: Roles::new(),
            discovers: LruMap::new(MAX_PENDING_DISCOVERS),
            swept: i64::MIN,
            messages: 0,
        }
    }
}

impl EventSource {
    pub fn roles(&self) -> &Roles {
        &self.roles
    }

    /// Failover messages seen so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// The event a decoded message stands for, if any.
    pub fn event(&mut self, d: &Decoded<'_>) -> Option<Event> {
        match d.message {
            Message::Failover(m) => {
                self.messages += 1;
                let (src, dst): (IpAddr, IpAddr) = (d.payload.src, d.payload.dst);
                self.roles.learn(m, src, dst);
                let role = self.roles.role_of(src)?;
                derive(m, d.frame.number, d.frame.ts, role).ok()
            }
            Message::Dhcpv4(m) if self.messages > 0 => self.dhcp(d, m),
            _ => None,
        }
    }

    fn dhcp(&mut self, d: &Decoded<'_>, m: &dhcpv4::Message<'_>) -> Option<Event> {
        match m.message_type() {
            Some(dhcpv4::message_type::DISCOVER) => {
                let client = Client {
                    id: m.client_identifier().map(|c| KeyBytes::from_slice(&c)),
                    hardware: m.chaddr().map(|c| (m.htype, KeyBytes::from_slice(c))),
                };
                let now = d.frame.ts;
                if now.secs.saturating_sub(self.swept) > DISCOVER_MEMORY_SECS {
                    self.discovers
                        .retain(|x| now.secs.saturating_sub(x.at.secs) <= DISCOVER_MEMORY_SECS);
                    self.swept = now.secs;
                }
                // A retried DISCOVER replaces the earlier one.
                *self.discovers.get_or_insert_with(
                    &m.xid,
                    || Discovered {
                        client: Client::default(),
                        at: now,
                    },
                    |_| {},
                ) = Discovered { client, at: now };
                None
            }
            Some(dhcpv4::message_type::OFFER) => {
                let role = self.roles.role_of(d.payload.src)?;
                let now = d.frame.ts.secs;
                let client = self
                    .discovers
                    .get_mut(&m.xid)
                    .filter(|x| now.saturating_sub(x.at.secs) <= DISCOVER_MEMORY_SECS)
                    .map(|x| x.client.clone())
                    .unwrap_or(Client {
                        id: None,
                        hardware: m.chaddr().map(|c| (m.htype, KeyBytes::from_slice(c))),
                    });
                Some(offer(
                    d.frame.number,
                    d.frame.ts,
                    role,
                    m.yiaddr,
                    client,
                    m.lease_time(),
                ))
            }
            _ => None,
        }
    }
}

pub struct FailoverAnalyser {
    events: EventSource,
    replay: Replay,
    buf: Vec<Finding>,
    /// Seeds waiting for the first message.
    pending: Vec<LeaseSeed>,
    /// What became of each seed, in the order given.
    seeds: Vec<(LeaseSeed, Outcome)>,
}

impl FailoverAnalyser {
    pub fn new(cfg: Config) -> Self {
        Self::with_seeds(cfg, Vec::new())
    }

    /// An analyser whose replay starts from `seeds` (one lease file per server at most makes
    /// sense), loaded in order at the first message if [`seed::admit`] lets them.
    pub fn with_seeds(cfg: Config, seeds: Vec<LeaseSeed>) -> Self {
        FailoverAnalyser {
            events: EventSource::default(),
            replay: Replay::new(cfg),
            buf: Vec::new(),
            pending: seeds,
            seeds: Vec::new(),
        }
    }

    /// The seeds given and what became of them (known once the first message was seen).
    pub fn seeds(&self) -> &[(LeaseSeed, Outcome)] {
        &self.seeds
    }

    fn plant_seeds(&mut self, capture_start: f64) {
        for s in std::mem::take(&mut self.pending) {
            let outcome = match seed::admit(&s.file, capture_start) {
                Ok(latest) => Outcome::Loaded {
                    loaded: self
                        .replay
                        .load_lease_file_as(&s.file, capture_start, s.role),
                    latest,
                    capture_start,
                },
                Err(latest) => Outcome::TooLate {
                    latest,
                    capture_start,
                },
            };
            self.seeds.push((s, outcome));
        }
    }

    fn seeds_text(&self, out: &mut String) {
        for (s, o) in &self.seeds {
            let role = s.role.map_or("both servers".to_string(), |r| r.to_string());
            match o {
                Outcome::Loaded {
                    loaded,
                    capture_start,
                    ..
                } => out.push_str(&format!(
                    "  lease file {} ({role}): {} leases loaded as the state at the first message ({:.0})\n",
                    s.label, loaded.leases, capture_start
                )),
                Outcome::TooLate {
                    latest,
                    capture_start,
                } => out.push_str(&format!(
                    "  lease file {} ({role}): not used: it shows time {latest}, {:.0} s after the first message ({:.0}); a seed must be the state at the capture's start or before (a file saved before the capture)\n",
                    s.label,
                    *latest as f64 - capture_start,
                    capture_start
                )),
                Outcome::NoTraffic => out.push_str(&format!(
                    "  lease file {} ({role}): not used: the capture has no message\n",
                    s.label
                )),
            }
        }
    }

    fn seeds_json(&self) -> Vec<serde_json::Value> {
        self.seeds
            .iter()
            .map(|(s, o)| {
                let (used, leases, latest, start) = match o {
                    Outcome::Loaded {
                        loaded,
                        latest,
                        capture_start,
                    } => (true, Some(loaded.leases), *latest, Some(*capture_start)),
                    Outcome::TooLate {
                        latest,
                        capture_start,
                    } => (false, None, Some(*latest), Some(*capture_start)),
                    Outcome::NoTraffic => (false, None, None, None),
                };
                serde_json::json!({
                    "file": s.label,
                    "role": s.role.map(|r| r.name()),
                    "used": used,
                    "leases": leases,
                    "latest_time": latest,
                    "capture_start": start,
                })
            })
            .collect()
    }

    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    fn push(&mut self, ev: &Event, report: &mut Report) {
        self.replay.push(ev, &mut self.buf);
        for f in self.buf.drain(..) {
            report.push(f, ev.time);
        }
        // The rest is the pool's gauges in the timeline.
        if !report.timeline.recording() {
            return;
        }
        let address = match &ev.kind {
            EventKind::LeaseUpdate(u) => Some(u.address),
            EventKind::Offer { address, .. } => Some(*address),
            EventKind::LeaseAck { address, .. } => *address,
            _ => None,
        };
        let Some(pool) = address.and_then(|a| self.replay.state().pool_of(a)) else {
            return;
        };
        if let Some(p) = self.replay.state().pool(&pool) {
            let c = p.counts();
            let subject = Subject::FailoverPool(pool.to_string());
            let kind = "ISC failover pool";
            let tl = &mut report.timeline;
            tl.gauge(ev.time, &subject, kind, "free", f64::from(c.free));
            tl.gauge(ev.time, &subject, kind, "backup", f64::from(c.backup));
            tl.gauge(ev.time, &subject, kind, "active", f64::from(c.active));
            tl.gauge(
                ev.time,
                &subject,
                kind,
                "lts",
                ((i64::from(c.free) - i64::from(c.backup)) / 2) as f64,
            );
        }
    }
}

impl Analyser for FailoverAnalyser {
    fn name(&self) -> &'static str {
        "failover"
    }

    /// The pair's messages, and the DHCPv4 answers that hand out its leases. Lease files are
    /// loaded at the first of these.
    fn protocols(&self) -> &'static [AppProtocol] {
        &[AppProtocol::Failover, AppProtocol::Dhcpv4]
    }

    fn message(&mut self, d: &Decoded<'_>, report: &mut Report) {
        if !self.pending.is_empty() {
            self.plant_seeds(d.frame.ts.as_f64());
        }
        if let Some(ev) = self.events.event(d) {
            self.push(&ev, report);
        }
    }

    fn finish(&mut self, last: Option<Timestamp>, report: &mut Report) {
        for s in std::mem::take(&mut self.pending) {
            self.seeds.push((s, Outcome::NoTraffic));
        }
        self.replay.finish(&mut self.buf);
        for f in self.buf.drain(..) {
            report.push(f, last.unwrap_or_default());
        }
    }

    fn report_text(&self, out: &mut String) {
        if self.events.messages() == 0 {
            if !self.seeds.is_empty() {
                out.push_str("failover: no failover message\n");
                self.seeds_text(out);
            }
            return;
        }
        out.push_str(&format!(
            "failover ({}): primary {}, secondary {}\n",
            self.replay.config().profile.name,
            self.events
                .roles()
                .primary()
                .map_or("unknown".into(), |a| a.to_string()),
            self.events
                .roles()
                .secondary()
                .map_or("unknown".into(), |a| a.to_string()),
        ));
        let cfg = self.replay.config();
        if cfg.params_source != "default" {
            let p = cfg.params;
            out.push_str(&format!(
                "  balance options ({}): max-lease-misbalance {} %, max-lease-ownership {} %, min-balance {} s, max-balance {} s{}\n",
                cfg.params_source,
                p.max_lease_misbalance,
                p.max_lease_ownership,
                p.min_balance,
                p.max_balance,
                cfg.hba.map_or(String::new(), |h| format!("; hash buckets {h}")),
            ));
        }
        self.seeds_text(out);
        for p in self.replay.state().pools() {
            let c = p.counts();
            let runs = self.replay.pool_stats(&p.name);
            // Only a run that gives leases away shows on the wire (as BNDUPDs to BACKUP); dhcpd
            // logs every run, so its count is larger: say which runs these are.
            out.push_str(&format!(
                "  pool {}: free {} backup {} active {}; balance runs that moved leases: primary {} ({} leases), secondary {} ({} leases); the reference moved as many in {} of {}\n",
                p.name,
                c.free,
                c.backup,
                c.active,
                runs.map_or(0, |s| s.runs[0]),
                runs.map_or(0, |s| s.moved[0]),
                runs.map_or(0, |s| s.runs[1]),
                runs.map_or(0, |s| s.moved[1]),
                runs.map_or(0, |s| s.runs_matching[0] + s.runs_matching[1]),
                runs.map_or(0, |s| s.runs[0] + s.runs[1]),
            ));
        }
    }

    fn report_json(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        if self.events.messages() == 0 {
            if !self.seeds.is_empty() {
                out.insert(
                    "failover".into(),
                    serde_json::json!({ "lease_seeds": self.seeds_json(), "pools": [] }),
                );
            }
            return;
        }
        let pools: Vec<serde_json::Value> = self
            .replay
            .state()
            .pools()
            .map(|p| {
                let c = p.counts();
                let s = self.replay.pool_stats(&p.name);
                serde_json::json!({
                    "pool": p.name,
                    "free": c.free,
                    "backup": c.backup,
                    "active": c.active,
                    "runs": s.map(|s| s.runs),
                    "moved": s.map(|s| s.moved),
                    "runs_matching": s.map(|s| s.runs_matching),
                })
            })
            .collect();
        out.insert(
            "failover".into(),
            serde_json::json!({
                "profile": self.replay.config().profile.name,
                "params": params_json(self.replay.config()),
                "primary": self.events.roles().primary().map(|a| a.to_string()),
                "secondary": self.events.roles().secondary().map(|a| a.to_string()),
                "pools": pools,
                "lease_seeds": self.seeds_json(),
            }),
        );
    }
}

/// The balance options the replay ran with, and where they came from.
fn params_json(cfg: &super::Config) -> serde_json::Value {
    let p = cfg.params;
    serde_json::json!({
        "max_lease_misbalance": p.max_lease_misbalance,
        "max_lease_ownership": p.max_lease_ownership,
        "min_balance": p.min_balance,
        "max_balance": p.max_balance,
        "hba": cfg.hba.map(|h| h.to_string()),
        "source": cfg.params_source,
    })
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::dissect::{Payload, Transport};
    use crate::proto::dhcpv4::{message_type as v4t, Opt};
    use crate::proto::failover::{self as fo, MessageType};
    use crate::source::Frame;

    const P: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
    const S: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
    const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 9);

    /// Hands `m` to `src` as if decoded from frame `number` at `secs`.
    fn feed(
        src: &mut EventSource,
        number: u64,
        secs: i64,
        m: Message<'_>,
        from: Ipv4Addr,
    ) -> Option<Event> {
        let frame = Frame {
            number,
            ts: Timestamp::new(secs, 0),
            ts_digits: 6,
            linktype: 1,
            orig_len: 0,
            interface: 0,
            data: &[],
            pcapng: None,
        };
        let payload = Payload::new(Transport::Udp, from.into(), 67, CLIENT.into(), 68, &[]);
        src.event(&Decoded {
            frame: &frame,
            payload: &payload,
            protocol: AppProtocol::Dhcpv4,
            message: &m,
            errors: &[],
            frame_offset: None,
            len: 0,
        })
    }

    fn offered_to(ev: Option<Event>) -> Option<Vec<u8>> {
        match ev.map(|e| e.kind) {
            Some(EventKind::Offer { client, .. }) => client.id.map(|id| id.to_vec()),
            other => panic!("not an offer: {other:?}"),
        }
    }

    #[test]
    fn an_offer_takes_its_discovers_client_while_the_discover_is_remembered() {
        let mut src = EventSource::default();
        let connect = fo::Message::new(MessageType::Connect, 1, 2, Vec::new());
        let mut fo_payload = Payload::new(Transport::Tcp, P.into(), 41000, S.into(), 647, &[]);
        fo_payload.stream_offset = Some(0);
        let frame = Frame {
            number: 1,
            ts: Timestamp::new(1000, 0),
            ts_digits: 6,
            linktype: 1,
            orig_len: 0,
            interface: 0,
            data: &[],
            pcapng: None,
        };
        let m = Message::Failover(connect);
        src.event(&Decoded {
            frame: &frame,
            payload: &fo_payload,
            protocol: AppProtocol::Failover,
            message: &m,
            errors: &[],
            frame_offset: None,
            len: 0,
        });
        let mac = [2, 0, 0, 0, 0, 9];
        let discover = |xid| {
            Message::Dhcpv4(
                dhcpv4::Message::request(v4t::DISCOVER, xid, mac)
                    .with(Opt::client_identifier(1, &mac)),
            )
        };
        let offer =
            |xid| Message::Dhcpv4(dhcpv4::Message::reply(v4t::OFFER, xid, mac).with_yiaddr(CLIENT));
        let id = Some([&[1u8][..], &mac].concat());
        // Offered 5 s after the DISCOVER: the client's identifier is the DISCOVER's.
        assert!(feed(&mut src, 2, 1000, discover(7), CLIENT).is_none());
        assert_eq!(offered_to(feed(&mut src, 3, 1005, offer(7), P)), id);
        // Retried 60 s later (the same xid): remembered from the retry.
        feed(&mut src, 4, 1060, discover(7), CLIENT);
        assert_eq!(offered_to(feed(&mut src, 5, 1170, offer(7), S)), id);
        // An OFFER more than DISCOVER_MEMORY_SECS after the DISCOVER: forgotten, the client is
        // the OFFER's chaddr alone.
        feed(&mut src, 6, 2000, discover(8), CLIENT);
        let late = 2000 + DISCOVER_MEMORY_SECS + 1;
        assert_eq!(offered_to(feed(&mut src, 7, late, offer(8), P)), None);
        // A steady stream of DISCOVERs, one a second for an hour: only the last
        // DISCOVER_MEMORY_SECS or so are held, not the hour's.
        for i in 0..3600u32 {
            feed(
                &mut src,
                100 + u64::from(i),
                10_000 + i64::from(i),
                discover(1000 + i),
                CLIENT,
            );
        }
        let held = src.discovers.len();
        assert!(
            (DISCOVER_MEMORY_SECS as usize..=2 * DISCOVER_MEMORY_SECS as usize + 2).contains(&held),
            "{held}"
        );
    }
}
