//! A small reader of tshark's PDML (`tshark -T pdml`): packets, each a tree of protocols and
//! fields with their name, `show` text, raw `value` hex, position and size.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

#[derive(Clone, Debug, Default)]
pub struct Node {
    pub name: String,
    pub show: String,
    /// Raw bytes as hex, as PDML's `value` attribute holds them (empty for text-only nodes).
    pub value: String,
    pub pos: usize,
    pub size: usize,
    pub children: Vec<Node>,
}

impl Node {
    /// Depth-first, pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }

    pub fn find(&self, name: &str) -> Option<&Node> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }

    pub fn find_all<'a>(&'a self, name: &str) -> Vec<&'a Node> {
        let mut out = Vec::new();
        self.walk(&mut |n| {
            if n.name == name {
                out.push(n)
            }
        });
        out
    }

    pub fn bytes(&self) -> Vec<u8> {
        unhex(&self.value)
    }
}

/// One packet: its protocols in order.
#[derive(Clone, Debug, Default)]
pub struct Packet {
    pub protos: Vec<Node>,
}

impl Packet {
    pub fn proto(&self, name: &str) -> Option<&Node> {
        self.protos.iter().find(|p| p.name == name)
    }

    pub fn protos_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.protos.iter().filter(move |p| p.name == name)
    }

    /// First field of that name anywhere in the packet.
    pub fn field(&self, name: &str) -> Option<&Node> {
        self.protos.iter().find_map(|p| p.find(name))
    }

    pub fn number(&self) -> u64 {
        self.field("frame.number")
            .and_then(|n| n.show.parse().ok())
            .expect("frame.number")
    }
}

/// Runs `tshark -r FILE -T pdml [extra...]` and parses its output.
pub fn tshark_pdml(file: &Path, extra: &[&str]) -> Vec<Packet> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-T", "pdml"])
        .args(extra)
        .output()
        .expect("run tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8_lossy(&out.stdout))
}

pub fn parse(text: &str) -> Vec<Packet> {
    let mut packets = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    let mut current: Option<Packet> = None;
    for tag in tags(text) {
        if tag.starts_with("<packet") {
            current = Some(Packet::default());
        } else if tag.starts_with("</packet") {
            if let Some(p) = current.take() {
                packets.push(p);
            }
        } else if tag.starts_with("<proto") || tag.starts_with("<field") {
            let node = Node {
                name: attr(tag, "name").unwrap_or_default(),
                show: attr(tag, "show").unwrap_or_default(),
                value: attr(tag, "value").unwrap_or_default(),
                pos: attr(tag, "pos").and_then(|v| v.parse().ok()).unwrap_or(0),
                size: attr(tag, "size").and_then(|v| v.parse().ok()).unwrap_or(0),
                children: Vec::new(),
            };
            if tag.ends_with("/>") {
                attach(&mut stack, &mut current, node);
            } else {
                stack.push(node);
            }
        } else if tag.starts_with("</proto") || tag.starts_with("</field") {
            if let Some(node) = stack.pop() {
                attach(&mut stack, &mut current, node);
            }
        }
    }
    packets
}

/// The elements of the document, `<` to `>`, honouring quotes: tshark writes control bytes of
/// a field's text (a newline in a client identifier) raw inside attribute values.
fn tags(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(open) = text[i..].find('<').map(|o| i + o) {
        let mut in_quote = false;
        let mut j = open;
        while j < bytes.len() {
            match bytes[j] {
                b'"' => in_quote = !in_quote,
                b'>' if !in_quote => break,
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(bytes.len());
        out.push(&text[open..end]);
        i = end;
    }
    out
}

fn attach(stack: &mut [Node], current: &mut Option<Packet>, node: Node) {
    if let Some(parent) = stack.last_mut() {
        parent.children.push(node);
    } else if let Some(p) = current.as_mut() {
        p.protos.push(node);
    }
}

/// The value of ` key="..."` in an element, XML entities decoded.
fn attr(line: &str, key: &str) -> Option<String> {
    let pat = format!(" {key}=\"");
    let start = line.find(&pat)? + pat.len();
    let end = start + line[start..].find('"')?;
    Some(unescape(&line[start..end]))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';') else { break };
        let ent = &rest[1..end];
        let c = match ent {
            "quot" => Some('"'),
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            _ if ent.starts_with("#x") => u32::from_str_radix(&ent[2..], 16)
                .ok()
                .and_then(char::from_u32),
            _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}
