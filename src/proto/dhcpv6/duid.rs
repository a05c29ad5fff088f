//! DHCP Unique Identifiers (RFC 8415 section 11, RFC 6355): kept whole, as the load-balancing
//! hash needs them, and read by type on demand.

use std::borrow::Cow;

use crate::error::DecodeError;

pub const DUID_LLT: u16 = 1;
pub const DUID_EN: u16 = 2;
pub const DUID_LL: u16 = 3;
pub const DUID_UUID: u16 = 4;

/// A DUID as sent: the type and everything after it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Duid<'a>(pub Cow<'a, [u8]>);

/// What a DUID holds, by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuidKind<'b> {
    /// Type 1: hardware type, time (seconds since 2000-01-01 UTC), link-layer address.
    Llt {
        hw_type: u16,
        time: u32,
        link_layer: &'b [u8],
    },
    /// Type 2: enterprise number, identifier.
    En {
        enterprise: u32,
        identifier: &'b [u8],
    },
    /// Type 3: hardware type, link-layer address.
    Ll { hw_type: u16, link_layer: &'b [u8] },
    /// Type 4 (RFC 6355).
    Uuid(&'b [u8; 16]),
    /// Another type, or a known type too short for its fields (`duid_type` is `None` when
    /// not even the type is there).
    Unknown {
        duid_type: Option<u16>,
        data: &'b [u8],
    },
}

impl<'a> Duid<'a> {
    /// The whole DUID (what RFC 3074 / the DHCPv6 load-balancing draft hash).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn duid_type(&self) -> Option<u16> {
        match self.0.as_ref() {
            [a, b, ..] => Some(u16::from_be_bytes([*a, *b])),
            _ => None,
        }
    }

    pub fn kind(&self) -> DuidKind<'_> {
        let b = self.0.as_ref();
        let Some(t) = self.duid_type() else {
            return DuidKind::Unknown {
                duid_type: None,
                data: b,
            };
        };
        let body = &b[2..];
        match (t, body) {
            (DUID_LLT, [h0, h1, t0, t1, t2, t3, rest @ ..]) => DuidKind::Llt {
                hw_type: u16::from_be_bytes([*h0, *h1]),
                time: u32::from_be_bytes([*t0, *t1, *t2, *t3]),
                link_layer: rest,
            },
            (DUID_EN, [e0, e1, e2, e3, rest @ ..]) => DuidKind::En {
                enterprise: u32::from_be_bytes([*e0, *e1, *e2, *e3]),
                identifier: rest,
            },
            (DUID_LL, [h0, h1, rest @ ..]) => DuidKind::Ll {
                hw_type: u16::from_be_bytes([*h0, *h1]),
                link_layer: rest,
            },
            (DUID_UUID, u) if u.len() == 16 => match <&[u8; 16]>::try_from(u) {
                Ok(u) => DuidKind::Uuid(u),
                Err(_) => DuidKind::Unknown {
                    duid_type: Some(t),
                    data: body,
                },
            },
            _ => DuidKind::Unknown {
                duid_type: Some(t),
                data: body,
            },
        }
    }

    /// What is wrong with this DUID, if anything (offset relative to the DUID's first byte).
    pub fn check(&self) -> Option<DecodeError> {
        let n = self.0.len();
        let Some(t) = self.duid_type() else {
            return Some(DecodeError::new(
                0,
                format!("DUID of {n} bytes has no room for its 2-byte type"),
            ));
        };
        let need = match t {
            DUID_LLT => 8,
            DUID_EN => 6,
            DUID_LL => 4,
            DUID_UUID => 18,
            _ => 2,
        };
        if n < need || (t == DUID_UUID && n != need) {
            return Some(DecodeError::new(
                0,
                format!("DUID of type {t} needs {need} bytes, has {n}"),
            ));
        }
        // RFC 8415 section 11.1: at most 128 bytes after the type.
        if n > 130 {
            return Some(DecodeError::new(
                0,
                format!("DUID of {n} bytes exceeds the 130 bytes RFC 8415 allows"),
            ));
        }
        None
    }

    pub fn llt(hw_type: u16, time: u32, link_layer: &[u8]) -> Duid<'static> {
        let mut b = DUID_LLT.to_be_bytes().to_vec();
        b.extend_from_slice(&hw_type.to_be_bytes());
        b.extend_from_slice(&time.to_be_bytes());
        b.extend_from_slice(link_layer);
        Duid(Cow::Owned(b))
    }

    pub fn en(enterprise: u32, identifier: &[u8]) -> Duid<'static> {
        let mut b = DUID_EN.to_be_bytes().to_vec();
        b.extend_from_slice(&enterprise.to_be_bytes());
        b.extend_from_slice(identifier);
        Duid(Cow::Owned(b))
    }

    pub fn ll(hw_type: u16, link_layer: &[u8]) -> Duid<'static> {
        let mut b = DUID_LL.to_be_bytes().to_vec();
        b.extend_from_slice(&hw_type.to_be_bytes());
        b.extend_from_slice(link_layer);
        Duid(Cow::Owned(b))
    }

    pub fn uuid(uuid: [u8; 16]) -> Duid<'static> {
        let mut b = DUID_UUID.to_be_bytes().to_vec();
        b.extend_from_slice(&uuid);
        Duid(Cow::Owned(b))
    }

    pub fn into_owned(self) -> Duid<'static> {
        Duid(Cow::Owned(self.0.into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        // The DUID-LLT of tcpdump_dhcpv6-mud.pcap, as tshark decodes it: Ethernet,
        // b8:27:eb:b8:53:c8, time 0x1e62770b.
        let b = [
            0, 1, 0, 1, 0x1e, 0x62, 0x77, 0x0b, 0xb8, 0x27, 0xeb, 0xb8, 0x53, 0xc8,
        ];
        let d = Duid(Cow::Borrowed(&b[..]));
        assert_eq!(
            d.kind(),
            DuidKind::Llt {
                hw_type: 1,
                time: 0x1e62770b,
                link_layer: &b[8..]
            }
        );
        assert_eq!(d.check(), None);
        assert_eq!(Duid::llt(1, 0x1e62770b, &b[8..]), d);
        assert_eq!(
            Duid::en(9, b"ab").kind(),
            DuidKind::En {
                enterprise: 9,
                identifier: b"ab"
            }
        );
        assert_eq!(
            Duid::ll(1, &[1, 2]).kind(),
            DuidKind::Ll {
                hw_type: 1,
                link_layer: &[1, 2]
            }
        );
        assert_eq!(Duid::uuid([7; 16]).kind(), DuidKind::Uuid(&[7; 16]));
    }

    #[test]
    fn malformed_duids() {
        let empty = Duid(Cow::Borrowed(&[][..]));
        assert!(empty.check().is_some());
        assert_eq!(
            empty.kind(),
            DuidKind::Unknown {
                duid_type: None,
                data: &[]
            }
        );
        let short_llt = Duid(Cow::Borrowed(&[0, 1, 0, 1][..]));
        assert!(short_llt.check().is_some());
        assert!(matches!(
            short_llt.kind(),
            DuidKind::Unknown {
                duid_type: Some(1),
                ..
            }
        ));
        let long_uuid = Duid(Cow::Owned(vec![0, 4].into_iter().chain([0; 17]).collect()));
        assert!(long_uuid.check().is_some());
        assert!(Duid(Cow::Owned(vec![0, 9])).check().is_none());
    }
}
