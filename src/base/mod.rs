//! What every layer shares and none owns: capture time ([`Timestamp`], its [`calendar`], the
//! [`localtime`] of the process's time zone), the
//! link-layer type numbers ([`linktype`]), and the length-prefixed [`framing`] that cuts a byte
//! stream into messages (TCP-borne failover and RSerPool, SCTP reassembly).

pub mod calendar;
pub mod framing;
pub mod localtime;

use std::fmt;

/// Capture time: seconds and nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

impl Timestamp {
    pub fn new(secs: i64, nanos: u32) -> Self {
        Timestamp { secs, nanos }
    }

    /// Seconds since the epoch as a float (JSON `time`).
    pub fn as_f64(&self) -> f64 {
        self.secs as f64 + self.nanos as f64 * 1e-9
    }

    /// The time in UTC as tshark's `-t ud` shows it: `2026-11-30 03:54:50.123456`.
    pub fn utc(&self) -> calendar::Utc {
        calendar::Utc(*self)
    }

    /// `self - earlier` in seconds.
    pub fn since(&self, earlier: Timestamp) -> f64 {
        (self.secs - earlier.secs) as f64 + (self.nanos as f64 - earlier.nanos as f64) * 1e-9
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.secs, self.nanos)
    }
}

/// Decimals of the second a clock counting `units_per_sec` gives, as Wireshark 4.0 rounds it
/// down to the precisions it knows: 9 from 10^9 units a second, 6 from 10^6, 3 from 10^3, then
/// 2, 1 and 0 (a pcapng interface counting 2^20 units a second gives 6).
pub fn ts_digits(units_per_sec: u64) -> u8 {
    match units_per_sec {
        1_000_000_000.. => 9,
        1_000_000.. => 6,
        1_000.. => 3,
        100.. => 2,
        10.. => 1,
        _ => 0,
    }
}

/// Link-layer header types (the tcpdump.org LINKTYPE_ numbers).
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    pub const PPP: u32 = 9;
    /// PPP in HDLC-like framing (RFC 1662), the framing undone: address, control, protocol.
    pub const PPP_HDLC: u32 = 50;
    pub const RAW: u32 = 101;
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;

    /// Wireshark's encapsulation type (`frame.encap_type`) for a link type, with its name as
    /// tshark 4.0 gives them; `None` for the link types poolshark has no number for.
    pub fn wtap_encap(linktype: u32) -> Option<(u32, &'static str)> {
        Some(match linktype {
            NULL => (15, "NULL/Loopback"),
            ETHERNET => (1, "Ethernet"),
            PPP | PPP_HDLC => (4, "PPP"),
            // DLT_RAW as BSDs and OpenBSD number it, and LINKTYPE_RAW.
            12 | 14 | RAW => (7, "Raw IP"),
            LOOP => (174, "OpenBSD loopback"),
            LINUX_SLL => (25, "Linux cooked-mode capture v1"),
            IPV4 => (129, "Raw IPv4"),
            IPV6 => (130, "Raw IPv6"),
            LINUX_SLL2 => (210, "Linux cooked-mode capture v2"),
            _ => return None,
        })
    }
}
