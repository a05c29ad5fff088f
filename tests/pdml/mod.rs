//! A small reader of tshark's PDML (`tshark -T pdml`): packets, each a tree of protocols and
//! fields with their name, `show` text, raw `value` hex, position and size. tshark writes one
//! element per line, which is all this reader relies on.
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
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("<packet") {
            current = Some(Packet::default());
        } else if l.starts_with("</packet") {
            if let Some(p) = current.take() {
                packets.push(p);
            }
        } else if l.starts_with("<proto") || l.starts_with("<field") {
            let node = Node {
                name: attr(l, "name").unwrap_or_default(),
                show: attr(l, "show").unwrap_or_default(),
                value: attr(l, "value").unwrap_or_default(),
                pos: attr(l, "pos").and_then(|v| v.parse().ok()).unwrap_or(0),
                size: attr(l, "size").and_then(|v| v.parse().ok()).unwrap_or(0),
                children: Vec::new(),
            };
            if l.ends_with("/>") {
                attach(&mut stack, &mut current, node);
            } else {
                stack.push(node);
            }
        } else if l.starts_with("</proto") || l.starts_with("</field") {
            if let Some(node) = stack.pop() {
                attach(&mut stack, &mut current, node);
            }
        }
    }
    packets
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
