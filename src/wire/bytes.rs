//! Appending big-endian integers (network byte order) to a packet being built.

/// Network byte order, for packet headers.
pub fn be16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub fn be32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Overwrites a big-endian u16 at `at` (lengths and checksums filled in after the fact).
pub fn set_be16(out: &mut [u8], at: usize, v: u16) {
    if let Some(dst) = out.get_mut(at..at + 2) {
        dst.copy_from_slice(&v.to_be_bytes());
    }
}

pub fn set_be32(out: &mut [u8], at: usize, v: u32) {
    if let Some(dst) = out.get_mut(at..at + 4) {
        dst.copy_from_slice(&v.to_be_bytes());
    }
}

/// Zero bytes up to the next multiple of 4 of `out.len() - start`.
pub fn pad4(out: &mut Vec<u8>, start: usize) {
    while (out.len() - start) % 4 != 0 {
        out.push(0);
    }
}
