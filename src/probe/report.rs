//! The probe's report: text (a grid of the 256 buckets and the deviations with their keys) and
//! JSON (every bucket with its key, its transaction ids and who answered).

use std::io::{self, Write};

use serde_json::{json, Value};

use super::buckets::ranges;
use super::compare::{Comparison, Expected, Server, Verdict};
use super::exchange::{BucketRun, Pace, Run};
use super::keys::{Client, Family, KeyKind, ProbeKey};
use super::packets;
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::field::hex_colons;

/// Everything the report says.
pub struct ProbeReport<'a> {
    pub interface: &'a str,
    pub kind: KeyKind,
    pub pace: &'a Pace,
    pub expected: &'a Expected,
    pub run: &'a Run,
    pub comparison: &'a Comparison,
    /// When the run started, Unix seconds.
    pub started: f64,
    /// What the probe gave up after opening its sockets.
    pub privileges: Option<String>,
}

fn seconds(d: std::time::Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The key's client as the JSON gives it.
fn client_json(k: &ProbeKey) -> Value {
    match &k.client {
        Client::V4 { chaddr, client_id } => json!({
            "chaddr": hex_colons(chaddr),
            "client_id": client_id.as_deref().map(hex_colons),
        }),
        Client::V6 { duid } => json!({ "duid": hex_colons(duid) }),
    }
}

/// A role's name, or `server` when the pair's roles are not known.
fn role_name(s: &Server) -> &'static str {
    s.role.map_or("server", |(r, _)| r.name())
}

/// The one-letter name of a server in the grid.
fn letter(c: &Comparison, i: usize) -> char {
    if Some(i) != c.primary && Some(i) != c.secondary {
        return 'X';
    }
    match c.servers[i].role {
        Some((Role::Primary, _)) => 'P',
        Some((Role::Secondary, _)) => 'S',
        None if Some(i) == c.primary => '1',
        None => '2',
    }
}

impl ProbeReport<'_> {
    fn family(&self) -> Family {
        self.kind.family()
    }

    fn message(&self) -> &'static str {
        match self.family() {
            Family::V4 => "DHCPDISCOVER",
            Family::V6 => "SOLICIT",
        }
    }

    fn sent(&self) -> usize {
        self.run.buckets.iter().map(|b| b.xids.len()).sum()
    }

    /// The buckets of a verdict, in order.
    fn with(&self, v: Verdict) -> Vec<u8> {
        self.comparison
            .buckets
            .iter()
            .filter(|b| b.verdict == v)
            .map(|b| b.bucket)
            .collect()
    }

    /// Whether the whole map was probed (so a server's buckets can be named as a map).
    fn complete(&self) -> bool {
        self.comparison.buckets.len() == 256
            && self
                .comparison
                .buckets
                .iter()
                .all(|b| b.verdict != Verdict::NotProbed)
    }

    /// The buckets a server answered and, when the run covered every bucket and the server's
    /// role is known, the map it follows: in the primary's orientation (a set bit is a primary
    /// bucket), so a primary serving split:100 and a secondary serving the rest both read
    /// `split:100`.
    fn served(&self, i: usize) -> (Vec<u8>, Option<Hba>) {
        let buckets: Vec<u8> = self
            .comparison
            .buckets
            .iter()
            .filter(|b| b.answered_by.contains(&i))
            .map(|b| b.bucket)
            .collect();
        let role = self.comparison.servers[i].role.map(|(r, _)| r);
        let map = match role {
            Some(r) if self.complete() => {
                let mut bytes = [0u8; Hba::LEN];
                for b in 0..=255u8 {
                    let serves = buckets.contains(&b);
                    if serves == (r == Role::Primary) {
                        bytes[usize::from(b >> 3)] |= 1 << (b & 7);
                    }
                }
                Some(Hba::from_bytes(bytes))
            }
            _ => None,
        };
        (buckets, map)
    }

    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let c = self.comparison;
        writeln!(
            out,
            "poolshark probe on {}: {} buckets, a {} each ({} keys), {}/s, answers awaited {}, \
             {} {}; {} sent in {}",
            self.interface,
            self.run.buckets.len(),
            self.message(),
            self.kind.name(),
            self.pace.rate,
            seconds(self.pace.wait),
            self.pace.retries,
            if self.pace.retries == 1 {
                "retry"
            } else {
                "retries"
            },
            self.sent(),
            seconds(self.run.elapsed),
        )?;
        match self.expected.hba {
            Some((h, src)) => write!(out, "expected map: {} ({})", h.describe(), src.name())?,
            None => write!(
                out,
                "expected map: none given (--hba, --config or --profile kea): only buckets \
                 served by both servers or by none are deviations"
            )?,
        }
        match self.expected.profile {
            Some(p) => writeln!(out, "; profile {}", p.name)?,
            None => writeln!(out)?,
        }
        if let Some(p) = &self.privileges {
            writeln!(out, "privileges: {p}")?;
        }
        writeln!(out, "servers:")?;
        if c.servers.is_empty() {
            writeln!(out, "  none answered")?;
        }
        for (i, s) in c.servers.iter().enumerate() {
            let how = s
                .role
                .map_or(String::new(), |(_, h)| format!(" (role {})", h.name()));
            let (_, map) = self.served(i);
            let map = map.map_or(String::new(), |m| format!(", as {}", m.describe()));
            let outside = if Some(i) != c.primary && Some(i) != c.secondary {
                ", outside the pair"
            } else {
                ""
            };
            writeln!(
                out,
                "  {} {:<9} {}{how}{outside}: {} buckets{map}",
                letter(c, i),
                role_name(s),
                s.label(),
                s.buckets
            )?;
        }
        for name in &c.silent_configured {
            writeln!(out, "  - configured server {name} never answered")?;
        }
        writeln!(out)?;
        self.write_grid(out)?;
        writeln!(out)?;
        self.write_deviations(out)?;
        Ok(())
    }

    fn write_grid(&self, out: &mut dyn Write) -> io::Result<()> {
        let c = self.comparison;
        writeln!(
            out,
            "observed map: who answered each bucket: P primary, S secondary (1 and 2 when the \
             roles are unknown),\n  lower case where the expected map gives the bucket to the \
             other server; B both, . nobody, X a server outside the pair, blank not probed"
        )?;
        write!(out, "bucket")?;
        for col in 0..16 {
            write!(out, "{:>3}", format!("+{col}"))?;
        }
        writeln!(out)?;
        let mut cells = [' '; 256];
        for b in &c.buckets {
            cells[usize::from(b.bucket)] = match b.verdict {
                Verdict::NotProbed => ' ',
                Verdict::NoAnswer => '.',
                Verdict::Both => 'B',
                Verdict::Outsider => 'X',
                Verdict::WrongServer => letter(c, b.answered_by[0]).to_ascii_lowercase(),
                Verdict::Ok => letter(c, b.answered_by[0]),
            };
        }
        for row in 0..16 {
            let mut line = format!("{:>6}", row * 16);
            for col in 0..16 {
                line.push_str(&format!("{:>3}", cells[row * 16 + col]));
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    fn bucket_run(&self, bucket: u8) -> Option<&BucketRun> {
        self.run.buckets.iter().find(|b| b.key.bucket == bucket)
    }

    fn answered_by(&self, bucket: u8) -> String {
        let c = self.comparison;
        c.buckets
            .iter()
            .find(|b| b.bucket == bucket)
            .map(|b| {
                b.answered_by
                    .iter()
                    .map(|&i| format!("{} {}", role_name(&c.servers[i]), c.servers[i].label()))
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .unwrap_or_default()
    }

    fn write_deviations(&self, out: &mut dyn Write) -> io::Result<()> {
        let c = self.comparison;
        let groups = [
            (Verdict::WrongServer, "served by the wrong server"),
            (Verdict::Both, "served by both servers"),
            (Verdict::NoAnswer, "served by nobody"),
            (Verdict::Outsider, "answered by a server outside the pair"),
        ];
        for (v, what) in groups {
            let buckets = self.with(v);
            if buckets.is_empty() {
                continue;
            }
            writeln!(
                out,
                "{what}: {} buckets: {}",
                buckets.len(),
                ranges(buckets.iter().copied())
            )?;
            for &b in &buckets {
                let Some(r) = self.bucket_run(b) else {
                    continue;
                };
                let expected = c
                    .buckets
                    .iter()
                    .find(|x| x.bucket == b)
                    .and_then(|x| x.expected)
                    .map_or(String::new(), |e| format!(", the {}'s", e.name()));
                let who = match v {
                    Verdict::NoAnswer => format!("no answer to {} attempts", r.xids.len()),
                    _ => format!("answered by {}", self.answered_by(b)),
                };
                writeln!(
                    out,
                    "  bucket {b:>3}{expected}  key {}  {who}",
                    hex_colons(&r.key.stid)
                )?;
            }
        }
        let deviations = c.deviations();
        let probed = c.buckets.len() - c.count(Verdict::NotProbed);
        if self.run.interrupted {
            writeln!(
                out,
                "interrupted: {probed} of {} buckets probed",
                c.buckets.len()
            )?;
        }
        if deviations == 0 {
            let how = if self.expected.hba.is_some() {
                "by the server the expected map gives it"
            } else {
                "by exactly one server"
            };
            writeln!(
                out,
                "verdict: each of the {probed} buckets probed is served {how}"
            )?;
        } else {
            writeln!(
                out,
                "verdict: {deviations} of {probed} buckets deviate ({} wrong server, {} both, {} \
                 nobody, {} outside the pair)",
                c.count(Verdict::WrongServer),
                c.count(Verdict::Both),
                c.count(Verdict::NoAnswer),
                c.count(Verdict::Outsider),
            )?;
        }
        if c.servers.is_empty() && probed > 0 {
            writeln!(
                out,
                "no server answered: is {} on the servers' link, and are they running?",
                self.interface
            )?;
        } else if c.count(Verdict::NoAnswer) > 0 {
            writeln!(
                out,
                "note: a bucket nobody serves may also be a server out of addresses to offer: \
                 ISC dhcpd sets aside each address it offers, so a pool with fewer free \
                 addresses than the buckets a server owns runs out during a probe (its log \
                 says \"peer holds all free leases\" or \"no free leases\"); probe fewer \
                 buckets at a time with --buckets (the same keys, so the same addresses, come \
                 back at every run)"
            )?;
        }
        Ok(())
    }

    pub fn to_json(&self) -> Value {
        let c = self.comparison;
        let servers: Vec<Value> = c
            .servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (buckets, map) = self.served(i);
                json!({
                    "id": s.ident.text(),
                    "name": s.name,
                    "addresses": s.sources.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
                    "role": s.role.map(|(r, _)| r.name()),
                    "role_source": s.role.map(|(_, h)| h.name()),
                    "in_pair": Some(i) == c.primary || Some(i) == c.secondary,
                    "buckets": buckets,
                    "map": map.map(|m| m.to_string()),
                })
            })
            .collect();
        let buckets: Vec<Value> = c
            .buckets
            .iter()
            .zip(&self.run.buckets)
            .map(|(v, r)| {
                let answers: Vec<Value> = r
                    .answers
                    .iter()
                    .map(|a| {
                        json!({
                            "server": a.server.text(),
                            "source": a.source.to_string(),
                            "xid": a.xid,
                            "offered": a.offered.map(|o| o.to_string()),
                            "status": a.status,
                            "time": a.time.as_f64(),
                        })
                    })
                    .collect();
                json!({
                    "bucket": v.bucket,
                    "key": hex_colons(&r.key.stid),
                    "key_kind": r.key.kind.name(),
                    "client": client_json(&r.key),
                    "xids": r.xids,
                    "answered_by": v.answered_by.iter().map(|&i| c.servers[i].ident.text()).collect::<Vec<_>>(),
                    "expected": v.expected.map(|e| e.name()),
                    "verdict": v.verdict.name(),
                    "answers": answers,
                })
            })
            .collect();
        let list = |v: Verdict| self.with(v);
        json!({
            "interface": self.interface,
            "family": self.family().name(),
            "message": self.message(),
            "key_kind": self.kind.name(),
            "profile": self.expected.profile.map(|p| p.name),
            "rate": self.pace.rate,
            "wait": self.pace.wait.as_secs_f64(),
            "retries": self.pace.retries,
            "start": self.started,
            "duration": self.run.elapsed.as_secs_f64(),
            "sent": self.sent(),
            "interrupted": self.run.interrupted,
            "privileges": self.privileges,
            "expected": self.expected.hba.map(|(h, src)| json!({
                "hba": h.to_string(),
                "source": src.name(),
                "primary_buckets": h.primary_buckets(),
            })),
            "servers": servers,
            "buckets": buckets,
            "deviations": {
                "wrong_server": list(Verdict::WrongServer),
                "both": list(Verdict::Both),
                "none": list(Verdict::NoAnswer),
                "outside": list(Verdict::Outsider),
            },
            "summary": {
                "buckets": c.buckets.len(),
                "probed": c.buckets.len() - c.count(Verdict::NotProbed),
                "ok": c.count(Verdict::Ok),
                "wrong_server": c.count(Verdict::WrongServer),
                "both": c.count(Verdict::Both),
                "none": c.count(Verdict::NoAnswer),
                "outside": c.count(Verdict::Outsider),
                "deviations": c.deviations(),
                "foreign_answers": self.run.foreign_answers,
                "answers_not_kept": self.run.answers_not_kept,
                "configured_silent": c.silent_configured,
            },
        })
    }
}

/// `--dry-run`: the packets the probe would send, one per bucket.
pub struct DryRun<'a> {
    pub keys: &'a [ProbeKey],
    pub frames: &'a [(u32, Vec<u8>)],
    pub profiles: &'a [&'static crate::analyse::dhcp_lb::Profile],
    pub interface: Option<&'a str>,
}

impl DryRun<'_> {
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let names: Vec<&str> = self.profiles.iter().map(|p| p.name).collect();
        writeln!(
            out,
            "poolshark probe --dry-run: {} packets, not sent; keys hash alike under {}{}",
            self.keys.len(),
            names.join(", "),
            self.interface
                .map_or(" (no interface: zero addresses)".to_string(), |i| format!(
                    " (from {i})"
                )),
        )?;
        for (k, (xid, frame)) in self.keys.iter().zip(self.frames) {
            writeln!(
                out,
                "bucket {:>3}  {} {}  xid 0x{xid:08x}  {} {} bytes",
                k.bucket,
                k.kind.name(),
                hex_colons(&k.stid),
                packets::message_name(k),
                frame.len()
            )?;
        }
        Ok(())
    }

    pub fn to_json(&self) -> Value {
        let packets: Vec<Value> = self
            .keys
            .iter()
            .zip(self.frames)
            .map(|(k, (xid, frame))| {
                json!({
                    "bucket": k.bucket,
                    "key": hex_colons(&k.stid),
                    "key_kind": k.kind.name(),
                    "client": client_json(k),
                    "message": packets::message_name(k),
                    "xid": xid,
                    "frame": crate::field::hex(frame),
                })
            })
            .collect();
        json!({
            "dry_run": true,
            "interface": self.interface,
            "family": self.keys.first().map(|k| k.kind.family().name()),
            "profiles": self.profiles.iter().map(|p| p.name).collect::<Vec<_>>(),
            "packets": packets,
        })
    }
}
