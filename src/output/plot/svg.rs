//! The SVG: each layer drawn by plotters' SVG backend on a document of its own, its elements
//! then put in a group named after the layer (`<g class="series" data-member="...">`), so that
//! a reader, a script or a test finds a member's line, an episode's band or the findings by
//! name.

use plotters::backend::SVGBackend;
use plotters::prelude::DrawingBackend;

use super::draw::{draw, layer_attributes, layers, Layout, WIDTH};
use super::picture::Picture;

/// `s` as an XML attribute value.
fn attribute(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The elements of a document plotters wrote: its lines between `<svg ...>` and `</svg>`.
fn body(doc: &str) -> &str {
    let start = doc.find('>').map_or(0, |i| i + 1);
    let end = doc.rfind("</svg>").unwrap_or(doc.len()).max(start);
    doc[start..end].trim_matches('\n')
}

pub fn render(p: &Picture) -> Result<Vec<u8>, String> {
    let lay = Layout::of(p);
    let size = (WIDTH, lay.height);
    let mut out = format!(
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>{}</title>\n",
        attribute(&p.title),
        w = size.0,
        h = size.1
    );
    for l in layers(p) {
        let mut doc = String::new();
        {
            let mut db = SVGBackend::with_string(&mut doc, size);
            draw(&mut db, p, &lay, &l)?;
            db.present().map_err(|e| e.to_string())?;
        }
        out.push_str("<g");
        for (k, v) in layer_attributes(p, &l) {
            out.push_str(&format!(" {k}=\"{}\"", attribute(&v)));
        }
        out.push_str(">\n");
        let b = body(&doc);
        if !b.is_empty() {
            out.push_str(b);
            out.push('\n');
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_escaped() {
        assert_eq!(attribute("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
    }

    #[test]
    fn the_body_is_what_lies_inside_the_document() {
        let doc = "<svg width=\"1\">\n<rect/>\n<text>x</text>\n</svg>\n";
        assert_eq!(body(doc), "<rect/>\n<text>x</text>");
        assert_eq!(body("<svg>\n</svg>\n"), "");
    }
}
