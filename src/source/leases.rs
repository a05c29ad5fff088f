//! The ISC DHCP lease file (`dhcpd.leases`, documented in dhcpd.leases(5)): the state a failover
//! server keeps on disk, read into typed records.
//!
//! What is read: `lease A.B.C.D { ... }` (times `starts`, `ends`, `tstp`, `tsfp`, `atsfp`,
//! `cltt`; `binding state`, `next binding state`, `rewind binding state`; `hardware`; `uid` as a
//! quoted string with escapes or as colon-separated hex; `client-hostname`; `set NAME = VALUE`;
//! the `reserved`, `dynamic-bootp` and `abandoned` flags), `failover peer "NAME" state { my state
//! S at T; partner state S at T; mclt N; }`, `server-duid`, `authoring-byte-order`, and comments.
//! Declarations dhcpd also writes but that carry no lease state (`host`, `group`, `class`,
//! `subclass`, the DHCPv6 `ia-na`/`ia-ta`/`ia-pd`) and lease statements with no bearing on the
//! pool (`on` events, relay agent `option`s, `billing`) are recognised and passed over.
//!
//! Reading is lenient: every statement that does not fit becomes a [`LeaseError`] with its line
//! number and reading goes on. dhcpd appends a new `lease` block each time a lease changes, so an
//! address may appear many times: the last block wins, as it does when dhcpd reads the file.

// The tokens and statements of ISC's configuration language, which dhcpd.conf shares
// (`crate::config::dhcpd` reads it with them).
pub mod kea;
pub(crate) mod lexer;
mod sniff;
pub(crate) mod syntax;
mod time;
mod v6;

use std::collections::BTreeMap;
use std::fmt;
use std::net::Ipv4Addr;
use std::path::Path;

use lexer::{Kind, Token};
pub use sniff::{sniff, LeaseFormat};
use syntax::{Statement, Statements};
pub use time::LeaseTime;
pub use v6::{Ia, Lease6Entry};

/// A statement that could not be read, by line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseError {
    /// 1-based line of the statement (of the `{` or `"` for a block or string never closed).
    pub line: usize,
    /// 1-based column on that line, counted in bytes, where the statement (or that `{` or `"`)
    /// starts.
    pub col: usize,
    pub what: String,
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.col, self.what)
    }
}

/// A lease's binding state as the file spells it (`binding state active;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    Free,
    Active,
    Expired,
    Released,
    Abandoned,
    Reset,
    Backup,
    /// dhcpd's `reserved` binding state name (a reserved lease).
    Reserved,
    /// dhcpd's `bootp` binding state name (a dynamic BOOTP lease).
    Bootp,
}

impl Binding {
    pub fn from_name(name: &str) -> Option<Binding> {
        Some(match name {
            "free" => Binding::Free,
            "active" => Binding::Active,
            "expired" => Binding::Expired,
            "released" => Binding::Released,
            "abandoned" => Binding::Abandoned,
            "reset" => Binding::Reset,
            "backup" => Binding::Backup,
            "reserved" => Binding::Reserved,
            "bootp" => Binding::Bootp,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Binding::Free => "free",
            Binding::Active => "active",
            Binding::Expired => "expired",
            Binding::Released => "released",
            Binding::Abandoned => "abandoned",
            Binding::Reset => "reset",
            Binding::Backup => "backup",
            Binding::Reserved => "reserved",
            Binding::Bootp => "bootp",
        }
    }
}

/// `hardware TYPE XX:XX:...;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// ARP hardware type: ethernet 1, token-ring 6, fddi 8, infiniband 32, `unknown-N` N.
    pub htype: u8,
    pub address: Vec<u8>,
}

/// One `lease` block: the last one read for its address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaseEntry {
    pub address: Option<Ipv4Addr>,
    /// Line of the `lease` keyword.
    pub line: usize,
    pub starts: Option<LeaseTime>,
    pub ends: Option<LeaseTime>,
    /// Time sent to the peer.
    pub tstp: Option<LeaseTime>,
    /// Time the peer acknowledged.
    pub tsfp: Option<LeaseTime>,
    /// Actual time the peer acknowledged.
    pub atsfp: Option<LeaseTime>,
    /// Client's last transaction time.
    pub cltt: Option<LeaseTime>,
    pub binding_state: Option<Binding>,
    pub next_binding_state: Option<Binding>,
    pub rewind_binding_state: Option<Binding>,
    pub hardware: Option<Hardware>,
    /// DHCP option 61 as the client sent it.
    pub uid: Option<Vec<u8>>,
    pub client_hostname: Option<Vec<u8>>,
    pub reserved: bool,
    pub dynamic_bootp: bool,
    /// `set NAME = VALUE;`: the name and the value as written.
    pub set: Vec<(String, String)>,
}

/// One line of a `failover peer ... state` block: `my state normal at 1 2026/11/30 04:22:36;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerStateLine {
    /// ISC's state name (`normal`, `communications-interrupted`, `unknown-state`, ...).
    pub state: String,
    pub at: Option<LeaseTime>,
}

/// `failover peer "NAME" state { ... }`: the last block read for the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerState {
    pub name: Vec<u8>,
    pub line: usize,
    pub my: Option<PeerStateLine>,
    pub partner: Option<PeerStateLine>,
    pub mclt: Option<u32>,
}

/// `authoring-byte-order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    LittleEndian,
    BigEndian,
}

/// Everything read from one lease file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaseFile {
    /// One entry per address (the last block read for it), in address order.
    pub leases: Vec<LeaseEntry>,
    /// `lease` blocks read, superseded ones included.
    pub lease_blocks: usize,
    /// DHCPv6 leases (`dhcpd -6`): one entry per address or prefix (the last block read for
    /// it), in address order.
    pub leases6: Vec<Lease6Entry>,
    /// `ia-na`, `ia-ta` and `ia-pd` blocks read, superseded ones included.
    pub ia_blocks: usize,
    /// One entry per peer name (the last block read for it).
    pub peers: Vec<PeerState>,
    pub server_duid: Option<Vec<u8>>,
    pub byte_order: Option<ByteOrder>,
    /// Declarations recognised but not modelled (`host`, `class`, ...), with their line.
    pub skipped: Vec<(usize, String)>,
    pub errors: Vec<LeaseError>,
}

/// The ISC server states a `failover peer ... state` block may name.
const SERVER_STATES: &[&str] = &[
    "unknown-state",
    "partner-down",
    "normal",
    "conflict-done",
    "communications-interrupted",
    "resolution-interrupted",
    "potential-conflict",
    "recover",
    "recover-done",
    "recover-wait",
    "shutdown",
    "paused",
    "startup",
];

/// Top-level declarations that hold no lease state.
const SKIPPED_DECLARATIONS: &[&str] = &["host", "group", "class", "subclass"];

/// Lease statements with no bearing on pool balance.
const IGNORED_LEASE_STATEMENTS: &[&str] = &["on", "option", "billing"];

/// Reads a lease file from bytes.
pub fn parse(input: &[u8]) -> LeaseFile {
    let mut file = LeaseFile::default();
    let mut leases: BTreeMap<Ipv4Addr, LeaseEntry> = BTreeMap::new();
    let mut leases6 = BTreeMap::new();
    let mut peers: Vec<PeerState> = Vec::new();
    let mut statements = Statements::new(input);
    for st in statements.by_ref() {
        match st.keyword() {
            Some("lease") => {
                file.lease_blocks += 1;
                if let Some(entry) = lease(&st, &mut file.errors) {
                    if let Some(a) = entry.address {
                        leases.insert(a, entry);
                    }
                }
            }
            Some(k @ ("ia-na" | "ia-ta" | "ia-pd")) => {
                file.ia_blocks += 1;
                let kind = match k {
                    "ia-na" => Ia::Na,
                    "ia-ta" => Ia::Ta,
                    _ => Ia::Pd,
                };
                v6::ia(&st, kind, &mut file.errors, &mut leases6);
            }
            Some("failover") => {
                if let Some(p) = peer_state(&st, &mut file.errors) {
                    match peers.iter_mut().find(|q| q.name == p.name) {
                        Some(q) => *q = p,
                        None => peers.push(p),
                    }
                }
            }
            Some("server-duid") => match data_after(&st, 1) {
                Ok(d) => file.server_duid = Some(d),
                Err(e) => file.errors.push(err(&st, format!("server-duid: {e}"))),
            },
            Some("authoring-byte-order") => match st.word(1) {
                Some("little-endian") if st.words.len() == 2 => {
                    file.byte_order = Some(ByteOrder::LittleEndian)
                }
                Some("big-endian") if st.words.len() == 2 => {
                    file.byte_order = Some(ByteOrder::BigEndian)
                }
                _ => file.errors.push(err(
                    &st,
                    "authoring-byte-order: expected 'little-endian' or 'big-endian'".into(),
                )),
            },
            Some(k) if SKIPPED_DECLARATIONS.contains(&k) => {
                file.skipped.push((st.line, k.to_string()));
            }
            Some(k) => {
                let k = k.to_string();
                file.errors
                    .push(err(&st, format!("unknown declaration '{k}'")));
            }
            None => match st.words.first() {
                Some(t) => file.errors.push(err(
                    &st,
                    format!(
                        "a declaration starts with a keyword, found {}",
                        t.describe()
                    ),
                )),
                None => file
                    .errors
                    .push(err(&st, "empty statement (a lone ';' or block)".into())),
            },
        }
    }
    file.errors.append(&mut statements.errors);
    file.errors.sort_by_key(|e| (e.line, e.col));
    file.leases = leases.into_values().collect();
    file.leases6 = leases6.into_values().collect();
    file.peers = peers;
    file
}

/// Reads a lease file from disk.
pub fn read_path(path: &Path) -> std::io::Result<LeaseFile> {
    Ok(parse(&std::fs::read(path)?))
}

/// An IPv4 address as dhcpd reads one (in its lease file and its configuration): four
/// decimal numbers up to 255, leading zeros allowed (`10.0.0.010` is 10.0.0.10, where the C
/// library's `inet_aton` would read octal).
pub fn ipv4(word: &str) -> Result<Ipv4Addr, String> {
    let bad = || format!("'{word}' is not an IPv4 address");
    let parts: Vec<&str> = word.split('.').collect();
    if parts.len() != 4 {
        return Err(bad());
    }
    let mut octets = [0u8; 4];
    for (o, p) in octets.iter_mut().zip(&parts) {
        if p.is_empty() || p.len() > 10 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let v: u64 = p.parse().map_err(|_| bad())?;
        *o = u8::try_from(v)
            .map_err(|_| format!("{}: {v} exceeds max (255) for precision", bad()))?;
    }
    Ok(Ipv4Addr::from(octets))
}

pub(super) fn err(st: &Statement, what: String) -> LeaseError {
    LeaseError {
        line: st.line,
        col: st.col,
        what,
    }
}

fn words_from(st: &Statement, from: usize) -> Vec<&str> {
    st.words.iter().skip(from).map_while(Token::word).collect()
}

/// Colon-separated hex bytes (`02:c1:00:0f`); single digits are allowed, as dhcpd accepts them.
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    s.split(':')
        .map(|p| {
            if p.is_empty() || p.len() > 2 {
                return None;
            }
            u8::from_str_radix(p, 16).ok()
        })
        .collect()
}

/// The data of `uid`, `server-duid`: a quoted string or colon-separated hex, then nothing more.
fn data_after(st: &Statement, at: usize) -> Result<Vec<u8>, String> {
    let data = match st.words.get(at).map(|t| &t.kind) {
        Some(Kind::Str(s)) => s.clone(),
        Some(Kind::Word(w)) => {
            hex_bytes(w).ok_or_else(|| format!("'{w}' is neither a quoted string nor hex bytes"))?
        }
        Some(Kind::Punct(c)) => {
            return Err(format!("expected data, found '{}'", char::from(*c)));
        }
        None => return Err("expected a quoted string or hex bytes".into()),
    };
    match st.words.get(at + 1) {
        None => Ok(data),
        Some(t) => Err(format!("unexpected {} after the data", t.describe())),
    }
}

pub(super) fn time_statement(st: &Statement, name: &str) -> Result<LeaseTime, String> {
    let words = words_from(st, 1);
    let (t, used) = time::parse_words(&words).map_err(|e| format!("{name}: {e}"))?;
    if st.words.len() != 1 + used {
        return Err(format!("{name}: unexpected words after the time"));
    }
    Ok(t)
}

pub(super) fn binding_after(st: &Statement, at: usize, what: &str) -> Result<Binding, String> {
    match (st.word(at), st.words.len() == at + 1) {
        (Some(n), true) => Binding::from_name(n).ok_or_else(|| {
            format!("{what}: unknown binding state '{n}' (free, active, expired, released, abandoned, reset, backup, reserved, bootp)")
        }),
        _ => Err(format!("{what}: expected one binding state name")),
    }
}

fn hardware_type(name: &str) -> Option<u8> {
    match name {
        "ethernet" => Some(1),
        "token-ring" => Some(6),
        "fddi" => Some(8),
        "infiniband" => Some(32),
        _ => name.strip_prefix("unknown-")?.parse().ok(),
    }
}

fn lease(st: &Statement, errors: &mut Vec<LeaseError>) -> Option<LeaseEntry> {
    let address = match (st.word(1), st.words.len()) {
        (Some(a), 2) => match ipv4(a) {
            Ok(a) => a,
            Err(_) => {
                errors.push(err(st, format!("lease: '{a}' is not an IPv4 address")));
                return None;
            }
        },
        _ => {
            errors.push(err(
                st,
                "lease: expected one IPv4 address before '{'".into(),
            ));
            return None;
        }
    };
    let Some(body) = &st.block else {
        errors.push(err(
            st,
            format!("lease {address}: expected a '{{ ... }}' block"),
        ));
        return None;
    };
    let mut e = LeaseEntry {
        address: Some(address),
        line: st.line,
        ..LeaseEntry::default()
    };
    for s in body {
        if let Err(what) = lease_statement(s, &mut e) {
            errors.push(err(s, what));
        }
    }
    Some(e)
}

fn lease_statement(s: &Statement, e: &mut LeaseEntry) -> Result<(), String> {
    let Some(k) = s.keyword() else {
        return Err(match s.words.first() {
            Some(t) => format!(
                "a lease statement starts with a keyword, found {}",
                t.describe()
            ),
            None => "empty statement in a lease".into(),
        });
    };
    if s.block.is_some() && k != "on" {
        return Err(format!("'{k}' does not take a block"));
    }
    match k {
        "starts" => e.starts = Some(time_statement(s, k)?),
        "ends" => e.ends = Some(time_statement(s, k)?),
        "tstp" => e.tstp = Some(time_statement(s, k)?),
        "tsfp" => e.tsfp = Some(time_statement(s, k)?),
        "atsfp" => e.atsfp = Some(time_statement(s, k)?),
        "cltt" => e.cltt = Some(time_statement(s, k)?),
        "binding" => {
            if s.word(1) != Some("state") {
                return Err("expected 'binding state NAME'".into());
            }
            e.binding_state = Some(binding_after(s, 2, "binding state")?);
        }
        "next" | "rewind" => {
            if s.word(1) != Some("binding") || s.word(2) != Some("state") {
                return Err(format!("expected '{k} binding state NAME'"));
            }
            let b = binding_after(s, 3, &format!("{k} binding state"))?;
            if k == "next" {
                e.next_binding_state = Some(b);
            } else {
                e.rewind_binding_state = Some(b);
            }
        }
        "hardware" => {
            let (Some(t), Some(addr), 3) = (s.word(1), s.word(2), s.words.len()) else {
                return Err("expected 'hardware TYPE XX:XX:...'".into());
            };
            let htype = hardware_type(t).ok_or_else(|| {
                format!("unknown hardware type '{t}' (ethernet, token-ring, fddi, infiniband, unknown-N)")
            })?;
            let address = hex_bytes(addr)
                .ok_or_else(|| format!("hardware address '{addr}' is not hex bytes"))?;
            e.hardware = Some(Hardware { htype, address });
        }
        "uid" => e.uid = Some(data_after(s, 1).map_err(|m| format!("uid: {m}"))?),
        "client-hostname" => match (s.words.get(1).map(|t| &t.kind), s.words.len()) {
            (Some(Kind::Str(h)), 2) => e.client_hostname = Some(h.clone()),
            _ => return Err("expected 'client-hostname \"NAME\"'".into()),
        },
        "reserved" | "dynamic-bootp" | "abandoned" if s.words.len() == 1 => match k {
            "reserved" => e.reserved = true,
            "dynamic-bootp" => e.dynamic_bootp = true,
            // The pre-3.0 flag, read by dhcpd as the binding state.
            _ => e.binding_state = Some(Binding::Abandoned),
        },
        "set" => {
            let (Some(name), Some(eq)) = (s.word(1), s.words.get(2)) else {
                return Err("expected 'set NAME = VALUE'".into());
            };
            if !eq.is_punct(b'=') || s.words.len() < 4 {
                return Err(format!("expected 'set {name} = VALUE'"));
            }
            let value: Vec<String> = s.words.iter().skip(3).map(token_text).collect();
            e.set.push((name.to_string(), value.join(" ")));
        }
        k if IGNORED_LEASE_STATEMENTS.contains(&k) => {}
        other => return Err(format!("unknown lease statement '{other}'")),
    }
    Ok(())
}

/// A token as it would be written back (strings quoted, non-printable bytes as octal escapes).
fn token_text(t: &Token) -> String {
    match &t.kind {
        Kind::Word(w) => w.clone(),
        Kind::Punct(c) => char::from(*c).to_string(),
        Kind::Str(s) => {
            let mut out = String::from("\"");
            for &b in s {
                match b {
                    b'"' | b'\\' => {
                        out.push('\\');
                        out.push(char::from(b));
                    }
                    0x20..=0x7e => out.push(char::from(b)),
                    _ => out.push_str(&format!("\\{b:03o}")),
                }
            }
            out.push('"');
            out
        }
    }
}

fn peer_state(st: &Statement, errors: &mut Vec<LeaseError>) -> Option<PeerState> {
    let name = match (
        st.word(1),
        st.words.get(2).map(|t| &t.kind),
        st.word(3),
        st.words.len(),
    ) {
        (Some("peer"), Some(Kind::Str(n)), Some("state"), 4) => n.clone(),
        _ => {
            errors.push(err(
                st,
                "expected 'failover peer \"NAME\" state { ... }'".into(),
            ));
            return None;
        }
    };
    let Some(body) = &st.block else {
        errors.push(err(
            st,
            "failover peer state: expected a '{ ... }' block".into(),
        ));
        return None;
    };
    let mut p = PeerState {
        name,
        line: st.line,
        my: None,
        partner: None,
        mclt: None,
    };
    for s in body {
        if let Err(what) = peer_statement(s, &mut p) {
            errors.push(err(s, what));
        }
    }
    Some(p)
}

fn peer_statement(s: &Statement, p: &mut PeerState) -> Result<(), String> {
    match s.keyword() {
        // dhcpd writes "partner state"; dhcpd.leases(5) documents "peer state" and dhcpd reads both.
        Some(who @ ("my" | "partner" | "peer")) => {
            let (Some("state"), Some(state)) = (s.word(1), s.word(2)) else {
                return Err(format!("expected '{who} state NAME at TIME'"));
            };
            if !SERVER_STATES.contains(&state) {
                return Err(format!("unknown failover state '{state}'"));
            }
            let at = match s.word(3) {
                None if s.words.len() == 3 => None,
                Some("at") => {
                    let words = words_from(s, 4);
                    let (t, used) = time::parse_words(&words).map_err(|e| format!("at: {e}"))?;
                    if s.words.len() != 4 + used {
                        return Err("unexpected words after the time".into());
                    }
                    Some(t)
                }
                _ => return Err(format!("expected 'at TIME' after '{who} state {state}'")),
            };
            let line = PeerStateLine {
                state: state.to_string(),
                at,
            };
            if who == "my" {
                p.my = Some(line);
            } else {
                p.partner = Some(line);
            }
            Ok(())
        }
        Some("mclt") => match (s.word(1).map(str::parse::<u32>), s.words.len()) {
            (Some(Ok(v)), 2) => {
                p.mclt = Some(v);
                Ok(())
            }
            _ => Err("expected 'mclt SECONDS'".into()),
        },
        Some(other) => Err(format!("unknown failover state statement '{other}'")),
        None => Err("a failover state statement starts with a keyword".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_with_every_field() {
        let f = parse(
            br#"lease 192.0.2.112 {
  starts 1 2026/11/30 04:29:22;
  ends never;
  tstp epoch 1796012962; # Mon Nov 30 04:29:22 2026
  tsfp 1 2026/11/30 04:28:41;
  atsfp 1 2026/11/30 04:28:41;
  cltt 1 2026/11/30 04:28:40;
  binding state backup;
  next binding state free;
  rewind binding state free;
  hardware ethernet 02:c1:c8:a5:00:de;
  uid "\001\002\301\310\245\000\336";
  client-hostname "h0111";
  reserved;
  dynamic-bootp;
  set vendor = "x y";
  on expiry { set z = 1; }
  option agent.circuit-id 0:1;
}
"#,
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let e = &f.leases[0];
        assert_eq!(e.address, Some(Ipv4Addr::new(192, 0, 2, 112)));
        assert_eq!(e.starts, Some(LeaseTime::At(1_796_012_962)));
        assert_eq!(e.ends, Some(LeaseTime::Never));
        assert_eq!(e.tstp, Some(LeaseTime::At(1_796_012_962)));
        assert_eq!(e.tsfp, Some(LeaseTime::At(1_796_012_921)));
        assert_eq!(e.cltt, Some(LeaseTime::At(1_796_012_920)));
        assert_eq!(e.binding_state, Some(Binding::Backup));
        assert_eq!(e.next_binding_state, Some(Binding::Free));
        assert_eq!(e.rewind_binding_state, Some(Binding::Free));
        assert_eq!(
            e.hardware,
            Some(Hardware {
                htype: 1,
                address: vec![0x02, 0xc1, 0xc8, 0xa5, 0x00, 0xde]
            })
        );
        assert_eq!(
            e.uid.as_deref(),
            Some(&[1, 2, 0xc1, 0xc8, 0xa5, 0, 0xde][..])
        );
        assert_eq!(e.client_hostname.as_deref(), Some(&b"h0111"[..]));
        assert!(e.reserved && e.dynamic_bootp);
        assert_eq!(e.set, [("vendor".to_string(), "\"x y\"".to_string())]);
    }

    #[test]
    fn the_last_block_for_an_address_wins() {
        let f = parse(
            b"lease 10.0.0.2 { binding state active; }\n\
              lease 10.0.0.1 { binding state free; }\n\
              lease 10.0.0.2 { binding state backup; }\n",
        );
        assert!(f.errors.is_empty());
        assert_eq!(f.lease_blocks, 3);
        assert_eq!(f.leases.len(), 2);
        assert_eq!(f.leases[1].binding_state, Some(Binding::Backup));
        assert_eq!(f.leases[1].line, 3);
    }

    #[test]
    fn bad_statements_are_reported_by_line_and_reading_goes_on() {
        let f = parse(
            b"lease 10.0.0.1 {\n\
              starts 1 2026/02/30 00:00:00;\n\
              binding state gone;\n\
              hardware ethernet zz:00;\n\
              uid \"a\" \"b\";\n\
              frobnicate;\n\
              binding state free;\n\
              }\n\
              lease 10.0.0.300 { binding state free; }\n\
              wibble 3;\n\
              authoring-byte-order middle-endian;\n\
              lease 10.0.0.2 { binding state free; }\n",
        );
        let lines: Vec<usize> = f.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 9, 10, 11], "{:?}", f.errors);
        assert!(
            f.errors[0].what.contains("calendar date"),
            "{}",
            f.errors[0]
        );
        assert_eq!(f.leases.len(), 2);
        assert_eq!(f.leases[0].binding_state, Some(Binding::Free));
        assert_eq!(f.leases[0].starts, None);
    }

    #[test]
    fn errors_give_the_column_where_the_statement_starts() {
        // Two statements on one line, each with its own mistake: the column tells them apart.
        let f = parse(
            b"lease 10.0.0.1 {\n  starts 1 2026/11/30 00:00:00; ends banana;\n  \
              binding state gone; hardware ethernet zz;\n}\nlease 10.0.0.2 {\n  \
              client-hostname \"open;\n}\n",
        );
        let at: Vec<(usize, usize)> = f.errors.iter().map(|e| (e.line, e.col)).collect();
        // ends (2:33), binding (3:3), hardware (3:23); the block of 10.0.0.2 (its '{', 5:16)
        // and the string (its '"', 6:19) never closed.
        assert_eq!(
            at,
            [(2, 33), (3, 3), (3, 23), (5, 16), (6, 19)],
            "{:?}",
            f.errors
        );
        assert!(f.errors[0].what.starts_with("ends:"), "{}", f.errors[0]);
        assert_eq!(
            f.errors[1].to_string(),
            "line 3, column 3: binding state: unknown binding state 'gone' (free, active, \
             expired, released, abandoned, reset, backup, reserved, bootp)"
        );
    }

    #[test]
    fn uid_as_hex_and_failover_state() {
        let f = parse(
            b"failover peer \"fo\" state {\n my state normal at 1 2026/11/30 04:22:36;\n\
              partner state recover-wait at epoch 5;\n mclt 60;\n}\n\
              failover peer \"fo\" state { my state partner-down at 1 2026/11/30 04:30:09; }\n\
              server-duid 00:01:00:01;\n\
              lease 10.0.0.1 { uid 01:02:c1:0:0:1; }\n",
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert_eq!(f.peers.len(), 1, "the last block per name wins");
        assert_eq!(f.peers[0].my.as_ref().unwrap().state, "partner-down");
        assert_eq!(f.peers[0].partner, None);
        assert_eq!(f.server_duid.as_deref(), Some(&[0, 1, 0, 1][..]));
        assert_eq!(f.leases[0].uid.as_deref(), Some(&[1, 2, 0xc1, 0, 0, 1][..]));
    }

    #[test]
    fn never_panics_on_mangled_input() {
        let base =
            br#"lease 192.0.2.1 { starts 1 2026/11/30 04:22:35; uid "\001a"; binding state free; }
failover peer "x" state { my state normal at 1 2026/11/30 04:22:36; mclt 60; }
"#;
        let mut state = 1u32;
        for _ in 0..3000 {
            let mut v = base.to_vec();
            for _ in 0..4 {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let i = (state >> 8) as usize % v.len();
                v[i] = (state >> 20) as u8;
            }
            let cut = (state as usize) % (v.len() + 1);
            let _ = parse(&v[..cut]);
            let _ = parse(&v);
        }
    }
}
