//! Which hash buckets a probe asks about: `all`, a range `A-B`, or a list of both (`0-15,100`).

use std::fmt;
use std::str::FromStr;

/// A set of buckets (0..=255), kept in ascending order.
#[derive(Clone, PartialEq, Eq)]
pub struct BucketSet([bool; 256]);

impl BucketSet {
    pub fn all() -> Self {
        BucketSet([true; 256])
    }

    pub fn none() -> Self {
        BucketSet([false; 256])
    }

    pub fn insert(&mut self, b: u8) {
        self.0[usize::from(b)] = true;
    }

    pub fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b)]
    }

    pub fn len(&self) -> usize {
        self.0.iter().filter(|&&x| x).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buckets in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=255u8).filter(|&b| self.contains(b))
    }
}

impl fmt::Debug for BucketSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BucketSet({})", ranges(self.iter()))
    }
}

impl FromStr for BucketSet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(BucketSet::all());
        }
        let mut set = BucketSet::none();
        for part in s.split(',') {
            let part = part.trim();
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (bucket(a, s)?, bucket(b, s)?),
                None => {
                    let b = bucket(part, s)?;
                    (b, b)
                }
            };
            if lo > hi {
                return Err(format!(
                    "--buckets {s}: the range {part} runs backwards (write {hi}-{lo})"
                ));
            }
            for b in lo..=hi {
                set.insert(b);
            }
        }
        Ok(set)
    }
}

fn bucket(t: &str, whole: &str) -> Result<u8, String> {
    t.trim().parse::<u8>().map_err(|_| {
        format!(
            "--buckets {whole}: {:?} is not a bucket (0 to 255); give all, a range A-B, or a \
             list such as 0-15,100,200-210",
            t.trim()
        )
    })
}

/// Buckets in ascending order written as ranges: `0-99, 101, 130-131`; `none` when empty.
pub fn ranges(buckets: impl IntoIterator<Item = u8>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(u8, u8)> = None;
    let close = |out: &mut Vec<String>, (a, b): (u8, u8)| {
        out.push(if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        })
    };
    for b in buckets {
        run = match run {
            Some((a, last)) if last.checked_add(1) == Some(b) => Some((a, b)),
            Some(r) => {
                close(&mut out, r);
                Some((b, b))
            }
            None => Some((b, b)),
        };
    }
    if let Some(r) = run {
        close(&mut out, r);
    }
    if out.is_empty() {
        "none".to_string()
    } else {
        out.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!("all".parse::<BucketSet>().unwrap().len(), 256);
        assert_eq!("ALL".parse::<BucketSet>().unwrap(), BucketSet::all());
        let s: BucketSet = "0-15, 100,200-201".parse().unwrap();
        assert_eq!(s.len(), 19);
        assert!(s.contains(0) && s.contains(15) && s.contains(100) && s.contains(201));
        assert!(!s.contains(16) && !s.contains(199));
        let one: BucketSet = "255".parse().unwrap();
        assert_eq!(one.iter().collect::<Vec<_>>(), [255]);
        // Overlaps are fine.
        assert_eq!("1-3,2-4".parse::<BucketSet>().unwrap().len(), 4);
    }

    #[test]
    fn mistakes_are_explained() {
        for (text, says) in [
            ("256", "not a bucket"),
            ("-1", "not a bucket"),
            ("a-b", "not a bucket"),
            ("", "not a bucket"),
            ("1,,2", "not a bucket"),
            ("9-3", "runs backwards (write 3-9)"),
        ] {
            let e = text.parse::<BucketSet>().unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges([]), "none");
        assert_eq!(ranges([5]), "5");
        assert_eq!(ranges([0, 1, 2, 4, 6, 7]), "0-2, 4, 6-7");
        assert_eq!(ranges(BucketSet::all().iter()), "0-255");
        assert_eq!(ranges([254, 255]), "254-255");
    }
}
