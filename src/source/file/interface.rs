//! What a pcapng Interface Description Block says about the packets captured on it: link type,
//! snap length and how to turn a raw 64-bit timestamp into time (`if_tsresol`, `if_tsoffset`).

use pcap_parser::{InterfaceDescriptionBlock, OptionCode};

use crate::base::Timestamp;
use crate::source::InterfaceNames;

/// One interface of a pcapng section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interface {
    pub linktype: u32,
    pub snaplen: u32,
    /// Timestamp units per second (`if_tsresol`; 10^6 when absent).
    pub units_per_sec: u64,
    /// Seconds added to every timestamp (`if_tsoffset`).
    pub offset_secs: i64,
}

impl Interface {
    /// The interface an IDB describes, and a complaint when one of its options cannot be used (the
    /// default is then used in its place).
    pub fn from_idb(
        idb: &InterfaceDescriptionBlock<'_>,
        big_endian: bool,
    ) -> (Self, Option<String>) {
        let mut problem = None;
        let units_per_sec = match units_per_second(idb.if_tsresol) {
            Some(u) => u,
            None => {
                problem = Some(format!(
                    "interface timestamp resolution if_tsresol {:#04x} is out of range; using microseconds",
                    idb.if_tsresol
                ));
                1_000_000
            }
        };
        // pcap-parser 0.17 reads if_tsoffset as little-endian whatever the section's byte order.
        let offset_secs = idb
            .options
            .iter()
            .find(|o| o.code == OptionCode::IfTsoffset)
            .and_then(|o| o.value().get(..8))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(|b| {
                if big_endian {
                    i64::from_be_bytes(b)
                } else {
                    i64::from_le_bytes(b)
                }
            })
            .unwrap_or(0);
        let linktype = u32::try_from(idb.linktype.0).unwrap_or(u32::MAX);
        (
            Interface {
                linktype,
                snaplen: idb.snaplen,
                units_per_sec,
                offset_secs,
            },
            problem,
        )
    }

    /// The capture time of a packet whose raw timestamp is `high:low`.
    pub fn timestamp(&self, high: u32, low: u32) -> Timestamp {
        let raw = (u64::from(high) << 32) | u64::from(low);
        let units = self.units_per_sec.max(1);
        let whole = raw / units;
        let frac = raw % units;
        // frac < units <= 2^64, so frac * 1e9 fits in u128 and the quotient is below 1e9.
        let nanos = (u128::from(frac) * 1_000_000_000 / u128::from(units)) as u32;
        let secs = i64::try_from(whole)
            .unwrap_or(i64::MAX)
            .saturating_add(self.offset_secs);
        Timestamp::new(secs, nanos)
    }
}

/// The longest interface name or description kept, in bytes (real ones are tens of bytes).
pub const MAX_NAME: usize = 256;

/// The interface's `if_name` and `if_description` (UTF-8; bytes that are not are replaced, and
/// a terminating NUL some writers add is dropped), each cut to [`MAX_NAME`] bytes. The first of
/// each is taken.
pub fn names(idb: &InterfaceDescriptionBlock<'_>) -> InterfaceNames {
    let text = |code: OptionCode| -> Option<Box<str>> {
        let o = idb.options.iter().find(|o| o.code == code)?;
        // The value as the parser gives it holds the padding to 32 bits: `len` is its length.
        let value = o.value();
        let value = value.get(..usize::from(o.len)).unwrap_or(value);
        let value = value.strip_suffix(&[0]).unwrap_or(value);
        let mut text = String::from_utf8_lossy(value).into_owned();
        if text.len() > MAX_NAME {
            // Up to 65,536 interfaces a section: their names must not hold the file's size.
            let mut cut = MAX_NAME;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        Some(text.into())
    };
    InterfaceNames {
        name: text(OptionCode::IfName),
        description: text(OptionCode::IfDescription),
    }
}

/// Units per second for an `if_tsresol` value: 10^n, or 2^n when the top bit is set; `None` when
/// that does not fit in 64 bits.
pub fn units_per_second(tsresol: u8) -> Option<u64> {
    let n = u32::from(tsresol & 0x7f);
    if tsresol & 0x80 == 0 {
        10u64.checked_pow(n)
    } else {
        1u64.checked_shl(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_on_a_character() {
        use pcap_parser::{Linktype, PcapNGOption};
        use std::borrow::Cow;
        let long = "é".repeat(200);
        let option = |code, v: &str| PcapNGOption {
            code,
            len: v.len() as u16,
            value: Cow::Owned(v.as_bytes().to_vec()),
        };
        let idb = InterfaceDescriptionBlock {
            block_type: 1,
            block_len1: 0,
            linktype: Linktype(1),
            reserved: 0,
            snaplen: 0,
            options: vec![
                option(OptionCode::IfName, &long),
                option(OptionCode::IfDescription, "up\0"),
            ],
            block_len2: 0,
            if_tsresol: 6,
            if_tsoffset: 0,
        };
        let n = names(&idb);
        let name = n.name.expect("a name");
        assert_eq!(name.len(), MAX_NAME);
        assert!(long.starts_with(&*name));
        assert_eq!(n.description.as_deref(), Some("up"), "the NUL dropped");
    }

    #[test]
    fn resolutions() {
        assert_eq!(units_per_second(6), Some(1_000_000));
        assert_eq!(units_per_second(9), Some(1_000_000_000));
        assert_eq!(units_per_second(0x80 | 10), Some(1024));
        assert_eq!(units_per_second(19), Some(10_000_000_000_000_000_000));
        assert_eq!(units_per_second(20), None);
        assert_eq!(units_per_second(0x80 | 64), None);
    }

    #[test]
    fn timestamps() {
        let i = Interface {
            linktype: 1,
            snaplen: 0,
            units_per_sec: 1024,
            offset_secs: -10,
        };
        // 100.5 s in 1/1024 s units, 10 s offset back.
        let raw: u64 = 100 * 1024 + 512;
        let t = i.timestamp((raw >> 32) as u32, raw as u32);
        assert_eq!(t, Timestamp::new(90, 500_000_000));
        let max = Interface {
            units_per_sec: 1,
            offset_secs: 5,
            ..i
        };
        assert_eq!(max.timestamp(u32::MAX, u32::MAX).secs, i64::MAX);
    }
}
