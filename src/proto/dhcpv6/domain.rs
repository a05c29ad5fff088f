//! Domain names in DHCPv6 options (RFC 8415 section 10): RFC 1035 labels, uncompressed, one or
//! more names back to back. Kept as sent; read on demand.

use std::borrow::Cow;

/// What [`Names::decode`] read: each name with its offset in the encoded bytes, and the first
/// problem (offset and what) if a label was bad; the names before it are still there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub names: Vec<(usize, String)>,
    pub error: Option<(usize, String)>,
}

/// A list of DNS-encoded names as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names<'a>(pub Cow<'a, [u8]>);

impl<'a> Names<'a> {
    /// Encodes names such as `example.com` (a trailing dot is allowed).
    pub fn from_strs(names: &[&str]) -> Names<'static> {
        let mut b = Vec::new();
        for n in names {
            for l in n.trim_end_matches('.').split('.').filter(|l| !l.is_empty()) {
                let l = &l.as_bytes()[..l.len().min(63)];
                b.push(l.len() as u8);
                b.extend_from_slice(l);
            }
            b.push(0);
        }
        Names(Cow::Owned(b))
    }

    /// The first problem [`Self::decode`] would report, found without making the names (the
    /// parser checks every name it meets; most are never displayed).
    pub fn error(&self) -> Option<(usize, String)> {
        let b = self.0.as_ref();
        let mut at = 0usize;
        while let Some(&n) = b.get(at) {
            let n = usize::from(n);
            if n == 0 {
                at += 1;
                continue;
            }
            if let Some(e) = label_error(b, at, n) {
                return Some(e);
            }
            at += 1 + n;
        }
        None
    }

    /// The names, each with its offset in the encoded bytes: `example.com.` when the name is
    /// closed by the root label, `host` for a partial name (RFC 4704).
    pub fn decode(&self) -> Decoded {
        let b = self.0.as_ref();
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut start = 0usize;
        let mut at = 0usize;
        while let Some(&n) = b.get(at) {
            let n = usize::from(n);
            if n == 0 {
                // A name closed by the root label is fully qualified: written with its final dot.
                cur.push('.');
                out.push((start, std::mem::take(&mut cur)));
                at += 1;
                start = at;
                continue;
            }
            if let Some(e) = label_error(b, at, n) {
                return Decoded {
                    names: out,
                    error: Some(e),
                };
            }
            let Some(label) = b.get(at + 1..at + 1 + n) else {
                break;
            };
            if !cur.is_empty() {
                cur.push('.');
            }
            cur.push_str(&String::from_utf8_lossy(label));
            at += 1 + n;
        }
        if !cur.is_empty() {
            out.push((start, cur));
        }
        Decoded {
            names: out,
            error: None,
        }
    }

    /// The names as text, best effort.
    pub fn to_strings(&self) -> Vec<String> {
        self.decode().names.into_iter().map(|(_, s)| s).collect()
    }

    pub fn into_owned(self) -> Names<'static> {
        Names(Cow::Owned(self.0.into_owned()))
    }
}

/// What is wrong with the label of length `n` (not 0) at `at` in `b`, if anything.
fn label_error(b: &[u8], at: usize, n: usize) -> Option<(usize, String)> {
    if n > 63 {
        return Some((
            at,
            format!("label length {n} exceeds 63 (compression is not allowed)"),
        ));
    }
    if b.len() < at + 1 + n {
        return Some((
            at,
            format!(
                "label of {n} bytes runs past the end of the name ({} left)",
                b.len() - at - 1
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let n = Names::from_strs(&["example.com.", "a.b"]);
        assert_eq!(n.0.as_ref(), b"\x07example\x03com\x00\x01a\x01b\x00");
        assert_eq!(
            n.decode().names,
            vec![(0, "example.com.".into()), (13, "a.b.".into())]
        );
        assert_eq!(n.decode().error, None);
        let partial = Names(Cow::Borrowed(&b"\x0braspberrypi"[..]));
        assert_eq!(partial.to_strings(), vec!["raspberrypi".to_string()]);
        let bad = Names(Cow::Borrowed(&b"\x03ab"[..]));
        assert!(bad.decode().error.is_some());
        let bad = Names(Cow::Borrowed(&b"\xc0\x0c"[..]));
        assert_eq!(bad.decode().error.map(|e| e.0), Some(0));
        for b in [
            &b"\x07example\x03com\x00\x01a\x01b\x00"[..],
            b"\x0braspberrypi",
            b"\x03ab",
            b"\x01a\xc0\x0c",
            b"\x00\x00\x02abc\x05ab",
            b"",
        ] {
            let n = Names(Cow::Borrowed(b));
            assert_eq!(n.error(), n.decode().error, "{b:?}");
        }
    }
}
