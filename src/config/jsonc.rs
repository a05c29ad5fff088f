//! Kea's JSON with comments: `//` and `#` to the end of the line, `/* ... */` across lines.
//! Comments become spaces (line ends kept), so that the JSON parser's line and column of an
//! error are those of the file as written; text inside strings is left alone (a URL's `//`).

/// The text with its comments blanked, or the position (line, column) of a `/*` never closed.
pub fn strip(text: &[u8]) -> Result<Vec<u8>, (usize, usize)> {
    let mut out = text.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < out.len() {
        let b = out[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, out.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                i += 1;
            }
            (b'#', _) | (b'/', Some(b'/')) => {
                while i < out.len() && out[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let start = i;
                let Some(len) = out[i + 2..].windows(2).position(|w| w == b"*/") else {
                    return Err(line_col(text, start));
                };
                for c in &mut out[start..i + 2 + len + 2] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i += 2 + len + 2;
            }
            _ => i += 1,
        }
    }
    Ok(out)
}

/// 1-based line and column (in bytes) of byte `pos`.
pub fn line_col(text: &[u8], pos: usize) -> (usize, usize) {
    let before = &text[..pos.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, before.len() - start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_become_spaces_and_strings_are_kept() {
        let text = b"{ // a\n \"url\": \"http://[::1]:8000/\", # b\n /* c\n d */ \"x\": 1 }";
        let out = strip(text).unwrap();
        assert_eq!(out.len(), text.len());
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            "{     \n \"url\": \"http://[::1]:8000/\",    \n     \n      \"x\": 1 }"
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["url"], "http://[::1]:8000/");
        // An escaped quote does not end the string.
        let out = strip(br##"{"a": "x\"#y"}"##).unwrap();
        assert_eq!(out, br##"{"a": "x\"#y"}"##);
    }

    #[test]
    fn an_unclosed_block_comment_is_placed() {
        assert_eq!(strip(b"{\n  /* open\n"), Err((2, 3)));
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col(b"", 0), (1, 1));
    }
}
