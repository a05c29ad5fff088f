//! One failover message: the 12-byte header and the options, parsed leniently from a framed
//! message and emitted back byte for byte.
//!
//! ```text
//!  0      2      3       4          8          12         payload offset
//!  | length | type | payload | time  | xid      | [extra   | options: code u16 | length u16 | data ...
//!  |  u16   |  u8  | off u8  |  u32  |  u32     |  header] |
//! ```

use std::fmt;
use std::net::Ipv4Addr;

use nom::{IResult, Parser};

use super::option::{self, code, server_flag, FoOption};
use super::values::{reject_reason_name, BindingStatus, MessageType, ServerState};
use crate::error::DecodeError;
use crate::proto::be::{be_u16, be_u32, be_u8, take};

/// The fixed header.
pub const HEADER_LEN: usize = 12;
/// Each option's `code | length` header.
pub const OPTION_HEADER_LEN: usize = 4;

/// A failover message (the `Repr`: parse from bytes, emit to bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub msg_type: MessageType,
    /// Where the options start, counted from the message start. ISC writes 12 (no extra header).
    pub payload_offset: u8,
    /// The sender's clock, seconds since the epoch.
    pub time: u32,
    pub xid: u32,
    /// Bytes between the fixed header and the payload offset.
    pub extra_header: Vec<u8>,
    pub options: Vec<FoOption>,
    /// Bytes after the last whole option that do not make one (a truncated option).
    pub trailing: Vec<u8>,
}

/// Why a message cannot be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError(pub String);

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmitError {}

/// The fixed header as far as `buf` holds it: each field that is there whole, the ones after the
/// first missing one zero (`length` is `None` when even it is missing).
#[derive(Default)]
struct Header {
    length: Option<u16>,
    msg_type: u8,
    payload_offset: u8,
    time: u32,
    xid: u32,
}

/// The fixed header, read leniently: a header cut short gives the fields before the cut.
fn header(i: &[u8]) -> Header {
    let mut h = Header::default();
    // A short buffer ends the fields early; what was read is in `h`.
    let _ = header_fields(i, &mut h);
    h
}

/// `length u16 | type u8 | payload offset u8 | time u32 | xid u32`, each field into `h` as it is
/// read.
fn header_fields<'a>(i: &'a [u8], h: &mut Header) -> IResult<&'a [u8], ()> {
    let (i, length) = be_u16(i)?;
    h.length = Some(length);
    let (i, msg_type) = be_u8(i)?;
    h.msg_type = msg_type;
    let (i, payload_offset) = be_u8(i)?;
    h.payload_offset = payload_offset;
    let (i, time) = be_u32(i)?;
    h.time = time;
    let (i, xid) = be_u32(i)?;
    h.xid = xid;
    Ok((i, ()))
}

/// An option's `code u16 | length u16`.
fn option_header(i: &[u8]) -> IResult<&[u8], (u16, u16)> {
    (be_u16, be_u16).parse(i)
}

/// An option's data: the `len` bytes after its header.
fn option_data(i: &[u8], len: u16) -> IResult<&[u8], &[u8]> {
    take(usize::from(len)).parse(i)
}

impl Message {
    /// A message with ISC's layout (payload offset 12, no extra header).
    pub fn new(msg_type: MessageType, time: u32, xid: u32, options: Vec<FoOption>) -> Self {
        Message {
            msg_type,
            payload_offset: HEADER_LEN as u8,
            time,
            xid,
            extra_header: Vec::new(),
            options,
            trailing: Vec::new(),
        }
    }

    /// Parses one framed message (normally what [`super::Framer`] yields). Lenient: whatever is
    /// wrong becomes a [`DecodeError`] (offsets from the message start) and decoding goes on; an
    /// option with a wrong length is kept as [`FoOption::Raw`].
    pub fn parse(buf: &[u8]) -> (Message, Vec<DecodeError>) {
        let mut errors = Vec::new();
        if buf.len() < HEADER_LEN {
            errors.push(DecodeError::truncated(
                0,
                "failover header",
                HEADER_LEN,
                buf.len(),
            ));
        }
        let h = header(buf);
        let mut msg = Message {
            msg_type: MessageType::from_u8(h.msg_type),
            payload_offset: h.payload_offset,
            time: h.time,
            xid: h.xid,
            extra_header: Vec::new(),
            options: Vec::new(),
            trailing: Vec::new(),
        };
        let Some(declared) = h.length.map(usize::from) else {
            return (msg, errors);
        };
        let end = if declared < HEADER_LEN {
            errors.push(DecodeError::new(
                0,
                format!("message length {declared} is shorter than the {HEADER_LEN}-byte header"),
            ));
            buf.len()
        } else if declared > buf.len() {
            errors.push(DecodeError::truncated(
                buf.len(),
                "failover message",
                declared,
                buf.len(),
            ));
            buf.len()
        } else {
            if declared < buf.len() {
                errors.push(DecodeError::new(
                    declared,
                    format!(
                        "{} bytes after the end of the message (length {declared})",
                        buf.len() - declared
                    ),
                ));
            }
            declared
        };
        let Some(body) = buf.get(..end) else {
            return (msg, errors);
        };
        if body.len() <= HEADER_LEN {
            return (msg, errors);
        }

        let po = usize::from(msg.payload_offset);
        let options_start = if po < HEADER_LEN {
            errors.push(DecodeError::new(
                3,
                format!(
                    "payload offset {po} points inside the {HEADER_LEN}-byte header; \
                     options read from byte {HEADER_LEN}"
                ),
            ));
            HEADER_LEN
        } else if po > end {
            errors.push(DecodeError::new(
                3,
                format!("payload offset {po} lies beyond the end of the message ({end} bytes)"),
            ));
            msg.extra_header = body.get(HEADER_LEN..).unwrap_or_default().to_vec();
            return (msg, errors);
        } else {
            msg.extra_header = body.get(HEADER_LEN..po).unwrap_or_default().to_vec();
            po
        };

        msg.options =
            Vec::with_capacity(option_count(body.get(options_start..).unwrap_or_default()));
        let mut off = options_start;
        while let Some(rest) = body.get(off..).filter(|r| !r.is_empty()) {
            let Ok((after, (c, len))) = option_header(rest) else {
                errors.push(DecodeError::truncated(
                    off,
                    "option header",
                    OPTION_HEADER_LEN,
                    rest.len(),
                ));
                msg.trailing = rest.to_vec();
                break;
            };
            let Ok((_, data)) = option_data(after, len) else {
                errors.push(DecodeError::new(
                    off,
                    format!(
                        "option {c} ({}) declares {len} bytes, only {} left in the message",
                        option::option_name(c).unwrap_or("unknown"),
                        after.len()
                    ),
                ));
                msg.trailing = rest.to_vec();
                break;
            };
            let len = usize::from(len);
            match FoOption::decode(c, data) {
                Ok(o) => {
                    if let FoOption::HashBucketAssignment(b) = &o {
                        if b.len() != 32 {
                            errors.push(DecodeError::new(
                                off,
                                format!(
                                    "hash-bucket-assignment of {} bytes, expected 32 (256 buckets)",
                                    b.len()
                                ),
                            ));
                        }
                    }
                    msg.options.push(o)
                }
                Err(what) => {
                    errors.push(DecodeError::new(
                        off,
                        format!(
                            "option {c} ({}): {what}",
                            option::option_name(c).unwrap_or("unknown")
                        ),
                    ));
                    msg.options.push(FoOption::Raw {
                        code: c,
                        data: data.to_vec(),
                    });
                }
            }
            off += OPTION_HEADER_LEN + len;
        }
        (msg, errors)
    }

    /// Bytes on the wire.
    pub fn wire_len(&self) -> usize {
        HEADER_LEN
            + self.extra_header.len()
            + self
                .options
                .iter()
                .map(|o| OPTION_HEADER_LEN + o.data().len())
                .sum::<usize>()
            + self.trailing.len()
    }

    /// The message as bytes. What [`Message::parse`] read is written back unchanged (payload
    /// offset, extra header and trailing bytes included); only the length field is recomputed.
    pub fn emit(&self) -> Result<Vec<u8>, EmitError> {
        let len = self.wire_len();
        let len16 = u16::try_from(len).map_err(|_| {
            EmitError(format!(
                "a failover message holds at most 65535 bytes, this one needs {len}"
            ))
        })?;
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(&len16.to_be_bytes());
        out.push(self.msg_type.to_u8());
        out.push(self.payload_offset);
        out.extend_from_slice(&self.time.to_be_bytes());
        out.extend_from_slice(&self.xid.to_be_bytes());
        out.extend_from_slice(&self.extra_header);
        for o in &self.options {
            let data = o.data();
            // The total fits in u16, so does every option.
            let dlen = u16::try_from(data.len())
                .map_err(|_| EmitError(format!("option {} is too long", o.code())))?;
            out.extend_from_slice(&o.code().to_be_bytes());
            out.extend_from_slice(&dlen.to_be_bytes());
            out.extend_from_slice(&data);
        }
        out.extend_from_slice(&self.trailing);
        Ok(out)
    }

    /// The first option with this code.
    pub fn option(&self, c: u16) -> Option<&FoOption> {
        self.options.iter().find(|o| o.code() == c)
    }

    fn first<'a, T>(&'a self, f: impl Fn(&'a FoOption) -> Option<T>) -> Option<T> {
        self.options.iter().find_map(f)
    }

    pub fn assigned_address(&self) -> Option<Ipv4Addr> {
        self.first(|o| match o {
            FoOption::AssignedIpAddress(a) => Some(*a),
            _ => None,
        })
    }

    pub fn binding_status(&self) -> Option<BindingStatus> {
        self.first(|o| match o {
            FoOption::BindingStatus(s) => Some(*s),
            _ => None,
        })
    }

    /// DHCP option 61 of the lease's client, as the client sent it (type byte included).
    pub fn client_identifier(&self) -> Option<&[u8]> {
        self.first(|o| match o {
            FoOption::ClientIdentifier(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    /// Hardware type and address of the lease's client.
    pub fn chaddr(&self) -> Option<(u8, &[u8])> {
        self.first(|o| match o {
            FoOption::ClientHardwareAddress { htype, address } => {
                Some((*htype, address.as_slice()))
            }
            _ => None,
        })
    }

    pub fn lease_expiration_time(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::LeaseExpirationTime(t) => Some(*t),
            _ => None,
        })
    }

    pub fn potential_expiration_time(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::PotentialExpirationTime(t) => Some(*t),
            _ => None,
        })
    }

    pub fn client_last_transaction_time(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::ClientLastTransactionTime(t) => Some(*t),
            _ => None,
        })
    }

    pub fn start_time_of_state(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::StartTimeOfState(t) => Some(*t),
            _ => None,
        })
    }

    /// The raw bucket map of a CONNECT (32 bytes from ISC; set bit: the primary serves the
    /// bucket). `analyse::dhcp_lb::Hba::try_from` turns it into a map.
    pub fn hash_bucket_assignment(&self) -> Option<&[u8]> {
        self.first(|o| match o {
            FoOption::HashBucketAssignment(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    pub fn addresses_transferred(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::AddressesTransferred(n) => Some(*n),
            _ => None,
        })
    }

    pub fn server_state(&self) -> Option<ServerState> {
        self.first(|o| match o {
            FoOption::ServerState(s) => Some(*s),
            _ => None,
        })
    }

    pub fn server_flags(&self) -> Option<u8> {
        self.first(|o| match o {
            FoOption::ServerFlags(f) => Some(*f),
            _ => None,
        })
    }

    pub fn reject_reason(&self) -> Option<u8> {
        self.first(|o| match o {
            FoOption::RejectReason(r) => Some(*r),
            _ => None,
        })
    }

    pub fn mclt(&self) -> Option<u32> {
        self.first(|o| match o {
            FoOption::Mclt(v) => Some(*v),
            _ => None,
        })
    }

    pub fn relationship_name(&self) -> Option<&[u8]> {
        self.first(|o| match o {
            FoOption::RelationshipName(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    /// The text of a message option (reasons given with a reject).
    pub fn message_text(&self) -> Option<&[u8]> {
        self.first(|o| match o {
            FoOption::Message(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    /// One line for people, like tshark's Info column but with ISC's abbreviations and the
    /// facts that matter per type: "BNDUPD xid: 47 192.0.2.128 ACTIVE".
    pub fn info(&self) -> String {
        let mut s = format!("{} xid: {:x}", self.msg_type, self.xid);
        let mut add = |part: String| {
            s.push(' ');
            s.push_str(&part);
        };
        if let Some(a) = self.assigned_address() {
            add(a.to_string());
        }
        if let Some(b) = self.binding_status() {
            add(b.name().to_string());
        }
        if let Some(st) = self.server_state() {
            add(st.name().to_string());
        }
        if self
            .server_flags()
            .is_some_and(|f| f & server_flag::STARTUP != 0)
        {
            add("STARTUP".into());
        }
        if let Some(name) = self.relationship_name() {
            add(format!("\"{}\"", String::from_utf8_lossy(name)));
        }
        if let Some(n) = self.addresses_transferred() {
            add(format!("{n} addresses transferred"));
        }
        if self.option(code::HASH_BUCKET_ASSIGNMENT).is_some() {
            add("hba".into());
        }
        if let Some(r) = self.reject_reason() {
            add(format!("reject: {}", reject_reason_name(r)));
        }
        s
    }
}

/// Parses one framed message; see [`Message::parse`].
pub fn parse(buf: &[u8]) -> (Message, Vec<DecodeError>) {
    Message::parse(buf)
}

/// How many whole options `buf` holds, walking the length fields only: the capacity of the
/// option list, allocated once (a BNDUPD carries a dozen).
fn option_count(buf: &[u8]) -> usize {
    let (mut n, mut rest) = (0usize, buf);
    while let Ok((after, (_, len))) = option_header(rest) {
        let Ok((next, _)) = option_data(after, len) else {
            break;
        };
        n += 1;
        rest = next;
    }
    n
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The primary's CONNECT in isc-dhcpd-4.4.3-failover.pcap (frame 6, tshark -x).
    const CONNECT: &str = "006b050c6b0cfa0c00000000\
        0016000569736366 6f\
        000e00040000000a\
        0013000400000 00f\
        001c000c6973632d342e342e332d5031\
        0014000101\
        001b000100\
        000f00040000003c\
        000b0020ffffffffffffffffffffffffffffffff00000000000000000000000000000000";

    fn unhex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn option_count_counts_whole_options_only() {
        let wire = unhex(CONNECT);
        let (m, _) = parse(&wire);
        assert_eq!(option_count(&wire[HEADER_LEN..]), m.options.len());
        assert_eq!(
            option_count(&wire[HEADER_LEN..wire.len() - 1]),
            m.options.len() - 1
        );
        assert_eq!(option_count(&[0, 1, 0]), 0);
        assert_eq!(option_count(&[0, 1, 0, 0, 0xff, 0xff]), 1);
    }

    #[test]
    fn isc_connect_from_the_capture() {
        let wire = unhex(CONNECT);
        assert_eq!(wire.len(), 107, "tshark: Message length: 107");
        let (m, errors) = parse(&wire);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(m.msg_type, MessageType::Connect);
        assert_eq!(m.payload_offset, 12);
        assert_eq!(m.time, 0x6b0c_fa0c);
        assert_eq!(m.xid, 0);
        assert_eq!(m.relationship_name(), Some(&b"iscfo"[..]));
        assert_eq!(m.mclt(), Some(60));
        assert_eq!(
            m.option(code::MAX_UNACKED_BNDUPD),
            Some(&FoOption::MaxUnackedBndupd(10))
        );
        assert_eq!(
            m.option(code::RECEIVE_TIMER),
            Some(&FoOption::ReceiveTimer(15))
        );
        assert_eq!(
            m.option(code::VENDOR_CLASS),
            Some(&FoOption::VendorClass(b"isc-4.4.3-P1".to_vec()))
        );
        assert_eq!(
            m.option(code::PROTOCOL_VERSION),
            Some(&FoOption::ProtocolVersion(1))
        );
        assert_eq!(m.option(code::TLS_REQUEST), Some(&FoOption::TlsRequest(0)));
        let hba = m.hash_bucket_assignment().unwrap();
        assert_eq!(hba[..16], [0xff; 16]);
        assert_eq!(hba[16..], [0; 16]);
        assert_eq!(m.emit().unwrap(), wire);
        assert_eq!(m.info(), "CONNECT xid: 0 \"iscfo\" hba");
    }

    fn bndupd() -> Message {
        Message::new(
            MessageType::BndUpd,
            1_796_012_579,
            0x47,
            vec![
                FoOption::AssignedIpAddress(Ipv4Addr::new(192, 0, 2, 128)),
                FoOption::BindingStatus(BindingStatus::Active),
                FoOption::ClientIdentifier(vec![0xff, 0x36, 0x54, 0x06, 0xc8]),
                FoOption::ClientHardwareAddress {
                    htype: 1,
                    address: vec![2, 0xc1, 0x11, 0x87, 0, 0x1d],
                },
                FoOption::LeaseExpirationTime(1_796_012_639),
                FoOption::PotentialExpirationTime(1_796_012_699),
                FoOption::StartTimeOfState(1_796_012_579),
                FoOption::ClientLastTransactionTime(1_796_012_579),
            ],
        )
    }

    #[test]
    fn round_trip_and_accessors() {
        let m = bndupd();
        let wire = m.emit().unwrap();
        assert_eq!(wire.len(), m.wire_len());
        assert_eq!(
            usize::from(u16::from_be_bytes([wire[0], wire[1]])),
            wire.len()
        );
        let (back, errors) = parse(&wire);
        assert!(errors.is_empty());
        assert_eq!(back, m);
        assert_eq!(back.assigned_address(), Some(Ipv4Addr::new(192, 0, 2, 128)));
        assert_eq!(back.binding_status(), Some(BindingStatus::Active));
        assert_eq!(back.chaddr().unwrap().0, 1);
        assert_eq!(back.lease_expiration_time(), Some(1_796_012_639));
        assert_eq!(back.potential_expiration_time(), Some(1_796_012_699));
        assert_eq!(back.client_last_transaction_time(), Some(1_796_012_579));
        assert_eq!(back.start_time_of_state(), Some(1_796_012_579));
        assert_eq!(back.server_state(), None);
        assert_eq!(back.info(), "BNDUPD xid: 47 192.0.2.128 ACTIVE");
    }

    /// One option of every code 1-29 (the 4-byte hash bucket assignment among them, which
    /// reads with an error), and one of an unknown code (also the display tree's tests' options).
    pub(in crate::proto::failover) fn every_option() -> Vec<FoOption> {
        let mut opts = Vec::new();
        for c in 1..=29u16 {
            let data: &[u8] = match c {
                1 | 2 | 6 | 13 | 14 | 15 | 18 | 19 | 25 => &[0, 0, 1, 2],
                9 | 12 => &[0, 1],
                3 | 10 | 20 | 21 | 23 | 24 | 26 | 27 => &[1],
                _ => b"\x01xyz",
            };
            opts.push(FoOption::decode(c, data).expect("an option"));
        }
        opts.push(FoOption::Raw {
            code: 4000,
            data: vec![1, 2, 3],
        });
        opts
    }

    #[test]
    fn every_option_round_trips() {
        let m = Message::new(MessageType::Other(200), 7, 8, every_option());
        let wire = m.emit().unwrap();
        let (back, errors) = parse(&wire);
        // The 4-byte hash bucket assignment is reported, and kept.
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(back, m);
        assert_eq!(back.emit().unwrap(), wire);
    }

    #[test]
    fn malformed_input_round_trips_what_was_read() {
        let good = bndupd().emit().unwrap();
        // An option whose length runs past the end.
        let mut cut = good.clone();
        cut.truncate(good.len() - 2);
        let n = cut.len() as u16;
        cut[..2].copy_from_slice(&n.to_be_bytes());
        let (m, errors) = parse(&cut);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].what.contains("declares 4 bytes, only 2 left"),
            "{errors:?}"
        );
        assert_eq!(m.trailing.len(), 6);
        assert_eq!(m.emit().unwrap(), cut);

        // A wrong length for a fixed-size option: kept raw.
        let m = Message::new(
            MessageType::BndUpd,
            0,
            1,
            vec![FoOption::Raw {
                code: code::ASSIGNED_IP_ADDRESS,
                data: vec![1, 2, 3],
            }],
        );
        let wire = m.emit().unwrap();
        let (back, errors) = parse(&wire);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].offset, 12);
        assert!(errors[0].what.contains("assigned-IP-address"));
        assert_eq!(back, m);

        // An extra header, then a bogus payload offset in both directions.
        let mut m = bndupd();
        m.payload_offset = 15;
        m.extra_header = vec![9, 9, 9];
        let wire = m.emit().unwrap();
        let (back, errors) = parse(&wire);
        assert!(errors.is_empty());
        assert_eq!(back, m);
        let mut low = good.clone();
        low[3] = 4;
        let (back, errors) = parse(&low);
        assert_eq!(errors.len(), 1);
        assert_eq!(back.options, bndupd().options);
        assert_eq!(back.emit().unwrap(), low);
        let mut high = good.clone();
        high[3] = 250;
        let (back, errors) = parse(&high);
        assert_eq!(errors.len(), 1);
        assert!(back.options.is_empty());
        assert_eq!(back.emit().unwrap(), high);
    }

    #[test]
    fn length_field_disagreeing_with_the_buffer() {
        let good = bndupd().emit().unwrap();
        // Declared longer than given.
        let (m, errors) = parse(&good[..40]);
        assert!(!errors.is_empty());
        assert_eq!(m.xid, 0x47);
        // Declared shorter than given: the rest is reported, not read.
        let mut long = good.clone();
        long.extend_from_slice(&[0, 0, 0]);
        let (m, errors) = parse(&long);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].offset, good.len());
        assert_eq!(m, bndupd());
        // Declared below the header size.
        let mut tiny = good.clone();
        tiny[..2].copy_from_slice(&[0, 5]);
        let (_, errors) = parse(&tiny);
        assert!(errors[0].what.contains("shorter than the 12-byte header"));
    }

    #[test]
    fn never_panics_on_short_or_odd_input() {
        for len in 0..40 {
            let buf: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let _ = parse(&buf);
        }
        let (m, errors) = parse(&[0, 12, 11]);
        assert_eq!(m.msg_type, MessageType::Contact);
        assert!(!errors.is_empty());
        // A lone option header with no room for data.
        let (m, errors) = parse(&[0, 14, 3, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        assert_eq!(m.trailing, [0, 2]);
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn arbitrary_bytes_with_a_consistent_length_round_trip_exactly() {
        // Whatever the payload offset, option lengths or values, what parse read is what emit
        // writes, as long as the length field matches the buffer.
        let mut state = 0x9e37_79b9u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for _ in 0..20_000 {
            let len = 12 + (next() % 80) as usize;
            let mut buf: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            buf[..2].copy_from_slice(&(len as u16).to_be_bytes());
            // Mostly sensible payload offsets and small option lengths, to reach the option code.
            if next() % 4 != 0 {
                buf[3] = 12;
            }
            let mut off = 12;
            while off + 4 <= len && next() % 8 != 0 {
                buf[off] = 0;
                buf[off + 1] = (next() % 32) as u8;
                buf[off + 2] = 0;
                buf[off + 3] = (next() % 8) as u8;
                off += 4 + usize::from(buf[off + 3]);
            }
            let (m, _) = parse(&buf);
            assert_eq!(m.emit().unwrap(), buf);
            let fields = m.fields();
            for root in &fields {
                root.walk(&mut |f| assert!(f.offset + f.len <= len, "{}", f.name));
            }
        }
    }

    #[test]
    fn emit_refuses_oversized_messages() {
        let m = Message::new(
            MessageType::BndUpd,
            0,
            0,
            vec![FoOption::Message(vec![b'x'; 70_000])],
        );
        assert!(m.emit().is_err());
    }
}
