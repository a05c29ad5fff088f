//! What a file handed to `poolshark leases` is, from its first bytes: an ISC dhcpd lease file,
//! a Kea memfile CSV, or something else, which is named (a capture, a compressed file, JSON, a
//! CSV of other columns, binary data) so that the user sees at once why it is refused.

use super::kea;

/// The kinds of lease file read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseFormat {
    /// ISC dhcpd's `dhcpd.leases` (text statements); also an empty file.
    Dhcpd,
    /// Kea's memfile CSV; `v6` for `kea-leases6.csv`.
    Kea { v6: bool },
}

/// The format of `bytes`, or what they look like instead.
pub fn sniff(bytes: &[u8]) -> Result<LeaseFormat, String> {
    let head = &bytes[..bytes.len().min(4096)];
    let magic = head.get(..4).unwrap_or(head);
    match magic {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0xa1, 0xb2, 0xc3, 0xd4] | [0x4d, 0x3c, 0xb2, 0xa1]
        | [0xa1, 0xb2, 0x3c, 0x4d] => {
            return Err("it is a pcap capture (poolshark read, check or stats take it)".into())
        }
        [0x0a, 0x0d, 0x0d, 0x0a] => {
            return Err("it is a pcapng capture (poolshark read, check or stats take it)".into())
        }
        [0x1f, 0x8b, ..] => {
            return Err(
                "it is gzip-compressed (a compressed capture? a lease file is read as dhcpd or Kea write it)"
                    .into(),
            )
        }
        _ => {}
    }
    // A lease file is text: a NUL byte, or bytes that are not UTF-8 (up to a character cut by
    // the 4 KiB window), make it binary.
    let text_len = match std::str::from_utf8(head) {
        Ok(_) => head.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => return Err("it is binary data, not a lease file".into()),
    };
    if head[..text_len].contains(&0) {
        return Err("it is binary data, not a lease file".into());
    }
    let text = String::from_utf8_lossy(&head[..text_len]);
    let first = after_comments(&text);
    if first.starts_with('{') || first.starts_with('[') {
        return Err(
            if first.contains("\"Dhcp4\"") || first.contains("\"Dhcp6\"") {
                "it is a Kea configuration (JSON): give it as --config, and the lease file (kea-leases4.csv, kea-leases6.csv) as the file".into()
            } else {
                "it is JSON, not a lease file (dhcpd.leases or Kea's kea-leases4.csv / kea-leases6.csv)".into()
            },
        );
    }
    let line = text.lines().next().unwrap_or_default();
    if let Some(v6) = kea::header_family(line) {
        return Ok(LeaseFormat::Kea { v6 });
    }
    if line.starts_with("address,") {
        return Err(format!(
            "it is a CSV whose header is not Kea's memfile header (address,hwaddr,... or address,duid,... with expire): {line}"
        ));
    }
    Ok(LeaseFormat::Dhcpd)
}

/// The text after leading blanks and comments (`#` and `//` to the end of the line, `/* */`),
/// where a Kea configuration's JSON starts.
fn after_comments(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if s.starts_with('#') || s.starts_with("//") {
            s = s.split_once('\n').map_or("", |(_, rest)| rest);
        } else if let Some(rest) = s.strip_prefix("/*") {
            s = rest.split_once("*/").map_or("", |(_, rest)| rest);
        } else {
            return s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_impostors() {
        assert_eq!(sniff(b""), Ok(LeaseFormat::Dhcpd));
        assert_eq!(
            sniff(b"# comment\nlease 10.0.0.1 { }"),
            Ok(LeaseFormat::Dhcpd)
        );
        assert_eq!(
            sniff(b"address,hwaddr,client_id,valid_lifetime,expire,subnet_id\n"),
            Ok(LeaseFormat::Kea { v6: false })
        );
        assert_eq!(
            sniff(b"address,duid,valid_lifetime,expire,subnet_id,pref_lifetime,lease_type\n"),
            Ok(LeaseFormat::Kea { v6: true })
        );
        for (bytes, says) in [
            (&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0][..], "pcap"),
            (&[0x0a, 0x0d, 0x0d, 0x0a, 0, 0][..], "pcapng"),
            (&[0x1f, 0x8b, 8][..], "gzip"),
            (&b"{\"findings\": []}"[..], "JSON"),
            (&b" {\"Dhcp4\": {}}"[..], "Kea configuration"),
            (
                &b"// a server\n/* x */ {\"Dhcp6\": {}}"[..],
                "Kea configuration",
            ),
            (&b"lease\x00"[..], "binary"),
            (&[0xff, 0xfe, 0x41][..], "binary"),
            (&b"address,mac\n"[..], "CSV"),
        ] {
            let e = sniff(bytes).unwrap_err();
            assert!(e.contains(says), "{bytes:?}: {e}");
        }
        // A multi-byte character cut at the window's end is still text.
        let mut long = vec![b'#'; 4095];
        long.extend_from_slice("é\n".as_bytes());
        assert_eq!(sniff(&long), Ok(LeaseFormat::Dhcpd));
    }
}
