//! The display fields of an SCTP packet: the common header, each chunk's header and the fixed
//! fields of DATA, I-DATA, INIT, INIT_ACK, SACK and HEARTBEAT, and the parameters of INIT,
//! INIT_ACK and HEARTBEAT, as tshark words them.

use crate::field::Field;
use crate::wire::view::{hex, Span, View};

/// The name of an INIT (`prefix` `sctp.init_`) or INIT_ACK (`sctp.initack_`) field.
/// The names of INIT's and INIT_ACK's fixed fields: initiate tag, credit, outbound and inbound
/// stream counts, initial TSN (all among [`FIELDS`]).
pub const INIT_FIELDS: [&str; 5] = [
    "sctp.init_initiate_tag",
    "sctp.init_credit",
    "sctp.init_nr_out_streams",
    "sctp.init_nr_in_streams",
    "sctp.init_initial_tsn",
];
pub const INITACK_FIELDS: [&str; 5] = [
    "sctp.initack_initiate_tag",
    "sctp.initack_credit",
    "sctp.initack_nr_out_streams",
    "sctp.initack_nr_in_streams",
    "sctp.initack_initial_tsn",
];

/// The display fields of an SCTP packet (`sctp`) at `s.at`: the common header and its chunks;
/// with the ports and verification tag. `None` when the common header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, u16, u16, u32)> {
    let a = s.at;
    let (Some(sport), Some(dport), Some(vtag), Some(sum)) = (
        v.be16(a, s),
        v.be16(a + 2, s),
        v.be32(a + 4, s),
        v.be32(a + 8, s),
    ) else {
        return None;
    };
    let mut tree = Field::node(
        "sctp",
        v.label(|| {
            format!(
                "Stream Control Transmission Protocol, Src Port: {sport} ({sport}), Dst Port: \
                 {dport} ({dport})"
            )
        }),
        a,
        s.len(),
    )
    .children(vec![
        Field::uint("sctp.srcport", "Source port", sport, a, 2),
        Field::uint("sctp.dstport", "Destination port", dport, a + 2, 2),
        hex(
            Field::uint("sctp.verification_tag", "Verification tag", vtag, a + 4, 4),
            8,
        ),
        v.text(|| "Association index: disabled (enable in preferences)".to_string())
            .generated(),
        v.show(
            hex(Field::uint("sctp.checksum", "Checksum", sum, a + 8, 4), 8),
            || format!("0x{sum:08x} [unverified]"),
        ),
        v.text(|| "Checksum Status: Unverified".to_string())
            .generated(),
    ]);
    tree.children
        .retain(|c| !c.label.is_empty() || !c.name.is_empty());
    // Room for a few chunks at once rather than growing the vector chunk by chunk.
    tree.children.reserve(4);
    let mut at = a + 12;
    // Each chunk is at least 4 bytes long, so the walk ends within the packet.
    while let (Some(t), Some(flags), Some(len)) = (v.u8(at, s), v.u8(at + 1, s), v.be16(at + 2, s))
    {
        tree = tree.child(chunk(v, at, t, flags, len, s));
        let len = usize::from(len);
        if len < 4 {
            break;
        }
        at += (len + 3) & !3;
    }
    Some((tree, sport, dport, vtag))
}

/// One SCTP chunk: its type, flags and length, and the header of a DATA or SACK chunk.
fn chunk(v: &View, at: usize, t: u8, flags: u8, len: u16, s: Span) -> Field {
    let name = super::chunk_name(t).unwrap_or("UNKNOWN");
    let chunk = Span {
        at,
        end: s.end.min(at + usize::from(len).max(4)),
    };
    let mut flags_f = hex(
        Field::uint("sctp.chunk_flags", "Chunk flags", flags, at + 1, 1),
        2,
    );
    if t == 0 || t == 64 {
        let labels = v.labels;
        let bit = |name, label, mask: u8, words: [&'static str; 2]| {
            let on = flags & mask != 0;
            let f = Field::boolean(name, label, on, at + 1, 1).bits(u64::from(mask), 8);
            if labels {
                f.note(words[usize::from(on)])
            } else {
                f
            }
        };
        flags_f = flags_f.children(vec![
            bit(
                "sctp.data_i_bit",
                "I-Bit",
                8,
                ["Possibly delay SACK", "Send SACK immediately"],
            ),
            bit(
                "sctp.data_u_bit",
                "U-Bit",
                4,
                ["Ordered delivery", "Unordered delivery"],
            ),
            bit(
                "sctp.data_b_bit",
                "B-Bit",
                2,
                ["Subsequent segment", "First segment"],
            ),
            bit(
                "sctp.data_e_bit",
                "E-Bit",
                1,
                ["Not last segment", "Last segment"],
            ),
        ]);
    }
    if t == 3 && v.labels {
        flags_f = flags_f.child(Field::uint("", "Nounce sum", flags & 1, at + 1, 1).bits(0x01, 8));
    }
    let mut type_f = Field::uint("sctp.chunk_type", "Chunk type", t, at, 1).note(name);
    if v.labels {
        type_f = type_f.children(vec![
            Field::boolean("", "Bit", t & 0x80 != 0, at, 1)
                .bits(0x80, 8)
                .note(if t & 0x80 != 0 {
                    "Skip chunk and continue processing"
                } else {
                    "Stop processing of the packet"
                }),
            Field::boolean("", "Bit", t & 0x40 != 0, at, 1)
                .bits(0x40, 8)
                .note(if t & 0x40 != 0 {
                    "Do report"
                } else {
                    "Do not report"
                }),
        ]);
    }
    let title =
        v.label(|| {
            let b32 = |o: usize| v.be32(at + o, chunk).unwrap_or(0);
            let b16 = |o: usize| v.be16(at + o, chunk).unwrap_or(0);
            match t {
                0 => {
                    format!(
                "DATA chunk ({}, {}, TSN: {}, SID: {}, SSN: {}, PPID: {}, payload length: {} \
                 bytes)",
                if flags & 4 != 0 { "unordered" } else { "ordered" },
                match flags & 3 {
                    3 => "complete segment",
                    2 => "first segment",
                    1 => "last segment",
                    _ => "middle segment",
                },
                b32(4),
                b16(8),
                b16(10),
                b32(12),
                len.saturating_sub(16)
            )
                }
                3 => format!(
                    "SACK chunk (Cumulative TSN: {}, a_rwnd: {}, gaps: {}, duplicate TSNs: {})",
                    b32(4),
                    b32(8),
                    b16(12),
                    b16(14)
                ),
                4 | 5 => format!(
                    "{name} chunk (Information: {} bytes)",
                    len.saturating_sub(4)
                ),
                1 | 2 => format!(
                    "{name} chunk (Outbound streams: {}, inbound streams: {})",
                    b16(12),
                    b16(14)
                ),
                _ => format!("{name} chunk"),
            }
        });
    let mut f = Field::node("", title, at, usize::from(len)).children(vec![
        type_f,
        flags_f,
        Field::uint("sctp.chunk_length", "Chunk length", len, at + 2, 2),
    ]);
    match t {
        // DATA, and I-DATA (RFC 8260): its PPID only in a message's first fragment.
        0 | 64 => {
            if let Some(tsn) = v.be32(at + 4, chunk) {
                f = f.child(Field::uint(
                    "sctp.data_tsn_raw",
                    "Transmission sequence number (absolute)",
                    tsn,
                    at + 4,
                    4,
                ));
            }
            if let Some(sid) = v.be16(at + 8, chunk) {
                f = f.child(hex(
                    Field::uint("sctp.data_sid", "Stream identifier", sid, at + 8, 2),
                    4,
                ));
            }
            let ssn = if t == 0 { v.be16(at + 10, chunk) } else { None };
            if let Some(ssn) = ssn {
                f = f.child(Field::uint(
                    "sctp.data_ssn",
                    "Stream sequence number",
                    ssn,
                    at + 10,
                    2,
                ));
            }
            let ppid_at = if t == 0 { at + 12 } else { at + 16 };
            let ppid = if t == 0 || flags & 2 != 0 {
                v.be32(ppid_at, chunk)
            } else {
                None
            };
            if let Some(ppid) = ppid {
                let ppid_name = match ppid {
                    0 => Some("not specified"),
                    11 => Some("ASAP"),
                    12 => Some("ENRP"),
                    _ => None,
                };
                f = f.child(v.name(
                    Field::uint(
                        "sctp.data_payload_proto_id",
                        "Payload protocol identifier",
                        ppid,
                        ppid_at,
                        4,
                    ),
                    ppid_name,
                ));
            }
        }
        // INIT and INIT_ACK: their fixed fields (the parameters after them are left alone).
        1 | 2 => {
            let [tag_name, credit_name, out_name, in_name, tsn_name] =
                if t == 1 { INIT_FIELDS } else { INITACK_FIELDS };
            if let Some(tag) = v.be32(at + 4, chunk) {
                f = f.child(hex(
                    Field::uint(tag_name, "Initiate tag", tag, at + 4, 4),
                    8,
                ));
            }
            if let Some(credit) = v.be32(at + 8, chunk) {
                f = f.child(Field::uint(
                    credit_name,
                    "Advertised receiver window credit (a_rwnd)",
                    credit,
                    at + 8,
                    4,
                ));
            }
            if let Some(n) = v.be16(at + 12, chunk) {
                let label = "Number of outbound streams";
                f = f.child(Field::uint(out_name, label, n, at + 12, 2));
            }
            if let Some(n) = v.be16(at + 14, chunk) {
                let label = "Number of inbound streams";
                f = f.child(Field::uint(in_name, label, n, at + 14, 2));
            }
            if let Some(tsn) = v.be32(at + 16, chunk) {
                let label = "Initial TSN";
                f = f.child(Field::uint(tsn_name, label, tsn, at + 16, 4));
            }
            f = f.children(parameters(
                v,
                Span {
                    at: at + 20,
                    ..chunk
                },
            ));
        }
        // HEARTBEAT and HEARTBEAT_ACK: the Heartbeat Info parameter.
        4 | 5 => {
            f = f.children(parameters(
                v,
                Span {
                    at: at + 4,
                    ..chunk
                },
            ))
        }
        3 => {
            if let Some(cum) = v.be32(at + 4, chunk) {
                f = f.child(Field::uint(
                    "sctp.sack_cumulative_tsn_ack_raw",
                    "Cumulative TSN ACK (absolute)",
                    cum,
                    at + 4,
                    4,
                ));
            }
            if let Some(rwnd) = v.be32(at + 8, chunk) {
                f = f.child(Field::uint(
                    "sctp.sack_a_rwnd",
                    "Advertised receiver window credit (a_rwnd)",
                    rwnd,
                    at + 8,
                    4,
                ));
            }
            if let (true, Some(gaps), Some(dups)) =
                (v.labels, v.be16(at + 12, chunk), v.be16(at + 14, chunk))
            {
                f = f.children(vec![
                    Field::node(
                        "",
                        format!("Number of gap acknowledgement blocks: {gaps}"),
                        at + 12,
                        2,
                    ),
                    Field::node("", format!("Number of duplicated TSNs: {dups}"), at + 14, 2),
                ]);
            }
        }
        _ => {}
    }
    f
}

/// The parameters of an INIT or INIT_ACK chunk (RFC 9260 section 3.3.2, RFC 3758, RFC 5061)
/// or a HEARTBEAT's (section 3.3.5), each worded as tshark words it: its type with the two
/// bits that say what a receiver not knowing it does, its length, its value, its padding.
fn parameters(v: &View, s: Span) -> Vec<Field> {
    let mut out = Vec::new();
    let mut at = s.at;
    // Each parameter is at least 4 bytes long, so the walk ends within the chunk.
    while let (Some(t), Some(len)) = (v.be16(at, s), v.be16(at + 2, s)) {
        let ulen = usize::from(len);
        let value = Span {
            at: at + 4,
            end: s.end.min(at + ulen.max(4)),
        };
        let name = sctp_parameter_name(t);
        let mut type_f = hex(
            Field::uint("sctp.parameter_type", "Parameter type", t, at, 2),
            4,
        )
        .note(name.unwrap_or("Unknown"));
        let bit = |fname, mask: u16, words: [&'static str; 2]| {
            let on = t & mask != 0;
            let f = Field::boolean(fname, "Bit", on, at, 2).bits(u64::from(mask), 16);
            v.name(f, Some(words[usize::from(on)]))
        };
        type_f = type_f.children(vec![
            bit(
                "sctp.parameter_bit_1",
                0x8000,
                [
                    "Stop processing of chunk",
                    "Skip parameter and continue processing of the chunk",
                ],
            ),
            bit(
                "sctp.parameter_bit_2",
                0x4000,
                ["Do not report", "Do report"],
            ),
        ]);
        let bytes = v.data.get(value.at..value.end).unwrap_or_default();
        let mut fields = vec![
            type_f,
            Field::uint("sctp.parameter_length", "Parameter length", len, at + 2, 2),
        ];
        let mut summary = String::new();
        // tshark shows a long value's first 36 bytes and an ellipsis.
        let cut = |f: Field| {
            if bytes.len() > 36 {
                v.show(f, || format!("{}…", crate::field::hex(&bytes[..36])))
            } else {
                f
            }
        };
        match t {
            1 => {
                summary = format!(" (Information: {} bytes)", bytes.len());
                let name = "sctp.parameter_heartbeat_information";
                let label = "Heartbeat information";
                fields.push(cut(Field::bytes(name, label, bytes, value.at)));
            }
            5 => {
                if let Ok(b) = <[u8; 4]>::try_from(bytes) {
                    let a = std::net::Ipv4Addr::from(b);
                    summary = format!(" (Address: {a})");
                    let label = "IP Version 4 address";
                    fields.push(Field::ipv4(
                        "sctp.parameter_ipv4_address",
                        label,
                        a,
                        value.at,
                    ));
                }
            }
            6 => {
                if let Ok(b) = <[u8; 16]>::try_from(bytes) {
                    let a = std::net::Ipv6Addr::from(b);
                    summary = format!(" (Address: {a})");
                    let label = "IP Version 6 address";
                    fields.push(Field::ipv6(
                        "sctp.parameter_ipv6_address",
                        label,
                        a,
                        value.at,
                    ));
                }
            }
            7 => {
                summary = format!(" (Cookie length: {} bytes)", bytes.len());
                let name = "sctp.parameter_state_cookie";
                fields.push(cut(Field::bytes(name, "State cookie", bytes, value.at)));
            }
            9 => {
                if let Some(v) = v.be32(value.at, value) {
                    let label = "Suggested Cookie life-span increment (msec)";
                    let name = "sctp.parameter_cookie_preservative_incr";
                    fields.push(Field::uint(name, label, v, value.at, 4));
                }
            }
            12 => {
                let mut types = Vec::new();
                for (k, pair) in bytes.chunks_exact(2).enumerate() {
                    let kind = u16::from_be_bytes([pair[0], pair[1]]);
                    let what = sctp_parameter_name(kind).filter(|_| matches!(kind, 5 | 6 | 11));
                    types.push(match kind {
                        5 => "IPv4",
                        6 => "IPv6",
                        11 => "Hostname",
                        _ => "Unknown",
                    });
                    let label = "Supported address type";
                    let name = "sctp.parameter_supported_address_type";
                    let at = value.at + 2 * k;
                    fields.push(v.show(Field::uint(name, label, kind, at, 2), || {
                        format!("{} ({kind})", what.unwrap_or("Unknown"))
                    }));
                }
                summary = format!(" (Supported types: {})", types.join(", "));
            }
            0xc006 => {
                if let Some(v) = v.be32(value.at, value) {
                    summary = format!(" (Indication: {v})");
                    let name = "sctp.adaptation_layer_indication";
                    fields.push(hex(Field::uint(name, "Indication", v, value.at, 4), 8));
                }
            }
            // ECN capable, Forward TSN supported: the type says it all.
            0x8000 | 0xc000 => {}
            _ if !bytes.is_empty() => {
                let label = "Parameter value";
                fields.push(Field::bytes("sctp.parameter_value", label, bytes, value.at));
            }
            _ => {}
        }
        let padding = (4 - ulen % 4) % 4;
        let pad_at = at + ulen;
        if padding > 0 && ulen >= 4 && pad_at + padding <= s.end {
            if let Some(p) = v.data.get(pad_at..pad_at + padding) {
                let label = "Parameter padding";
                fields.push(Field::bytes("sctp.parameter_padding", label, p, pad_at));
            }
        }
        let title = v.label(|| format!("{} parameter{summary}", name.unwrap_or("Unknown")));
        out.push(Field::node("", title, at, ulen.max(4) + padding).children(fields));
        if ulen < 4 {
            break;
        }
        at += (ulen + 3) & !3;
    }
    out
}

/// An SCTP INIT or INIT_ACK parameter type's name as tshark writes it (RFC 9260, 3758, 4895,
/// 5061, 6525 and the IANA registry).
fn sctp_parameter_name(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "Heartbeat info",
        5 => "IPv4 address",
        6 => "IPv6 address",
        7 => "State cookie",
        8 => "Unrecognized parameter",
        9 => "Cookie preservative",
        11 => "Hostname",
        12 => "Supported address types",
        0x8000 => "ECN",
        0x8002 => "Random",
        0x8003 => "Authenticated Chunk list",
        0x8004 => "Requested HMAC Algorithm",
        0x8008 => "Supported Extensions",
        0xc000 => "Forward TSN supported",
        0xc001 => "Add IP address",
        0xc002 => "Delete IP address",
        0xc003 => "Error cause indication",
        0xc004 => "Set primary address",
        0xc005 => "Success report",
        0xc006 => "Adaptation Layer Indication",
        _ => return None,
    })
}
