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
use crate::field::{hex_colons, Field, Value};

impl Message<'_> {
    /// The tree under a `dhcp` node, as `tshark -V` shows it.
    pub fn fields(&self) -> Vec<Field> {
        let mt = self.message_type();
        let title = match mt {
            Some(t) => format!(
                "Dynamic Host Configuration Protocol ({})",
                message_type_name(t)
            ),
            None => "Dynamic Host Configuration Protocol".to_string(),
        };
        let total = if self.pos.len == 0 {
            self.emit().len()
        } else {
            self.pos.len
        };
        let mut root = Field::node("dhcp", title, 0, total);
        let have = |end: usize| end <= total;
        let mut h = Vec::new();
        let u8f = |name, label, v: u8, off| Field::uint(name, label, v, off, 1);
        if have(1) {
            h.push(u8f("dhcp.type", "Message type", self.op, 0).note(op_name(self.op)));
        }
        if have(2) {
            h.push(
                u8f("dhcp.hw.type", "Hardware type", self.htype, 1)
                    .hex(2)
                    .note(hardware_type_name(self.htype.into())),
            );
        }
        if have(3) {
            h.push(u8f("dhcp.hw.len", "Hardware address length", self.hlen, 2));
        }
        if have(4) {
            h.push(u8f("dhcp.hops", "Hops", self.hops, 3));
        }
        if have(8) {
            h.push(Field::uint("dhcp.id", "Transaction ID", self.xid, 4, 4).hex(8));
        }
        if have(10) {
            let secs = Field::uint("dhcp.secs", "Seconds elapsed", self.secs_shown(), 8, 2);
            h.push(if secs_byte_swapped(self.secs()) {
                secs.child(secs_le_note())
            } else {
                secs
            });
        }
        if have(12) {
            let bc = self.broadcast();
            h.push(
                Field::uint("dhcp.flags", "Bootp flags", self.flags, 10, 2)
                    .hex(4)
                    .note(if bc { "Broadcast" } else { "Unicast" })
                    .show(if bc {
                        format!("0x{:04x}, Broadcast flag (Broadcast)", self.flags)
                    } else {
                        format!("0x{:04x} (Unicast)", self.flags)
                    })
                    .child(
                        Field::boolean("dhcp.flags.bc", "Broadcast flag", bc, 10, 2)
                            .bits(0x8000, 16)
                            .note(if bc { "Broadcast" } else { "Unicast" }),
                    )
                    .child(
                        Field::uint(
                            "dhcp.flags.reserved",
                            "Reserved flags",
                            self.flags & 0x7fff,
                            10,
                            2,
                        )
                        .hex(4)
                        .bits(0x7fff, 16),
                    ),
            );
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
                h.push(Field::ipv4(name, label, a, off));
            }
        }
        if have(44) {
            h.extend(self.chaddr_fields());
        }
        if have(SNAME_OFFSET + 1) {
            h.push(area_field(
                "dhcp.server",
                "Server host name",
                &self.sname,
                SNAME_OFFSET,
                self.sname_options.as_deref(),
            ));
        }
        if have(FILE_OFFSET + 1) {
            h.push(area_field(
                "dhcp.file",
                "Boot file name",
                &self.file,
                FILE_OFFSET,
                self.file_options.as_deref(),
            ));
        }
        if let Some(c) = self.cookie {
            let a = Ipv4Addr::from(c);
            // Wireshark shows no cookie field when the cookie is not DHCP's.
            h.push(if self.has_dhcp_cookie() {
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
        h.extend(self.options.iter().map(|o| {
            let f = option_field(o);
            if o.code == code::OVERLOAD {
                f.children(self.overloaded_fields())
            } else {
                f
            }
        }));
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
            h.push(Field::bytes(name, label, &self.trailer, off));
        }
        root.children = h;
        vec![root]
    }

    /// The options overloaded into `sname` and `file`, each area a subtree, as Wireshark shows
    /// them under option 52 (sname first; `-T fields` lists their occurrences there).
    fn overloaded_fields(&self) -> Vec<Field> {
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
        areas
            .into_iter()
            .filter_map(|(opts, label, off, len)| {
                let opts = opts.as_deref()?;
                Some(
                    Field::node("", label, off, len)
                        .children(opts.iter().map(option_field).collect()),
                )
            })
            .collect()
    }

    fn chaddr_fields(&self) -> Vec<Field> {
        let n = usize::from(self.hlen).min(16);
        let mut out = Vec::new();
        if let Some(m) = self.mac() {
            out.push(Field::new(
                "dhcp.hw.mac_addr",
                "Client MAC address",
                Value::Mac(m),
                28,
                6,
            ));
        } else if n > 0 {
            out.push(Field::bytes(
                "dhcp.hw.addr",
                "Client hardware address",
                &self.chaddr[..n],
                28,
            ));
        }
        if n < 16 {
            out.push(Field::bytes(
                "dhcp.hw.addr_padding",
                "Client hardware address padding",
                &self.chaddr[n..],
                28 + n,
            ));
        }
        out
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
) -> Field {
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
        return Field::node("", text, off, raw.len()).child(expert_note(note, text, off, 0));
    }
    let text = until_nul(raw);
    if text.is_empty() {
        Field::node("", format!("{label} not given"), off, raw.len())
    } else {
        Field::string(name, label, lossy(text), off, raw.len())
    }
}

/// A Wireshark expert note of severity Note in group Protocol, in the "Expert Info" subtree
/// tshark shows it in: its field (`dhcp.secs_le`, ...) has no value of its own (tshark's `-T
/// fields` writes such a field as 1, a display filter tests whether it is there).
fn expert_note(name: &'static str, text: &'static str, off: usize, len: usize) -> Field {
    Field::node("", format!("Expert Info (Note/Protocol): {text}"), off, len)
        .generated()
        .children(vec![
            Field::node(name, text, off, len).generated(),
            Field::node("", "Severity level: Note", off, len).generated(),
            Field::node("", "Group: Protocol", off, len).generated(),
        ])
}

/// Wireshark's note on a `secs` read little-endian (`dhcp.secs_le`).
fn secs_le_note() -> Field {
    let text = "Seconds elapsed appears to be encoded as little-endian";
    expert_note("dhcp.secs_le", text, 8, 2)
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

/// One option's subtree.
pub(crate) fn option_field(o: &Opt<'_>) -> Field {
    let off = o.pos.offset;
    let d = o.data_offset();
    match &o.value {
        // A run of PAD bytes is one "Option: (0) Padding" node in Wireshark.
        OptValue::Pad(n) => {
            return Field::uint("dhcp.option.type", "Option", code::PAD, off, *n)
                .note("Padding")
                .show("(0) Padding")
                .child(Field::new(
                    "dhcp.option.padding",
                    "Padding",
                    Value::Bytes(vec![0; *n]),
                    off,
                    *n,
                ));
        }
        OptValue::End => {
            return Field::uint("dhcp.option.type", "Option", code::END, off, 1)
                .note("End")
                .show("(255) End")
                .child(Field::uint("dhcp.option.end", "Option End", 255u8, off, 1));
        }
        _ => {}
    }
    let data = o.data();
    let len = data.len();
    let node = Field::uint("dhcp.option.type", "Option", o.code, off, 2 + len)
        .note(option_title(o))
        .show(format!("({}) {}", o.code, option_title(o)))
        .child(Field::uint(
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
    let kids: Vec<Field> = match &o.value {
        OptValue::MessageType(t) => {
            vec![Field::uint("dhcp.option.dhcp", "DHCP", *t, d, 1).note(message_type_name(*t))]
        }
        OptValue::Addr(a) => vec![Field::new(
            vname.unwrap_or("dhcp.option.value.address"),
            label,
            Value::Ipv4(*a),
            d,
            4,
        )],
        OptValue::Addrs(v) => v
            .iter()
            .enumerate()
            .map(|(i, a)| {
                Field::new(
                    vname.unwrap_or("dhcp.option.value.address"),
                    label.clone(),
                    Value::Ipv4(*a),
                    d + 4 * i,
                    4,
                )
            })
            .collect(),
        OptValue::U8(v) if is_bool(o.code) => vec![Field::new(
            vname.unwrap_or("dhcp.option.value.bool"),
            label,
            Value::Bool(*v != 0),
            d,
            1,
        )],
        OptValue::U8(v) => vec![Field::new(
            vname.unwrap_or("dhcp.option.value.uint"),
            label,
            Value::Uint((*v).into()),
            d,
            1,
        )],
        OptValue::U16(v) => vec![Field::new(
            vname.unwrap_or("dhcp.option.value"),
            label,
            Value::Uint((*v).into()),
            d,
            2,
        )],
        OptValue::U32(_) if vname.is_none() => vec![partial(&data)],
        OptValue::U32(v) => {
            let f = Field::new(
                vname.unwrap_or("dhcp.option.value"),
                label,
                Value::Uint((*v).into()),
                d,
                4,
            );
            vec![if matches!(o.code, 51 | 58 | 59) {
                f.note(duration_text(*v))
                    .show(format!("({v}s) {}", duration_text(*v)))
            } else {
                f
            }]
        }
        OptValue::I32(v) => vec![Field::new(
            vname.unwrap_or("dhcp.option.value.int"),
            label,
            Value::Int((*v).into()),
            d,
            4,
        )],
        OptValue::Text(t) => vec![Field::string(
            vname.unwrap_or("dhcp.option.value.string"),
            "Value",
            lossy(until_nul(t)),
            d,
            t.len(),
        )
        .relabel(vname.map(|_| label))],
        OptValue::ParameterRequestList(l) => l
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                Field::uint(
                    "dhcp.option.request_list_item",
                    "Parameter Request List Item",
                    c,
                    d + i,
                    1,
                )
                .note(option_name(c))
                .show(format!("({c}) {}", option_name(c)))
            })
            .collect(),
        OptValue::ClientId(b) => client_id_fields(b, d),
        OptValue::UserClass(items) => {
            let mut at = d;
            items
                .iter()
                .map(|it| {
                    let f = Field::node(
                        "dhcp.option.user_class",
                        "Instance of User Class",
                        at,
                        1 + it.len(),
                    )
                    .child(Field::uint(
                        "dhcp.option.user_class.length",
                        "User Class Length",
                        it.len() as u64,
                        at,
                        1,
                    ))
                    .child(Field::bytes(
                        "dhcp.option.user_class.data",
                        "User Class Data",
                        it,
                        at + 1,
                    ));
                    at += 1 + it.len();
                    f
                })
                .collect()
        }
        OptValue::ClientFqdn {
            flags,
            rcode1,
            rcode2,
            name,
        } => vec![
            Field::uint("dhcp.fqdn.flags", "Flags", *flags, d, 1).hex(2),
            Field::uint("dhcp.fqdn.rcode1", "A-RR result", *rcode1, d + 1, 1),
            Field::uint("dhcp.fqdn.rcode2", "PTR-RR result", *rcode2, d + 2, 1),
            Field::string(
                "dhcp.fqdn.name",
                "Client name",
                fqdn_text(name),
                d + 3,
                name.len(),
            ),
        ],
        OptValue::RelayAgentInfo(subs) => subs.iter().map(suboption_field).collect(),
        OptValue::ClasslessRoutes(routes) => {
            let mut at = d;
            routes
                .iter()
                .map(|r| {
                    let n = 1 + r.significant_octets() + 4;
                    let f = Field::string(
                        "dhcp.option.classless_static_route",
                        "Subnet/MaskWidth-Router",
                        format!("{}/{}-{}", r.destination, r.width, r.router),
                        at,
                        n,
                    );
                    at += n;
                    f
                })
                .collect()
        }
        OptValue::Raw(b) if whole && o.code == code::VI_VENDOR_SPECIFIC => vi_fields(b, d),
        OptValue::Raw(b) if whole && o.code == code::FORCERENEW_NONCE_CAPABLE => b
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                Field::uint(
                    "dhcp.option.forcerenew_nonce.algorithm",
                    "Algorithm",
                    a,
                    d + i,
                    1,
                )
                .note(if a == 1 { "HMAC-MD5" } else { "Unknown" })
            })
            .collect(),
        OptValue::Raw(b) => {
            if b.is_empty() {
                Vec::new()
            } else {
                vec![partial(b)]
            }
        }
        OptValue::Pad(_) | OptValue::End => Vec::new(),
    };
    // Wireshark gives every whole option's bytes as `dhcp.option.value` too, hidden from the
    // tree where a field of the option's own shows them.
    let generic =
        (whole && !data.is_empty() && !kids.iter().any(|k| k.name == "dhcp.option.value"))
            .then(|| Field::bytes("dhcp.option.value", "Value", &data, d).hidden());
    node.children(generic.into_iter().chain(kids).collect())
}

/// Option 125, V-I Vendor-specific Information (RFC 3925 section 4): for each enterprise, its
/// number and the length of its data, then its suboptions (code, length, data), as Wireshark's
/// `dhcp.option.vi.*`: each suboption a `dhcp.option.vi.<vendor>.suboption` subtree (TR-111's
/// for the Broadband Forum, 3561; a generic `dhcp.option.vi.value` for other enterprises) and,
/// after it, its bytes as a hidden `dhcp.option.vi.value`. A length past the option's end stops
/// the decoding there.
fn vi_fields(b: &[u8], d: usize) -> Vec<Field> {
    let mut out = Vec::new();
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
        )
        .child(Field::uint(
            "dhcp.option.vi.length",
            "Length",
            n as u64,
            d + at + 4,
            1,
        ));
        if enterprise == TR111_ENTERPRISE {
            node = node.note("Broadband Forum (previously 'DSL Forum')");
        }
        let Some(data) = data else {
            out.push(node);
            break;
        };
        let mut i = 0;
        while let (Some(&code), Some(&len)) = (data.get(i), data.get(i + 1)) {
            let len = usize::from(len);
            let Some(v) = data.get(i + 2..i + 2 + len) else {
                break;
            };
            let off = d + start + i;
            node = node.children(vi_suboption(enterprise, code, v, off));
            i += 2 + len;
        }
        out.push(node);
        at = start + n;
    }
    out
}

/// The Broadband Forum's enterprise number (TR-111's suboptions).
const TR111_ENTERPRISE: u32 = 3561;

/// One suboption of option 125 and its hidden bytes.
fn vi_suboption(enterprise: u32, code: u8, v: &[u8], off: usize) -> Vec<Field> {
    let length = Field::uint(
        "dhcp.option.suboption_length",
        "Length",
        v.len() as u64,
        off + 1,
        1,
    );
    let hidden = Field::bytes("dhcp.option.vi.value", "Value", v, off + 2).hidden();
    if enterprise != TR111_ENTERPRISE {
        // Suboptions of other enterprises: code, length and the bytes, shown.
        return vec![
            Field::uint("dhcp.option.vi.value.uint", "Suboption", code, off, 1),
            length,
            Field::bytes("dhcp.option.vi.value", "Value", v, off + 2),
        ];
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
    let mut sub = Field::uint(
        "dhcp.option.vi.tr111.suboption",
        "Option 125 Suboption",
        code,
        off,
        2 + v.len(),
    )
    .note(label)
    .child(length);
    if let Some(name) = name {
        sub = sub.child(Field::string(
            name,
            label,
            lossy(until_nul(v)),
            off + 2,
            v.len(),
        ));
    }
    vec![sub, hidden]
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
fn client_id_fields(b: &[u8], d: usize) -> Vec<Field> {
    let Some((&kind, id)) = b.split_first() else {
        return Vec::new();
    };
    match kind {
        1 if id.len() == 6 => {
            let mut m = [0u8; 6];
            m.copy_from_slice(id);
            vec![
                Field::uint("dhcp.hw.type", "Hardware type", kind, d, 1)
                    .hex(2)
                    .note(hardware_type_name(1)),
                Field::new(
                    "dhcp.hw.mac_addr",
                    "Client MAC address",
                    Value::Mac(m),
                    d + 1,
                    6,
                ),
            ]
        }
        255 if id.len() >= 6 => {
            let mut out = vec![Field::string(
                "dhcp.client_id.iaid",
                "IAID",
                crate::field::hex(&id[..4]),
                d + 1,
                4,
            )];
            let duid = &id[4..];
            let dt = u16::from_be_bytes([duid[0], duid[1]]);
            out.push(
                Field::uint("dhcp.client_id.duid_type", "DUID Type", dt, d + 5, 2)
                    .note(crate::proto::dhcpv6::names::duid_type_name(dt)),
            );
            let body = &duid[2..];
            let at = d + 7;
            match (dt, body.len()) {
                (1, n) if n >= 6 => {
                    let hw = u16::from_be_bytes([body[0], body[1]]);
                    let t = u32::from_be_bytes([body[2], body[3], body[4], body[5]]);
                    out.push(
                        Field::uint(
                            "dhcp.client_id.duid_llt_hw_type",
                            "Hardware type",
                            hw,
                            at,
                            2,
                        )
                        .note(hardware_type_name(hw)),
                    );
                    out.push(Field::uint("dhcp.client_id.time", "Time", t, at + 2, 4));
                    out.push(Field::string(
                        "dhcp.client_id.link_layer_address",
                        "Link layer address",
                        hex_colons(&body[6..]),
                        at + 6,
                        n - 6,
                    ));
                }
                (2, n) if n >= 4 => {
                    let en = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                    out.push(Field::uint(
                        "dhcp.client_id.enterprise_num",
                        "Enterprise-number",
                        en,
                        at,
                        4,
                    ));
                    out.push(Field::bytes(
                        "dhcp.client_id",
                        "Identifier",
                        &body[4..],
                        at + 4,
                    ));
                }
                (3, n) if n >= 2 => {
                    let hw = u16::from_be_bytes([body[0], body[1]]);
                    out.push(
                        Field::uint("dhcp.client_id.duid_ll_hw_type", "Hardware type", hw, at, 2)
                            .note(hardware_type_name(hw)),
                    );
                    out.push(Field::string(
                        "dhcp.client_id.link_layer_address",
                        "Link layer address",
                        hex_colons(&body[2..]),
                        at + 2,
                        n - 2,
                    ));
                }
                _ => out.push(Field::bytes("dhcp.client_id", "Identifier", body, at)),
            }
            out
        }
        0 => vec![
            Field::uint("dhcp.client_id.type", "Type", kind, d, 1),
            Field::string(
                "dhcp.client_id.undef",
                "Client Identifier",
                lossy(id),
                d + 1,
                id.len(),
            ),
        ],
        // Wireshark shows nothing of other types; poolshark shows the type and the bytes.
        _ => vec![
            Field::uint("poolshark.dhcp.client_id.type", "Type", kind, d, 1)
                .note(hardware_type_name(kind.into())),
            Field::bytes("poolshark.dhcp.client_id.data", "Identifier", id, d + 1),
        ],
    }
}

fn suboption_field(s: &SubOpt<'_>) -> Field {
    let off = s.pos.offset;
    let d = off + 2;
    let node = Field::uint(
        "dhcp.option.agent_information_option.suboption",
        "Option 82 Suboption",
        s.code,
        off,
        2 + s.data.len(),
    )
    .note(relay_agent_suboption_name(s.code))
    .show(format!(
        "({}) {}",
        s.code,
        relay_agent_suboption_name(s.code)
    ))
    .child(Field::uint(
        "dhcp.option.suboption_length",
        "Length",
        s.data.len() as u64,
        off + 1,
        1,
    ));
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
    if s.data.is_empty() {
        node
    } else if v.name == "dhcp.option.agent_information_option.value" {
        node.child(v)
    } else {
        // Wireshark gives every suboption's bytes as the generic value too, hidden.
        let generic = Field::bytes(
            "dhcp.option.agent_information_option.value",
            "Value",
            &s.data,
            d,
        );
        node.child(generic.hidden()).child(v)
    }
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
mod tests {
    use super::*;

    #[test]
    fn durations_as_wireshark_writes_them() {
        // tshark on zeek_dhcp_ack_subscriber_id_and_agent_remote_id.pcap: "(1800s) 30 minutes",
        // "(3118s) 51 minutes, 58 seconds", "(3600s) 1 hour".
        assert_eq!(duration_text(1800), "30 minutes");
        assert_eq!(duration_text(3118), "51 minutes, 58 seconds");
        assert_eq!(duration_text(3600), "1 hour");
        assert_eq!(duration_text(0), "0 seconds");
        assert_eq!(duration_text(u32::MAX), "infinity");
    }
}
