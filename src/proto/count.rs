//! How many elements a list of type-length-value elements holds, walking the length fields only:
//! the parsers size their vectors with it, so a message's list is allocated once instead of
//! growing one element at a time (the growth was a tenth of all allocations of `check`).

/// Where a layout keeps its length field and what the length counts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Offset of the big-endian 16-bit length field in the element.
    pub len_at: usize,
    /// Bytes of the element header.
    pub header: usize,
    /// Whether the length counts the header (SCTP chunks, RSerPool parameters) or only the
    /// value (DHCPv6 options).
    pub counts_header: bool,
    /// Elements are padded to a multiple of this (1: no padding).
    pub align: usize,
}

/// SCTP chunks and RSerPool parameters: 16-bit length at byte 2, header included, padded to 4.
pub(crate) const PADDED4: Layout = Layout {
    len_at: 2,
    header: 4,
    counts_header: true,
    align: 4,
};

/// DHCPv6 options: 16-bit length at byte 2 counting the value only, no padding.
pub(crate) const DHCPV6: Layout = Layout {
    len_at: 2,
    header: 4,
    counts_header: false,
    align: 1,
};

/// The number of elements in `buf`, counting a last one whose header or value is cut short (the
/// parsers keep it as raw data or an error). An estimate for a capacity: never more than
/// `buf.len() / layout.header + 1`, whatever the length fields say.
pub(crate) fn elements(buf: &[u8], layout: Layout) -> usize {
    let mut n = 0;
    let mut at = 0usize;
    while at < buf.len() {
        n += 1;
        let Some(len) = buf
            .get(at + layout.len_at..at + layout.len_at + 2)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        else {
            break;
        };
        let len = if layout.counts_header {
            len
        } else {
            len + layout.header
        };
        if len < layout.header {
            break;
        }
        at += len.div_ceil(layout.align) * layout.align;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_padded_elements_and_a_cut_last_one() {
        // Lengths 5 (padded to 8), 4, then a header saying 12 with 2 bytes left.
        let buf = [
            0, 1, 0, 5, 9, 0, 0, 0, //
            0, 2, 0, 4, //
            0, 3, 0, 12, 1, 2,
        ];
        assert_eq!(elements(&buf, PADDED4), 3);
        assert_eq!(elements(&buf[..8], PADDED4), 1);
        assert_eq!(elements(&[], PADDED4), 0);
        // A header too short for its length field still counts once.
        assert_eq!(elements(&[0, 1], PADDED4), 1);
        // A length below the header ends the walk (the parser reports it).
        assert_eq!(elements(&[0, 1, 0, 2, 0, 1, 0, 4], PADDED4), 1);
    }

    #[test]
    fn counts_dhcpv6_options_by_their_value_length() {
        let buf = [0, 1, 0, 2, 7, 7, 0, 8, 0, 0, 0, 3, 0, 0];
        assert_eq!(elements(&buf, DHCPV6), 3);
    }

    #[test]
    fn bounded_by_the_buffer_whatever_the_lengths_say() {
        let zeros = [0u8; 64];
        // DHCPv6 options of length 0 are 4 bytes each.
        assert_eq!(elements(&zeros, DHCPV6), 16);
        let big = [0xffu8; 64];
        assert_eq!(elements(&big, PADDED4), 1);
    }
}
