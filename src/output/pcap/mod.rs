//! Writing capture files: classic pcap ([`PcapWriter`]) and pcapng ([`PcapNgWriter`]), in
//! either byte order. `read -w`, `capture -w` and the generator write through them.

pub mod pcap_writer;
pub mod pcapng_writer;

pub use pcap_writer::{PcapWriter, TsResolution};
pub use pcapng_writer::{IfOptions, PacketOptions, PcapNgWriter};

/// Appends integers to a buffer in one byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    pub big_endian: bool,
}

impl Order {
    pub const BIG: Order = Order { big_endian: true };
    pub const LITTLE: Order = Order { big_endian: false };

    pub fn u16(self, out: &mut Vec<u8>, v: u16) {
        out.extend_from_slice(&if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        });
    }

    pub fn u32(self, out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        });
    }

    pub fn u64(self, out: &mut Vec<u8>, v: u64) {
        out.extend_from_slice(&if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        });
    }

    /// Overwrites four bytes at `at` (a length field written before its value was known).
    pub fn set_u32(self, out: &mut [u8], at: usize, v: u32) {
        let b = if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        if let Some(dst) = out.get_mut(at..at + 4) {
            dst.copy_from_slice(&b);
        }
    }
}
