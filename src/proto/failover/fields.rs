//! The display tree of a failover message, with Wireshark's `dhcpfo.*` field names (and
//! `poolshark.dhcpfo.*` where Wireshark 4.0 has none). Offsets are from the message start.

use std::borrow::Cow;

use super::message::{Message, HEADER_LEN, OPTION_HEADER_LEN};
use super::option::{ip_flag, option_name, server_flag, FoOption};
use super::values::{reject_reason_name, tls_reply_name, tls_request_name};
use crate::base::calendar::Civil;
use crate::field::out::{TreeOut, TreeSink};
use crate::field::{hex_colons, printable, Field, Value};

impl Message {
    /// The tree: one `dhcpfo` node holding the header fields and the options.
    pub fn fields(&self) -> Vec<Field> {
        let mut tree = TreeSink::default();
        self.write_tree(&mut tree);
        tree.finish()
    }

    /// The tree into `out` ([`crate::field::out`]), with no tree built in between.
    pub fn write_tree(&self, out: &mut dyn TreeOut) {
        let notes = out.notes();
        let len = self.wire_len();
        out.open(Field::node("dhcpfo", "DHCP Failover", 0, len));
        out.leaf(Field::uint(
            "dhcpfo.length",
            "Message length",
            len as u64,
            0,
            2,
        ));
        let mut ty = Field::uint("dhcpfo.type", "Message Type", self.msg_type.to_u8(), 2, 1);
        if notes {
            ty = ty.note(type_note(self));
        }
        out.leaf(ty);
        out.leaf(Field::uint(
            "dhcpfo.poffset",
            "Payload Offset",
            self.payload_offset,
            3,
            1,
        ));
        out.leaf(time_field("dhcpfo.time", "Time", self.time, 4, notes));
        out.leaf(Field::uint("dhcpfo.xid", "Xid", self.xid, 8, 4).hex(8));

        let mut off = HEADER_LEN;
        if !self.extra_header.is_empty() {
            out.leaf(Field::bytes(
                "dhcpfo.additionalheaderbytes",
                "Additional Header Bytes",
                &self.extra_header,
                off,
            ));
            off += self.extra_header.len();
        }
        if !self.options.is_empty() || !self.trailing.is_empty() {
            out.open(Field::node(
                "dhcpfo.payloaddata",
                "Payload Data",
                off,
                len - off,
            ));
            for o in &self.options {
                off += option_fields(o, off, out);
            }
            if !self.trailing.is_empty() {
                out.leaf(Field::bytes(
                    "poolshark.dhcpfo.trailing",
                    "Bytes that do not make an option",
                    &self.trailing,
                    off,
                ));
            }
            out.close();
        }
        out.close();
    }
}

fn type_note(m: &Message) -> String {
    match m.msg_type.abbrev() {
        Some(a) => format!("{a}, {}", m.msg_type.description()),
        None => "unknown".into(),
    }
}

/// One option: a `dhcpfo.dhcpstyleoption` node with its code, length and value fields. Returns
/// its length on the wire.
fn option_fields(o: &FoOption, at: usize, out: &mut dyn TreeOut) -> usize {
    let data = o.data();
    let c = o.code();
    let name = option_name(c).unwrap_or("unknown");
    let v = at + OPTION_HEADER_LEN;
    let len = OPTION_HEADER_LEN + data.len();
    let label = if out.labels() {
        Cow::Owned(format!("DHCP Style Option, {name} ({c})"))
    } else {
        Cow::Borrowed("")
    };
    out.open(Field::node("dhcpfo.dhcpstyleoption", label, at, len));
    out.leaf(Field::uint("dhcpfo.optioncode", "Option Code", c, at, 2).note(name));
    out.leaf(Field::uint(
        "dhcpfo.optionlength",
        "Length",
        data.len() as u64,
        at + 2,
        2,
    ));
    value_fields(o, &data, v, out);
    out.close();
    len
}

fn text(name: &'static str, label: &'static str, b: &[u8], at: usize) -> Field {
    Field::new(
        name,
        label,
        Value::Str(String::from_utf8_lossy(b).into_owned()),
        at,
        b.len(),
    )
}

/// A time as seconds since the epoch, its date in the note (when notes are wanted).
fn time_field(name: &'static str, label: &'static str, t: u32, at: usize, notes: bool) -> Field {
    let f = Field::uint(name, label, t, at, 4);
    if notes {
        f.note(utc(t))
    } else {
        f
    }
}

fn value_fields(o: &FoOption, data: &[u8], at: usize, out: &mut dyn TreeOut) {
    use FoOption::*;
    let notes = out.notes();
    match o {
        AddressesTransferred(n) => out.leaf(Field::uint(
            "dhcpfo.addressestransferred",
            "Addresses transferred",
            *n,
            at,
            4,
        )),
        AssignedIpAddress(a) => out.leaf(Field::ipv4(
            "dhcpfo.assignedipaddress",
            "Assigned IP address",
            *a,
            at,
        )),
        BindingStatus(s) => out.leaf(
            Field::uint("dhcpfo.bindingstatus", "Binding status", s.to_u8(), at, 1).note(s.name()),
        ),
        ClientIdentifier(b) => {
            let mut f = Field::bytes("dhcpfo.clientidentifier", "Client Identifier", b, at);
            if let Some(t) = printable(b).filter(|_| notes) {
                f = f.note(format!("\"{t}\""));
            }
            out.leaf(f)
        }
        ClientHardwareAddress { htype, address } => {
            out.leaf(
                Field::uint(
                    "dhcpfo.clienthardwaretype",
                    "Client Hardware Type",
                    *htype,
                    at,
                    1,
                )
                .hex(2)
                .note(if *htype == 1 { "Ethernet" } else { "" }),
            );
            out.leaf(Field::string(
                "dhcpfo.clienthardwareaddress",
                "Client Hardware Address",
                hex_colons(address),
                at + 1,
                address.len(),
            ));
        }
        ClientLastTransactionTime(t) => out.leaf(time_field(
            "dhcpfo.clientlasttransactiontime",
            "Client last transaction time",
            *t,
            at,
            notes,
        )),
        // Wireshark files both under one name.
        ClientReplyOptions(b) => {
            out.leaf(Field::bytes("dhcpfo.options", "Options", b, at).note("client reply options"))
        }
        ClientRequestOptions(b) => out
            .leaf(Field::bytes("dhcpfo.options", "Options", b, at).note("client request options")),
        // Wireshark shows the whole payload as one string; the flags come first.
        Ddns { flags, name } => {
            let mut f = Field::new(
                "dhcpfo.ftddns",
                "FTDDNS",
                Value::Str(String::from_utf8_lossy(name).into_owned()),
                at,
                data.len(),
            );
            if notes {
                f = f.note(format!("flags {flags:#06x}"));
            }
            out.open(f);
            out.leaf(Field::uint("poolshark.dhcpfo.ddns.flags", "Flags", *flags, at, 2).hex(4));
            out.leaf(text(
                "poolshark.dhcpfo.ddns.name",
                "Domain name",
                name,
                at + 2,
            ));
            out.close();
        }
        DelayedService(v) => out.leaf(Field::uint(
            "dhcpfo.delayedserviceparameter",
            "Delayed service parameter",
            *v,
            at,
            1,
        )),
        HashBucketAssignment(b) => out.leaf(Field::bytes(
            "dhcpfo.hashbucketassignment",
            "Hash bucket assignment",
            b,
            at,
        )),
        IpFlags(v) => {
            out.leaf(Field::uint("dhcpfo.ipflags", "IP Flags", *v, at, 2).hex(4));
            out.leaf(Field::boolean(
                "poolshark.dhcpfo.ipflags.reserved",
                "Reserved lease",
                v & ip_flag::RESERVED != 0,
                at,
                2,
            ));
            out.leaf(Field::boolean(
                "poolshark.dhcpfo.ipflags.bootp",
                "BOOTP",
                v & ip_flag::BOOTP != 0,
                at,
                2,
            ));
        }
        LeaseExpirationTime(t) => out.leaf(time_field(
            "dhcpfo.leaseexpirationtime",
            "Lease expiration time",
            *t,
            at,
            notes,
        )),
        MaxUnackedBndupd(n) => out.leaf(Field::uint(
            "dhcpfo.maxunackedbndupd",
            "Max unacked BNDUPD",
            *n,
            at,
            4,
        )),
        Mclt(n) => out.leaf(Field::uint("dhcpfo.mclt", "MCLT", *n, at, 4).unit(" seconds")),
        Message(b) => out.leaf(text("dhcpfo.message", "Message", b, at)),
        MessageDigest {
            digest_type,
            digest,
        } => {
            out.leaf(
                Field::uint(
                    "dhcpfo.message_digest_type",
                    "Message digest type",
                    *digest_type,
                    at,
                    1,
                )
                .note(if *digest_type == 1 { "HMAC-MD5" } else { "" }),
            );
            out.leaf(Field::bytes(
                "dhcpfo.messagedigest",
                "Message digest",
                digest,
                at + 1,
            ));
        }
        PotentialExpirationTime(t) => out.leaf(time_field(
            "dhcpfo.potentialexpirationtime",
            "Potential expiration time",
            *t,
            at,
            notes,
        )),
        ReceiveTimer(n) => out
            .leaf(Field::uint("dhcpfo.receivetimer", "Receive timer", *n, at, 4).unit(" seconds")),
        ProtocolVersion(v) => out.leaf(Field::uint(
            "dhcpfo.protocolversion",
            "Protocol version",
            *v,
            at,
            1,
        )),
        RejectReason(r) => out.leaf(
            Field::uint("dhcpfo.rejectreason", "Reject reason", *r, at, 1)
                .note(reject_reason_name(*r)),
        ),
        RelationshipName(b) => {
            out.leaf(text("dhcpfo.relationshipname", "Relationship name", b, at))
        }
        ServerFlags(f) => out.leaf(
            Field::uint("dhcpfo.serverflag", "Server flags", *f, at, 1).note(
                if f & server_flag::STARTUP != 0 {
                    "STARTUP"
                } else {
                    "NONE"
                },
            ),
        ),
        ServerState(s) => out.leaf(
            Field::uint("dhcpfo.serverstatus", "Server state", s.to_u8(), at, 1).note(s.name()),
        ),
        StartTimeOfState(t) => out.leaf(time_field(
            "dhcpfo.starttimeofstate",
            "Start time of state",
            *t,
            at,
            notes,
        )),
        TlsReply(v) => out
            .leaf(Field::uint("dhcpfo.tls_reply", "TLS Reply", *v, at, 1).note(tls_reply_name(*v))),
        TlsRequest(v) => out.leaf(
            Field::uint("dhcpfo.tls_request", "TLS Request", *v, at, 1).note(tls_request_name(*v)),
        ),
        VendorClass(b) => out.leaf(text("dhcpfo.vendorclass", "Vendor class", b, at)),
        VendorOptions(b) => out.leaf(Field::bytes("dhcpfo.vendoroption", "Vendor option", b, at)),
        Raw { .. } => out.leaf(Field::bytes(
            "poolshark.dhcpfo.optiondata",
            "Option data",
            data,
            at,
        )),
    }
}

/// Seconds since the epoch as a UTC date, "2026-11-30 04:22:36 UTC" (0 is shown as it is: ISC
/// writes 0 for "never").
fn utc(secs: u32) -> Cow<'static, str> {
    Cow::Owned(format!("{} UTC", Civil::from_epoch(i64::from(secs))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::find;
    use crate::proto::failover::values::{BindingStatus, MessageType};
    use std::net::Ipv4Addr;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // tshark shows 0x6b0cfa0c (frame 6 of the failover capture) as Nov 30, 2026 04:22:36 UTC.
        assert_eq!(utc(0x6b0c_fa0c), "2026-11-30 04:22:36 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(u32::MAX), "2106-02-07 06:28:15 UTC");
    }

    #[test]
    fn the_json_fields_written_straight_are_those_of_the_tree() {
        use crate::output::json::assert_written_as_the_tree;
        use crate::proto::failover::message::tests::every_option;
        let mut every = Message::new(MessageType::Other(200), 7, 8, every_option());
        every.extra_header = vec![9, 9];
        every.trailing = vec![1, 2, 3];
        let messages = [
            every,
            Message::new(MessageType::BndUpd, 1, 0x47, Vec::new()),
            Message::new(
                MessageType::BndUpd,
                1,
                0x47,
                // Names that repeat: an array in the object.
                vec![
                    FoOption::AssignedIpAddress(Ipv4Addr::new(192, 0, 2, 128)),
                    FoOption::BindingStatus(BindingStatus::Active),
                    FoOption::BindingStatus(BindingStatus::Free),
                ],
            ),
        ];
        for m in &messages {
            let from_tree = assert_written_as_the_tree(&m.fields(), |o| m.write_tree(o), "");
            assert!(from_tree.len() > 40, "{}", from_tree);
        }
    }

    #[test]
    fn tree_offsets_follow_the_layout() {
        let m = Message::new(
            MessageType::BndUpd,
            1,
            0x47,
            vec![
                FoOption::AssignedIpAddress(Ipv4Addr::new(192, 0, 2, 128)),
                FoOption::BindingStatus(BindingStatus::Active),
                FoOption::ClientHardwareAddress {
                    htype: 1,
                    address: vec![2, 0xc1, 0x11, 0x87, 0, 0x1d],
                },
            ],
        );
        let wire = m.emit().unwrap();
        let fields = m.fields();
        let f = |n| find(&fields, n).unwrap();
        assert_eq!(f("dhcpfo").len, wire.len());
        assert_eq!(f("dhcpfo.xid").display_value(), "0x00000047");
        assert_eq!(f("dhcpfo.assignedipaddress").offset, 16);
        assert_eq!(f("dhcpfo.assignedipaddress").display_value(), "192.0.2.128");
        assert_eq!(f("dhcpfo.bindingstatus").offset, 24);
        assert_eq!(f("dhcpfo.clienthardwaretype").display_value(), "0x01");
        let ch = f("dhcpfo.clienthardwareaddress");
        assert_eq!((ch.offset, ch.len), (30, 6));
        assert_eq!(ch.display_value(), "02:c1:11:87:00:1d");
        assert_eq!(
            wire[ch.offset..ch.offset + ch.len],
            [2, 0xc1, 0x11, 0x87, 0, 0x1d]
        );
        // Every field lies inside the message.
        for root in &fields {
            root.walk(&mut |x| assert!(x.offset + x.len <= wire.len(), "{}", x.name));
        }
    }
}
