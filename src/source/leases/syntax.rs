//! Statements: the shape every declaration in `dhcpd.leases` has. A statement is a run of tokens
//! ended either by `;` or by a `{ ... }` block of further statements (`lease A.B.C.D { ... }` has
//! no `;` after its block). Top-level statements are handed out one at a time, so memory stays
//! bounded by the largest declaration, not by the file.

use super::lexer::{Kind, Lexer, Token};
use super::LeaseError;

/// Blocks nested deeper than this are skipped: dhcpd writes at most `lease { on expiry { } }`.
pub const MAX_DEPTH: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Line of the first token.
    pub line: usize,
    /// Column of the first token (bytes from the start of its line, 1-based).
    pub col: usize,
    pub words: Vec<Token>,
    /// The `{ ... }` part, if the statement has one.
    pub block: Option<Vec<Statement>>,
}

/// Reads top-level statements from a lexer, reporting what does not fit the shape.
pub struct Statements<'a> {
    lexer: Lexer<'a>,
    pending: Option<Token>,
    pub errors: Vec<LeaseError>,
}

enum End {
    Semicolon,
    Block,
    /// The enclosing block closed (`}`) before this statement ended.
    Close,
    Eof,
}

impl<'a> Statements<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Statements {
            lexer: Lexer::new(input),
            pending: None,
            errors: Vec::new(),
        }
    }

    fn next_token(&mut self) -> Option<Token> {
        if let Some(t) = self.pending.take() {
            return Some(t);
        }
        let t = self.lexer.next();
        for e in self.lexer.errors.drain(..) {
            self.errors.push(LeaseError {
                line: e.line,
                col: e.col,
                what: e.what,
            });
        }
        t
    }

    /// Tokens up to the end of one statement, at nesting `depth`.
    fn statement(&mut self, depth: usize) -> Option<(Statement, End)> {
        let first = self.next_token()?;
        let (line, col) = (first.line, first.col);
        let mut words = Vec::new();
        let mut tok = Some(first);
        loop {
            let Some(t) = tok else {
                return Some((Statement::new(line, col, words), End::Eof));
            };
            match t.kind {
                Kind::Punct(b';') => {
                    return Some((Statement::new(line, col, words), End::Semicolon))
                }
                Kind::Punct(b'}') => return Some((Statement::new(line, col, words), End::Close)),
                Kind::Punct(b'{') => {
                    let body = self.block(depth + 1, (t.line, t.col));
                    let st = Statement {
                        line,
                        col,
                        words,
                        block: Some(body),
                    };
                    return Some((st, End::Block));
                }
                _ => words.push(t),
            }
            tok = self.next_token();
        }
    }

    /// The statements of a block whose `{` (at `open`: line, column) is already consumed,
    /// through its `}`.
    fn block(&mut self, depth: usize, open: (usize, usize)) -> Vec<Statement> {
        let (open_line, open_col) = open;
        if depth > MAX_DEPTH {
            self.errors.push(LeaseError {
                line: open_line,
                col: open_col,
                what: format!("blocks nested deeper than {MAX_DEPTH}: this block is skipped"),
            });
            self.skip_block();
            return Vec::new();
        }
        let mut out = Vec::new();
        loop {
            let Some((st, end)) = self.statement(depth) else {
                self.errors.push(LeaseError {
                    line: open_line,
                    col: open_col,
                    what:
                        "block opened on this line is not closed by '}' before the end of the file"
                            .into(),
                });
                return out;
            };
            match end {
                End::Semicolon | End::Block => out.push(st),
                End::Close => {
                    if !st.words.is_empty() {
                        self.errors.push(LeaseError {
                            line: st.line,
                            col: st.col,
                            what: "statement not ended by ';' before '}'".into(),
                        });
                    }
                    return out;
                }
                End::Eof => {
                    self.errors.push(LeaseError {
                        line: open_line,
                        col: open_col,
                        what:
                            "block opened on this line is not closed by '}' before the end of the file"
                                .into(),
                    });
                    return out;
                }
            }
        }
    }

    /// Skips tokens through the `}` that balances an already consumed `{`, without recursion.
    fn skip_block(&mut self) {
        let mut depth = 1usize;
        while let Some(t) = self.next_token() {
            if t.is_punct(b'{') {
                depth += 1;
            } else if t.is_punct(b'}') {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }
}

impl Statement {
    fn new(line: usize, col: usize, words: Vec<Token>) -> Self {
        Statement {
            line,
            col,
            words,
            block: None,
        }
    }

    /// The word at `i`, if that token is a word.
    pub fn word(&self, i: usize) -> Option<&str> {
        self.words.get(i).and_then(Token::word)
    }

    pub fn keyword(&self) -> Option<&str> {
        self.word(0)
    }
}

impl Iterator for Statements<'_> {
    type Item = Statement;

    /// The next top-level statement. A stray `}` or an unterminated statement is reported and
    /// skipped.
    fn next(&mut self) -> Option<Statement> {
        loop {
            let (st, end) = self.statement(0)?;
            match end {
                End::Semicolon | End::Block => return Some(st),
                End::Close => {
                    self.errors.push(LeaseError {
                        line: st.line,
                        col: st.col,
                        what: if st.words.is_empty() {
                            "'}' without a block to close".into()
                        } else {
                            "statement not ended by ';' before a stray '}'".into()
                        },
                    });
                }
                End::Eof => {
                    if !st.words.is_empty() {
                        self.errors.push(LeaseError {
                            line: st.line,
                            col: st.col,
                            what: "statement not ended by ';' before the end of the file".into(),
                        });
                    }
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> (Vec<Statement>, Vec<LeaseError>) {
        let mut it = Statements::new(s.as_bytes());
        let v: Vec<Statement> = it.by_ref().collect();
        (v, it.errors)
    }

    #[test]
    fn statements_and_blocks() {
        let (v, e) = read("a b;\nlease 1.2.3.4 {\n x;\n on expiry { y; }\n}\nc;");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].keyword(), Some("a"));
        assert_eq!(v[1].line, 2);
        let body = v[1].block.as_ref().unwrap();
        assert_eq!(body.len(), 2);
        assert_eq!(body[1].keyword(), Some("on"));
        assert_eq!(body[1].block.as_ref().unwrap()[0].keyword(), Some("y"));
        assert_eq!(v[2].line, 6);
    }

    #[test]
    fn missing_semicolon_and_stray_brace_are_reported_and_skipped() {
        let (v, e) = read("lease 1.2.3.4 {\n x\n}\n}\nb;\n");
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].keyword(), Some("b"));
        let lines: Vec<usize> = e.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 4], "{e:?}");
    }

    #[test]
    fn unclosed_block_and_unended_statement_at_the_end() {
        let (v, e) = read("a;\nlease 1.2.3.4 {\n x;\n");
        assert_eq!(v.len(), 2);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].line, 2);
        let (v, e) = read("a;\nb c");
        assert_eq!(v.len(), 1);
        assert_eq!(e[0].line, 2);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = "x {".repeat(1000) + &"}".repeat(1000) + "\nz;";
        let (v, e) = read(&deep);
        assert_eq!(v.len(), 2, "the outer statement, then z");
        assert_eq!(v[1].keyword(), Some("z"));
        assert_eq!(e.len(), 1);
        // Unbalanced deep input ends without a stack overflow.
        let (_, e) = read(&"x {".repeat(100_000));
        assert!(!e.is_empty());
    }
}
