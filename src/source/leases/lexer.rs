//! Tokens of ISC's configuration language as dhcpd writes `dhcpd.leases`: words (names, numbers,
//! dates, times, addresses, colon-separated hex), quoted strings with backslash escapes, and the
//! punctuation `{ } ; = ,`. `#` starts a comment that runs to the end of the line.

/// One token and where it starts: its line and its column (both 1-based; the column counts
/// bytes from the start of the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub line: usize,
    pub col: usize,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A run of characters that are neither blank nor punctuation: `lease`, `192.0.2.1`,
    /// `2026/11/30`, `04:22:35`, `02:c1:00:00:00:01`, `little-endian`.
    Word(String),
    /// A quoted string, escapes resolved; the bytes need not be text (`uid "\001\002..."`).
    Str(Vec<u8>),
    /// `{`, `}`, `;`, `=` or `,`.
    Punct(u8),
}

impl Token {
    pub fn word(&self) -> Option<&str> {
        match &self.kind {
            Kind::Word(w) => Some(w),
            _ => None,
        }
    }

    pub fn is_punct(&self, c: u8) -> bool {
        self.kind == Kind::Punct(c)
    }

    /// The token as the file spelled it, for error messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Word(w) => format!("'{w}'"),
            Kind::Str(s) => format!("the string \"{}\"", String::from_utf8_lossy(s)),
            Kind::Punct(c) => format!("'{}'", char::from(*c)),
        }
    }
}

/// A problem the lexer found (an unterminated string), with its line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub line: usize,
    pub col: usize,
    pub what: String,
}

const PUNCT: &[u8] = b"{};=,";

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c')
}

/// Splits a lease file into tokens, one at a time.
pub struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    line: usize,
    /// Byte position where the current line starts.
    line_start: usize,
    pub errors: Vec<LexError>,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Lexer {
            input,
            pos: 0,
            line: 1,
            line_start: 0,
            errors: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.line_start = self.pos;
        }
        Some(b)
    }

    fn skip_blanks_and_comments(&mut self) {
        while let Some(b) = self.peek() {
            if is_blank(b) {
                self.bump();
            } else if b == b'#' {
                while let Some(c) = self.peek() {
                    if c == b'\n' {
                        break;
                    }
                    self.bump();
                }
            } else {
                break;
            }
        }
    }

    /// A quoted string; the opening quote is already consumed. ISC's escapes: `\t`, `\r`, `\n`,
    /// `\b`, up to three octal digits, `\x` and up to two hex digits; any other escaped character
    /// stands for itself.
    fn string(&mut self, start_line: usize, start_col: usize) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let Some(b) = self.bump() else {
                self.errors.push(LexError {
                    line: start_line,
                    col: start_col,
                    what: "string opened on this line is not closed before the end of the file"
                        .into(),
                });
                return out;
            };
            match b {
                b'"' => return out,
                b'\\' => {
                    let Some(e) = self.bump() else { continue };
                    match e {
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'n' => out.push(b'\n'),
                        b'b' => out.push(0x08),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        self.bump();
                                        v = v * 8 + u32::from(d - b'0');
                                    }
                                    _ => break,
                                }
                            }
                            // Three octal digits reach 511; dhcpd only writes 0..=255.
                            out.push((v & 0xff) as u8);
                        }
                        b'x' => {
                            let mut v = 0u32;
                            let mut digits = 0;
                            while digits < 2 {
                                match self.peek().and_then(|d| char::from(d).to_digit(16)) {
                                    Some(d) => {
                                        self.bump();
                                        v = v * 16 + d;
                                        digits += 1;
                                    }
                                    None => break,
                                }
                            }
                            if digits == 0 {
                                out.push(b'x');
                            } else {
                                out.push(v as u8);
                            }
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.skip_blanks_and_comments();
        let line = self.line;
        let col = self.pos - self.line_start + 1;
        let b = self.bump()?;
        let kind = if b == b'"' {
            Kind::Str(self.string(line, col))
        } else if PUNCT.contains(&b) {
            Kind::Punct(b)
        } else {
            let start = self.pos - 1;
            while let Some(c) = self.peek() {
                if is_blank(c) || PUNCT.contains(&c) || c == b'"' || c == b'#' {
                    break;
                }
                self.bump();
            }
            let bytes = self.input.get(start..self.pos).unwrap_or_default();
            Kind::Word(String::from_utf8_lossy(bytes).into_owned())
        };
        Some(Token { line, col, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Kind> {
        Lexer::new(s.as_bytes()).map(|t| t.kind).collect()
    }

    fn w(s: &str) -> Kind {
        Kind::Word(s.into())
    }

    #[test]
    fn words_strings_punctuation_and_lines() {
        let toks: Vec<Token> = Lexer::new(b"lease 192.0.2.1 {\n  uid \"a\\001\";\n}").collect();
        let at: Vec<(usize, usize)> = toks.iter().map(|t| (t.line, t.col)).collect();
        assert_eq!(
            at,
            [(1, 1), (1, 7), (1, 17), (2, 3), (2, 7), (2, 14), (3, 1)]
        );
        assert_eq!(
            toks.into_iter().map(|t| t.kind).collect::<Vec<_>>(),
            [
                w("lease"),
                w("192.0.2.1"),
                Kind::Punct(b'{'),
                w("uid"),
                Kind::Str(vec![b'a', 1]),
                Kind::Punct(b';'),
                Kind::Punct(b'}'),
            ]
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line() {
        assert_eq!(
            kinds("a # b c ; {\nd;"),
            [w("a"), w("d"), Kind::Punct(b';')]
        );
        // A comment right after a word ends the word.
        assert_eq!(
            kinds("epoch 5;# x"),
            [w("epoch"), w("5"), Kind::Punct(b';')]
        );
    }

    #[test]
    fn escapes_as_isc_reads_them() {
        // Octal up to three digits (the fourth is a plain character), hex up to two, named ones,
        // and any other character standing for itself.
        assert_eq!(
            kinds(r#""\0012\x41\x4g\t\"\\\q""#),
            [Kind::Str(vec![
                1, b'2', 0x41, 4, b'g', b'\t', b'"', b'\\', b'q'
            ])]
        );
        // The capture's uid: \001\002\301Z\212\000\342.
        assert_eq!(
            kinds(r#""\001\002\301Z\212\000\342""#),
            [Kind::Str(vec![1, 2, 0xc1, b'Z', 0x8a, 0, 0xe2])]
        );
        // "\x" without digits is a plain x.
        assert_eq!(kinds(r#""\xz""#), [Kind::Str(b"xz".to_vec())]);
    }

    #[test]
    fn unterminated_string_is_reported_on_its_line() {
        let mut lx = Lexer::new(b"a;\nuid \"abc\n\n");
        let toks: Vec<Token> = lx.by_ref().collect();
        assert_eq!(toks.len(), 4);
        assert_eq!(lx.errors.len(), 1);
        assert_eq!((lx.errors[0].line, lx.errors[0].col), (2, 5));
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        let mut state = 7u32;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (state >> 16) as u8
                })
                .collect();
            let _ = Lexer::new(&bytes).count();
        }
        let _ = Lexer::new(b"\"\\").count();
        let _ = Lexer::new(b"\"\\7").count();
    }
}
