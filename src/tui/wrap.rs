//! Wrapping the detail view's lines to the screen width: the model scrolls over the wrapped lines
//! and the view draws them, so both use this.

/// Lines wrapped to `width` characters: breaks at the last space that fits, continuation lines
/// indented two more than the line they continue (so trees stay readable).
pub fn wrap(lines: &[String], width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let indent = line.chars().take_while(|c| *c == ' ').count();
        let cont = " ".repeat((indent + 2).min(width / 2));
        let mut rest: Vec<char> = line.chars().collect();
        let mut first = true;
        loop {
            let room = if first {
                width
            } else {
                width - cont.chars().count()
            };
            if rest.len() <= room {
                let s: String = rest.iter().collect();
                out.push(if first { s } else { format!("{cont}{s}") });
                break;
            }
            // The last space within the room, past the indentation.
            let cut = rest[..=room]
                .iter()
                .rposition(|c| *c == ' ')
                .filter(|&i| i > indent && i > 0)
                .unwrap_or(room);
            let head: String = rest[..cut].iter().collect();
            out.push(if first { head } else { format!("{cont}{head}") });
            let skip = if rest.get(cut) == Some(&' ') {
                cut + 1
            } else {
                cut
            };
            rest.drain(..skip);
            first = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_and_indents() {
        let w = wrap(&["    Option: a long value here".to_string()], 16);
        assert_eq!(w, vec!["    Option: a", "      long value", "      here"]);
        let w = wrap(&["xxxxxxxxxxxxxxxxxxxx".to_string()], 10);
        assert_eq!(w, vec!["xxxxxxxxxx", "  xxxxxxxx", "  xx"]);
        assert_eq!(wrap(&[String::new()], 10), vec![String::new()]);
    }
}
