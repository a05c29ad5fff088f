//! DHCPv4 messages back to bytes, and the constructors that make building them (for fixtures and
//! the traffic generator) short.
//!
//! `emit` writes exactly what a parsed, well-formed message held, so `emit(parse(b)) == b`; a
//! message built here parses back to itself. An option whose data exceeds 255 bytes is split into
//! consecutive instances of the same code (RFC 3396), which then parse back as several options.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use super::message::{
    Message, BOOTREPLY, BOOTREQUEST, FILE_LEN, FLAG_BROADCAST, MAGIC_COOKIE, SNAME_LEN,
};
use super::options::{code, Opt, OptValue, Route};
use super::pos::Pos;
use super::relay_agent::SubOpt;

static ZEROS: [u8; FILE_LEN] = [0; FILE_LEN];

impl Message<'_> {
    /// The message on the wire.
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(300);
        self.emit_into(&mut out);
        out
    }

    /// Appends the message to `out`.
    pub fn emit_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[self.op, self.htype, self.hlen, self.hops]);
        out.extend_from_slice(&self.xid.to_be_bytes());
        out.extend_from_slice(&self.secs.to_be_bytes());
        out.extend_from_slice(&self.flags.to_be_bytes());
        for a in [self.ciaddr, self.yiaddr, self.siaddr, self.giaddr] {
            out.extend_from_slice(&a.octets());
        }
        out.extend_from_slice(&self.chaddr);
        fixed(out, &self.sname, SNAME_LEN);
        fixed(out, &self.file, FILE_LEN);
        if let Some(c) = self.cookie {
            out.extend_from_slice(&c);
        }
        for o in &self.options {
            o.write(out);
        }
        out.extend_from_slice(&self.trailer);
    }

    /// An empty DHCP message (Ethernet hardware, DHCP cookie, only END). Add options with
    /// [`Message::with`].
    pub fn new(op: u8, xid: u32, mac: [u8; 6]) -> Message<'static> {
        let mut chaddr = [0u8; 16];
        chaddr[..6].copy_from_slice(&mac);
        Message {
            op,
            htype: 1,
            hlen: 6,
            hops: 0,
            xid,
            secs: 0,
            flags: 0,
            ciaddr: Ipv4Addr::UNSPECIFIED,
            yiaddr: Ipv4Addr::UNSPECIFIED,
            siaddr: Ipv4Addr::UNSPECIFIED,
            giaddr: Ipv4Addr::UNSPECIFIED,
            chaddr,
            sname: Cow::Borrowed(&ZEROS[..SNAME_LEN]),
            file: Cow::Borrowed(&ZEROS[..FILE_LEN]),
            cookie: Some(MAGIC_COOKIE),
            options: vec![Opt::end()],
            file_options: None,
            sname_options: None,
            trailer: Cow::Borrowed(&[]),
            pos: Pos::default(),
        }
    }

    /// A client message (BOOTREQUEST) of DHCP type `message_type` (option 53 first).
    pub fn request(message_type: u8, xid: u32, mac: [u8; 6]) -> Message<'static> {
        Message::new(BOOTREQUEST, xid, mac).with(Opt::message_type(message_type))
    }

    /// A server message (BOOTREPLY) of DHCP type `message_type`.
    pub fn reply(message_type: u8, xid: u32, mac: [u8; 6]) -> Message<'static> {
        Message::new(BOOTREPLY, xid, mac).with(Opt::message_type(message_type))
    }
}

impl<'a> Message<'a> {
    /// Adds an option before END (or at the end when there is none).
    pub fn with(mut self, o: Opt<'a>) -> Self {
        let at = self
            .options
            .iter()
            .position(|x| x.code == code::END)
            .unwrap_or(self.options.len());
        self.options.insert(at, o);
        self
    }

    pub fn with_secs(mut self, secs: u16) -> Self {
        self.secs = secs;
        self
    }

    pub fn with_broadcast(mut self) -> Self {
        self.flags |= FLAG_BROADCAST;
        self
    }

    pub fn with_giaddr(mut self, a: Ipv4Addr) -> Self {
        self.giaddr = a;
        self
    }

    pub fn with_ciaddr(mut self, a: Ipv4Addr) -> Self {
        self.ciaddr = a;
        self
    }

    pub fn with_yiaddr(mut self, a: Ipv4Addr) -> Self {
        self.yiaddr = a;
        self
    }

    pub fn with_hops(mut self, hops: u8) -> Self {
        self.hops = hops;
        self
    }

    /// Sets a hardware address of any type and length (up to 16 bytes are stored; `hlen` is
    /// set to the full length given, capped at 255).
    pub fn with_hardware(mut self, htype: u8, addr: &[u8]) -> Self {
        self.htype = htype;
        self.hlen = u8::try_from(addr.len()).unwrap_or(u8::MAX);
        self.chaddr = [0; 16];
        let n = addr.len().min(16);
        self.chaddr[..n].copy_from_slice(&addr[..n]);
        self
    }

    /// Pads the message with zeros after END up to `len` bytes (BOOTP's minimum is 300).
    pub fn padded_to(mut self, len: usize) -> Self {
        let now = self.emit().len();
        if len > now {
            let mut t = self.trailer.into_owned();
            t.resize(t.len() + (len - now), 0);
            self.trailer = Cow::Owned(t);
        }
        self
    }
}

/// Writes `b` into a field of `n` bytes: cut or padded with zeros.
fn fixed(out: &mut Vec<u8>, b: &[u8], n: usize) {
    let k = b.len().min(n);
    out.extend_from_slice(&b[..k]);
    out.resize(out.len() + (n - k), 0);
}

impl<'a> Opt<'a> {
    pub fn new(code: u8, value: OptValue<'a>) -> Self {
        Opt {
            code,
            value,
            pos: Pos::default(),
            claimed_len: None,
        }
    }

    pub fn end() -> Opt<'static> {
        Opt::new(code::END, OptValue::End)
    }

    /// A run of `n` PAD bytes.
    pub fn pad(n: usize) -> Opt<'static> {
        Opt::new(code::PAD, OptValue::Pad(n))
    }

    pub fn message_type(t: u8) -> Opt<'static> {
        Opt::new(code::MESSAGE_TYPE, OptValue::MessageType(t))
    }

    pub fn server_identifier(a: Ipv4Addr) -> Opt<'static> {
        Opt::new(code::SERVER_ID, OptValue::Addr(a))
    }

    pub fn requested_address(a: Ipv4Addr) -> Opt<'static> {
        Opt::new(code::REQUESTED_IP, OptValue::Addr(a))
    }

    pub fn lease_time(secs: u32) -> Opt<'static> {
        Opt::new(code::LEASE_TIME, OptValue::U32(secs))
    }

    /// Option 61: `kind` is the type byte (1 = Ethernet, 0 = opaque, 255 = RFC 4361 IAID+DUID).
    pub fn client_identifier(kind: u8, id: &[u8]) -> Opt<'static> {
        let mut b = vec![kind];
        b.extend_from_slice(id);
        Opt::new(code::CLIENT_ID, OptValue::ClientId(Cow::Owned(b)))
    }

    pub fn parameter_request_list(codes: &[u8]) -> Opt<'static> {
        Opt::new(
            code::PARAMETER_REQUEST_LIST,
            OptValue::ParameterRequestList(Cow::Owned(codes.to_vec())),
        )
    }

    pub fn relay_agent_info(subs: Vec<SubOpt<'a>>) -> Self {
        Opt::new(code::RELAY_AGENT_INFO, OptValue::RelayAgentInfo(subs))
    }

    pub fn classless_routes(routes: Vec<Route>) -> Opt<'static> {
        Opt::new(
            code::CLASSLESS_STATIC_ROUTE,
            OptValue::ClasslessRoutes(routes),
        )
    }

    /// A text option (host name 12, domain name 15, vendor class 60, MUD URL 161, ...).
    pub fn text(code: u8, s: &str) -> Opt<'static> {
        Opt::new(code, OptValue::Text(Cow::Owned(s.as_bytes().to_vec())))
    }

    /// Any option as raw bytes.
    pub fn raw(code: u8, data: &[u8]) -> Opt<'static> {
        Opt::new(code, OptValue::Raw(Cow::Owned(data.to_vec())))
    }

    /// Appends the option; data over 255 bytes is split over several instances (RFC 3396).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self.value {
            OptValue::Pad(n) => out.resize(out.len() + n, 0),
            OptValue::End => out.push(code::END),
            _ => {
                let data = self.value.encode();
                let mut chunks = data.chunks(255).peekable();
                if chunks.peek().is_none() {
                    out.extend_from_slice(&[self.code, 0]);
                }
                for c in chunks {
                    out.push(self.code);
                    out.push(c.len() as u8);
                    out.extend_from_slice(c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::message::parse;
    use super::*;

    #[test]
    fn built_discover_round_trips() {
        let m = Message::request(1, 0x1234_5678, [0, 1, 2, 3, 4, 5])
            .with_broadcast()
            .with_secs(4)
            .with(Opt::client_identifier(1, &[0, 1, 2, 3, 4, 5]))
            .with(Opt::requested_address(Ipv4Addr::new(192, 0, 2, 7)))
            .with(Opt::parameter_request_list(&[1, 3, 6]))
            .with(Opt::relay_agent_info(vec![
                SubOpt::new(1, &b"eth0"[..]),
                SubOpt::new(2, &b"r1"[..]),
            ]))
            .padded_to(300);
        let b = m.emit();
        assert_eq!(b.len(), 300);
        // RFC 2131 layout checked by hand: op, htype, hlen, hops, xid, secs, flags.
        assert_eq!(
            &b[..12],
            &[1, 1, 6, 0, 0x12, 0x34, 0x56, 0x78, 0, 4, 0x80, 0]
        );
        assert_eq!(&b[28..34], &[0, 1, 2, 3, 4, 5]);
        assert_eq!(&b[236..243], &[99, 130, 83, 99, 53, 1, 1]);
        let (p, e) = parse(&b);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(p, m);
        assert_eq!(p.message_type(), Some(1));
        assert_eq!(p.chaddr(), Some(&[0, 1, 2, 3, 4, 5][..]));
        assert_eq!(
            p.client_identifier().as_deref(),
            Some(&[1, 0, 1, 2, 3, 4, 5][..])
        );
        assert_eq!(p.requested_address(), Some(Ipv4Addr::new(192, 0, 2, 7)));
        assert_eq!(p.relay_agent_info().len(), 2);
        assert!(p.broadcast());
        assert_eq!(p.emit(), b);
    }

    #[test]
    fn long_options_split_and_concatenate() {
        let long: Vec<u8> = (0..300u16).map(|i| i as u8).collect();
        let m = Message::request(1, 1, [0; 6]).with(Opt::raw(43, &long));
        let b = m.emit();
        let (p, e) = parse(&b);
        assert!(e.is_empty());
        assert_eq!(p.options_with(43).count(), 2);
        assert_eq!(p.concat(43), Some(long));
        assert_eq!(p.concat(44), None);
    }
}
