//! Wrapping the detail view's lines to the screen width: the model scrolls over the wrapped lines
//! and the view draws them, so both use this.

/// Whether a line may break before `chars[i]`: at a space (which the break eats), or after a `,`
/// or `;` (which stays at the end of the line), so that words, numbers, addresses and JSON values
/// stay whole.
fn may_break_before(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&' ')
        || (i > 0
            && matches!(chars.get(i - 1), Some(',' | ';'))
            && chars.get(i).is_some_and(|c| *c != ','))
}

/// Lines wrapped to `width` characters at word boundaries (see [`may_break_before`]); a token
/// is cut only when it alone is wider than the line. Continuation lines are indented two more
/// than the line they continue (at most half the width), so that a wrapped field of a tree still
/// reads as part of its level.
pub fn wrap(lines: &[String], width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let chars: Vec<char> = line.trim_end().chars().collect();
        let indent = chars.iter().take_while(|c| **c == ' ').count();
        let cont = " ".repeat((indent + 2).min(width / 2));
        // The rest of the line from `start`; the first line keeps its own indentation (no break
        // in it), continuations get `cont`.
        let mut start = 0;
        let mut first = true;
        loop {
            let (prefix, least) = if first {
                ("", indent + 1)
            } else {
                (cont.as_str(), 1)
            };
            let room = width - prefix.len();
            let rest = &chars[start..];
            if rest.len() <= room {
                out.push(format!("{prefix}{}", rest.iter().collect::<String>()));
                break;
            }
            // The last break within the room that leaves something on this line.
            let cut = (least..=room)
                .rev()
                .find(|&i| may_break_before(rest, i))
                .unwrap_or(room);
            let head: String = rest[..cut].iter().collect();
            out.push(format!("{prefix}{}", head.trim_end()));
            start += cut;
            while chars.get(start) == Some(&' ') {
                start += 1;
            }
            if start >= chars.len() {
                break;
            }
            first = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(line: &str, width: usize) -> Vec<String> {
        wrap(&[line.to_string()], width)
    }

    #[test]
    fn wrapping_keeps_words_and_indents() {
        assert_eq!(
            w("    Option: a long value here", 16),
            vec!["    Option: a", "      long value", "      here"]
        );
        // A token wider than the line is cut, and only then.
        assert_eq!(
            w("xxxxxxxxxxxxxxxxxxxx", 10),
            vec!["xxxxxxxxxx", "  xxxxxxxx", "  xx"]
        );
        assert_eq!(w("", 10), vec![String::new()]);
        assert_eq!(
            w("ab cdefghijklmnop", 10),
            vec!["ab", "  cdefghij", "  klmnop"]
        );
    }

    /// Continuation lines of an indented field break at their own spaces too (they used to be
    /// cut mid-word when the space lay within the width of the original indentation).
    #[test]
    fn continuations_of_deep_lines_break_between_words() {
        let line = "        Note: answered by 2001:db8::17";
        assert_eq!(
            w(line, 24),
            vec![
                "        Note: answered",
                "          by",
                "          2001:db8::17",
            ]
        );
    }

    /// JSON without spaces breaks after its commas, never inside a key, a number or an address.
    #[test]
    fn json_breaks_after_commas() {
        let line = r#"  {"answer_from":["00:03:00:01:02:00:00:00:02:02"],"bucket":111,"hba":"kea","profile":"kea"}"#;
        assert_eq!(
            w(line, 52),
            vec![
                r#"  {"answer_from":["00:03:00:01:02:00:00:00:02:02"],"#,
                r#"    "bucket":111,"hba":"kea","profile":"kea"}"#,
            ]
        );
        for l in w(line, 20) {
            assert!(l.chars().count() <= 20, "{l}");
        }
        // A run of commas stays together.
        assert_eq!(w("aaaa,,bbbb", 8), vec!["aaaa,,", "  bbbb"]);
    }
}
