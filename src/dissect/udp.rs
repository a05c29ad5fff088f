//! UDP: ports, and the payload bounded by the UDP length checked against the IP payload.

use etherparse::UdpHeaderSlice;

use crate::error::DecodeError;

/// A decoded UDP datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpDatagram<'a> {
    pub sport: u16,
    pub dport: u16,
    /// The length field.
    pub length: u16,
    pub payload: &'a [u8],
}

/// Decodes a UDP datagram filling the IP payload `data` (errors relative to `data`). A length
/// field that disagrees with the IP payload is reported, and the payload is what both allow.
pub fn parse<'a>(
    data: &'a [u8],
    errors: &mut Vec<DecodeError>,
) -> Result<UdpDatagram<'a>, DecodeError> {
    let h = UdpHeaderSlice::from_slice(data)
        .map_err(|_| DecodeError::truncated(0, "UDP header", 8, data.len()))?;
    let length = h.length();
    let len = usize::from(length);
    let end = if len < 8 {
        // 0 is legal for IPv6 jumbograms only; take the IP payload either way.
        if len != 0 {
            errors.push(DecodeError::new(
                4,
                format!("UDP length {len} is shorter than its 8-byte header"),
            ));
        }
        data.len()
    } else if len > data.len() {
        errors.push(DecodeError::new(
            4,
            format!(
                "UDP length {len} exceeds the {} bytes of the IP payload",
                data.len()
            ),
        ));
        data.len()
    } else {
        len
    };
    Ok(UdpDatagram {
        sport: h.source_port(),
        dport: h.destination_port(),
        length,
        payload: data.get(8..end).unwrap_or(&[]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_checked_against_the_ip_payload() {
        let d = [0, 67, 0, 68, 0, 12, 0, 0, 1, 2, 3, 4, 9, 9];
        let mut e = Vec::new();
        let u = parse(&d, &mut e).unwrap();
        assert_eq!((u.sport, u.dport, u.payload), (67, 68, &[1u8, 2, 3, 4][..]));
        assert!(e.is_empty());
        let u = parse(&d[..10], &mut e).unwrap();
        assert_eq!(u.payload, &[1, 2]);
        assert_eq!((e.len(), e[0].offset), (1, 4));
        assert_eq!(parse(&d[..7], &mut e).unwrap_err().offset, 0);
    }
}
