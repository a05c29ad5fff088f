//! A few fields read straight from a parsed message, without building its display tree
//! ([`Message::fields`]): what `read -T fields` needs when its columns name only these (the
//! messages' types, transaction ids, pool handles and PE identifiers), so that it does not build,
//! format and drop a whole tree per message to print two numbers.
//!
//! [`Message::quick_fields`] gives the occurrences of a field name in the order the tree has
//! them, each with the value and base the tree gives it (the labels, notes and offsets, which a
//! column does not print, are left out); or says it cannot tell without the tree, and the caller
//! builds it. A name of another protocol's family (`dhcp.*` in an ASAP message) has no
//! occurrence, which is answered at once. `tests/it/quick_fields.rs` holds every answer against
//! the tree's on every message of the shared captures and the generated one.

use super::{dhcpv4, dhcpv6, failover, rserpool, AppProtocol, Message};
use crate::field::Field;

/// The families of field names: each protocol's trees hold names of its own family only (a
/// DHCPv6 message carrying a DHCPv4 one also holds DHCPv4's).
const RSERPOOL: &[&str] = &[
    "asap.",
    "enrp.",
    "poolshark.asap.",
    "poolshark.enrp.",
    "poolshark.rserpool.",
];
const DHCPV4: &[&str] = &["dhcp.", "poolshark.dhcp."];
const DHCPV6: &[&str] = &["dhcpv6.", "poolshark.dhcpv6."];
const FAILOVER: &[&str] = &["dhcpfo.", "poolshark.dhcpfo."];

fn in_family(name: &str, family: &[&str]) -> bool {
    family.iter().any(|p| name.starts_with(p))
}

/// Which family `name` is of, if any.
fn family(name: &str) -> Option<&'static [&'static str]> {
    [RSERPOOL, DHCPV4, DHCPV6, FAILOVER]
        .into_iter()
        .find(|f| in_family(name, f))
}

/// Whether a message of `protocol` may hold a field named `name` (its family's, or DHCPv4's in
/// DHCPv6): `false` when [`Message::quick_fields`] would answer that it has none, so that a
/// caller can leave the name out of what it asks of that protocol's messages.
pub fn may_hold(protocol: AppProtocol, name: &str) -> bool {
    let Some(of) = family(name) else {
        return true;
    };
    match protocol {
        AppProtocol::Asap | AppProtocol::Enrp => of == RSERPOOL,
        AppProtocol::Dhcpv4 => of == DHCPV4,
        AppProtocol::Dhcpv6 => of == DHCPV6 || of == DHCPV4,
        AppProtocol::Failover => of == FAILOVER,
    }
}

impl Message<'_> {
    /// Pushes onto `out` the fields named `name` that [`Message::fields`] would hold, in its
    /// order, without building the tree; `false` (and nothing pushed) when that cannot be told
    /// without it.
    pub fn quick_fields(&self, name: &str, out: &mut Vec<Field>) -> bool {
        let Some(of) = family(name) else {
            return false;
        };
        match self {
            Message::Rserpool(m) if of == RSERPOOL => rserpool_fields(m, name, out),
            Message::Dhcpv4(m) if of == DHCPV4 => dhcpv4_fields(m, name, out),
            Message::Dhcpv6(m) if of == DHCPV6 => dhcpv6_fields(m, name, out),
            Message::Dhcpv6(m) if of == DHCPV4 => {
                // DHCPv4 messages carried in DHCPv6 (DHCPv4-over-DHCPv6): the tree then.
                m.relays.iter().all(|r| relay_plain(&r.options))
                    && m.inner.as_ref().is_none_or(|i| plain(&i.options))
            }
            Message::Failover(m) if of == FAILOVER => failover_fields(m, name, out),
            // Another family's name: never in this protocol's tree.
            _ => true,
        }
    }
}

fn failover_fields(m: &failover::Message, name: &str, out: &mut Vec<Field>) -> bool {
    match name {
        "dhcpfo.type" => out.push(Field::uint(
            "dhcpfo.type",
            "Message Type",
            m.msg_type.to_u8(),
            2,
            1,
        )),
        "dhcpfo.xid" => out.push(Field::uint("dhcpfo.xid", "Xid", m.xid, 8, 4).hex(8)),
        _ => return false,
    }
    true
}

fn dhcpv4_fields(m: &dhcpv4::Message<'_>, name: &str, out: &mut Vec<Field>) -> bool {
    match name {
        "dhcp.id" => {
            // The tree shows the field when the message is long enough to hold it (a message
            // made in code, of no length yet, is measured by emitting it: the tree then).
            if m.pos.len == 0 {
                return false;
            }
            if m.pos.len >= 8 {
                out.push(Field::uint("dhcp.id", "Transaction ID", m.xid, 4, 4).hex(8));
            }
        }
        "dhcp.option.dhcp" => {
            let message_type = |o: &dhcpv4::Opt<'_>, out: &mut Vec<Field>| {
                if let dhcpv4::OptValue::MessageType(t) = o.value {
                    out.push(Field::uint(
                        "dhcp.option.dhcp",
                        "DHCP",
                        t,
                        o.data_offset(),
                        1,
                    ));
                }
            };
            for o in &m.options {
                message_type(o, out);
                // Option 52's subtree holds the options overloaded into sname, then file.
                if o.code == dhcpv4::code::OVERLOAD {
                    let areas = [&m.sname_options, &m.file_options];
                    for o in areas.into_iter().flatten().flatten() {
                        message_type(o, out);
                    }
                }
            }
        }
        _ => return false,
    }
    true
}

/// Whether these options (and those within them) carry no message of their own: no relayed
/// message, no leasequery relay data, no DHCPv4 message.
fn plain(options: &[dhcpv6::Opt<'_>]) -> bool {
    use dhcpv6::OptValue as V;
    options.iter().all(|o| match &o.value {
        V::RelayMsg(_) | V::LqRelayData(_) | V::Dhcpv4Msg(_) => false,
        V::IaNa(ia) | V::IaPd(ia) => plain(&ia.options),
        V::IaTa(ia) => plain(&ia.options),
        V::IaAddr(a) => plain(&a.options),
        V::IaPrefix(p) => plain(&p.options),
        V::LqQuery(q) => plain(&q.options),
        V::ClientData(c) => plain(c),
        V::ClientId(_)
        | V::ServerId(_)
        | V::Oro(_)
        | V::Preference(_)
        | V::ElapsedTime(_)
        | V::Auth { .. }
        | V::Unicast(_)
        | V::StatusCode { .. }
        | V::Empty
        | V::UserClass(_)
        | V::VendorClass { .. }
        | V::VendorOpts { .. }
        | V::InterfaceId(_)
        | V::ReconfMsg(_)
        | V::Addresses(_)
        | V::DomainNames(_)
        | V::ClientFqdn { .. }
        | V::NtpServer(_)
        | V::CltTime(_)
        | V::Text(_)
        | V::Raw(_) => true,
    })
}

/// Whether a relay's options carry no message but the one relayed (the next layer, or bytes).
fn relay_plain(options: &[dhcpv6::Opt<'_>]) -> bool {
    options
        .iter()
        .all(|o| matches!(o.value, dhcpv6::OptValue::RelayMsg(_)) || plain(std::slice::from_ref(o)))
}

fn dhcpv6_fields(m: &dhcpv6::Message<'_>, name: &str, out: &mut Vec<Field>) -> bool {
    use dhcpv6::{OptValue, RelayMsg};
    // A client or server message, relayed or not, carrying no other message: each relay's
    // first RELAY_MSG holds the next layer (its others are bytes), as the tree nests them up to
    // its depth.
    let Some(inner) = m.inner.as_ref() else {
        return false;
    };
    let relay_ok = |r: &dhcpv6::Relay<'_>| {
        r.options
            .iter()
            .any(|o| matches!(o.value, OptValue::RelayMsg(RelayMsg::Next)))
            && relay_plain(&r.options)
    };
    if m.relays.len() > dhcpv6::MAX_TREE_NESTING
        || !m.relays.iter().all(relay_ok)
        || !plain(&inner.options)
    {
        return false;
    }
    match name {
        "dhcpv6.msgtype" => {
            for r in &m.relays {
                out.push(Field::uint(
                    "dhcpv6.msgtype",
                    "Message type",
                    r.msg_type,
                    r.pos.offset,
                    1,
                ));
            }
            out.push(Field::uint(
                "dhcpv6.msgtype",
                "Message type",
                inner.msg_type,
                inner.pos.offset,
                1,
            ));
        }
        "dhcpv6.xid" => out.push(
            Field::uint(
                "dhcpv6.xid",
                "Transaction ID",
                inner.xid,
                inner.pos.offset + 1,
                3,
            )
            .hex(6),
        ),
        _ => return false,
    }
    true
}

/// The names of an RSerPool protocol's fields read here: its message type, pool handle and PE
/// identifier (as `rserpool::names` has them).
fn rserpool_names(p: rserpool::Protocol) -> [&'static str; 3] {
    match p {
        rserpool::Protocol::Asap => [
            "asap.message_type",
            "asap.pool_handle_pool_handle",
            "asap.pool_element_pe_identifier",
        ],
        rserpool::Protocol::Enrp => [
            "enrp.message_type",
            "enrp.pool_handle_pool_handle",
            "enrp.pool_element_pe_identifier",
        ],
    }
}

fn rserpool_fields(m: &rserpool::Message, name: &str, out: &mut Vec<Field>) -> bool {
    use rserpool::{Fixed, Parameter, Protocol};
    let [message_type, pool_handle, pe_identifier] = rserpool_names(m.protocol);
    let other = match m.protocol {
        Protocol::Asap => Protocol::Enrp,
        Protocol::Enrp => Protocol::Asap,
    };
    // Nested messages are of the message's own protocol: the other's names are in none.
    if rserpool_names(other).contains(&name) {
        return true;
    }
    if ![message_type, pool_handle, pe_identifier].contains(&name) {
        return false;
    }
    // An unknown ASAP type's body is shown as the parameters it parses as, and an error cause
    // may hold parameters or a message parsed again from its bytes: the tree then.
    if let Fixed::Raw(_) = m.fixed {
        if m.protocol == Protocol::Asap && m.asap_type().is_none() {
            return false;
        }
    }
    if !simple(&m.params) {
        return false;
    }
    if name == message_type {
        out.push(Field::uint(message_type, "Type", m.msg_type, 0, 1));
        return true;
    }
    fn walk(ps: &[Parameter], name: &str, names: [&'static str; 3], out: &mut Vec<Field>) {
        let [_, pool_handle, pe_identifier] = names;
        for p in ps {
            match p {
                Parameter::PoolHandle(h) if name == pool_handle => {
                    out.push(Field::bytes(pool_handle, "Pool Handle", h, 0));
                }
                Parameter::PoolElement(pe) => {
                    if name == pe_identifier {
                        out.push(
                            Field::uint(pe_identifier, "PE Identifier", pe.pe_id, 0, 4).hex(8),
                        );
                    }
                    walk(&pe.params, name, names, out);
                }
                Parameter::ServerInformation(s) => walk(&s.params, name, names, out),
                _ => {}
            }
        }
    }
    walk(&m.params, name, rserpool_names(m.protocol), out);
    true
}

/// Whether no parameter (at any depth) is an operation error, whose causes may hold parameters
/// or a message parsed again from their bytes.
fn simple(ps: &[rserpool::Parameter]) -> bool {
    use rserpool::Parameter;
    ps.iter().all(|p| match p {
        Parameter::OperationError(_) => false,
        Parameter::PoolElement(pe) => simple(&pe.params),
        Parameter::ServerInformation(s) => simple(&s.params),
        _ => true,
    })
}
