//! The display filter's first stage: the text cut into tokens ([`tokenize`]), each a name or
//! unquoted value, a quoted string (its escapes undone), an operator with its meaning ([`Op`]), a
//! keyword or a symbol, with its byte in the text for the errors.

use super::arith::ArithOp;
use super::FilterError;

/// How one occurrence is compared with a value (or with another field's occurrence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rel {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Contains,
    /// A regular expression (`matches`, `~`), in any case unless it says `(?-i)`.
    Matches,
}

impl Rel {
    /// The operator's word, for the errors of the two that are words.
    pub(super) fn word(self) -> &'static str {
        match self {
            Rel::Matches => "matches",
            _ => "contains",
        }
    }
}

/// A comparison: the relation, and whether every occurrence must satisfy it (`!=`, `===`: the
/// field must then be there) or one is enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Op {
    pub(super) rel: Rel,
    pub(super) all: bool,
}

/// An operator's meaning, from its symbol or word, as tshark 4.0 has them.
pub(super) fn operator(text: &str) -> Option<Op> {
    let (rel, all) = match text {
        "==" | "eq" | "any_eq" => (Rel::Eq, false),
        "!=" | "ne" | "all_ne" => (Rel::Ne, true),
        "===" | "all_eq" => (Rel::Eq, true),
        "!==" | "~=" | "any_ne" => (Rel::Ne, false),
        ">" | "gt" => (Rel::Gt, false),
        "<" | "lt" => (Rel::Lt, false),
        ">=" | "ge" => (Rel::Ge, false),
        "<=" | "le" => (Rel::Le, false),
        "contains" => (Rel::Contains, false),
        "matches" | "~" => (Rel::Matches, false),
        _ => return None,
    };
    Some(Op { rel, all })
}

/// The words of the language (lowercase only, as in Wireshark).
pub(super) fn keyword(text: &str) -> Option<Kind> {
    Some(match text {
        "and" => Kind::And,
        "or" => Kind::Or,
        "not" => Kind::Not,
        "in" => Kind::In,
        w => Kind::Op(operator(w)?),
    })
}

/// A hint for a keyword written in capitals (`AND`), which Wireshark does not take either.
pub(super) fn case_hint(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    if lower != text && keyword(&lower).is_some() {
        format!(" (keywords are lowercase: '{lower}')")
    } else {
        String::new()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A name or an unquoted value.
    Word,
    /// A double-quoted string (its text unescaped).
    Quoted,
    Op(Op),
    And,
    Or,
    Not,
    Open,
    Close,
    In,
    SetOpen,
    SetClose,
    Comma,
    /// `[..]` after a name: a slice (its text with the brackets).
    Slice,
    /// `+`, `*`, `%` or `&` (`-` and `/` are words: the parser takes them as operators where
    /// one may be).
    Arith(ArithOp),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) kind: Kind,
    pub(super) text: String,
    pub(super) offset: usize,
    /// A quoted string's bytes, its escapes undone (`text` is them as UTF-8, lossily).
    pub(super) raw: Vec<u8>,
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'-')
}

pub(super) fn tokenize(s: &str) -> Result<Vec<Token>, FilterError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'[' {
            let Some(len) = s[i..].find(']') else {
                return Err(FilterError {
                    offset: i,
                    what: "a '[' without its ']'".into(),
                });
            };
            out.push(Token {
                kind: Kind::Slice,
                text: s[i..=i + len].to_string(),
                offset: start,
                raw: Vec::new(),
            });
            i += len + 1;
            continue;
        }
        let ahead = |n: usize| b.get(i..i + n).unwrap_or(&[]);
        // The longest symbol first: `!==` before `!=` before `!`.
        let symbol = [3, 2, 1].into_iter().find_map(|n| {
            let text = std::str::from_utf8(ahead(n)).ok()?;
            let kind = match text {
                "&&" => Kind::And,
                "||" => Kind::Or,
                "!" => Kind::Not,
                "(" => Kind::Open,
                ")" => Kind::Close,
                "{" => Kind::SetOpen,
                "}" => Kind::SetClose,
                "," => Kind::Comma,
                "+" | "*" | "%" | "&" => Kind::Arith(ArithOp::of(text)?),
                t if !t.bytes().any(|c| c.is_ascii_alphanumeric()) => Kind::Op(operator(t)?),
                _ => return None,
            };
            Some((kind, n))
        });
        // `r"..."`: a raw string, its backslashes kept (for regular expressions).
        let raw_string = c == b'r' && b.get(i + 1) == Some(&b'"');
        let (kind, len) = match symbol {
            Some(s) => s,
            None if c == b'"' || raw_string => {
                let from = i + usize::from(raw_string);
                let (raw, len) = quoted(s, from, raw_string)?;
                out.push(Token {
                    kind: Kind::Quoted,
                    text: String::from_utf8_lossy(&raw).into_owned(),
                    offset: start,
                    raw,
                });
                i = from + len;
                continue;
            }
            None if word_byte(c) => {
                let len = b[i..].iter().take_while(|&&c| word_byte(c)).count();
                (keyword(&s[i..i + len]).unwrap_or(Kind::Word), len)
            }
            None => {
                let c = s[i..].chars().next().unwrap_or('?');
                return Err(FilterError {
                    offset: i,
                    what: format!("unexpected character '{c}'"),
                });
            }
        };
        out.push(Token {
            kind,
            text: s[i..i + len].to_string(),
            offset: start,
            raw: Vec::new(),
        });
        i += len;
    }
    Ok(out)
}

/// The string starting with the quote at `at`, its escapes undone as Wireshark 4.0 does (`\\`,
/// `\"`, `\'`, `\a \b \f \n \r \t \v`, `\xhh`, octal `\ooo`, `\uXXXX`, `\UXXXXXXXX`; any other
/// is an error, as `\.` is in tshark) unless `raw`, and the bytes it took with its quotes.
pub(super) fn quoted(s: &str, at: usize, raw: bool) -> Result<(Vec<u8>, usize), FilterError> {
    let body = &s.as_bytes()[at + 1..];
    let mut out = Vec::new();
    let mut i = 0;
    let digits = |from: usize, radix: u32, max: usize| {
        body[from..]
            .iter()
            .take(max)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count()
    };
    while let Some(&c) = body.get(i) {
        match c {
            b'"' => return Ok((out, i + 2)),
            b'\\' if raw => {
                // A raw string keeps its backslashes, and `\"` does not end it.
                out.push(c);
                if let Some(&n) = body.get(i + 1) {
                    out.push(n);
                }
                i += 2;
            }
            b'\\' => {
                let Some(&e) = body.get(i + 1) else {
                    break;
                };
                let simple = match e {
                    b'\\' | b'"' | b'\'' => Some(e),
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b'f' => Some(12),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    b'v' => Some(11),
                    _ => None,
                };
                if let Some(byte) = simple {
                    out.push(byte);
                    i += 2;
                    continue;
                }
                let (radix, from, n) = match e {
                    b'x' => (16, i + 2, digits(i + 2, 16, 2)),
                    b'0'..=b'7' => (8, i + 1, digits(i + 1, 8, 3)),
                    b'u' => (16, i + 2, digits(i + 2, 16, 4)),
                    b'U' => (16, i + 2, digits(i + 2, 16, 8)),
                    _ => (0, 0, 0),
                };
                let wanted = match e {
                    b'u' => 4,
                    b'U' => 8,
                    _ => 1,
                };
                let value = (n >= wanted)
                    .then(|| std::str::from_utf8(&body[from..from + n]).ok())
                    .flatten()
                    .and_then(|d| u32::from_str_radix(d, radix).ok());
                match (e, value) {
                    (b'x' | b'0'..=b'7', Some(v)) if v <= 0xff => out.push(v as u8),
                    (b'u' | b'U', Some(v)) if char::from_u32(v).is_some() => {
                        let mut buf = [0; 4];
                        let ch = char::from_u32(v).unwrap_or('?');
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    _ => {
                        let shown = s[at + 1 + i..].chars().take(2).collect::<String>();
                        return Err(FilterError {
                            offset: at + 1 + i,
                            what: format!(
                                "'{shown}' is not an escape: a string takes \\\\, \\\", \\n, \\t, \\xhh and \
                                 the like; write \\\\ for a backslash, or r\"...\" for a string \
                                 whose backslashes stay (a regular expression)"
                            ),
                        });
                    }
                }
                i = from + n;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(FilterError {
        offset: at,
        what: "a string without its closing quote".into(),
    })
}
