//! ISC dhcpd's configuration file, `dhcpd.conf` (dhcpd.conf(5)), as dhcpd 4.4 reads it: the
//! `failover peer` declarations, `shared-network`, `subnet` / `subnet6`, `pool` / `pool6` with
//! their `range`, `range6`, `prefix6` and `failover peer` statements, `group`s, `include`d
//! files, and `server-identifier`. Everything else (options, hosts, classes, conditionals, ...)
//! is passed over.
//!
//! The words, strings and comments are those of ISC's lexer, shared with the lease file reader
//! (`crate::source::leases`): `#` to the end of the line, double-quoted strings with backslash
//! escapes. What dhcpd refuses to start with is an error here too, at the statement's line and
//! column, with dhcpd's own words where it has some: a range outside its subnet or written as a
//! prefix, a range where dhcpd takes none, a pool without a range, overlapping ranges, a failover
//! peer without a peer address, a primary without `split`/`hba` or `mclt`, a secondary with
//! them, a split over 256, a map not 32 bytes long, a reference to a peer not yet declared, a
//! peer no pool refers to, a dynamic-bootp range in a failover pool, a subnet number with host
//! bits, and `subnet` beside `subnet6` (one is for `dhcpd -4`, the other for `dhcpd -6`).
//! tests/it/config_files.rs holds these verdicts against `dhcpd -t`.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{At, ConfigError, FailoverPeer, Product, Range, RangeKind, ServerConfig, ServerId};
use crate::proto::lb::{Family, Hba, Role};
use crate::source::leases::lexer::{Kind as Tok, Token};
use crate::source::leases::syntax::{Statement, Statements};

/// How the parser reaches the file an `include` names: given the name as written and the
/// label of the including file, the included file's label and bytes, or why it cannot be read.
pub type Includer<'a> = dyn FnMut(&str, &str) -> Result<(String, Vec<u8>), String> + 'a;

/// Includes nested deeper than this are refused (dhcpd has no limit; a file that includes
/// itself would never end).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Reads `text`, the dhcpd.conf called `file`; `include` opens the files it includes.
pub fn parse(
    file: &str,
    text: &[u8],
    include: &mut Includer<'_>,
) -> Result<ServerConfig, Vec<ConfigError>> {
    let mut r = Reader {
        include,
        stack: vec![file.to_string()],
        errors: Vec::new(),
        peers: Vec::new(),
        referenced: BTreeSet::new(),
        ranges: Vec::new(),
        shared: Vec::new(),
        server_ids: Vec::new(),
        pools: 0,
        v4_subnet: None,
        v6_subnet: None,
        shared_subnets: Vec::new(),
        unplaced: BTreeSet::new(),
    };
    let statements = r.statements(file, text);
    r.block(file, &statements, &Ctx::default());
    // dhcpd checks the whole configuration (peers without pools, leases declared twice) only
    // once it has parsed without error.
    if r.errors.is_empty() {
        r.finish();
    }
    if !r.errors.is_empty() {
        r.errors.sort_by(|a, b| {
            (a.file != file, &a.file, a.line, a.col).cmp(&(b.file != file, &b.file, b.line, b.col))
        });
        return Err(r.errors);
    }
    let family = if r.v6_subnet.is_some() {
        Family::V6
    } else {
        Family::V4
    };
    Ok(ServerConfig {
        file: file.to_string(),
        product: Product::Dhcpd,
        family,
        failover: r.peers,
        ha: None,
        server_ids: r.server_ids,
        ranges: r.ranges,
        shared_networks: r.shared,
    })
}

/// A subnet: its number and prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    fn contains(&self, a: IpAddr) -> bool {
        match (self.addr, a) {
            (IpAddr::V4(n), IpAddr::V4(x)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(n) & mask == u32::from(x) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(x)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(n) & mask == u128::from(x) & mask
            }
            _ => false,
        }
    }

    fn text(&self) -> String {
        format!("{}/{}", self.addr, self.prefix)
    }

    /// How dhcpd names a v4 subnet in its messages: `10.0.0.0 netmask 255.255.255.0`.
    fn dhcpd_text(&self) -> String {
        match self.addr {
            IpAddr::V4(a) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                format!("{a} netmask {}", Ipv4Addr::from(mask))
            }
            IpAddr::V6(_) => self.text(),
        }
    }
}

/// Where a statement is: the enclosing declarations.
#[derive(Clone, Debug, Default)]
struct Ctx {
    shared: Option<String>,
    subnet: Option<Net>,
    /// The pool being read: its number.
    pool: Option<usize>,
    /// Subnets of the shared network being read (ranges of its pools are checked against
    /// them when it ends).
    in_shared: bool,
}

struct Reader<'i, 'a> {
    include: &'i mut Includer<'a>,
    /// The files being read, the outermost first (for `include` loops and labels).
    stack: Vec<String>,
    errors: Vec<ConfigError>,
    peers: Vec<FailoverPeer>,
    referenced: BTreeSet<String>,
    ranges: Vec<Range>,
    shared: Vec<String>,
    server_ids: Vec<ServerId>,
    pools: usize,
    v4_subnet: Option<At>,
    v6_subnet: Option<At>,
    /// Subnets of the shared network being read.
    shared_subnets: Vec<Net>,
    /// Ranges of pools declared in a shared network outside its subnets, to place in one of
    /// them when the shared network ends.
    unplaced: BTreeSet<usize>,
}

fn at(file: &str, line: usize, col: usize) -> At {
    At {
        file: file.to_string(),
        line,
        col,
    }
}

fn st_at(file: &str, st: &Statement) -> At {
    at(file, st.line, st.col)
}

/// The statement's tokens as text: words as they are, strings without their quotes.
fn words(st: &Statement) -> Vec<String> {
    st.words.iter().map(token_text).collect()
}

fn token_text(t: &Token) -> String {
    match &t.kind {
        Tok::Word(w) => w.clone(),
        Tok::Str(s) => String::from_utf8_lossy(s).into_owned(),
        Tok::Punct(c) => char::from(*c).to_string(),
    }
}

/// A name dhcpd takes as a word or a quoted string (`shared-network`, `failover peer`).
fn name_at(st: &Statement, i: usize) -> Option<String> {
    match &st.words.get(i)?.kind {
        Tok::Word(w) => Some(w.clone()),
        Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
        Tok::Punct(_) => None,
    }
}

pub use crate::source::leases::ipv4;

fn ipv6(word: &str) -> Result<Ipv6Addr, String> {
    word.parse()
        .map_err(|_| format!("'{word}' is not an IPv6 address"))
}

/// `ADDRESS/LEN` of IPv6.
fn ipv6_prefix(word: &str) -> Result<(Ipv6Addr, u8), String> {
    let (a, l) = word
        .split_once('/')
        .ok_or_else(|| format!("'{word}' is not an IPv6 prefix (ADDRESS/LENGTH)"))?;
    let len: u8 = l
        .parse()
        .ok()
        .filter(|l| *l <= 128)
        .ok_or_else(|| format!("'{word}': the prefix length is 0 to 128"))?;
    Ok((ipv6(a)?, len))
}

fn number(word: Option<&String>, what: &str) -> Result<u32, String> {
    let w = word.ok_or_else(|| format!("{what}: expecting number"))?;
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what}: expecting number, found '{w}'"));
    }
    w.parse()
        .map_err(|_| format!("{what}: {w} is too large a number"))
}

/// The first and last address of `a/len`.
fn v6_span(a: Ipv6Addr, len: u8) -> (Ipv6Addr, Ipv6Addr) {
    let host = u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
    let n = u128::from(a) & !host;
    (Ipv6Addr::from(n), Ipv6Addr::from(n | host))
}

impl Reader<'_, '_> {
    fn error(&mut self, at: At, what: impl Into<String>) {
        self.errors.push(ConfigError {
            file: at.file,
            line: at.line,
            col: at.col,
            what: what.into(),
        });
    }

    fn statements(&mut self, file: &str, text: &[u8]) -> Vec<Statement> {
        let mut it = Statements::new(text);
        let v: Vec<Statement> = it.by_ref().collect();
        for e in it.errors {
            self.error(at(file, e.line, e.col), e.what);
        }
        v
    }

    fn block(&mut self, file: &str, body: &[Statement], ctx: &Ctx) {
        for st in body {
            self.statement(file, st, ctx);
        }
    }

    fn statement(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let Some(k) = st.keyword() else {
            return;
        };
        match k {
            "include" => self.include_file(file, st, ctx),
            "failover" => self.failover(file, st, ctx),
            "shared-network" => self.shared_network(file, st, ctx),
            "subnet" => self.subnet(file, st, ctx),
            "subnet6" => self.subnet6(file, st, ctx),
            "pool" | "pool6" => self.pool(file, st, ctx),
            "range" => self.range(file, st, ctx),
            "range6" => self.range6(file, st, ctx),
            "prefix6" => self.prefix6(file, st, ctx),
            "group" => {
                if let Some(b) = &st.block {
                    self.block(file, b, ctx);
                }
            }
            "server-identifier" if ctx.subnet.is_none() && ctx.shared.is_none() => {
                if let Some(Ok(a)) = words(st).get(1).map(|w| ipv4(w)) {
                    self.server_ids.push(ServerId::Addr(IpAddr::V4(a)));
                }
            }
            // Hosts, classes, conditionals, options, ...: nothing poolshark models.
            _ => {}
        }
    }

    fn include_file(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let name = match (st.words.get(1).map(|t| &t.kind), st.words.len()) {
            (Some(Tok::Str(s)), 2) => String::from_utf8_lossy(s).into_owned(),
            _ => {
                self.error(st_at(file, st), "include: expecting a file name in quotes");
                return;
            }
        };
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            self.error(
                st_at(file, st),
                format!("include \"{name}\": includes nested deeper than {MAX_INCLUDE_DEPTH}"),
            );
            return;
        }
        match (self.include)(&name, file) {
            Ok((label, bytes)) => {
                if self.stack.contains(&label) {
                    self.error(
                        st_at(file, st),
                        format!("include \"{name}\": {label} includes itself"),
                    );
                    return;
                }
                self.stack.push(label.clone());
                let body = self.statements(&label, &bytes);
                self.block(&label, &body, ctx);
                self.stack.pop();
            }
            Err(why) => self.error(st_at(file, st), format!("include \"{name}\": {why}")),
        }
    }

    fn failover(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let w = words(st);
        let name = match (w.get(1).map(String::as_str), name_at(st, 2)) {
            (Some("peer"), Some(n)) => n,
            _ => {
                self.error(st_at(file, st), "expecting 'failover peer \"NAME\"'");
                return;
            }
        };
        match (w.get(3).map(String::as_str), &st.block) {
            // `failover peer "NAME" state { ... }`: what dhcpd writes to its lease file.
            (Some("state"), _) => {}
            (None, Some(body)) => {
                if self.peers.iter().any(|p| p.name == name) {
                    self.error(
                        st_at(file, st),
                        format!("redeclaration of failover peer {name}"),
                    );
                    return;
                }
                let peer = self.peer_declaration(file, st, name, body);
                self.peers.push(peer);
            }
            (None, None) => {
                // A reference: in a pool, it makes the pool a failover pool.
                if !self.peers.iter().any(|p| p.name == name) {
                    self.error(
                        st_at(file, st),
                        format!("failover peer {name}: not found (dhcpd needs it declared before it is named)"),
                    );
                    return;
                }
                if ctx.pool.is_some() || ctx.shared.is_some() {
                    if ctx.pool.is_some() {
                        self.referenced.insert(name);
                    }
                } else {
                    self.error(
                        st_at(file, st),
                        "failover peer reference not in a pool or shared-network declaration",
                    );
                }
            }
            (Some(other), _) => self.error(
                st_at(file, st),
                format!("failover peer \"{name}\": unexpected '{other}'"),
            ),
        }
    }

    fn peer_declaration(
        &mut self,
        file: &str,
        decl: &Statement,
        name: String,
        body: &[Statement],
    ) -> FailoverPeer {
        let mut p = FailoverPeer {
            name,
            at: st_at(file, decl),
            ..FailoverPeer::default()
        };
        for s in body {
            let w = words(s);
            let here = st_at(file, s);
            if s.block.is_some() {
                self.error(here, "invalid statement in peer declaration");
                continue;
            }
            let r = self.peer_statement(&mut p, &w);
            if let Err(what) = r {
                self.error(here, what);
            }
        }
        let here = st_at(file, decl);
        if p.peer_address.is_none() {
            self.error(here.clone(), "peer address may not be omitted");
        }
        match p.effective_role() {
            Role::Primary if p.hba.is_none() => {
                self.error(here, "primary failover server must have hba or split.");
            }
            Role::Primary if p.mclt.is_none() => {
                self.error(here, "primary failover server must have mclt.");
            }
            Role::Secondary if p.hba.is_some() => {
                self.error(here, "secondary may not define load balance settings.");
            }
            _ => {}
        }
        p
    }

    fn peer_statement(&mut self, p: &mut FailoverPeer, w: &[String]) -> Result<(), String> {
        let Some(k) = w.first().map(String::as_str) else {
            return Err("invalid statement in peer declaration".into());
        };
        let arity = |n: usize| -> Result<(), String> {
            if w.len() == n {
                Ok(())
            } else {
                Err(format!("{k}: semicolon expected"))
            }
        };
        let port = |v: u32| -> Result<u16, String> {
            u16::try_from(v).map_err(|_| format!("port {v} is not a TCP port"))
        };
        match k {
            "primary" => {
                arity(1)?;
                p.role = Some(Role::Primary);
            }
            "secondary" => {
                arity(1)?;
                p.role = Some(Role::Secondary);
            }
            "address" => {
                arity(2)?;
                p.address = w.get(1).cloned();
            }
            "port" => {
                arity(2)?;
                p.port = Some(port(number(w.get(1), k)?)?);
            }
            "peer" => match w.get(1).map(String::as_str) {
                Some("address") => {
                    arity(3)?;
                    p.peer_address = w.get(2).cloned();
                }
                Some("port") => {
                    arity(3)?;
                    p.peer_port = Some(port(number(w.get(2), "peer port")?)?);
                }
                _ => return Err("expecting 'address' or 'port'".into()),
            },
            "split" => {
                arity(2)?;
                let n = number(w.get(1), k)?;
                let hba = u16::try_from(n)
                    .ok()
                    .and_then(|n| Hba::split(n).ok())
                    .ok_or("split must be between 0 and 256, inclusive")?;
                p.hba = Some(hba);
                p.hba_text = Some(format!("split {n}"));
            }
            "hba" => {
                arity(2)?;
                let text = w.get(1).cloned().unwrap_or_default();
                p.hba = Some(hba_bytes(&text)?);
                p.hba_text = Some(format!("hba {text}"));
            }
            "load" => {
                if w.get(1..4)
                    .is_none_or(|x| x != ["balance", "max", "seconds"])
                {
                    return Err("expecting 'load balance max seconds N'".into());
                }
                arity(5)?;
                p.load_balance_max_seconds = Some(number(w.get(4), "load balance max seconds")?);
            }
            "mclt"
            | "max-lease-misbalance"
            | "max-lease-ownership"
            | "min-balance"
            | "max-balance"
            | "max-response-delay"
            | "max-unacked-updates"
            | "auto-partner-down" => {
                arity(2)?;
                let v = Some(number(w.get(1), k)?);
                match k {
                    "mclt" => p.mclt = v,
                    "max-lease-misbalance" => p.max_lease_misbalance = v,
                    "max-lease-ownership" => p.max_lease_ownership = v,
                    "min-balance" => p.min_balance = v,
                    "max-balance" => p.max_balance = v,
                    "max-response-delay" => p.max_response_delay = v,
                    "max-unacked-updates" => p.max_unacked_updates = v,
                    _ => p.auto_partner_down = v,
                }
            }
            other => return Err(format!("invalid statement in peer declaration ('{other}')")),
        }
        Ok(())
    }

    fn shared_network(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let (Some(name), 2, Some(body)) = (name_at(st, 1), st.words.len(), &st.block) else {
            self.error(st_at(file, st), "expecting 'shared-network NAME { ... }'");
            return;
        };
        if ctx.shared.is_some() || ctx.subnet.is_some() || ctx.pool.is_some() {
            self.error(
                st_at(file, st),
                "shared-network declaration not allowed here",
            );
            return;
        }
        if !self.shared.contains(&name) {
            self.shared.push(name.clone());
        }
        let first_range = self.ranges.len();
        let inner = Ctx {
            shared: Some(name.clone()),
            in_shared: true,
            ..Ctx::default()
        };
        let subnets_before = self.shared_subnets.len();
        self.block(file, body, &inner);
        // Ranges of pools declared in the shared network itself: each must lie in one of its
        // subnets (dhcpd: "bad range, address ... not in subnet ...").
        let subnets: Vec<Net> = self.shared_subnets.drain(subnets_before..).collect();
        let pending: Vec<usize> = (first_range..self.ranges.len())
            .filter(|&i| self.unplaced.remove(&i))
            .collect();
        for i in pending {
            let Some(r) = self.ranges.get(i).cloned() else {
                continue;
            };
            let Some(net) = subnets.iter().find(|n| n.contains(r.first)) else {
                self.error(
                    r.at.clone(),
                    format!(
                        "bad range, address {} not in any subnet of shared-network {name}",
                        r.first
                    ),
                );
                continue;
            };
            if !net.contains(r.last) {
                self.error(
                    r.at.clone(),
                    format!(
                        "bad range, address {} not in subnet {}",
                        r.last,
                        net.dhcpd_text()
                    ),
                );
                continue;
            }
            if let Some(r) = self.ranges.get_mut(i) {
                r.subnet = net.text();
            }
        }
    }

    fn subnet(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let w = words(st);
        let here = st_at(file, st);
        let (Some(body), 4, Some("netmask")) = (&st.block, w.len(), w.get(2).map(String::as_str))
        else {
            self.error(here, "expecting 'subnet ADDRESS netmask MASK { ... }'");
            return;
        };
        if ctx.subnet.is_some() || ctx.pool.is_some() {
            self.error(here, "subnet declaration not allowed here");
            return;
        }
        let parsed = ipv4(&w[1]).and_then(|a| ipv4(&w[3]).map(|m| (a, m)));
        let (addr, mask) = match parsed {
            Ok(x) => x,
            Err(e) => {
                self.error(here, format!("subnet: {e}"));
                return;
            }
        };
        let m = u32::from(mask);
        let prefix = m.leading_ones();
        if m.checked_shl(prefix).unwrap_or(0) != 0 || u32::from(addr) & !m != 0 {
            self.error(
                here,
                format!("subnet {addr} netmask {mask}: bad subnet number/mask combination."),
            );
            return;
        }
        if self.v4_subnet.is_none() {
            self.v4_subnet = Some(here.clone());
        }
        if let Some(v6) = self.v6_subnet.clone() {
            self.mixed(here, &v6);
        }
        let net = Net {
            addr: IpAddr::V4(addr),
            prefix: prefix as u8,
        };
        self.enter_subnet(file, body, ctx, net);
    }

    fn subnet6(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let w = words(st);
        let here = st_at(file, st);
        let (Some(body), 2) = (&st.block, w.len()) else {
            self.error(here, "expecting 'subnet6 PREFIX/LENGTH { ... }'");
            return;
        };
        if ctx.subnet.is_some() || ctx.pool.is_some() {
            self.error(here, "subnet6 declaration not allowed here");
            return;
        }
        let (addr, prefix) = match ipv6_prefix(&w[1]) {
            Ok(x) => x,
            Err(e) => {
                self.error(here, format!("subnet6: {e}"));
                return;
            }
        };
        if self.v6_subnet.is_none() {
            self.v6_subnet = Some(here.clone());
        }
        if let Some(v4) = self.v4_subnet.clone() {
            self.mixed(here, &v4);
        }
        let net = Net {
            addr: IpAddr::V6(v6_span(addr, prefix).0),
            prefix,
        };
        self.enter_subnet(file, body, ctx, net);
    }

    /// `subnet` beside `subnet6`: dhcpd -4 refuses `subnet6`, and dhcpd -6 stops on the `subnet`.
    fn mixed(&mut self, here: At, other: &At) {
        self.error(
            here,
            format!(
                "subnet and subnet6 in one configuration (the other at {other}): dhcpd reads subnet in DHCPv4 mode (-4) and subnet6 in DHCPv6 mode (-6), and refuses both in one"
            ),
        );
    }

    fn enter_subnet(&mut self, file: &str, body: &[Statement], ctx: &Ctx, net: Net) {
        if ctx.in_shared {
            self.shared_subnets.push(net);
        }
        let inner = Ctx {
            subnet: Some(net),
            ..ctx.clone()
        };
        // Ranges written in the subnet itself (not in a pool) make one pool of the subnet.
        let first = self.ranges.len();
        let pool = self.pools;
        self.pools += 1;
        self.block(file, body, &inner);
        for r in &mut self.ranges[first..] {
            if r.pool == usize::MAX {
                r.pool = pool;
            }
        }
    }

    fn pool(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let here = st_at(file, st);
        let (Some(body), 1) = (&st.block, st.words.len()) else {
            self.error(here, "expecting 'pool { ... }'");
            return;
        };
        if ctx.pool.is_some() || (ctx.subnet.is_none() && ctx.shared.is_none()) {
            self.error(here, "pool declared outside of network");
            return;
        }
        let pool = self.pools;
        self.pools += 1;
        let inner = Ctx {
            pool: Some(pool),
            ..ctx.clone()
        };
        let first = self.ranges.len();
        self.block(file, body, &inner);
        // The pool's own `failover peer` (dhcpd does not pass a shared network's down to it).
        let peer = body.iter().find_map(|s| {
            let w = words(s);
            (w.first().map(String::as_str) == Some("failover")
                && w.get(1).map(String::as_str) == Some("peer")
                && w.len() == 3
                && s.block.is_none())
            .then(|| name_at(s, 2))
            .flatten()
            .filter(|n| self.peers.iter().any(|p| &p.name == n))
        });
        if self.ranges.len() == first {
            self.error(
                here,
                "Pool declaration with no address range: a pool must contain at least one range statement",
            );
            return;
        }
        for r in &mut self.ranges[first..] {
            r.failover_peer.clone_from(&peer);
        }
        if let Some(p) = &peer {
            let bootp: Vec<At> = body
                .iter()
                .filter(|s| {
                    s.keyword() == Some("range")
                        && words(s).get(1).map(String::as_str) == Some("dynamic-bootp")
                })
                .map(|s| st_at(file, s))
                .collect();
            for b in bootp {
                self.error(
                    b,
                    format!("dynamic-bootp flag is not permitted for address range declarations where there is a failover peer (\"{p}\")"),
                );
            }
        }
    }

    /// Adds a range in `ctx`, checking it against its subnet.
    fn push_range(&mut self, at: At, ctx: &Ctx, first: IpAddr, last: IpAddr, kind: RangeKind) {
        let (first, last) = if last < first {
            (last, first)
        } else {
            (first, last)
        };
        // Delegated prefixes need not lie in the link's subnet (dhcpd does not check them).
        let subnet = match ctx.subnet {
            Some(net) if matches!(kind, RangeKind::Prefixes(_)) => net.text(),
            Some(net) => {
                for a in [first, last] {
                    if !net.contains(a) {
                        let what = match (a == first, net.addr) {
                            (_, IpAddr::V4(_)) => {
                                format!("bad range, address {a} not in subnet {}", net.dhcpd_text())
                            }
                            (true, IpAddr::V6(_)) => {
                                format!(
                                    "range6 start address {a} is outside the subnet {}",
                                    net.text()
                                )
                            }
                            (false, IpAddr::V6(_)) => {
                                format!(
                                    "range6 end address {a} is outside the subnet {}",
                                    net.text()
                                )
                            }
                        };
                        self.error(at, what);
                        return;
                    }
                }
                net.text()
            }
            None => String::new(),
        };
        let i = self.ranges.len();
        if ctx.subnet.is_none() {
            self.unplaced.insert(i);
        }
        self.ranges.push(Range {
            first,
            last,
            kind,
            subnet,
            subnet_id: None,
            shared_network: ctx.shared.clone(),
            pool: ctx.pool.unwrap_or(usize::MAX),
            failover_peer: None,
            at,
        });
    }

    fn range(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let here = st_at(file, st);
        if ctx.pool.is_none() && ctx.subnet.is_none() {
            self.error(here, "range declaration not allowed here");
            return;
        }
        let w = words(st);
        let skip = usize::from(w.get(1).map(String::as_str) == Some("dynamic-bootp"));
        let addrs = &w[1 + skip..];
        if addrs.is_empty() || addrs.len() > 2 {
            self.error(here, "expecting 'range [dynamic-bootp] FIRST [LAST]'");
            return;
        }
        let parsed: Result<Vec<Ipv4Addr>, String> = addrs
            .iter()
            .map(|a| {
                ipv4(a).map_err(|e| {
                    if a.contains('/') {
                        format!("range: {e} (dhcpd's range takes FIRST [LAST], not a prefix)")
                    } else {
                        format!("range: {e}")
                    }
                })
            })
            .collect();
        match parsed {
            Ok(a) => {
                let first = a[0];
                let last = *a.last().unwrap_or(&first);
                self.push_range(here, ctx, first.into(), last.into(), RangeKind::Addresses);
            }
            Err(e) => self.error(here, e),
        }
    }

    fn range6(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let here = st_at(file, st);
        if ctx.pool.is_none() && ctx.subnet.is_none() {
            self.error(here, "range6 declaration not allowed here");
            return;
        }
        let w: Vec<String> = words(st);
        let args = &w[1..];
        let temporary = args.last().map(String::as_str) == Some("temporary");
        let addrs = &args[..args.len() - usize::from(temporary)];
        let kind = if temporary {
            RangeKind::Temporary
        } else {
            RangeKind::Addresses
        };
        let span = match addrs {
            [one] if one.contains('/') => ipv6_prefix(one).map(|(a, l)| v6_span(a, l)),
            [one] if temporary => ipv6(one).map(|a| (a, a)),
            [a, b] if !temporary => ipv6(a).and_then(|a| ipv6(b).map(|b| (a, b))),
            _ => Err("expecting 'range6 FIRST LAST', 'range6 PREFIX/LENGTH [temporary]' or 'range6 ADDRESS temporary'".into()),
        };
        match span {
            Ok((a, b)) => self.push_range(here, ctx, a.into(), b.into(), kind),
            Err(e) => self.error(here, format!("range6: {e}")),
        }
    }

    fn prefix6(&mut self, file: &str, st: &Statement, ctx: &Ctx) {
        let here = st_at(file, st);
        if ctx.pool.is_none() && ctx.subnet.is_none() {
            self.error(here, "prefix6 declaration not allowed here");
            return;
        }
        // `prefix6 LOW HIGH /BITS;`: the `/BITS` may be written apart or on HIGH.
        let joined = words(st)[1..].join(" ");
        let parsed = (|| {
            let (addrs, bits) = joined
                .rsplit_once('/')
                .ok_or("expecting 'prefix6 LOW HIGH /BITS'")?;
            let bits: u8 = bits
                .trim()
                .parse()
                .ok()
                .filter(|b| *b <= 128)
                .ok_or("prefix6: the length after '/' is 0 to 128")?;
            let a: Vec<&str> = addrs.split_whitespace().collect();
            let [low, high] = a.as_slice() else {
                return Err("expecting 'prefix6 LOW HIGH /BITS'".to_string());
            };
            Ok((ipv6(low)?, ipv6(high)?, bits))
        })();
        match parsed {
            Ok((low, high, bits)) => {
                self.push_range(
                    here,
                    ctx,
                    low.into(),
                    high.into(),
                    RangeKind::Prefixes(bits),
                );
            }
            Err(e) => self.error(here, format!("prefix6: {e}")),
        }
    }

    /// The checks dhcpd makes once the whole file is read.
    fn finish(&mut self) {
        for p in self.peers.clone() {
            if !self.referenced.contains(&p.name) {
                self.error(
                    p.at.clone(),
                    format!(
                        "failover peer {} has no referring pools: dhcpd refuses to start (refer to each peer in at least one pool)",
                        p.name
                    ),
                );
            }
        }
        // dhcpd makes one lease per address: two ranges that overlap declare some twice.
        let mut v4: Vec<&Range> = self
            .ranges
            .iter()
            .filter(|r| r.first.is_ipv4() && r.kind == RangeKind::Addresses)
            .collect();
        v4.sort_by_key(|r| (r.first, r.last));
        let mut clashes = Vec::new();
        for w in v4.windows(2) {
            if let [a, b] = w {
                if b.first <= a.last {
                    let (earlier, later) = if (a.at.line, a.at.col) <= (b.at.line, b.at.col) {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    clashes.push((
                        later.at.clone(),
                        format!(
                            "lease {} is declared twice: this range overlaps the one at {}",
                            b.first, earlier.at
                        ),
                    ));
                }
            }
        }
        for (at, what) in clashes {
            self.error(at, what);
        }
        for r in &mut self.ranges {
            if r.pool == usize::MAX {
                r.pool = 0;
            }
        }
    }
}

/// `hba XX:XX:...`: 32 bytes, each one or two hex digits, as dhcpd reads them.
fn hba_bytes(text: &str) -> Result<Hba, String> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != Hba::LEN {
        return Err(format!(
            "hba: {} bytes: a hash bucket assignment is exactly 32 (XX:XX:... in hex)",
            parts.len()
        ));
    }
    let mut bytes = [0u8; Hba::LEN];
    for (b, p) in bytes.iter_mut().zip(&parts) {
        if p.is_empty() || p.len() > 2 {
            return Err(format!("hba: '{p}' is not a byte in hex"));
        }
        *b = u8::from_str_radix(p, 16).map_err(|_| format!("hba: '{p}' is not a byte in hex"))?;
    }
    Ok(Hba::from_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ServerConfig, Vec<ConfigError>> {
        let mut files = |name: &str, _from: &str| {
            match name {
            "common.inc" => Ok((
                "common.inc".to_string(),
                b"subnet 192.0.2.0 netmask 255.255.255.0 {\n  pool {\n    failover peer \"fo\";\n    range 192.0.2.100 192.0.2.159;\n  }\n}\n".to_vec(),
            )),
            "loop.inc" => Ok(("loop.inc".to_string(), b"include \"loop.inc\";".to_vec())),
            _ => Err("no such file".to_string()),
        }
        };
        parse("test.conf", text.as_bytes(), &mut files)
    }

    fn errors(text: &str) -> Vec<String> {
        read(text).map_or_else(
            |e| e.iter().map(ToString::to_string).collect(),
            |_| Vec::new(),
        )
    }

    #[test]
    fn a_failover_primary_with_an_included_pool() {
        let c = read(
            "# the primary\nfailover peer \"fo\" {\n  primary;\n  address 192.0.2.1;\n  port 647;\n  \
             peer address 192.0.2.2;\n  peer port 647;\n  max-response-delay 15;\n  \
             max-unacked-updates 10;\n  mclt 60;\n  split 128;\n  load balance max seconds 3;\n  \
             max-lease-misbalance 15;\n  max-lease-ownership 10;\n  min-balance 5;\n  \
             max-balance 30;\n}\ninclude \"common.inc\";\n",
        )
        .unwrap();
        assert_eq!(c.family, Family::V4);
        let p = &c.failover[0];
        assert_eq!(p.name, "fo");
        assert_eq!(p.role, Some(Role::Primary));
        assert_eq!(p.address.as_deref(), Some("192.0.2.1"));
        assert_eq!(p.peer_address.as_deref(), Some("192.0.2.2"));
        assert_eq!((p.port, p.peer_port), (Some(647), Some(647)));
        assert_eq!(p.hba, Some(Hba::split(128).unwrap()));
        assert_eq!(p.hba_text.as_deref(), Some("split 128"));
        assert_eq!(
            (
                p.mclt,
                p.load_balance_max_seconds,
                p.min_balance,
                p.max_balance
            ),
            (Some(60), Some(3), Some(5), Some(30))
        );
        assert_eq!(p.at.line, 2);
        let r = &c.ranges[0];
        assert_eq!(r.text(), "192.0.2.100-192.0.2.159");
        assert_eq!(r.size(), 60);
        assert_eq!(r.subnet, "192.0.2.0/24");
        assert_eq!(r.failover_peer.as_deref(), Some("fo"));
        assert_eq!((r.at.file.as_str(), r.at.line), ("common.inc", 4));
    }

    #[test]
    fn shared_networks_pools_and_the_forms_of_range() {
        let c = read(
            "shared-network \"net one\" {\n subnet 10.0.0.0 netmask 255.255.255.0 { range dynamic-bootp 10.0.0.010 10.0.0.001; }\n \
             subnet 10.0.1.0 netmask 255.255.255.0 { }\n pool { range 10.0.1.5; range 10.0.1.7 10.0.1.9; }\n}\n\
             group { subnet 10.4.0.0 netmask 255.255.0.0 { pool { range 10.4.0.1 10.4.1.0; } } }\n",
        )
        .unwrap();
        let r: Vec<(String, u128, Option<&str>, &str, usize)> = c
            .ranges
            .iter()
            .map(|r| {
                (
                    r.text(),
                    r.size(),
                    r.shared_network.as_deref(),
                    r.subnet.as_str(),
                    r.pool,
                )
            })
            .collect();
        assert_eq!(c.shared_networks, ["net one"]);
        assert_eq!(
            r[0],
            (
                "10.0.0.1-10.0.0.10".into(),
                10,
                Some("net one"),
                "10.0.0.0/24",
                0
            )
        );
        // The shared network's own pool: placed in 10.0.1.0/24, one pool for both ranges.
        assert_eq!(
            r[1],
            (
                "10.0.1.5-10.0.1.5".into(),
                1,
                Some("net one"),
                "10.0.1.0/24",
                2
            )
        );
        assert_eq!(r[2].4, 2);
        assert_eq!(
            r[3],
            ("10.4.0.1-10.4.1.0".into(), 256, None, "10.4.0.0/16", 4)
        );
    }

    #[test]
    fn dhcpd_v6_ranges_and_prefixes() {
        let c = read(
            "subnet6 dead:abba:1000::/56 {\n range6 dead:abba:1000::/56;\n \
             prefix6 dead:abba:1000:0100:: dead:abba:1000:ff00::/56;\n range6 dead:abba:1000:1::/64 temporary;\n}\n",
        )
        .unwrap();
        assert_eq!(c.family, Family::V6);
        assert_eq!(c.ranges[0].size(), 1 << 72);
        assert_eq!(c.ranges[1].kind, RangeKind::Prefixes(56));
        assert_eq!(c.ranges[1].size(), 255);
        assert_eq!(c.ranges[2].kind, RangeKind::Temporary);
    }

    #[test]
    fn what_dhcpd_refuses_is_an_error_where_it_is() {
        let cases: &[(&str, &str)] = &[
            ("range 10.20.30.40;", "test.conf:1:1: range declaration not allowed here"),
            ("pool {range 10.0.0.1 10.0.0.5;}", "test.conf:1:1: pool declared outside of network"),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 {\n pool {\n  range 10.0.0.0/27;\n }\n}",
                "test.conf:3:3: range: '10.0.0.0/27' is not an IPv4 address (dhcpd's range takes FIRST [LAST], not a prefix)",
            ),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 { range 10.0.1.1 10.0.1.5; }",
                "test.conf:1:41: bad range, address 10.0.1.1 not in subnet 10.0.0.0 netmask 255.255.255.0",
            ),
            (
                "subnet 10.0.0.1 netmask 255.255.255.0 { }",
                "test.conf:1:1: subnet 10.0.0.1 netmask 255.255.255.0: bad subnet number/mask combination.",
            ),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 { pool { } }",
                "test.conf:1:41: Pool declaration with no address range: a pool must contain at least one range statement",
            ),
            (
                "failover peer \"x\" { primary; mclt 60; split 1; }",
                "test.conf:1:1: peer address may not be omitted",
            ),
            (
                "failover peer \"x\" { secondary; peer address 10.0.0.1; split 1; }",
                "test.conf:1:1: secondary may not define load balance settings.",
            ),
            (
                "failover peer \"x\" { peer address 10.0.0.1; split 257; }",
                "test.conf:1:44: split must be between 0 and 256, inclusive",
            ),
            (
                "failover peer \"x\" { peer address 10.0.0.1; load balance max secs 3; }",
                "test.conf:1:44: expecting 'load balance max seconds N'",
            ),
            (
                "failover peer \"x\" { peer address 10.0.0.1; split 1; frob; }",
                "test.conf:1:53: invalid statement in peer declaration ('frob')",
            ),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"x\"; range 10.0.0.1 10.0.0.5; } }",
                "test.conf:1:48: failover peer x: not found (dhcpd needs it declared before it is named)",
            ),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 { range 10.0.0.1 10.0.0.5; range 10.0.0.3 10.0.0.9; }",
                "test.conf:1:66: lease 10.0.0.3 is declared twice: this range overlaps the one at test.conf:1:41",
            ),
            (
                "subnet 10.0.0.0 netmask 255.255.255.0 { }\nsubnet6 2001:db8::/64 { }",
                "test.conf:2:1: subnet and subnet6 in one configuration (the other at test.conf:1:1): dhcpd reads subnet in DHCPv4 mode (-4) and subnet6 in DHCPv6 mode (-6), and refuses both in one",
            ),
            (
                "subnet6 dead:abba:40ff::/56 { range6 dead:abba:4000::2 dead:abba:4000::00ff; }",
                "test.conf:1:31: range6 start address dead:abba:4000::2 is outside the subnet dead:abba:40ff::/56",
            ),
            ("include \"nowhere\";", "test.conf:1:1: include \"nowhere\": no such file"),
            ("include \"loop.inc\";", "loop.inc:1:1: include \"loop.inc\": loop.inc includes itself"),
            ("subnet 10.0.0.0 netmask 255.255.255.0 {\n", "test.conf:1:39: block opened on this line is not closed by '}' before the end of the file"),
        ];
        for (text, says) in cases {
            let e = errors(text);
            assert!(e.iter().any(|e| e == says), "{text}: {e:?}");
        }
        // A peer declared but named by no pool, and a dynamic-bootp range in a failover pool.
        let peer = "failover peer \"x\" { primary; peer address 10.0.0.2; mclt 60; split 1; }\n";
        assert_eq!(
            errors(peer),
            ["test.conf:1:1: failover peer x has no referring pools: dhcpd refuses to start (refer to each peer in at least one pool)"]
        );
        let e = errors(&format!(
            "{peer}subnet 10.0.0.0 netmask 255.255.255.0 {{ pool {{ failover peer \"x\"; range dynamic-bootp 10.0.0.1 10.0.0.5; }} }}"
        ));
        assert!(
            e[0].contains("dynamic-bootp flag is not permitted"),
            "{e:?}"
        );
    }

    #[test]
    fn comments_strings_and_odd_bytes() {
        // '#' ends a word and runs to the end of the line; a name may be quoted with ';' in it.
        let c = read(
            "failover peer \"a;b\" { primary; peer address 10.0.0.2; mclt 60; hba ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0; }\n\
             subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"a;b\"; range 10.0.0.1 10.0.0.5#x\n; } }",
        )
        .unwrap();
        assert_eq!(c.failover[0].name, "a;b");
        assert_eq!(c.failover[0].hba, Some(Hba::split(128).unwrap()));
        assert_eq!(c.ranges[0].text(), "10.0.0.1-10.0.0.5");
        let mut state = 5u32;
        let base = b"failover peer \"x\" { primary; peer address 10.0.0.2; split 2; mclt 1; }\nshared-network s { subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"x\"; range 10.0.0.1 10.0.0.9; } } }\n";
        for _ in 0..2000 {
            let mut v = base.to_vec();
            for _ in 0..3 {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let i = (state >> 8) as usize % v.len();
                v[i] = (state >> 20) as u8;
            }
            let mut no = |_: &str, _: &str| Err(String::new());
            let _ = parse("f", &v, &mut no);
        }
    }
}
