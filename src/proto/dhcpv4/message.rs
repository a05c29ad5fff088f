//! A DHCPv4/BOOTP message: the fixed BOOTP header (RFC 951, RFC 2131 section 2), the magic
//! cookie, the options, the options overloaded into `file` and `sname` (option 52), and what
//! follows END. Parsing is lenient: whatever is wrong becomes a [`DecodeError`] and the rest is
//! still decoded.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use nom::bytes::complete::take;
use nom::number::complete::{be_u16, be_u32, be_u8};
use nom::{IResult, Parser};

use super::options::{code, parse_area, Opt, OptValue};
use super::pos::Pos;
use super::relay_agent::SubOpt;
use crate::error::DecodeError;

/// `99.130.83.99`, RFC 2131 section 3.
pub const MAGIC_COOKIE: [u8; 4] = [99, 130, 83, 99];
/// op .. file: the fixed BOOTP header.
pub const BOOTP_HEADER_LEN: usize = 236;
/// Where `sname` (64 bytes) and `file` (128 bytes) start.
pub const SNAME_OFFSET: usize = 44;
pub const SNAME_LEN: usize = 64;
pub const FILE_OFFSET: usize = 108;
pub const FILE_LEN: usize = 128;
/// Where the options start after the cookie.
pub const OPTIONS_OFFSET: usize = 240;

/// BOOTP `op`.
pub const BOOTREQUEST: u8 = 1;
pub const BOOTREPLY: u8 = 2;
/// The broadcast bit of `flags`.
pub const FLAG_BROADCAST: u16 = 0x8000;

/// One DHCPv4 or BOOTP message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message<'a> {
    pub op: u8,
    pub htype: u8,
    /// Hardware address length as sent: may exceed the 16 bytes of `chaddr`.
    pub hlen: u8,
    pub hops: u8,
    pub xid: u32,
    pub secs: u16,
    pub flags: u16,
    pub ciaddr: Ipv4Addr,
    pub yiaddr: Ipv4Addr,
    pub siaddr: Ipv4Addr,
    pub giaddr: Ipv4Addr,
    /// All 16 bytes of the field; [`Message::chaddr`] cuts it to `hlen`.
    pub chaddr: [u8; 16],
    /// The 64 bytes of `sname` as sent (shorter only when the message was cut short; emit pads
    /// with zeros). Holds options when option 52 says so (see `sname_options`).
    pub sname: Cow<'a, [u8]>,
    /// The 128 bytes of `file`, likewise.
    pub file: Cow<'a, [u8]>,
    /// The four bytes after `file`, whatever they are; `None` for a BOOTP message that ends with
    /// the header (or cuts the cookie short: then the bytes are in `trailer`).
    pub cookie: Option<[u8; 4]>,
    /// The options after a good cookie, in wire order, with PAD runs and END.
    pub options: Vec<Opt<'a>>,
    /// Options overloaded into `file` (option 52 = 1 or 3), decoded from `file`; emit writes
    /// `file` itself.
    pub file_options: Option<Vec<Opt<'a>>>,
    /// Options overloaded into `sname` (option 52 = 2 or 3), decoded from `sname`.
    pub sname_options: Option<Vec<Opt<'a>>>,
    /// What follows the options: the padding after END, or the whole vendor area when the cookie
    /// is absent or wrong.
    pub trailer: Cow<'a, [u8]>,
    /// The whole message in the parsed buffer (length 0 for a message built in code).
    pub pos: Pos,
}

/// The first 44 bytes of the header: op .. chaddr.
struct Fixed<'a> {
    op: u8,
    htype: u8,
    hlen: u8,
    hops: u8,
    xid: u32,
    secs: u16,
    flags: u16,
    addrs: [Ipv4Addr; 4],
    chaddr: &'a [u8],
}

fn bootp_header(i: &[u8]) -> IResult<&[u8], Fixed<'_>> {
    let (i, (op, htype, hlen, hops, xid, secs, flags)) =
        (be_u8, be_u8, be_u8, be_u8, be_u32, be_u16, be_u16).parse(i)?;
    let (i, (c, y, s, g)) = (be_u32, be_u32, be_u32, be_u32).parse(i)?;
    let (i, chaddr) = take(16usize).parse(i)?;
    let addrs = [c.into(), y.into(), s.into(), g.into()];
    Ok((
        i,
        Fixed {
            op,
            htype,
            hlen,
            hops,
            xid,
            secs,
            flags,
            addrs,
            chaddr,
        },
    ))
}

/// Decodes one DHCPv4/BOOTP message. Never fails: problems are returned beside what could be
/// decoded, each with its byte offset in `buf`.
pub fn parse(buf: &[u8]) -> (Message<'_>, Vec<DecodeError>) {
    let mut errors = Vec::new();
    // A header cut short is decoded as far as it goes: the missing part reads as zeros.
    let mut padded = [0u8; 44];
    let fixed: &[u8] = if buf.len() >= 44 {
        &buf[..44]
    } else {
        padded[..buf.len()].copy_from_slice(buf);
        &padded
    };
    if buf.len() < BOOTP_HEADER_LEN {
        errors.push(DecodeError::truncated(
            buf.len(),
            "BOOTP header",
            BOOTP_HEADER_LEN,
            buf.len(),
        ));
    }
    let Fixed {
        op,
        htype,
        hlen,
        hops,
        xid,
        secs,
        flags,
        addrs,
        chaddr: ch,
    } = match bootp_header(fixed) {
        Ok((_, h)) => h,
        // Cannot happen: `fixed` always holds the 44 bytes the parser reads.
        Err(_) => Fixed {
            op: 0,
            htype: 0,
            hlen: 0,
            hops: 0,
            xid: 0,
            secs: 0,
            flags: 0,
            addrs: [Ipv4Addr::UNSPECIFIED; 4],
            chaddr: &[0u8; 16],
        },
    };
    let mut chaddr = [0u8; 16];
    chaddr.copy_from_slice(&ch[..16.min(ch.len())]);
    if usize::from(hlen) > chaddr.len() {
        errors.push(DecodeError::new(
            2,
            format!("hardware address length {hlen} exceeds the 16 bytes of chaddr"),
        ));
    }
    let sname = slice(buf, SNAME_OFFSET, SNAME_LEN);
    let file = slice(buf, FILE_OFFSET, FILE_LEN);

    let mut msg = Message {
        op,
        htype,
        hlen,
        hops,
        xid,
        secs,
        flags,
        ciaddr: addrs[0],
        yiaddr: addrs[1],
        siaddr: addrs[2],
        giaddr: addrs[3],
        chaddr,
        sname: Cow::Borrowed(sname),
        file: Cow::Borrowed(file),
        cookie: None,
        options: Vec::new(),
        file_options: None,
        sname_options: None,
        trailer: Cow::Borrowed(&[]),
        pos: Pos::new(0, buf.len()),
    };
    if buf.len() <= BOOTP_HEADER_LEN {
        return (msg, errors);
    }
    let Some(cookie) = buf.get(BOOTP_HEADER_LEN..OPTIONS_OFFSET) else {
        errors.push(DecodeError::truncated(
            BOOTP_HEADER_LEN,
            "magic cookie",
            4,
            buf.len() - BOOTP_HEADER_LEN,
        ));
        msg.trailer = Cow::Borrowed(&buf[BOOTP_HEADER_LEN..]);
        return (msg, errors);
    };
    let cookie = [cookie[0], cookie[1], cookie[2], cookie[3]];
    msg.cookie = Some(cookie);
    let vend = &buf[OPTIONS_OFFSET..];
    if cookie != MAGIC_COOKIE {
        errors.push(DecodeError::new(
            BOOTP_HEADER_LEN,
            format!(
                "magic cookie is {}.{}.{}.{}, not 99.130.83.99: the vendor area is not decoded as DHCP options",
                cookie[0], cookie[1], cookie[2], cookie[3]
            ),
        ));
        msg.trailer = Cow::Borrowed(vend);
        return (msg, errors);
    }
    let area = parse_area(vend, OPTIONS_OFFSET, &mut errors);
    if !area.ended {
        errors.push(DecodeError::new(
            buf.len(),
            "the options end without an END option (255)",
        ));
    }
    msg.trailer = Cow::Borrowed(vend.get(area.rest_start..).unwrap_or(&[]));
    msg.options = area.options;

    let overload = msg.options.iter().find_map(|o| match o.value {
        OptValue::U8(v) if o.code == code::OVERLOAD => Some(v),
        _ => None,
    });
    if let Some(v) = overload {
        if !(1..=3).contains(&v) {
            errors.push(DecodeError::new(
                OPTIONS_OFFSET,
                format!("option overload value {v} is not 1 (file), 2 (sname) or 3 (both)"),
            ));
        }
        // RFC 3396 order: options, then file, then sname.
        if v == 1 || v == 3 {
            msg.file_options = Some(overloaded(file, FILE_OFFSET, "file", &mut errors));
        }
        if v == 2 || v == 3 {
            msg.sname_options = Some(overloaded(sname, SNAME_OFFSET, "sname", &mut errors));
        }
    }
    (msg, errors)
}

fn slice(buf: &[u8], start: usize, len: usize) -> &[u8] {
    let s = start.min(buf.len());
    let e = start.saturating_add(len).min(buf.len());
    &buf[s..e]
}

fn overloaded<'a>(
    area: &'a [u8],
    base: usize,
    what: &str,
    errors: &mut Vec<DecodeError>,
) -> Vec<Opt<'a>> {
    let a = parse_area(area, base, errors);
    if !a.ended {
        errors.push(DecodeError::new(
            base.saturating_add(area.len()),
            format!("options overloaded into {what} end without an END option (255)"),
        ));
    }
    a.options
}

impl<'a> Message<'a> {
    /// Every option in RFC 3396 order: the options field, then `file`, then `sname`.
    pub fn all_options(&self) -> impl Iterator<Item = &Opt<'a>> {
        self.options
            .iter()
            .chain(self.file_options.iter().flatten())
            .chain(self.sname_options.iter().flatten())
    }

    /// Every instance of option `code`, in RFC 3396 order.
    pub fn options_with(&self, c: u8) -> impl Iterator<Item = &Opt<'a>> {
        self.all_options().filter(move |o| o.code == c)
    }

    /// The first instance of option `code`.
    pub fn option(&self, c: u8) -> Option<&Opt<'a>> {
        self.options_with(c).next()
    }

    /// RFC 3396: the data of every instance of `code` concatenated in order (options, file,
    /// sname), or `None` when the option is absent.
    pub fn concat(&self, c: u8) -> Option<Vec<u8>> {
        let mut it = self.options_with(c).peekable();
        it.peek()?;
        let mut out = Vec::new();
        for o in it {
            out.extend_from_slice(&o.data());
        }
        Some(out)
    }

    /// Whether the cookie is DHCP's.
    pub fn has_dhcp_cookie(&self) -> bool {
        self.cookie == Some(MAGIC_COOKIE)
    }

    /// Option 53, the DHCP message type.
    pub fn message_type(&self) -> Option<u8> {
        self.all_options().find_map(|o| match o.value {
            OptValue::MessageType(t) => Some(t),
            _ => None,
        })
    }

    pub fn xid(&self) -> u32 {
        self.xid
    }

    /// `secs` as it is on the wire, big-endian (what the analysers use: see
    /// [`secs_byte_swapped`]).
    pub fn secs(&self) -> u16 {
        self.secs
    }

    /// `secs` read the other way round where it looks written little-endian
    /// ([`secs_byte_swapped`]), as tshark shows it; else as on the wire.
    pub fn secs_shown(&self) -> u16 {
        if secs_byte_swapped(self.secs) {
            self.secs.swap_bytes()
        } else {
            self.secs
        }
    }

    pub fn flags(&self) -> u16 {
        self.flags
    }

    pub fn broadcast(&self) -> bool {
        self.flags & FLAG_BROADCAST != 0
    }

    pub fn giaddr(&self) -> Ipv4Addr {
        self.giaddr
    }

    /// The client hardware address cut to `hlen`; `None` when `hlen` exceeds the 16 bytes of the
    /// field (RFC 3074 implementations differ there: ISC drops the message, Kea pads).
    pub fn chaddr(&self) -> Option<&[u8]> {
        self.chaddr.get(..usize::from(self.hlen))
    }

    /// The MAC address when the hardware is Ethernet (htype 1, hlen 6).
    pub fn mac(&self) -> Option<[u8; 6]> {
        if self.htype == 1 && self.hlen == 6 {
            let mut m = [0u8; 6];
            m.copy_from_slice(&self.chaddr[..6]);
            Some(m)
        } else {
            None
        }
    }

    /// Option 61's payload, type byte first (RFC 3396 concatenation when it is split).
    pub fn client_identifier(&self) -> Option<Cow<'_, [u8]>> {
        let mut it = self.options_with(code::CLIENT_ID);
        let first = it.next()?;
        if it.next().is_none() {
            return Some(first.data());
        }
        self.concat(code::CLIENT_ID).map(Cow::Owned)
    }

    /// Option 54.
    pub fn server_identifier(&self) -> Option<Ipv4Addr> {
        self.addr_option(code::SERVER_ID)
    }

    /// Option 50.
    pub fn requested_address(&self) -> Option<Ipv4Addr> {
        self.addr_option(code::REQUESTED_IP)
    }

    /// Option 51.
    pub fn lease_time(&self) -> Option<u32> {
        self.all_options().find_map(|o| match o.value {
            OptValue::U32(v) if o.code == code::LEASE_TIME => Some(v),
            _ => None,
        })
    }

    /// Option 55, the requested option codes.
    pub fn parameter_request_list(&self) -> Option<Cow<'_, [u8]>> {
        self.option(code::PARAMETER_REQUEST_LIST).map(|o| o.data())
    }

    /// The sub-options of every option 82, in order.
    pub fn relay_agent_info(&self) -> Vec<&SubOpt<'a>> {
        self.all_options()
            .filter_map(|o| match &o.value {
                OptValue::RelayAgentInfo(s) => Some(s.iter()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    fn addr_option(&self, c: u8) -> Option<Ipv4Addr> {
        self.all_options().find_map(|o| match o.value {
            OptValue::Addr(a) if o.code == c => Some(a),
            _ => None,
        })
    }

    /// Drops the borrow on the parsed buffer.
    pub fn into_owned(self) -> Message<'static> {
        let owned = |v: Vec<Opt<'a>>| v.into_iter().map(Opt::into_owned).collect::<Vec<_>>();
        Message {
            op: self.op,
            htype: self.htype,
            hlen: self.hlen,
            hops: self.hops,
            xid: self.xid,
            secs: self.secs,
            flags: self.flags,
            ciaddr: self.ciaddr,
            yiaddr: self.yiaddr,
            siaddr: self.siaddr,
            giaddr: self.giaddr,
            chaddr: self.chaddr,
            sname: Cow::Owned(self.sname.into_owned()),
            file: Cow::Owned(self.file.into_owned()),
            cookie: self.cookie,
            options: owned(self.options),
            file_options: self.file_options.map(owned),
            sname_options: self.sname_options.map(owned),
            trailer: Cow::Owned(self.trailer.into_owned()),
            pos: self.pos,
        }
    }
}

/// Whether `secs` (read big-endian, as RFC 2131 has it) looks written little-endian by a client
/// that got the byte order wrong: its high byte set and its low byte 0 (a client waits seconds,
/// not multiples of 256 of them). The one rule of the three that look at it, each checked:
/// Wireshark 4.0 shows such a value swapped with the expert note `dhcp.secs_le` (0x1a00 is 26,
/// 0x0100 is 1, 0x1a01 stays 6657, 0x0001 stays 1); ISC dhcpd swaps it the same way ("high byte
/// non zero and low byte zero", dhcpd.conf(5)) but only with `check-secs-byte-order` on, before
/// its load-balancing threshold; Kea's HA load balancing does not look at `secs`.
pub fn secs_byte_swapped(secs: u16) -> bool {
    secs > 0xff && secs & 0xff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discover() -> Vec<u8> {
        Message::request(1, 0xabcd, [2, 0, 0, 0, 0, 1]).emit()
    }

    #[test]
    fn truncated_header_keeps_what_is_there() {
        let b = discover();
        let (m, e) = parse(&b[..10]);
        assert_eq!(m.xid, 0xabcd);
        assert_eq!(m.op, 1);
        assert_eq!(m.flags, 0);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 10);
        assert!(e[0].what.contains("BOOTP header"));
        let (m, e) = parse(&[]);
        assert_eq!(m.op, 0);
        assert_eq!(e.len(), 1);
        // A header cut in the middle of sname keeps the part of sname that is there.
        let (m, e) = parse(&b[..50]);
        assert_eq!(m.sname.len(), 6);
        assert_eq!(m.chaddr(), Some(&[2, 0, 0, 0, 0, 1][..]));
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn hlen_over_16_is_an_error_and_no_chaddr() {
        let mut b = discover();
        b[2] = 255;
        let (m, e) = parse(&b);
        assert_eq!(m.hlen, 255);
        assert_eq!(m.chaddr(), None);
        assert_eq!(m.mac(), None);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 2);
        assert_eq!(m.emit(), b);
    }

    #[test]
    fn bad_cookie_keeps_bootp_and_vendor_bytes() {
        let mut b = discover();
        b[236] = 1;
        let (m, e) = parse(&b);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 236);
        assert_eq!(m.xid, 0xabcd);
        assert!(m.options.is_empty());
        assert_eq!(m.trailer.as_ref(), &b[240..]);
        assert_eq!(m.message_type(), None);
        assert_eq!(m.emit(), b);
    }

    #[test]
    fn plain_bootp_and_cut_cookie() {
        let b = discover();
        let (m, e) = parse(&b[..236]);
        assert!(e.is_empty());
        assert_eq!(m.cookie, None);
        let (m, e) = parse(&b[..238]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 236);
        assert_eq!(m.trailer.as_ref(), &b[236..238]);
        assert_eq!(m.emit(), &b[..238]);
    }

    #[test]
    fn missing_end_is_reported() {
        let b = discover();
        let (_, e) = parse(&b[..b.len() - 1]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, b.len() - 1);
    }

    #[test]
    fn overloaded_file_and_sname() {
        let mut b = discover();
        // Options: 53, 52 = 3 (both), END; file: 54 server id, END; sname: 61, END.
        b.truncate(240);
        b.extend_from_slice(&[53, 1, 1, 52, 1, 3, 255]);
        b[FILE_OFFSET..FILE_OFFSET + 7].copy_from_slice(&[54, 4, 10, 0, 0, 9, 255]);
        b[SNAME_OFFSET..SNAME_OFFSET + 9].copy_from_slice(&[61, 3, 0, 7, 7, 61, 1, 8, 255]);
        let (m, e) = parse(&b);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(m.server_identifier(), Some(Ipv4Addr::new(10, 0, 0, 9)));
        let f = m.file_options.as_ref().map(|v| v[0].pos.offset);
        assert_eq!(f, Some(FILE_OFFSET));
        // Two 61s in sname: RFC 3396 concatenation.
        assert_eq!(m.options_with(code::CLIENT_ID).count(), 2);
        assert_eq!(m.client_identifier().as_deref(), Some(&[0, 7, 7, 8][..]));
        assert_eq!(m.emit(), b);
        // Without END in sname.
        b[SNAME_OFFSET + 8] = 0;
        let (_, e) = parse(&b);
        assert!(!e.is_empty());
    }
}
