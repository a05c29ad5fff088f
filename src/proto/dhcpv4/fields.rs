//! The display tree of a DHCPv4 message with Wireshark's `dhcp.*` field names and labels, and the
//! info column text.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use super::message::{secs_byte_swapped, Message, FILE_OFFSET, SNAME_OFFSET};
use super::names::{
    hardware_type_name, message_type_name, op_name, option_name, relay_agent_suboption_name,
};
use super::options::{code, Opt, OptValue};
use super::relay_agent::SubOpt;
use crate::field::out::{Shifted, TreeOut, TreeSink};
use crate::field::{hex_colons, Field, Value};

impl Message<'_> {
    /// The tree under a `dhcp` node, as `tshark -V` shows it.
    pub fn fields(&self) -> Vec<Field> {
        let mut tree = TreeSink::default();
        self.write_tree(&mut tree);
        tree.finish()
    }

    /// The tree into `out` ([`crate::field::out`]), with no tree built in between.
    pub fn write_tree(&self, out: &mut dyn TreeOut) {
        let labels = out.labels();
        let mt = self.message_type();
        let title: Cow<'static, str> = match mt {
            Some(t) if labels => Cow::Owned(format!(
                "Dynamic Host Configuration Protocol ({})",
                message_type_name(t)
            )),
            Some(_) => Cow::Borrowed(""),
            None => Cow::Borrowed("Dynamic Host Configuration Protocol"),
        };
        let total = if self.pos.len == 0 {
            self.emit().len()
        } else {
            self.pos.len
        };
        out.open(Field::node("dhcp", title, 0, total));
        let have = |end: usize| end <= total;
        let u8f = |name, label, v: u8, off| Field::uint(name, label, v, off, 1);
        if have(1) {
            out.leaf(u8f("dhcp.type", "Message type", self.op, 0).note(op_name(self.op)));
        }
        if have(2) {
            out.leaf(
                u8f("dhcp.hw.type", "Hardware type", self.htype, 1)
                    .hex(2)
                    .note(hardware_type_name(self.htype.into())),
            );
        }
        if have(3) {
            out.leaf(u8f("dhcp.hw.len", "Hardware address length", self.hlen, 2));
        }
        if have(4) {
            out.leaf(u8f("dhcp.hops", "Hops", self.hops, 3));
        }
        if have(8) {
            out.leaf(Field::uint("dhcp.id", "Transaction ID", self.xid, 4, 4).hex(8));
        }
        if have(10) {
            let secs = Field::uint("dhcp.secs", "Seconds elapsed", self.secs_shown(), 8, 2);
            if secs_byte_swapped(self.secs()) {
                out.open(secs);
                secs_le_note(out);
                out.close();
            } else {
                out.leaf(secs);
            }
        }
        if have(12) {
            let bc = self.broadcast();
            let mut flags = Field::uint("dhcp.flags", "Bootp flags", self.flags, 10, 2)
                .hex(4)
                .note(if bc { "Broadcast" } else { "Unicast" });
            if labels {
                flags = flags.show(if bc {
                    format!("0x{:04x}, Broadcast flag (Broadcast)", self.flags)
                } else {
                    format!("0x{:04x} (Unicast)", self.flags)
                });
            }
            out.open(flags);
            out.leaf(
                Field::boolean("dhcp.flags.bc", "Broadcast flag", bc, 10, 2)
                    .bits(0x8000, 16)
                    .note(if bc { "Broadcast" } else { "Unicast" }),
            );
            out.leaf(
                Field::uint(
                    "dhcp.flags.reserved",
                    "Reserved flags",
                    self.flags & 0x7fff,
                    10,
                    2,
                )
                .hex(4)
                .bits(0x7fff, 16),
            );
            out.close();
        }
        let ips = [
            ("dhcp.ip.client", "Client IP address", self.ciaddr),
            ("dhcp.ip.your", "Your (client) IP address", self.yiaddr),
            ("dhcp.ip.server", "Next server IP address", self.siaddr),
            ("dhcp.ip.relay", "Relay agent IP address", self.giaddr),
        ];
        for (i, (name, label, a)) in ips.into_iter().enumerate() {
            let off = 12 + 4 * i;
            if have(off + 4) {
                out.leaf(Field::ipv4(name, label, a, off));
            }
        }
        if have(44) {
            self.chaddr_fields(out);
        }
        if have(SNAME_OFFSET + 1) {
            area_field(
                "dhcp.server",
                "Server host name",
                &self.sname,
                SNAME_OFFSET,
                self.sname_options.as_deref(),
                out,
            );
        }
        if have(FILE_OFFSET + 1) {
            area_field(
                "dhcp.file",
                "Boot file name",
                &self.file,
                FILE_OFFSET,
                self.file_options.as_deref(),
                out,
            );
        }
        if let Some(c) = self.cookie {
            let a = Ipv4Addr::from(c);
            // Wireshark shows no cookie field when the cookie is not DHCP's.
            out.leaf(if self.has_dhcp_cookie() {
                Field::ipv4("dhcp.cookie", "Magic cookie", a, 236)
                    .note("DHCP")
                    .show("DHCP")
            } else {
                Field::ipv4(
                    "poolshark.dhcp.bad_cookie",
                    "Magic cookie (not DHCP's)",
                    a,
                    236,
                )
            });
        }
        for o in &self.options {
            write_option(o, out, |out| {
                if o.code == code::OVERLOAD {
                    self.overloaded_fields(out);
                }
            });
        }
        if !self.trailer.is_empty() {
            let off = total.saturating_sub(self.trailer.len());
            let name = if self.has_dhcp_cookie() {
                "dhcp.option.padding"
            } else {
                "dhcp.vendor_specific_options"
            };
            let label = if self.has_dhcp_cookie() {
                "Padding"
            } else {
                "Bootp vendor specific options"
            };
            out.leaf(Field::bytes(name, label, &self.trailer, off));
        }
        out.close();
    }

    /// [`Message::write_tree`] with every offset moved by `base` bytes, for a message carried in
    /// another (DHCPv4-over-DHCPv6's option 87), with no tree built in between.
    pub fn write_tree_at(&self, base: usize, out: &mut dyn TreeOut) {
        self.write_tree(&mut Shifted::new(out, base));
    }

    /// The options overloaded into `sname` and `file`, each area a subtree, as Wireshark shows
    /// them under option 52 (sname first; `-T fields` lists their occurrences there).
    fn overloaded_fields(&self, out: &mut dyn TreeOut) {
        let areas = [
            (
                &self.sname_options,
                "Server host name option overload",
                SNAME_OFFSET,
                self.sname.len(),
            ),
            (
                &self.file_options,
                "Boot file name option overload",
                FILE_OFFSET,
                self.file.len(),
            ),
        ];
        for (opts, label, off, len) in areas {
            let Some(opts) = opts.as_deref() else {
                continue;
            };
            out.open(Field::node("", label, off, len));
            for o in opts {
                write_option(o, out, |_| {});
            }
            out.close();
        }
    }

    fn chaddr_fields(&self, out: &mut dyn TreeOut) {
        let n = usize::from(self.hlen).min(16);
        if let Some(m) = self.mac() {
            out.leaf(Field::new(
                "dhcp.hw.mac_addr",
                "Client MAC address",
                Value::Mac(m),
                28,
                6,
            ));
        } else if n > 0 {
            out.leaf(Field::bytes(
                "dhcp.hw.addr",
                "Client hardware address",
                &self.chaddr[..n],
                28,
            ));
        }
        if n < 16 {
            out.leaf(Field::bytes(
                "dhcp.hw.addr_padding",
                "Client hardware address padding",
                &self.chaddr[n..],
                28 + n,
            ));
        }
    }
    /// The info column, as tshark writes it: `DHCP Discover - Transaction ID 0x3d1d`, or for
    /// plain BOOTP `Boot Request from 00:0b:82:01:fc:42`.
    pub fn info(&self) -> String {
        match self.message_type() {
            // Wireshark pads the type to 8 characters.
            Some(t) => format!(
                "DHCP {:<8} - Transaction ID 0x{:x}",
                message_type_name(t),
                self.xid
            ),
            None if self.op == 1 => match self.chaddr() {
                Some(a) if !a.is_empty() => format!("Boot Request from {}", hex_colons(a)),
                _ => "Boot Request".to_string(),
            },
            None if self.op == 2 => op_name(self.op).to_string(),
            None => format!("Unknown BOOTP message type ({})", self.op),
        }
    }
}

/// `sname` or `file`: the text, "not given", or the options overloaded into it.
fn area_field(
    name: &'static str,
    label: &'static str,
    raw: &[u8],
    off: usize,
    options: Option<&[Opt<'_>]>,
    out: &mut dyn TreeOut,
) {
    if options.is_some() {
        // The options themselves are under option 52's subtree ([`overloaded_fields`]), as in
        // Wireshark; here only its note that the field holds options.
        let (text, note) = if name == "dhcp.server" {
            (
                "Server name option overloaded by DHCP",
                "dhcp.server_name_overloaded_by_dhcp",
            )
        } else {
            (
                "Boot file name option overloaded by DHCP",
                "dhcp.boot_filename_overloaded_by_dhcp",
            )
        };
        out.open(Field::node("", text, off, raw.len()));
        expert_note(note, text, off, 0, out);
        out.close();
        return;
    }
    let text = until_nul(raw);
    if text.is_empty() {
        let label = if out.labels() {
            Cow::Owned(format!("{label} not given"))
        } else {
            Cow::Borrowed("")
        };
        out.leaf(Field::node("", label, off, raw.len()));
    } else {
        out.leaf(Field::string(name, label, lossy(text), off, raw.len()));
    }
}

/// A Wireshark expert note of severity Note in group Protocol, in the "Expert Info" subtree
/// tshark shows it in: its field (`dhcp.secs_le`, ...) has no value of its own (tshark's `-T
/// fields` writes such a field as 1, a display filter tests whether it is there).
fn expert_note(
    name: &'static str,
    text: &'static str,
    off: usize,
    len: usize,
    out: &mut dyn TreeOut,
) {
    let label = if out.labels() {
        Cow::Owned(format!("Expert Info (Note/Protocol): {text}"))
    } else {
        Cow::Borrowed("")
    };
    out.open(Field::node("", label, off, len).generated());
    out.leaf(Field::node(name, text, off, len).generated());
    out.leaf(Field::node("", "Severity level: Note", off, len).generated());
    out.leaf(Field::node("", "Group: Protocol", off, len).generated());
    out.close();
}

/// Wireshark's note on a `secs` read little-endian (`dhcp.secs_le`).
fn secs_le_note(out: &mut dyn TreeOut) {
    let text = "Seconds elapsed appears to be encoded as little-endian";
    expert_note("dhcp.secs_le", text, 8, 2, out)
}

fn until_nul(b: &[u8]) -> &[u8] {
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    &b[..n]
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Wireshark's field for options whose value is one address, a list of addresses or a number.
fn value_field_name(c: u8) -> Option<&'static str> {
    Some(match c {
        1 => "dhcp.option.subnet_mask",
        2 => "dhcp.option.time_offset",
        3 => "dhcp.option.router",
        4 => "dhcp.option.time_server",
        5 => "dhcp.option.name_server",
        6 => "dhcp.option.domain_name_server",
        7 => "dhcp.option.log_server",
        8 => "dhcp.option.quotes_server",
        9 => "dhcp.option.lpr_server",
        10 => "dhcp.option.impress_server",
        11 => "dhcp.option.resource_location_server",
        12 => "dhcp.option.hostname",
        13 => "dhcp.option.boot_file_size",
        14 => "dhcp.option.merit_dump_file",
        15 => "dhcp.option.domain_name",
        16 => "dhcp.option.swap_server",
        17 => "dhcp.option.root_path",
        18 => "dhcp.option.extension_path",
        19 => "dhcp.option.ip_forwarding",
        20 => "dhcp.option.non_local_source_routing",
        22 => "dhcp.option.max_datagram_reassembly_size",
        23 => "dhcp.option.default_ip_ttl",
        24 => "dhcp.option.path_mtu_aging_timeout",
        26 => "dhcp.option.interface_mtu",
        27 => "dhcp.option.all_subnets_are_local",
        28 => "dhcp.option.broadcast_address",
        29 => "dhcp.option.perform_mask_discovery",
        30 => "dhcp.option.mask_supplier",
        31 => "dhcp.option.perform_router_discover",
        32 => "dhcp.option.router_solicitation_address",
        34 => "dhcp.option.trailer_encapsulation",
        35 => "dhcp.option.arp_cache_timeout",
        36 => "dhcp.option.ethernet_encapsulation",
        37 => "dhcp.option.tcp_default_ttl",
        38 => "dhcp.option.tcp_keepalive_interval",
        39 => "dhcp.option.tcp_keepalive_garbage",
        40 => "dhcp.option.nis_domain",
        41 => "dhcp.option.nis_server",
        42 => "dhcp.option.ntp_server",
        44 => "dhcp.option.netbios_over_tcpip_name_server",
        45 => "dhcp.option.netbios_over_tcpip_dd_name_server",
        46 => "dhcp.option.netbios_over_tcpip_node_type",
        47 => "dhcp.option.netbios_over_tcpip_scope",
        48 => "dhcp.option.xwindows_system_font_server",
        49 => "dhcp.option.xwindows_system_display_manager",
        50 => "dhcp.option.requested_ip_address",
        51 => "dhcp.option.ip_address_lease_time",
        52 => "dhcp.option.option_overload",
        54 => "dhcp.option.dhcp_server_id",
        56 => "dhcp.option.message",
        57 => "dhcp.option.dhcp_max_message_size",
        58 => "dhcp.option.renewal_time_value",
        59 => "dhcp.option.rebinding_time_value",
        60 => "dhcp.option.vendor_class_id",
        64 => "dhcp.option.nis_plus_domain",
        65 => "dhcp.option.nis_plus_server",
        66 => "dhcp.option.tftp_server_name",
        67 => "dhcp.option.bootfile_name",
        68 => "dhcp.option.mobile_ip_home_agent",
        69 => "dhcp.option.smtp_server",
        70 => "dhcp.option.pop3_server",
        71 => "dhcp.option.nntp_server",
        72 => "dhcp.option.default_www_server",
        73 => "dhcp.option.default_finger_server",
        74 => "dhcp.option.default_irc_server",
        75 => "dhcp.option.streettalk_server",
        76 => "dhcp.option.streettalk_da_server",
        91 => "dhcp.option.client_last_transaction_time",
        92 => "dhcp.option.associated_ip_option",
        100 => "dhcp.option.tz_pcode",
        101 => "dhcp.option.tz_tcode",
        114 => "dhcp.option.captive_portal",
        116 => "dhcp.option.dhcp_auto_configuration",
        118 => "dhcp.option.subnet_selection_option",
        150 => "dhcp.option.tftp_server_address",
        161 => "dhcp.option.mudurl",
        _ => return None,
    })
}

/// Options whose Wireshark field is a boolean.
fn is_bool(c: u8) -> bool {
    matches!(c, 19 | 20 | 27 | 29 | 30 | 31 | 34 | 36 | 39)
}

/// The label of an option's value: its name without what Wireshark adds in its tree titles.
fn value_label(c: u8) -> Cow<'static, str> {
    Cow::Borrowed(option_name(c))
}

/// What follows "Option:" (the code itself is the field's value).
fn option_title(o: &Opt<'_>) -> String {
    let name = option_name(o.code);
    match &o.value {
        OptValue::MessageType(t) => format!("{} ({})", name, message_type_name(*t)),
        OptValue::Addr(a) => format!("{name} ({a})"),
        _ => name.to_string(),
    }
}

/// `1 hour`, `51 minutes, 58 seconds`, as Wireshark writes durations.
fn duration_text(secs: u32) -> String {
    if secs == u32::MAX {
        return "infinity".to_string();
    }
    let units = [
        (86_400, "day"),
        (3600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let mut left = secs;
    let mut parts = Vec::new();
    for (n, name) in units {
        let k = left / n;
        left %= n;
        if k > 0 {
            parts.push(format!("{k} {name}{}", if k == 1 { "" } else { "s" }));
        }
    }
    if parts.is_empty() {
        "0 seconds".to_string()
    } else {
        parts.join(", ")
    }
}

/// One option's subtree ([`write_option`] into a [`TreeSink`]).
#[cfg(test)]
pub(crate) fn option_field(o: &Opt<'_>) -> Field {
    let mut tree = TreeSink::default();
    write_option(o, &mut tree, |_| {});
    let mut fields = tree.finish();
    fields.pop().unwrap_or_else(|| Field::node("", "", 0, 0))
}

/// Whether the fields [`write_option`] writes for a value include a `dhcp.option.value` of their
/// own (then the hidden generic one is left out).
fn has_own_value(o: &Opt<'_>, vname: Option<&'static str>, whole: bool) -> bool {
    match &o.value {
        OptValue::U16(_) => vname.is_none(),
        OptValue::U32(_) => vname.is_none() && whole,
        OptValue::Raw(_) if whole && o.code == code::VI_VENDOR_SPECIFIC => false,
        OptValue::Raw(_) if whole && o.code == code::FORCERENEW_NONCE_CAPABLE => false,
        OptValue::Raw(b) => whole && !b.is_empty(),
        _ => false,
    }
}

/// One option's subtree, into `out`; `more` writes what follows its own fields in its subtree
/// (option 52's overloaded areas).
fn write_option(o: &Opt<'_>, out: &mut dyn TreeOut, more: impl FnOnce(&mut dyn TreeOut)) {
    let (labels, notes) = (out.labels(), out.notes());
    let off = o.pos.offset;
    let d = o.data_offset();
    match &o.value {
        // A run of PAD bytes is one "Option: (0) Padding" node in Wireshark.
        OptValue::Pad(n) => {
            out.open(
                Field::uint("dhcp.option.type", "Option", code::PAD, off, *n)
                    .note("Padding")
                    .show("(0) Padding"),
            );
            out.leaf(Field::new(
                "dhcp.option.padding",
                "Padding",
                Value::Bytes(vec![0; *n]),
                off,
                *n,
            ));
            more(out);
            out.close();
            return;
        }
        OptValue::End => {
            out.open(
                Field::uint("dhcp.option.type", "Option", code::END, off, 1)
                    .note("End")
                    .show("(255) End"),
            );
            out.leaf(Field::uint("dhcp.option.end", "Option End", 255u8, off, 1));
            more(out);
            out.close();
            return;
        }
        _ => {}
    }
    let data = o.data();
    let len = data.len();
    let mut node = Field::uint("dhcp.option.type", "Option", o.code, off, 2 + len);
    if labels || notes {
        let title = option_title(o);
        if labels {
            node = node.show(format!("({}) {}", o.code, title));
        }
        if notes {
            node = node.note(title);
        }
    }
    out.open(node);
    out.leaf(Field::uint(
        "dhcp.option.length",
        "Length",
        o.claimed_len.map_or(len.min(255) as u64, u64::from),
        off + 1,
        1,
    ));
    let vname = value_field_name(o.code);
    let label = value_label(o.code);
    // A value cut short (its length says more than the message holds) is no option value to
    // Wireshark, which shows none: poolshark shows the bytes there are under its own name.
    let whole = o.claimed_len.is_none();
    let partial = |b: &[u8]| {
        let name = if whole {
            "dhcp.option.value"
        } else {
            "poolshark.dhcp.option.partial_value"
        };
        Field::bytes(name, "Value", b, d)
    };
    // Wireshark gives every whole option's bytes as `dhcp.option.value` too, hidden from the
    // tree where a field of the option's own shows them.
    if whole && !data.is_empty() && !has_own_value(o, vname, whole) {
        out.leaf(Field::bytes("dhcp.option.value", "Value", &data, d).hidden());
    }
    match &o.value {
        OptValue::MessageType(t) => {
            out.leaf(Field::uint("dhcp.option.dhcp", "DHCP", *t, d, 1).note(message_type_name(*t)))
        }
        OptValue::Addr(a) => out.leaf(Field::new(
            vname.unwrap_or("dhcp.option.value.address"),
            label,
            Value::Ipv4(*a),
            d,
            4,
        )),
        OptValue::Addrs(v) => {
            for (i, a) in v.iter().enumerate() {
                out.leaf(Field::new(
                    vname.unwrap_or("dhcp.option.value.address"),
                    label.clone(),
                    Value::Ipv4(*a),
                    d + 4 * i,
                    4,
                ));
            }
        }
        OptValue::U8(v) if is_bool(o.code) => out.leaf(Field::new(
            vname.unwrap_or("dhcp.option.value.bool"),
            label,
            Value::Bool(*v != 0),
            d,
            1,
        )),
        OptValue::U8(v) => out.leaf(Field::new(
            vname.unwrap_or("dhcp.option.value.uint"),
            label,
            Value::Uint((*v).into()),
            d,
            1,
        )),
        OptValue::U16(v) => out.leaf(Field::new(
            vname.unwrap_or("dhcp.option.value"),
            label,
            Value::Uint((*v).into()),
            d,
            2,
        )),
        OptValue::U32(_) if vname.is_none() => out.leaf(partial(&data)),
        OptValue::U32(v) => {
            let f = Field::new(
                vname.unwrap_or("dhcp.option.value"),
                label,
                Value::Uint((*v).into()),
                d,
                4,
            );
            out.leaf(if (labels || notes) && matches!(o.code, 51 | 58 | 59) {
                let text = duration_text(*v);
                let f = if labels {
                    f.show(format!("({v}s) {text}"))
                } else {
                    f
                };
                if notes {
                    f.note(text)
                } else {
                    f
                }
            } else {
                f
            });
        }
        OptValue::I32(v) => out.leaf(Field::new(
            vname.unwrap_or("dhcp.option.value.int"),
            label,
            Value::Int((*v).into()),
            d,
            4,
        )),
        OptValue::Text(t) => out.leaf(
            Field::string(
                vname.unwrap_or("dhcp.option.value.string"),
                "Value",
                lossy(until_nul(t)),
                d,
                t.len(),
            )
            .relabel(vname.map(|_| label)),
        ),
        OptValue::ParameterRequestList(l) => {
            for (i, &c) in l.iter().enumerate() {
                let mut f = Field::uint(
                    "dhcp.option.request_list_item",
                    "Parameter Request List Item",
                    c,
                    d + i,
                    1,
                )
                .note(option_name(c));
                if labels {
                    f = f.show(format!("({c}) {}", option_name(c)));
                }
                out.leaf(f);
            }
        }
        OptValue::ClientId(b) => client_id_fields(b, d, out),
        OptValue::UserClass(items) => {
            let mut at = d;
            for it in items {
                out.open(Field::node(
                    "dhcp.option.user_class",
                    "Instance of User Class",
                    at,
                    1 + it.len(),
                ));
                out.leaf(Field::uint(
                    "dhcp.option.user_class.length",
                    "User Class Length",
                    it.len() as u64,
                    at,
                    1,
                ));
                out.leaf(Field::bytes(
                    "dhcp.option.user_class.data",
                    "User Class Data",
                    it,
                    at + 1,
                ));
                out.close();
                at += 1 + it.len();
            }
        }
        OptValue::ClientFqdn {
            flags,
            rcode1,
            rcode2,
            name,
        } => {
            out.leaf(Field::uint("dhcp.fqdn.flags", "Flags", *flags, d, 1).hex(2));
            out.leaf(Field::uint(
                "dhcp.fqdn.rcode1",
                "A-RR result",
                *rcode1,
                d + 1,
                1,
            ));
            out.leaf(Field::uint(
                "dhcp.fqdn.rcode2",
                "PTR-RR result",
                *rcode2,
                d + 2,
                1,
            ));
            out.leaf(Field::string(
                "dhcp.fqdn.name",
                "Client name",
                fqdn_text(name),
                d + 3,
                name.len(),
            ));
        }
        OptValue::RelayAgentInfo(subs) => {
            for s in subs {
                suboption_field(s, out);
            }
        }
        OptValue::ClasslessRoutes(routes) => {
            let mut at = d;
            for r in routes {
                let n = 1 + r.significant_octets() + 4;
                out.leaf(Field::string(
                    "dhcp.option.classless_static_route",
                    "Subnet/MaskWidth-Router",
                    format!("{}/{}-{}", r.destination, r.width, r.router),
                    at,
                    n,
                ));
                at += n;
            }
        }
        OptValue::Raw(b) if whole && o.code == code::VI_VENDOR_SPECIFIC => vi_fields(b, d, out),
        OptValue::Raw(b) if whole && o.code == code::FORCERENEW_NONCE_CAPABLE => {
            for (i, &a) in b.iter().enumerate() {
                out.leaf(
                    Field::uint(
                        "dhcp.option.forcerenew_nonce.algorithm",
                        "Algorithm",
                        a,
                        d + i,
                        1,
                    )
                    .note(if a == 1 { "HMAC-MD5" } else { "Unknown" }),
                );
            }
        }
        OptValue::Raw(b) => {
            if !b.is_empty() {
                out.leaf(partial(b));
            }
        }
        OptValue::Pad(_) | OptValue::End => {}
    }
    more(out);
    out.close();
}

/// Option 125, V-I Vendor-specific Information (RFC 3925 section 4): for each enterprise, its
/// number and the length of its data, then its suboptions (code, length, data), as Wireshark's
/// `dhcp.option.vi.*`: each suboption a `dhcp.option.vi.<vendor>.suboption` subtree (TR-111's
/// for the Broadband Forum, 3561; a generic `dhcp.option.vi.value` for other enterprises) and,
/// after it, its bytes as a hidden `dhcp.option.vi.value`. A length past the option's end stops
/// the decoding there.
fn vi_fields(b: &[u8], d: usize, out: &mut dyn TreeOut) {
    let mut at = 0;
    while let (Some(e), Some(&n)) = (b.get(at..at + 4), b.get(at + 4)) {
        let enterprise = u32::from_be_bytes([e[0], e[1], e[2], e[3]]);
        let n = usize::from(n);
        let start = at + 5;
        let data = b.get(start..start + n);
        let mut node = Field::uint(
            "dhcp.option.vi.enterprise",
            "Enterprise",
            enterprise,
            d + at,
            5 + n,
        );
        if enterprise == TR111_ENTERPRISE {
            node = node.note("Broadband Forum (previously 'DSL Forum')");
        }
        out.open(node);
        out.leaf(Field::uint(
            "dhcp.option.vi.length",
            "Length",
            n as u64,
            d + at + 4,
            1,
        ));
        let Some(data) = data else {
            out.close();
            break;
        };
        let mut i = 0;
        while let (Some(&code), Some(&len)) = (data.get(i), data.get(i + 1)) {
            let len = usize::from(len);
            let Some(v) = data.get(i + 2..i + 2 + len) else {
                break;
            };
            let off = d + start + i;
            vi_suboption(enterprise, code, v, off, out);
            i += 2 + len;
        }
        out.close();
        at = start + n;
    }
}

/// The Broadband Forum's enterprise number (TR-111's suboptions).
const TR111_ENTERPRISE: u32 = 3561;

/// One suboption of option 125 and its hidden bytes.
fn vi_suboption(enterprise: u32, code: u8, v: &[u8], off: usize, out: &mut dyn TreeOut) {
    let length = Field::uint(
        "dhcp.option.suboption_length",
        "Length",
        v.len() as u64,
        off + 1,
        1,
    );
    if enterprise != TR111_ENTERPRISE {
        // Suboptions of other enterprises: code, length and the bytes, shown.
        out.leaf(Field::uint(
            "dhcp.option.vi.value.uint",
            "Suboption",
            code,
            off,
            1,
        ));
        out.leaf(length);
        out.leaf(Field::bytes("dhcp.option.vi.value", "Value", v, off + 2));
        return;
    }
    // TR-111 (Broadband Forum), section 2.1: the device's or gateway's identity as text. The
    // device's OUI (1) is an integer field in Wireshark 4.0 though sent as text: not decoded.
    let (name, label): (Option<&'static str>, &'static str) = match code {
        1 => (None, "DeviceManufacturerOUI"),
        2 => (
            Some("dhcp.option.vi.tr111.device_serial_number"),
            "DeviceSerialNumber",
        ),
        3 => (
            Some("dhcp.option.vi.tr111.device_product_class"),
            "DeviceProductClass",
        ),
        4 => (
            Some("dhcp.option.vi.tr111.gateway_manufacturer_oui"),
            "GatewayManufacturerOUI",
        ),
        5 => (
            Some("dhcp.option.vi.tr111.gateway_serial_number"),
            "GatewaySerialNumber",
        ),
        6 => (
            Some("dhcp.option.vi.tr111.gateway_product_class"),
            "GatewayProductClass",
        ),
        _ => (None, "Unknown"),
    };
    out.open(
        Field::uint(
            "dhcp.option.vi.tr111.suboption",
            "Option 125 Suboption",
            code,
            off,
            2 + v.len(),
        )
        .note(label),
    );
    out.leaf(length);
    if let Some(name) = name {
        out.leaf(Field::string(
            name,
            label,
            lossy(until_nul(v)),
            off + 2,
            v.len(),
        ));
    }
    out.close();
    out.leaf(Field::bytes("dhcp.option.vi.value", "Value", v, off + 2).hidden());
}

/// RFC 4702 names are DNS-encoded when the E flag is set, else ASCII.
fn fqdn_text(name: &[u8]) -> String {
    let mut labels = Vec::new();
    let mut rest = name;
    while let Some((&n, r)) = rest.split_first() {
        let n = usize::from(n);
        if n == 0 || n > 63 || n > r.len() {
            break;
        }
        labels.push(String::from_utf8_lossy(&r[..n]).into_owned());
        rest = &r[n..];
    }
    if labels.is_empty() || (!rest.is_empty() && rest != [0]) {
        lossy(until_nul(name))
    } else {
        labels.join(".")
    }
}

/// Option 61 as Wireshark shows it: an Ethernet address, RFC 4361's IAID and DUID, or bytes.
fn client_id_fields(b: &[u8], d: usize, out: &mut dyn TreeOut) {
    let Some((&kind, id)) = b.split_first() else {
        return;
    };
    match kind {
        1 if id.len() == 6 => {
            let mut m = [0u8; 6];
            m.copy_from_slice(id);
            out.leaf(
                Field::uint("dhcp.hw.type", "Hardware type", kind, d, 1)
                    .hex(2)
                    .note(hardware_type_name(1)),
            );
            out.leaf(Field::new(
                "dhcp.hw.mac_addr",
                "Client MAC address",
                Value::Mac(m),
                d + 1,
                6,
            ));
        }
        255 if id.len() >= 6 => {
            out.leaf(Field::string(
                "dhcp.client_id.iaid",
                "IAID",
                crate::field::hex(&id[..4]),
                d + 1,
                4,
            ));
            let duid = &id[4..];
            let dt = u16::from_be_bytes([duid[0], duid[1]]);
            out.leaf(
                Field::uint("dhcp.client_id.duid_type", "DUID Type", dt, d + 5, 2)
                    .note(crate::proto::dhcpv6::names::duid_type_name(dt)),
            );
            let body = &duid[2..];
            let at = d + 7;
            match (dt, body.len()) {
                (1, n) if n >= 6 => {
                    let hw = u16::from_be_bytes([body[0], body[1]]);
                    let t = u32::from_be_bytes([body[2], body[3], body[4], body[5]]);
                    out.leaf(
                        Field::uint(
                            "dhcp.client_id.duid_llt_hw_type",
                            "Hardware type",
                            hw,
                            at,
                            2,
                        )
                        .note(hardware_type_name(hw)),
                    );
                    out.leaf(Field::uint("dhcp.client_id.time", "Time", t, at + 2, 4));
                    out.leaf(Field::string(
                        "dhcp.client_id.link_layer_address",
                        "Link layer address",
                        hex_colons(&body[6..]),
                        at + 6,
                        n - 6,
                    ));
                }
                (2, n) if n >= 4 => {
                    let en = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                    out.leaf(Field::uint(
                        "dhcp.client_id.enterprise_num",
                        "Enterprise-number",
                        en,
                        at,
                        4,
                    ));
                    out.leaf(Field::bytes(
                        "dhcp.client_id",
                        "Identifier",
                        &body[4..],
                        at + 4,
                    ));
                }
                (3, n) if n >= 2 => {
                    let hw = u16::from_be_bytes([body[0], body[1]]);
                    out.leaf(
                        Field::uint("dhcp.client_id.duid_ll_hw_type", "Hardware type", hw, at, 2)
                            .note(hardware_type_name(hw)),
                    );
                    out.leaf(Field::string(
                        "dhcp.client_id.link_layer_address",
                        "Link layer address",
                        hex_colons(&body[2..]),
                        at + 2,
                        n - 2,
                    ));
                }
                _ => out.leaf(Field::bytes("dhcp.client_id", "Identifier", body, at)),
            }
        }
        0 => {
            out.leaf(Field::uint("dhcp.client_id.type", "Type", kind, d, 1));
            out.leaf(Field::string(
                "dhcp.client_id.undef",
                "Client Identifier",
                lossy(id),
                d + 1,
                id.len(),
            ));
        }
        // Wireshark shows nothing of other types; poolshark shows the type and the bytes.
        _ => {
            out.leaf(
                Field::uint("poolshark.dhcp.client_id.type", "Type", kind, d, 1)
                    .note(hardware_type_name(kind.into())),
            );
            out.leaf(Field::bytes(
                "poolshark.dhcp.client_id.data",
                "Identifier",
                id,
                d + 1,
            ));
        }
    }
}

/// One suboption of option 82 (its code, length and value) into `out`.
fn suboption_field(s: &SubOpt<'_>, out: &mut dyn TreeOut) {
    let off = s.pos.offset;
    let d = off + 2;
    let mut node = Field::uint(
        "dhcp.option.agent_information_option.suboption",
        "Option 82 Suboption",
        s.code,
        off,
        2 + s.data.len(),
    )
    .note(relay_agent_suboption_name(s.code));
    if out.labels() {
        node = node.show(format!(
            "({}) {}",
            s.code,
            relay_agent_suboption_name(s.code)
        ));
    }
    out.open(node);
    out.leaf(Field::uint(
        "dhcp.option.suboption_length",
        "Length",
        s.data.len() as u64,
        off + 1,
        1,
    ));
    if s.data.is_empty() {
        out.close();
        return;
    }
    let v = match (s.code, s.address()) {
        (_, Some(a)) if s.code == 5 => Field::ipv4(
            "dhcp.option.agent_information_option.link_selection",
            "Link selection",
            a,
            d,
        ),
        (_, Some(a)) => Field::ipv4(
            "dhcp.option.agent_information_option.server_id_override",
            "Server ID Override",
            a,
            d,
        ),
        (1, _) => Field::bytes(
            "dhcp.option.agent_information_option.agent_circuit_id",
            "Agent Circuit ID",
            &s.data,
            d,
        ),
        (2, _) => Field::bytes(
            "dhcp.option.agent_information_option.agent_remote_id",
            "Agent Remote ID",
            &s.data,
            d,
        ),
        (6, _) => Field::string(
            "dhcp.option.agent_information_option.subscriber_id",
            "Subscriber ID",
            lossy(until_nul(&s.data)),
            d,
            s.data.len(),
        ),
        (12, _) => Field::bytes(
            "dhcp.option.agent_information_option.relay_agent_id",
            "Relay Agent Identifier",
            &s.data,
            d,
        ),
        _ => Field::bytes(
            "dhcp.option.agent_information_option.value",
            "Value",
            &s.data,
            d,
        ),
    };
    if v.name != "dhcp.option.agent_information_option.value" {
        // Wireshark gives every suboption's bytes as the generic value too, hidden.
        out.leaf(
            Field::bytes(
                "dhcp.option.agent_information_option.value",
                "Value",
                &s.data,
                d,
            )
            .hidden(),
        );
    }
    out.leaf(v);
    out.close();
}

trait Relabel {
    fn relabel(self, label: Option<Cow<'static, str>>) -> Self;
}

impl Relabel for Field {
    fn relabel(mut self, label: Option<Cow<'static, str>>) -> Self {
        if let Some(l) = label {
            self.label = l;
        }
        self
    }
}

#[cfg(test)]
mod tests;
