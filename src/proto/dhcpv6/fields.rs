//! The display tree of a DHCPv6 message with Wireshark's `dhcpv6.*` field names and labels, and
//! the info column text.
//!
//! The tree is written into a [`TreeOut`] in tree order. Relay layers are walked down in a loop,
//! each left open at its RELAY_MSG option while the next layer is written inside it, then closed
//! in a second loop, innermost first. Past [`MAX_TREE_NESTING`] layers the deeper ones are shown
//! side by side instead of nested, so the tree stays shallow enough for every consumer that walks
//! it recursively.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::duid::{Duid, DuidKind};
use super::message::{ClientMessage, Message, Relay, CLIENT_HEADER_LEN, RELAY_HEADER_LEN};
use super::names::{
    duid_type_name, message_type_name, ntp_suboption_name, option_name, query_type_name,
    status_code_name,
};
use super::options::{code, Opt, OptValue, RelayMsg, SubOpt};
use crate::base::calendar::Civil;
use crate::field::out::{TreeOut, TreeSink};
use crate::field::{hex, hex_colons, Field};
use crate::proto::dhcpv4::names::hardware_type_name;

/// Relay layers nested in the tree before deeper ones are laid flat.
pub const MAX_TREE_NESTING: usize = 32;

/// Seconds from the Unix epoch to 2000-01-01 00:00:00 UTC, DUID-LLT's epoch.
const DUID_EPOCH: i64 = 946_684_800;

impl Message<'_> {
    /// The tree under a `dhcpv6` node, as `tshark -V` shows it.
    pub fn fields(&self) -> Vec<Field> {
        let mut tree = TreeSink::default();
        self.write_tree(&mut tree);
        tree.finish()
    }

    /// The tree into `out` ([`crate::field::out`]), with no tree built in between.
    pub fn write_tree(&self, out: &mut dyn TreeOut) {
        self.write_message("dhcpv6", out);
    }

    /// One "DHCPv6" node for the whole message (nested layers inside), named `root`.
    fn write_message(&self, root: &'static str, out: &mut dyn TreeOut) {
        if self.relays.is_empty() {
            match &self.inner {
                Some(m) => client_node(m, root, out),
                None => out.leaf(Field::node(root, "DHCPv6", 0, 0)),
            }
            return;
        }
        let nested = self.relays.len().min(MAX_TREE_NESTING);
        // Down: each layer up to its RELAY_MSG option, left open (the layers left open are the
        // first `open` ones). A layer without one ends the descent: what it would have carried is
        // not shown.
        let mut open = 0;
        for (i, r) in self.relays.iter().take(nested).enumerate() {
            relay_head(r, if i == 0 { root } else { "" }, out);
            let k = relay_msg_index(r);
            for o in r.options.iter().take(k.unwrap_or(r.options.len())) {
                option_fields(o, None, out);
            }
            match k.and_then(|k| r.options.get(k)) {
                Some(o) => {
                    option_head(o, out);
                    value_fields(o, o.data_offset(), None, out);
                    open += 1;
                }
                None => {
                    out.close();
                    break;
                }
            }
        }
        if open == nested {
            // The deeper layers side by side, then the client/server message if every one of
            // them carries the next.
            let deeper = self.relays.get(nested..).unwrap_or_default();
            for r in deeper {
                relay_node(r, out);
            }
            let chain_intact = deeper.iter().all(|r| relay_msg_index(r).is_some());
            if let Some(inner) = self.inner.as_ref().filter(|_| chain_intact) {
                client_node(inner, "", out);
            }
        }
        // Up: each open layer's RELAY_MSG option, its options after it, the layer.
        for r in self.relays.iter().take(open).rev() {
            out.close();
            let after = relay_msg_index(r).map_or(r.options.len(), |k| k + 1);
            for o in r.options.iter().skip(after) {
                option_fields(o, None, out);
            }
            out.close();
        }
    }

    /// The info column, as tshark writes it:
    /// `Relay-forw L: 2001:db8::1 Solicit XID: 0x78244b CID: 000100011e62770bb827ebb853c8`.
    pub fn info(&self) -> String {
        let mut s = String::new();
        for r in &self.relays {
            let _ = write!(
                s,
                "{} L: {} ",
                message_type_name(r.msg_type),
                r.link_address
            );
        }
        if let Some(m) = &self.inner {
            let _ = write!(s, "{} XID: 0x{:06x} ", message_type_name(m.msg_type), m.xid);
            info_options(&mut s, &m.options);
        }
        s.truncate(s.trim_end().len());
        s
    }
}

/// Wireshark notes every client id and every IA address in the info column, wherever they sit
/// among encapsulated options (IAs, leasequery queries and client data).
fn info_options(s: &mut String, opts: &[Opt<'_>]) {
    for o in opts {
        match &o.value {
            OptValue::ClientId(d) => {
                let _ = write!(s, "CID: {} ", hex(d.bytes()));
            }
            OptValue::IaAddr(a) => {
                let _ = write!(s, "IAA: {} ", a.address);
                info_options(s, &a.options);
            }
            OptValue::IaNa(ia) | OptValue::IaPd(ia) => info_options(s, &ia.options),
            OptValue::IaTa(ia) => info_options(s, &ia.options),
            OptValue::IaPrefix(p) => info_options(s, &p.options),
            OptValue::LqQuery(q) => info_options(s, &q.options),
            OptValue::ClientData(c) => info_options(s, c),
            _ => {}
        }
    }
}

fn msgtype_field(t: u8, off: usize) -> Field {
    Field::uint("dhcpv6.msgtype", "Message type", t, off, 1).note(message_type_name(t))
}

/// Where a relay's RELAY_MSG option carrying the next layer is among its options.
fn relay_msg_index(r: &Relay<'_>) -> Option<usize> {
    r.options
        .iter()
        .position(|o| matches!(o.value, OptValue::RelayMsg(RelayMsg::Next)))
}

/// Opens a relay's node, named `name`, and writes its header fields.
fn relay_head(r: &Relay<'_>, name: &'static str, out: &mut dyn TreeOut) {
    let off = r.pos.offset;
    let len = r.pos.len.max(RELAY_HEADER_LEN);
    out.open(Field::node(name, "DHCPv6", off, len));
    out.leaf(msgtype_field(r.msg_type, off));
    out.leaf(Field::uint(
        "dhcpv6.hopcount",
        "Hopcount",
        r.hop_count,
        off + 1,
        1,
    ));
    out.leaf(Field::ipv6(
        "dhcpv6.linkaddr",
        "Link address",
        r.link_address,
        off + 2,
    ));
    out.leaf(Field::ipv6(
        "dhcpv6.peeraddr",
        "Peer address",
        r.peer_address,
        off + 18,
    ));
}

/// A relay's node without the layers it carries.
fn relay_node(r: &Relay<'_>, out: &mut dyn TreeOut) {
    relay_head(r, "", out);
    for o in &r.options {
        option_fields(o, None, out);
    }
    out.close();
}

fn client_node(m: &ClientMessage<'_>, name: &'static str, out: &mut dyn TreeOut) {
    let off = m.pos.offset;
    out.open(Field::node(
        name,
        "DHCPv6",
        off,
        m.pos.len.max(CLIENT_HEADER_LEN),
    ));
    out.leaf(msgtype_field(m.msg_type, off));
    out.leaf(Field::uint("dhcpv6.xid", "Transaction ID", m.xid, off + 1, 3).hex(6));
    for o in &m.options {
        option_fields(o, Some(m.msg_type), out);
    }
    out.close();
}

/// The Client FQDN option's flags, and their bits (RFC 4704 section 4.1), which mean what the
/// message type says: a client's N and S (SOLICIT, REQUEST, RENEW, REBIND), a server's N, O and
/// S (ADVERTISE, REPLY), as Wireshark's `dhcpv6.clientfqdn.client.*` and `.server.*`. In any
/// other message the option is not allowed (section 4.1): Wireshark then shows the message
/// type as `dhcpv6.clientfqdn.bad_msgtype` (and decodes no further; poolshark still does).
/// `msg_type` is `None` for an option that is not one of a client/server message's own (one in
/// a relay, or encapsulated): its flags alone are shown.
fn fqdn_flags(
    option: &Opt<'_>,
    msg_type: Option<u8>,
    flags: u8,
    off: usize,
    out: &mut dyn TreeOut,
) {
    let field = Field::uint("dhcpv6.client_fqdn_flags", "Flags", flags, off, 1).hex(2);
    let bit = |name, label, mask: u8, yes: &'static str, no: &'static str| {
        let v = flags & mask != 0;
        // Shown as tshark shows them: the bit in its byte before the label.
        Field::boolean(name, label, v, off, 1)
            .note(if v { yes } else { no })
            .bits(u64::from(mask), 8)
    };
    let n = |name| {
        let yes = "Server SHOULD NOT perform PTR RR updates";
        bit(
            name,
            "N bit",
            4,
            yes,
            "Server SHOULD perform PTR RR updates",
        )
    };
    let s = |name| {
        let yes = "Server SHOULD perform AAAA RR updates";
        bit(
            name,
            "S bit",
            1,
            yes,
            "Server SHOULD NOT perform AAAA RR updates",
        )
    };
    match msg_type {
        None => out.leaf(field),
        Some(1 | 3 | 5 | 6) => {
            out.open(field);
            out.leaf(n("dhcpv6.clientfqdn.client.n"));
            out.leaf(s("dhcpv6.clientfqdn.client.s"));
            out.close();
        }
        Some(2 | 7) => {
            out.open(field);
            out.leaf(n("dhcpv6.clientfqdn.server.n"));
            out.leaf(bit(
                "dhcpv6.clientfqdn.server.o",
                "O bit",
                2,
                "Server HAS overridden client's S bit preference",
                "Server HAS NOT overridden client's S bit preference",
            ));
            out.leaf(s("dhcpv6.clientfqdn.server.s"));
            out.close();
        }
        Some(t) => {
            out.leaf(
                Field::uint(
                    "dhcpv6.clientfqdn.bad_msgtype",
                    "Only the following message types are permitted to use OPTION_CLIENT_FQDN: \
                     SOLICIT, REQUEST, RENEW, REBIND, ADVERTISE, and REPLY",
                    t,
                    option.pos.offset,
                    1,
                )
                .hex(2),
            );
            out.leaf(field);
        }
    }
}

/// Opens an option's node, titled with the option's name, and writes its type and length.
fn option_head(o: &Opt<'_>, out: &mut dyn TreeOut) {
    let off = o.pos.offset;
    let dlen = o.pos.len.saturating_sub(4);
    let name = option_name(o.code);
    out.open(Field::node("", name, off, o.pos.len));
    out.leaf(Field::uint("dhcpv6.option.type", "Option", o.code, off, 2).note(name));
    out.leaf(Field::uint(
        "dhcpv6.option.length",
        "Length",
        o.claimed_len.map_or(dlen as u64, u64::from),
        off + 2,
        2,
    ));
}

/// One option's subtree: a node titled with the option's name, then type, length and value.
/// `msg_type` is the client/server message's type for its own options ([`fqdn_flags`]).
fn option_fields(o: &Opt<'_>, msg_type: Option<u8>, out: &mut dyn TreeOut) {
    option_head(o, out);
    value_fields(o, o.data_offset(), msg_type, out);
    out.close();
}

fn nested(opts: &[Opt<'_>], out: &mut dyn TreeOut) {
    for o in opts {
        option_fields(o, None, out);
    }
}

fn value_fields(o: &Opt<'_>, d: usize, msg_type: Option<u8>, out: &mut dyn TreeOut) {
    match &o.value {
        OptValue::ClientId(duid) | OptValue::ServerId(duid) => duid_fields(duid, d, out),
        OptValue::IaNa(ia) | OptValue::IaPd(ia) => {
            out.leaf(Field::string(
                "dhcpv6.iaid",
                "IAID",
                format!("{:08x}", ia.iaid),
                d,
                4,
            ));
            out.leaf(Field::uint("dhcpv6.iaid.t1", "T1", ia.t1, d + 4, 4));
            out.leaf(Field::uint("dhcpv6.iaid.t2", "T2", ia.t2, d + 8, 4));
            nested(&ia.options, out);
        }
        OptValue::IaTa(ia) => {
            out.leaf(Field::string(
                "dhcpv6.iata",
                "IATA",
                format!("{:08x}", ia.iaid),
                d,
                4,
            ));
            nested(&ia.options, out);
        }
        OptValue::IaAddr(a) => {
            out.leaf(Field::ipv6(
                "dhcpv6.iaaddr.ip",
                "IPv6 address",
                a.address,
                d,
            ));
            out.leaf(Field::uint(
                "dhcpv6.iaaddr.pref_lifetime",
                "Preferred lifetime",
                a.preferred_lifetime,
                d + 16,
                4,
            ));
            out.leaf(Field::uint(
                "dhcpv6.iaaddr.valid_lifetime",
                "Valid lifetime",
                a.valid_lifetime,
                d + 20,
                4,
            ));
            nested(&a.options, out);
        }
        OptValue::IaPrefix(p) => {
            out.leaf(Field::uint(
                "dhcpv6.iaprefix.pref_lifetime",
                "Preferred lifetime",
                p.preferred_lifetime,
                d,
                4,
            ));
            out.leaf(Field::uint(
                "dhcpv6.iaprefix.valid_lifetime",
                "Valid lifetime",
                p.valid_lifetime,
                d + 4,
                4,
            ));
            out.leaf(Field::uint(
                "dhcpv6.iaprefix.pref_len",
                "Prefix length",
                p.prefix_len,
                d + 8,
                1,
            ));
            out.leaf(Field::ipv6(
                "dhcpv6.iaprefix.pref_addr",
                "Prefix address",
                p.prefix,
                d + 9,
            ));
            nested(&p.options, out);
        }
        OptValue::Oro(codes) => {
            for (i, &c) in codes.iter().enumerate() {
                out.leaf(
                    Field::uint(
                        "dhcpv6.requested_option_code",
                        "Requested Option code",
                        c,
                        d + 2 * i,
                        2,
                    )
                    .note(option_name(c)),
                );
            }
        }
        OptValue::Preference(p) => out.leaf(Field::uint(
            "dhcpv6.option_preference",
            "Pref-value",
            *p,
            d,
            1,
        )),
        // Wireshark shows milliseconds; the wire holds hundredths of a second.
        OptValue::ElapsedTime(t) => out.leaf(
            Field::uint(
                "dhcpv6.elapsed_time",
                "Elapsed time",
                u64::from(*t) * 10,
                d,
                2,
            )
            .unit("ms"),
        ),
        OptValue::RelayMsg(RelayMsg::Next) => {}
        OptValue::RelayMsg(RelayMsg::Raw(b)) => out.leaf(Field::bytes(
            "poolshark.dhcpv6.relay_message",
            "Relayed message (not decoded)",
            b,
            d,
        )),
        OptValue::Auth {
            protocol,
            algorithm,
            rdm,
            replay_detection,
            info,
        } => {
            out.leaf(Field::uint(
                "dhcpv6.auth.protocol",
                "Protocol",
                *protocol,
                d,
                1,
            ));
            out.leaf(Field::uint(
                "dhcpv6.auth.algorithm",
                "Algorithm",
                *algorithm,
                d + 1,
                1,
            ));
            out.leaf(Field::uint("dhcpv6.auth.rdm", "RDM", *rdm, d + 2, 1));
            out.leaf(Field::bytes(
                "dhcpv6.auth.replay_detection",
                "Replay Detection",
                &replay_detection.to_be_bytes(),
                d + 3,
            ));
            out.leaf(Field::bytes(
                "dhcpv6.auth.info",
                "Authentication Information",
                info,
                d + 11,
            ));
        }
        OptValue::Unicast(a) => out.leaf(Field::ipv6("dhcpv6.unicast", "IPv6 address", *a, d)),
        OptValue::StatusCode { code, message } => {
            out.leaf(
                Field::uint("dhcpv6.status_code", "Status Code", *code, d, 2)
                    .note(status_code_name(*code)),
            );
            // An empty message is no field in Wireshark.
            if !message.is_empty() {
                out.leaf(Field::string(
                    "dhcpv6.status_msg",
                    "Status Message",
                    String::from_utf8_lossy(message).into_owned(),
                    d + 2,
                    message.len(),
                ));
            }
        }
        OptValue::Empty => {}
        OptValue::UserClass(items) => {
            let mut at = d;
            for i in items {
                out.leaf(Field::uint(
                    "dhcpv6.userclass.length",
                    "Length",
                    i.len() as u64,
                    at,
                    2,
                ));
                out.leaf(Field::bytes(
                    "dhcpv6.userclass.opaque_data",
                    "Suboption",
                    i,
                    at + 2,
                ));
                at += 2 + i.len();
            }
        }
        OptValue::VendorClass { enterprise, data } => {
            out.leaf(
                Field::uint(
                    "dhcpv6.vendorclass.enterprise",
                    "Enterprise ID",
                    *enterprise,
                    d,
                    4,
                )
                .with_enterprise_name(*enterprise),
            );
            let mut at = d + 4;
            for i in data {
                out.leaf(Field::string(
                    "dhcpv6.vendorclass.data",
                    "vendor-class-data",
                    String::from_utf8_lossy(i).into_owned(),
                    at + 2,
                    i.len(),
                ));
                at += 2 + i.len();
            }
        }
        OptValue::VendorOpts {
            enterprise,
            options,
        } => {
            out.leaf(
                Field::uint(
                    "dhcpv6.vendoropts.enterprise",
                    "Enterprise ID",
                    *enterprise,
                    d,
                    4,
                )
                .with_enterprise_name(*enterprise),
            );
            let mut at = d + 4;
            for s in options {
                out.leaf(Field::uint(
                    "dhcpv6.vendoropts.enterprise.option_code",
                    "Option code",
                    s.code,
                    at,
                    2,
                ));
                out.leaf(Field::uint(
                    "dhcpv6.vendoropts.enterprise.option_length",
                    "Option length",
                    s.data.len() as u64,
                    at + 2,
                    2,
                ));
                out.leaf(Field::bytes(
                    "dhcpv6.vendoropts.enterprise.option_data",
                    "Option data",
                    &s.data,
                    at + 4,
                ));
                at += 4 + s.data.len();
            }
        }
        OptValue::InterfaceId(b) => {
            out.leaf(Field::bytes("dhcpv6.interface_id", "Interface-ID", b, d))
        }
        OptValue::ReconfMsg(t) => out.leaf(
            Field::uint("dhcpv6.reconf_msg", "Reconfigure message type", *t, d, 1)
                .note(message_type_name(*t)),
        ),
        OptValue::Addresses(addrs) => {
            let (name, label) = address_field(o.code);
            let labels = out.labels();
            for (i, a) in addrs.iter().enumerate() {
                if o.code == code::DNS_SERVERS {
                    // tshark numbers the DNS servers.
                    let label = if labels {
                        Cow::Owned(format!("{} {label}", i + 1))
                    } else {
                        Cow::Borrowed("")
                    };
                    out.leaf(Field::new(
                        name,
                        label,
                        crate::field::Value::Ipv6(*a),
                        d + 16 * i,
                        16,
                    ));
                } else {
                    out.leaf(Field::ipv6(name, label, *a, d + 16 * i));
                }
            }
        }
        OptValue::DomainNames(n) => {
            let (name, label) = domain_field(o.code);
            let decoded = n.decode().names;
            let total = n.0.len();
            let list = o.code == code::DOMAIN_LIST;
            if list {
                out.open(Field::node("", "Domain name suffix search list", d, total));
            }
            for (i, (start, s)) in decoded.iter().enumerate() {
                let end = decoded.get(i + 1).map(|x| x.0).unwrap_or(total);
                // Wireshark singles out a lone top-level domain ("home.").
                let (name, label) = if s.ends_with('.') && s.matches('.').count() == 1 {
                    ("dhcpv6.tld", "Top Level Domain name (TLD)")
                } else {
                    (name, label)
                };
                out.leaf(Field::string(
                    name,
                    label,
                    s.clone(),
                    d + start,
                    end - start,
                ));
            }
            if list {
                out.close();
            }
        }
        OptValue::ClientFqdn { flags, name } => {
            // One name (RFC 4704 section 4.2); Wireshark shows the first of what is there.
            let text = name.to_strings().into_iter().next().unwrap_or_default();
            // RFC 4704: a name without the root label is partial (the server completes it).
            let label = if text.ends_with('.') {
                "Domain name"
            } else {
                "Partial domain name"
            };
            // A name of one label is a top-level domain, which Wireshark names apart.
            let (field, label) = if text.ends_with('.') && text.matches('.').count() == 1 {
                ("dhcpv6.tld", "Top Level Domain name (TLD)")
            } else {
                ("dhcpv6.client_domain", label)
            };
            fqdn_flags(o, msg_type, *flags, d, out);
            out.leaf(Field::string(field, label, text, d + 1, name.0.len()));
        }
        OptValue::NtpServer(subs) => ntp_fields(subs, d, out),
        OptValue::LqQuery(q) => {
            out.leaf(
                Field::uint("dhcpv6.lq_query", "Query-type", q.query_type, d, 1)
                    .note(query_type_name(q.query_type)),
            );
            out.leaf(Field::ipv6(
                "dhcpv6.lq_query_link_address",
                "Link address",
                q.link_address,
                d + 1,
            ));
            nested(&q.options, out);
        }
        OptValue::ClientData(opts) => nested(opts, out),
        OptValue::CltTime(t) => out.leaf(Field::uint("dhcpv6.clt_time", "Clt_time", *t, d, 4)),
        OptValue::LqRelayData(r) => {
            out.leaf(Field::ipv6(
                "dhcpv6.lq_relay_data_peer_addr",
                "Peer address",
                r.peer_address,
                d,
            ));
            // The message was decoded at its place in this one: its offsets are already this
            // message's.
            r.message.write_message("", out);
        }
        // The DHCPv4 message's fields, moved to where it sits in this one.
        OptValue::Dhcpv4Msg(m) => m.write_tree_at(d, out),
        OptValue::Text(t) => out.leaf(Field::string(
            "dhcpv6.mudurl",
            "MUDURL",
            String::from_utf8_lossy(t).into_owned(),
            d,
            t.len(),
        )),
        OptValue::Raw(b) => {
            if !b.is_empty() {
                out.leaf(Field::bytes("poolshark.dhcpv6.option.value", "Value", b, d));
            }
        }
    }
}

fn address_field(c: u16) -> (&'static str, &'static str) {
    match c {
        code::SIP_SERVER_A => ("dhcpv6.sip_server_a", "SIP server address"),
        code::DNS_SERVERS => ("dhcpv6.dns_server", "DNS server address"),
        27 => ("dhcpv6.nis_server", "NIS server address"),
        28 => ("dhcpv6.nisp_server", "NISP server address"),
        code::SNTP_SERVERS => ("dhcpv6.sntp_server", "SNTP server address"),
        34 => ("dhcpv6.bcmcs_server_a", "BCMCS server address"),
        40 => ("dhcpv6.pana_agent", "PANA agents address"),
        52 => ("dhcpv6.capwap_ac_v6", "CAPWAP Access Controllers address"),
        code::LQ_CLIENT_LINK => ("dhcpv6.lq_client_link", "LQ client links address"),
        _ => ("poolshark.dhcpv6.dhcp4o6_server", "DHCP 4o6 server address"),
    }
}

fn domain_field(c: u16) -> (&'static str, &'static str) {
    match c {
        code::SIP_SERVER_D => (
            "dhcpv6.sip_server_domain_search_fqdn",
            "SIP Server Domain Search FQDN",
        ),
        29 => ("dhcpv6.nis_fqdn", "NIS FQDN"),
        30 => ("dhcpv6.nisp_fqdn", "NISP FQDN"),
        33 => ("dhcpv6.bcmcs_server_fqdn", "BCMCS server FQDN"),
        code::AFTR_NAME => ("dhcpv6.aftr_name", "DS-Lite AFTR Name"),
        _ => ("dhcpv6.search_list_entry", "List entry"),
    }
}

fn ntp_fields(subs: &[SubOpt<'_>], d: usize, out: &mut dyn TreeOut) {
    let mut at = d;
    for s in subs {
        out.open(Field::node(
            "",
            ntp_suboption_name(s.code),
            at,
            4 + s.data.len(),
        ));
        out.leaf(
            Field::uint("dhcpv6.ntpserver.option.type", "Suboption", s.code, at, 2)
                .note(ntp_suboption_name(s.code)),
        );
        out.leaf(Field::uint(
            "dhcpv6.ntpserver.option.length",
            "Length",
            s.data.len() as u64,
            at + 2,
            2,
        ));
        let v = at + 4;
        match (s.code, s.address()) {
            (1, Some(a)) => out.leaf(Field::ipv6(
                "dhcpv6.ntpserver.addr",
                "NTP Server Address",
                a,
                v,
            )),
            (2, Some(a)) => out.leaf(Field::ipv6(
                "dhcpv6.ntpserver.mc_addr",
                "NTP Multicast Address",
                a,
                v,
            )),
            (3, _) => {
                let n = super::domain::Names(std::borrow::Cow::Borrowed(&s.data[..]));
                out.leaf(Field::string(
                    "dhcpv6.ntpserver.fqdn",
                    "NTP Server FQDN",
                    n.to_strings().join(" "),
                    v,
                    s.data.len(),
                ));
            }
            _ => out.leaf(Field::bytes(
                "poolshark.dhcpv6.ntpserver.data",
                "Data",
                &s.data,
                v,
            )),
        }
        out.close();
        at += 4 + s.data.len();
    }
}

fn duid_fields(duid: &Duid<'_>, d: usize, out: &mut dyn TreeOut) {
    let b = duid.bytes();
    out.leaf(Field::bytes("dhcpv6.duid.bytes", "DUID", b, d));
    let Some(t) = duid.duid_type() else {
        return;
    };
    out.leaf(Field::uint("dhcpv6.duid.type", "DUID Type", t, d, 2).note(duid_type_name(t)));
    match duid.kind() {
        DuidKind::Llt {
            hw_type,
            time,
            link_layer,
        } => {
            out.leaf(
                Field::uint("dhcpv6.duidllt.hwtype", "Hardware type", hw_type, d + 2, 2)
                    .note(hardware_type_name(hw_type)),
            );
            out.leaf(Field::string(
                "dhcpv6.duidllt.time",
                "DUID Time",
                utc_text(DUID_EPOCH + i64::from(time)),
                d + 4,
                4,
            ));
            out.leaf(Field::string(
                "dhcpv6.duidllt.link_layer_addr",
                "Link-layer address",
                link_layer_text(hw_type, link_layer),
                d + 8,
                link_layer.len(),
            ));
        }
        DuidKind::En {
            enterprise,
            identifier,
        } => {
            out.leaf(
                Field::uint(
                    "dhcpv6.duiden.enterprise",
                    "Enterprise ID",
                    enterprise,
                    d + 2,
                    4,
                )
                .with_enterprise_name(enterprise),
            );
            out.leaf(Field::bytes(
                "dhcpv6.duiden.identifier",
                "Identifier",
                identifier,
                d + 6,
            ));
        }
        DuidKind::Ll {
            hw_type,
            link_layer,
        } => {
            out.leaf(
                Field::uint("dhcpv6.duidll.hwtype", "Hardware type", hw_type, d + 2, 2)
                    .note(hardware_type_name(hw_type)),
            );
            out.leaf(Field::string(
                "dhcpv6.duidll.link_layer_addr",
                "Link-layer address",
                link_layer_text(hw_type, link_layer),
                d + 4,
                link_layer.len(),
            ));
        }
        DuidKind::Uuid(u) => out.leaf(Field::bytes("dhcpv6.duiduuid.bytes", "UUID", u, d + 2)),
        DuidKind::Unknown { .. } => {}
    }
}

/// An Ethernet address with colons, anything else as plain hex (as Wireshark shows them).
fn link_layer_text(hw_type: u16, b: &[u8]) -> String {
    if hw_type == 1 && b.len() == 6 {
        hex_colons(b)
    } else {
        hex(b)
    }
}

/// `Feb 26, 2016 02:38:03.000000000 UTC`, as Wireshark prints absolute times in UTC.
pub(crate) fn utc_text(secs: i64) -> String {
    let c = Civil::from_epoch(secs);
    format!(
        "{} {:2}, {} {:02}:{:02}:{:02}.000000000 UTC",
        c.month_abbrev(),
        c.day,
        c.year,
        c.hour,
        c.minute,
        c.second
    )
}

/// An IANA private enterprise number's name, as Wireshark's table has it (the ones seen in DHCP
/// traffic), shown as the Enterprise ID's note.
trait EnterpriseName {
    fn with_enterprise_name(self, n: u32) -> Self;
}

impl EnterpriseName for Field {
    fn with_enterprise_name(self, n: u32) -> Field {
        let name = match n {
            9 => "ciscoSystems",
            11 => "Hewlett-Packard",
            311 => "Microsoft",
            2011 => "HUAWEI Technology Co.,Ltd",
            2636 => "Juniper Networks, Inc.",
            3561 => "Broadband Forum (previously 'DSL Forum')",
            4413 => "Broadcom Limited",
            4491 => "Cable Television Laboratories, Inc.",
            4526 => "Netgear",
            5771 => "Cisco Systems, Inc.",
            8072 => "net-snmp",
            14179 => "Airespace, Inc",
            14823 => "Aruba, a Hewlett Packard Enterprise company",
            14988 => "MikroTik",
            25053 => "Ruckus Wireless, Inc.",
            30065 => "Arista Networks, Inc.",
            _ => return self,
        };
        self.note(name)
    }
}

#[cfg(test)]
mod tests;
