//! The display tree (Wireshark's names, labels and tree shape, as `tshark -V -O asap,enrp` shows
//! them) and the one-line summary.
//!
//! Offsets are relative to the message start. The representation keeps no offsets, so they are
//! recomputed from the wire layout (each part's size is what emit writes for it), which is the
//! received layout for every well-formed message.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::field::out::{Shifted, TreeOut, TreeSink};
use crate::field::{printable, Field};

use super::causes::{Cause, CauseInfo, CauseKind};
use super::emit::EmitCtx;
use super::header::{
    AsapType, EnrpType, UpdateAction, FLAG_HOME, FLAG_MORE, FLAG_OWN_CHILDREN_ONLY, FLAG_REJECT,
    FLAG_REPLY_REQUIRED, FLAG_TAKEOVER_SUGGESTED,
};
use super::message::{parse_message, Fixed, Message};
use super::names::{Names, ASAP, ENRP};
use super::numbering::{param_kind, param_name, UnknownAction};
use super::parameters::{parse_params, Ctx, Parameter, MAX_DEPTH};
use super::policy::{Policy, PolicyKind, Role};
use super::transports::{Transport, TransportProtocol};
use super::wire::tlv_header;
use super::{Encoding, Protocol};

struct Tree {
    n: &'static Names,
    enc: Encoding,
    protocol: Protocol,
}

impl Message {
    /// The display tree: one protocol node with the message's fields below it.
    pub fn fields(&self) -> Vec<Field> {
        let mut tree = TreeSink::default();
        self.write_tree(&mut tree);
        tree.finish()
    }

    /// The display tree into `out` ([`crate::field::out`]), with no tree built in between.
    pub fn write_tree(&self, out: &mut dyn TreeOut) {
        self.write_at(0, out);
    }

    /// The tree of a message `depth` levels down in another (0: the message itself).
    fn write_at(&self, depth: usize, out: &mut dyn TreeOut) {
        let t = Tree {
            n: names(self.protocol),
            enc: self.encoding,
            protocol: self.protocol,
        };
        t.message(self, depth, out);
    }

    /// The summary for a one-line listing: the type as tshark names it, then the key fields.
    pub fn info(&self) -> String {
        let mut s = self.type_name().to_string();
        if let Some(h) = self.pool_handle() {
            let _ = write!(s, " pool {}", handle_text(h));
        }
        let mut ids: Vec<u32> = self.pool_elements().map(|pe| pe.pe_id).collect();
        ids.extend(self.pe_identifiers());
        if !ids.is_empty() {
            s.push_str(" PE ");
            for (i, id) in ids.iter().take(4).enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "0x{id:08x}");
            }
            if ids.len() > 4 {
                let _ = write!(s, ",... ({} PEs)", ids.len());
            }
        }
        let policy = self
            .pool_elements()
            .find_map(|pe| pe.policy())
            .or_else(|| self.policy());
        if let Some(p) = policy {
            let _ = write!(s, " {}", p.kind().short_name());
            if let Some(w) = p.weight() {
                let _ = write!(s, " weight {w}");
            }
            if let Some(w) = p.priority() {
                let _ = write!(s, " priority {w}");
            }
            if let Some(l) = p.load_percent() {
                let _ = write!(s, " load {l:.2}%");
            }
        }
        if let Some(n) = self.hropt_items() {
            if n == u32::MAX {
                s.push_str(" items all");
            } else {
                let _ = write!(s, " items {n}");
            }
        }
        if let Some(id) = self.server_id() {
            let _ = write!(s, " server 0x{id:08x}");
        }
        if let (Some(a), Some(b)) = (self.sender_server_id(), self.receiver_server_id()) {
            let _ = write!(s, " 0x{a:08x} -> 0x{b:08x}");
        }
        if let Some(t) = self.target_server_id() {
            let _ = write!(s, " target 0x{t:08x}");
        }
        if let Some(a) = self.update_action() {
            let _ = write!(s, " {}", a.name().to_lowercase());
        }
        if self.rejected() {
            s.push_str(" rejected");
        }
        let causes: Vec<String> = self.causes().map(|c| format!("0x{:x}", c.code)).collect();
        if !causes.is_empty() {
            let _ = write!(s, " cause {}", causes.join(","));
        }
        s
    }
}

fn names(p: Protocol) -> &'static Names {
    match p {
        Protocol::Asap => &ASAP,
        Protocol::Enrp => &ENRP,
    }
}

/// A pool handle as text when printable, else as hex.
fn handle_text(h: &[u8]) -> String {
    match printable(h) {
        Some(t) => format!("\"{t}\""),
        None => crate::field::hex(h),
    }
}

/// Bytes as text the way Wireshark's format_text shows them: printable ASCII as is, the rest
/// escaped.
fn format_text(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s
}

fn flag(
    name: &'static str,
    label: &'static str,
    flags: u8,
    mask: u8,
    texts: [&'static str; 2],
) -> Field {
    let set = flags & mask != 0;
    Field::boolean(name, label, set, 1, 1)
        .bits(u64::from(mask), 8)
        .note(texts[usize::from(set)])
}

impl Tree {
    fn emit(&self) -> EmitCtx {
        EmitCtx { enc: self.enc }
    }

    fn message(&self, msg: &Message, depth: usize, out: &mut dyn TreeOut) {
        let n = self.n;
        let wire = msg.emit();
        let length = super::message::header(&wire).map_or(0, |(_, (_, _, len))| len);
        out.open(Field::node(n.proto, n.proto_label, 0, wire.len()));
        let type_note = match msg.protocol {
            Protocol::Asap => msg.asap_type().map_or("Unknown", AsapType::name),
            Protocol::Enrp => msg.enrp_type().map_or("Unknown", EnrpType::name),
        };
        out.leaf(Field::uint(n.message_type, "Type", msg.msg_type, 0, 1).note(type_note));
        out.open(Field::uint(n.message_flags, "Flags", msg.flags, 1, 1).hex(2));
        self.flag_bits(msg, out);
        out.close();
        out.leaf(Field::uint(n.message_length, "Length", length, 2, 2));
        let mut off = 4;
        match &msg.fixed {
            Fixed::None => {}
            Fixed::ServerId(id) => {
                out.leaf(
                    Field::uint("asap.server_identifier", "Server Identifier", *id, 4, 4).hex(8),
                );
                off = 8;
            }
            Fixed::Servers { sender, receiver } => {
                servers(*sender, *receiver, out);
                off = 12;
            }
            Fixed::Update {
                sender,
                receiver,
                action,
                reserved,
            } => {
                servers(*sender, *receiver, out);
                out.leaf(
                    Field::uint("enrp.update_action", "Update Action", *action, 12, 2)
                        .note(UpdateAction::of(*action).name()),
                );
                out.leaf(Field::uint("enrp.reserved", "Reserved", *reserved, 14, 2).hex(4));
                off = 16;
            }
            Fixed::Takeover {
                sender,
                receiver,
                target,
            } => {
                servers(*sender, *receiver, out);
                out.leaf(
                    Field::uint(
                        "enrp.target_servers_id",
                        "Target Server's ID",
                        *target,
                        12,
                        4,
                    )
                    .hex(8),
                );
                off = 16;
            }
            Fixed::Raw(body) => {
                let known = msg.asap_type().is_some() || msg.enrp_type().is_some();
                if msg.protocol == Protocol::Asap && !known && depth <= MAX_DEPTH {
                    // As Wireshark does: an unknown ASAP type is shown with its parameters.
                    let mut errors = Vec::new();
                    let mut ctx = Ctx {
                        enc: self.enc,
                        errors: &mut errors,
                    };
                    let ps = parse_params(&mut ctx, body, 4, depth + 1);
                    self.params(&ps, 4, depth + 1, out);
                } else if !body.is_empty() {
                    out.leaf(Field::bytes(n.message_value, "Value", body, 4));
                }
                off = 4 + body.len();
            }
        }
        self.params(&msg.params, off, depth, out);
        if !msg.trailing.is_empty() {
            out.leaf(Field::bytes(
                "poolshark.rserpool.trailing",
                "Bytes after the message",
                &msg.trailing,
                wire.len() - msg.trailing.len(),
            ));
        }
        if depth == 0 {
            out.leaf(
                Field::string(
                    "poolshark.rserpool.encoding",
                    "Encoding",
                    msg.encoding.name(),
                    0,
                    0,
                )
                // Not tshark's: a field for filters and columns, not a line of `-V`.
                .hidden(),
            );
        }
        out.close();
    }

    fn flag_bits(&self, msg: &Message, out: &mut dyn TreeOut) {
        let f = msg.flags;
        let n = self.n;
        match (msg.asap_type(), msg.enrp_type()) {
            (Some(AsapType::RegistrationResponse), _) => out.leaf(flag(
                n.r_bit,
                "R Bit",
                f,
                FLAG_REJECT,
                ["Accepted", "Rejected"],
            )),
            (Some(AsapType::EndpointKeepAlive), _) => out.leaf(flag(
                "asap.h_bit",
                "H Bit",
                f,
                FLAG_HOME,
                [
                    "Do not want to be new ENRP server",
                    "Want to be new ENRP server",
                ],
            )),
            (_, Some(EnrpType::Presence)) => out.leaf(flag(
                n.r_bit,
                "R Bit",
                f,
                FLAG_REPLY_REQUIRED,
                ["Reply not required", "Reply required"],
            )),
            (_, Some(EnrpType::HandleTableRequest)) => out.leaf(flag(
                "enrp.w_bit",
                "W Bit",
                f,
                FLAG_OWN_CHILDREN_ONLY,
                ["Information for all PEs", "Only information for own PEs"],
            )),
            (_, Some(EnrpType::HandleTableResponse)) => {
                out.leaf(flag(
                    "enrp.m_bit",
                    "M Bit",
                    f,
                    FLAG_MORE,
                    ["All information included", "More information available"],
                ));
                out.leaf(flag(
                    n.r_bit,
                    "R Bit",
                    f,
                    FLAG_REJECT,
                    ["Accepted", "Rejected"],
                ));
            }
            (_, Some(EnrpType::HandleUpdate)) => out.leaf(flag(
                "enrp.t_bit",
                "T Bit",
                f,
                FLAG_TAKEOVER_SUGGESTED,
                ["Takeover not suggested", "Takeover suggested"],
            )),
            (_, Some(EnrpType::ListResponse)) => out.leaf(flag(
                n.r_bit,
                "R Bit",
                f,
                FLAG_REJECT,
                ["Accepted", "Rejected"],
            )),
            _ => {}
        }
    }

    fn params(&self, ps: &[Parameter], mut off: usize, depth: usize, out: &mut dyn TreeOut) {
        let mut wire = Vec::new();
        for p in ps {
            wire.clear();
            self.emit().emit_param(p, &mut wire);
            self.param(p, &wire, off, depth, out);
            off += wire.len();
        }
    }

    /// One parameter; `wire` is its encoding (header, value, padding), at `off`.
    fn param(&self, p: &Parameter, wire: &[u8], off: usize, depth: usize, out: &mut dyn TreeOut) {
        let n = self.n;
        let (labels, notes) = (out.labels(), out.notes());
        if let Parameter::Unprocessed(b) = p {
            let label = if labels {
                Cow::Owned(format!("Unprocessed bytes ({})", b.len()))
            } else {
                Cow::Borrowed("")
            };
            out.open(Field::node("", label, off, b.len()));
            out.leaf(Field::bytes(
                "poolshark.rserpool.unprocessed",
                "Unprocessed",
                b,
                off,
            ));
            out.close();
            return;
        }
        let (code, len) = tlv_header(wire).map_or((0, 4), |(_, (c, l))| (c, usize::from(l)));
        let value = wire.get(4..len).unwrap_or_default();
        let v = off + 4;
        let kind = param_kind(code, self.enc);
        let type_note = kind.map_or("Unknown", param_name);
        let label = if labels {
            param_label(p, type_note)
        } else {
            Cow::Borrowed("")
        };
        out.open(Field::node("", label, off, wire.len()));
        out.leaf(
            Field::uint(n.parameter_type, "Parameter Type", code, off, 2)
                .hex(4)
                .note(type_note),
        );
        out.leaf(Field::uint(
            n.parameter_length,
            "Parameter Length",
            len as u64,
            off + 2,
            2,
        ));
        match p {
            Parameter::Ipv4(a) => {
                out.leaf(Field::ipv4(n.ipv4_address, "IP Version 4 Address", *a, v));
            }
            Parameter::Ipv6(a) => {
                out.leaf(Field::ipv6(n.ipv6_address, "IP Version 6 Address", *a, v));
            }
            Parameter::Transport(t) => self.transport(t, v, depth, out),
            Parameter::Policy(x) => self.policy(x, value, v, out),
            Parameter::PoolHandle(h) => {
                let mut f = Field::bytes(n.pool_handle, "Pool Handle", h, v);
                if notes {
                    f = f.note(format_text(h));
                }
                if labels {
                    f = f.show(format!("{} ({})", crate::field::hex(h), format_text(h)));
                }
                out.leaf(f);
            }
            Parameter::PoolElement(pe) => {
                out.leaf(Field::uint(n.pe_pe_identifier, "PE Identifier", pe.pe_id, v, 4).hex(8));
                out.leaf(
                    Field::uint(
                        n.home_enrp_id,
                        "Home ENRP Server Identifier",
                        pe.home_server_id,
                        v + 4,
                        4,
                    )
                    .hex(8),
                );
                out.leaf(
                    Field::int(
                        n.reg_life,
                        "Registration Life",
                        i64::from(pe.registration_life),
                        v + 8,
                        4,
                    )
                    .unit("ms"),
                );
                self.params(&pe.params, v + 12, depth + 1, out);
            }
            Parameter::ServerInformation(s) => {
                out.leaf(
                    Field::uint(n.server_info_id, "Server Identifier", s.server_id, v, 4).hex(8),
                );
                let mut at = v + 4;
                if let Some(flags) = s.flags {
                    out.leaf(
                        Field::uint("poolshark.rserpool.server_flags", "Flags", flags, at, 4)
                            .hex(8),
                    );
                    at += 4;
                }
                self.params(&s.params, at, depth + 1, out);
            }
            Parameter::OperationError(e) => {
                let mut at = v;
                let mut cw = Vec::new();
                for c in &e.causes {
                    cw.clear();
                    c.emit(&self.emit(), &mut cw);
                    self.cause(c, &cw, at, depth, out);
                    at += cw.len();
                }
                if !e.rest.is_empty() {
                    out.leaf(Field::bytes(
                        "poolshark.rserpool.unprocessed",
                        "Unprocessed",
                        &e.rest,
                        at,
                    ));
                }
            }
            Parameter::Cookie(c) => {
                if !c.is_empty() {
                    out.leaf(Field::bytes(n.cookie, "Cookie", c, v));
                }
            }
            Parameter::PeIdentifier(id) => {
                out.leaf(Field::uint(n.pe_identifier, "PE Identifier", *id, v, 4).hex(8));
            }
            Parameter::PeChecksum(c) => {
                out.leaf(Field::uint(n.pe_checksum, "PE Checksum", *c, v, 2).hex(4));
            }
            Parameter::OpaqueTransport(b) => {
                if !b.is_empty() {
                    out.leaf(Field::bytes(n.parameter_value, "Opaque Transport", b, v));
                }
            }
            Parameter::HandleResolutionOption(items) => {
                out.leaf(Field::uint(n.hropt_items, "Items", *items, v, 4));
            }
            Parameter::Unknown { code, value } => {
                if !value.is_empty() {
                    out.leaf(Field::bytes(n.parameter_value, "Parameter Value", value, v));
                }
                let action = UnknownAction::of(*code);
                let text = match action {
                    UnknownAction::Stop => "stop: the rest of the parent was not processed",
                    UnknownAction::StopReport => {
                        "stop and report: the rest of the parent was not processed"
                    }
                    UnknownAction::Skip => "skip",
                    UnknownAction::SkipReport => "skip and report",
                };
                out.leaf(Field::string(
                    "poolshark.rserpool.unknown_action",
                    "Unknown parameter action",
                    text,
                    off,
                    2,
                ));
            }
            Parameter::Invalid { value, .. } => {
                if !value.is_empty() {
                    out.leaf(Field::bytes(n.parameter_value, "Parameter Value", value, v));
                }
            }
            Parameter::Unprocessed(_) => {}
        }
        if let Some(pad) = wire.get(len..).filter(|p| !p.is_empty()) {
            out.leaf(Field::bytes(n.parameter_padding, "Padding", pad, off + len));
        }
        out.close();
    }

    fn transport(&self, t: &Transport, v: usize, depth: usize, out: &mut dyn TreeOut) {
        let n = self.n;
        let use_note = |u: u16| match u {
            0 => "Data only",
            1 => "Data plus control",
            _ => "Unknown",
        };
        match t.protocol {
            TransportProtocol::Sctp | TransportProtocol::Tcp => {
                let port = if t.protocol == TransportProtocol::Sctp {
                    n.sctp_port
                } else {
                    n.tcp_port
                };
                out.leaf(Field::uint(port, "Port", t.port, v, 2));
                out.leaf(
                    Field::uint(n.transport_use, "Transport Use", t.transport_use, v + 2, 2)
                        .note(use_note(t.transport_use)),
                );
            }
            TransportProtocol::Udp => {
                out.leaf(Field::uint(n.udp_port, "Port", t.port, v, 2));
                out.leaf(Field::uint(
                    n.udp_reserved,
                    "Reserved",
                    t.transport_use,
                    v + 2,
                    2,
                ));
            }
            TransportProtocol::UdpLite => {
                out.leaf(Field::uint(n.udp_lite_port, "Port", t.port, v, 2));
                out.leaf(Field::uint(
                    n.udp_lite_reserved,
                    "Reserved",
                    t.transport_use,
                    v + 2,
                    2,
                ));
            }
            TransportProtocol::Dccp { service_code } => {
                out.leaf(Field::uint(n.dccp_port, "Port", t.port, v, 2));
                out.leaf(Field::uint(
                    n.dccp_reserved,
                    "Reserved",
                    t.transport_use,
                    v + 2,
                    2,
                ));
                out.leaf(Field::uint(
                    n.dccp_service_code,
                    "Service Code",
                    service_code,
                    v + 4,
                    4,
                ));
            }
        }
        self.params(&t.addresses, v + t.protocol.fixed_len(), depth + 1, out);
    }

    /// The policy's fields; `value` is its wire value at `v`.
    fn policy(&self, p: &Policy, value: &[u8], v: usize, out: &mut dyn TreeOut) {
        let n = self.n;
        let labels = out.labels();
        let kind = p.kind();
        let legacy = p.encoding != Encoding::Rfc;
        let (type_len, digits) = if legacy { (1, 2) } else { (4, 8) };
        out.leaf(
            Field::uint(n.policy_type, "Policy Type", p.code, v, type_len)
                .hex(digits)
                .note(kind.long_name()),
        );
        out.leaf(
            Field::string("poolshark.policy", "Policy", kind.short_name(), v, type_len).hidden(),
        );
        // Where value i sits: legacy packs the first one into the type's word.
        let at = |i: usize| -> (usize, usize) {
            if legacy {
                if i == 0 {
                    (v + 1, 3)
                } else {
                    (v + 4 * i, 4)
                }
            } else {
                (v + 4 + 4 * i, 4)
            }
        };
        if kind == PolicyKind::Unknown {
            if let Some(rest) = value.get(type_len..).filter(|r| !r.is_empty()) {
                out.leaf(Field::bytes(
                    n.policy_value,
                    "Policy Value",
                    rest,
                    v + type_len,
                ));
            }
            return;
        }
        // A percentage: the value, and as the tree shows it (two decimals).
        let percent = |name, label, share: f64, o, l| {
            let f = Field::float(name, label, share, o, l).note("%");
            if labels {
                f.show(format!("{share:.2}%"))
            } else {
                f
            }
        };
        for (i, role) in kind.roles().iter().enumerate() {
            let Some(raw) = p.raw(*role) else { break };
            let (o, l) = at(i);
            let full = if legacy {
                f64::from(super::policy::LEGACY_FULL)
            } else {
                f64::from(u32::MAX)
            };
            let f = match role {
                Role::Weight => Field::uint(n.policy_weight, "Policy Weight", raw, o, l),
                Role::Priority => Field::uint(n.policy_priority, "Policy Priority", raw, o, l),
                Role::Load => percent(
                    n.policy_load,
                    "Policy Load",
                    100.0 * f64::from(raw) / full,
                    o,
                    l,
                ),
                Role::Degradation => percent(
                    n.policy_degradation,
                    "Policy Degradation",
                    100.0 * f64::from(raw) / full,
                    o,
                    l,
                ),
                Role::LoadDpf => Field::float(
                    n.policy_load_dpf,
                    "Policy Load DPF",
                    f64::from(raw) / full,
                    o,
                    l,
                ),
                Role::WeightDpf => Field::float(
                    n.policy_weight_dpf,
                    "Policy Weight DPF",
                    f64::from(raw) / full,
                    o,
                    l,
                ),
                Role::Distance => Field::uint(n.policy_distance, "Policy Distance", raw, o, l),
            };
            out.leaf(f);
        }
    }

    /// One error cause; `wire` is its encoding (header, info, padding), at `off`.
    fn cause(&self, c: &Cause, wire: &[u8], off: usize, depth: usize, out: &mut dyn TreeOut) {
        let n = self.n;
        let len = tlv_header(wire).map_or(4, |(_, (_, l))| usize::from(l));
        let info = wire.get(4..len).unwrap_or_default();
        let kind = c.kind();
        let label = match kind.wireshark_name() {
            _ if !out.labels() => Cow::Borrowed(""),
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(format!(
                "Unknown error cause (code {} and {} byte{} information)",
                c.code,
                info.len(),
                plural(info.len())
            )),
        };
        out.open(Field::node("", label, off, wire.len()));
        out.leaf(
            Field::uint(n.cause_code, "Cause Code", c.code, off, 2)
                .hex(4)
                .note(kind.wireshark_name().unwrap_or("Unknown")),
        );
        out.leaf(Field::uint(
            n.cause_length,
            "Cause Length",
            len as u64,
            off + 2,
            2,
        ));
        let nested_ok = depth < MAX_DEPTH;
        match &c.info {
            CauseInfo::Parameters(ps) => self.params(ps, off + 4, depth + 1, out),
            CauseInfo::UnrecognizedParameter(b) if nested_ok => {
                let mut errors = Vec::new();
                let mut ctx = Ctx {
                    enc: self.enc,
                    errors: &mut errors,
                };
                let ps = parse_params(&mut ctx, b, off + 4, depth + 1);
                self.params(&ps, off + 4, depth + 1, out);
            }
            CauseInfo::UnrecognizedMessage(b) if nested_ok => {
                let mut errors = Vec::new();
                let inner = parse_message(b, self.protocol, self.enc, &mut errors, depth + 1);
                // Its offsets are from its own first byte, which is the cause's info.
                inner.write_at(depth + 1, &mut Shifted::new(out, off + 4));
            }
            CauseInfo::Empty => {}
            CauseInfo::UnrecognizedParameter(b)
            | CauseInfo::UnrecognizedMessage(b)
            | CauseInfo::Raw(b) => {
                out.leaf(Field::bytes(n.cause_info, "Cause Info", b, off + 4));
            }
        }
        if let Some(pad) = wire.get(len..).filter(|p| !p.is_empty()) {
            out.leaf(Field::bytes(n.cause_padding, "Padding", pad, off + len));
        }
        if kind == CauseKind::Unspecified {
            out.leaf(Field::string(
                "poolshark.rserpool.cause",
                "Cause",
                "Unspecified error",
                off,
                2,
            ));
        }
        out.close();
    }
}

/// A parameter node's label: its type's name, with the value where Wireshark shows it there.
fn param_label(p: &Parameter, type_note: &'static str) -> Cow<'static, str> {
    let label = match p {
        Parameter::Ipv4(a) => format!("{type_note} ({a})"),
        Parameter::Ipv6(a) => format!("{type_note} ({a})"),
        Parameter::Cookie(c) => format!("{type_note} ({} byte{})", c.len(), plural(c.len())),
        Parameter::PeIdentifier(id) => format!("{type_note} (0x{id:x})"),
        Parameter::PeChecksum(c) => format!("{type_note} (0x{c:x})"),
        Parameter::Unknown { code, value } => format!(
            "Unknown Parameter (type {code} and {} byte{} value)",
            value.len(),
            plural(value.len())
        ),
        Parameter::Invalid { .. } => format!("{type_note} (malformed)"),
        _ => return Cow::Borrowed(type_note),
    };
    Cow::Owned(label)
}

fn servers(sender: u32, receiver: u32, out: &mut dyn TreeOut) {
    out.leaf(Field::uint("enrp.sender_servers_id", "Sender Server's ID", sender, 4, 4).hex(8));
    out.leaf(
        Field::uint(
            "enrp.receiver_servers_id",
            "Receiver Server's ID",
            receiver,
            8,
            4,
        )
        .hex(8),
    );
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests;
