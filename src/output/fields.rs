//! `read -T fields -e NAME ... [-E OPTION=VALUE ...]`: a line per frame with the values of the
//! named fields, as tshark's `-T fields` writes them.
//!
//! The options are tshark's: `header=y|n` (a first line of the field names), `separator=/t|/s|C`
//! (between fields: tab, space, or the character C), `occurrence=f|l|a` (of a field occurring
//! several times in a frame: the first, the last, or all; poolshark also takes N, the Nth from
//! 1), `aggregator=,|/s|C` (between the occurrences kept), `quote=d|s|n` (each non-empty field in
//! double or single quotes, or not).

use std::fmt;

use crate::filter::display::{Column, FrameView};

/// Which occurrences of a field a line keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence {
    All,
    First,
    Last,
    /// The Nth, from 1.
    Nth(usize),
}

/// The `-E` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldsOptions {
    pub header: bool,
    pub separator: String,
    pub aggregator: String,
    pub occurrence: Occurrence,
    pub quote: Option<char>,
}

impl Default for FieldsOptions {
    fn default() -> Self {
        FieldsOptions {
            header: false,
            separator: "\t".into(),
            aggregator: ",".into(),
            occurrence: Occurrence::All,
            quote: None,
        }
    }
}

/// An option that is not one of tshark's, or a value it does not take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

/// tshark's spelling of a separator: `/t` a tab, `/s` a space, else one character.
fn separator(key: &str, v: &str) -> Result<String, OptionError> {
    match v {
        "/t" => Ok("\t".into()),
        "/s" => Ok(" ".into()),
        _ if v.chars().count() == 1 => Ok(v.into()),
        _ => Err(OptionError(format!(
            "-E {key}={v}: use /t (tab), /s (space) or a single character"
        ))),
    }
}

impl FieldsOptions {
    /// Reads `-E` options in order (a later one overrides an earlier).
    pub fn parse<S: AsRef<str>>(options: &[S]) -> Result<Self, OptionError> {
        let mut o = FieldsOptions::default();
        for opt in options {
            let opt = opt.as_ref();
            let Some((key, v)) = opt.split_once('=') else {
                return Err(OptionError(format!(
                    "-E {opt}: expected OPTION=VALUE (header, separator, occurrence, aggregator, quote)"
                )));
            };
            match key {
                "header" => {
                    o.header = match v {
                        "y" => true,
                        "n" => false,
                        _ => return Err(OptionError(format!("-E header={v}: use y or n"))),
                    }
                }
                "separator" => o.separator = separator(key, v)?,
                "aggregator" => o.aggregator = separator(key, v)?,
                "occurrence" => {
                    o.occurrence = match v {
                        "a" => Occurrence::All,
                        "f" => Occurrence::First,
                        "l" => Occurrence::Last,
                        _ => match v.parse::<usize>() {
                            Ok(n) if n > 0 => Occurrence::Nth(n),
                            _ => {
                                return Err(OptionError(format!(
                                    "-E occurrence={v}: use f (first), l (last), a (all) or a number from 1"
                                )))
                            }
                        },
                    }
                }
                "quote" => {
                    o.quote = match v {
                        "d" => Some('"'),
                        "s" => Some('\''),
                        "n" => None,
                        _ => {
                            return Err(OptionError(format!(
                                "-E quote={v}: use d (double), s (single) or n (none)"
                            )))
                        }
                    }
                }
                _ => {
                    return Err(OptionError(format!(
                        "-E {key}: not an option (header, separator, occurrence, aggregator, quote)"
                    )))
                }
            }
        }
        Ok(o)
    }
}

/// The fields a line shows, and which tree fields any frame had.
#[derive(Debug)]
pub struct Columns {
    columns: Vec<Column>,
    /// Whether a column is a tree field (asked for each message: worked out once).
    trees: bool,
    /// The tree fields the columns name, each once.
    tree_names: Vec<String>,
    seen: Vec<bool>,
    options: FieldsOptions,
    /// One field's occurrences in the frame at hand (reused).
    values: Vec<String>,
}

impl Columns {
    /// The columns of `names`; an error names the first that cannot be one and why.
    pub fn new<S: AsRef<str>>(names: &[S], options: FieldsOptions) -> Result<Self, OptionError> {
        if names.is_empty() {
            return Err(OptionError(
                "-T fields needs at least one field (-e NAME; `read -V` shows the names)".into(),
            ));
        }
        let columns = names
            .iter()
            .map(|n| Column::parse(n.as_ref()).map_err(|e| OptionError(format!("-e: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let mut tree_names: Vec<String> = Vec::new();
        for name in columns.iter().filter_map(Column::tree_field) {
            if !tree_names.iter().any(|n| n == name) {
                tree_names.push(name.to_string());
            }
        }
        Ok(Columns {
            trees: columns.iter().any(Column::is_tree_field),
            tree_names,
            seen: vec![false; columns.len()],
            columns,
            options,
            values: Vec::new(),
        })
    }

    /// The header line (the field names), when `header=y` asks for it.
    pub fn write_header(&self, out: &mut Vec<u8>) {
        if !self.options.header {
            return;
        }
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(self.options.separator.as_bytes());
            }
            // tshark quotes the values, not the names.
            out.extend_from_slice(c.name().as_bytes());
        }
        out.push(b'\n');
    }

    /// Whether a column needs the messages' field trees (a tree field); the frame's own fields
    /// and the protocols do not.
    pub fn needs_trees(&self) -> bool {
        self.trees
    }

    /// The messages' tree fields the columns name, each once.
    pub fn tree_names(&self) -> &[String] {
        &self.tree_names
    }

    /// Whether a column is a field of the lower layers' trees, which the frames' views must
    /// then hold ([`FrameView::layers`]).
    pub fn needs_layers(&self) -> bool {
        self.columns.iter().any(Column::needs_layers)
    }

    /// Whether a column writes a lower layer's label (a protocol's own column, `-e eth`, is its
    /// header line), which the trees then must hold ([`crate::dissect::layers::decode`]).
    pub fn needs_labels(&self) -> bool {
        self.columns.iter().any(Column::needs_labels)
    }

    /// The line of one frame.
    pub fn write_row(&mut self, frame: &FrameView<'_>, out: &mut Vec<u8>) {
        for i in 0..self.columns.len() {
            if i > 0 {
                out.extend_from_slice(self.options.separator.as_bytes());
            }
            self.values.clear();
            let values = &mut self.values;
            self.columns[i].values(frame, &mut |v| values.push(v));
            self.seen[i] |= !self.values.is_empty();
            let kept: &[String] = match self.options.occurrence {
                Occurrence::All => &self.values,
                Occurrence::First => self.values.get(..1).unwrap_or(&[]),
                Occurrence::Last => self
                    .values
                    .len()
                    .checked_sub(1)
                    .map_or(&[], |l| &self.values[l..]),
                // From 1 (`parse` refuses 0; a 0 built in code keeps nothing).
                Occurrence::Nth(n) => self.values.get(n.saturating_sub(1)..n).unwrap_or(&[]),
            };
            // The occurrences kept, joined by the aggregator (written as they are, not joined
            // into a string first). An empty field stays empty, quoted or not (as tshark
            // writes it).
            let aggregator = self.options.aggregator.as_bytes();
            let len = kept.iter().map(String::len).sum::<usize>()
                + aggregator.len() * kept.len().saturating_sub(1);
            if len > 0 {
                let mut buf = [0; 4];
                let quote = self
                    .options
                    .quote
                    .map(|q| q.encode_utf8(&mut buf).as_bytes());
                out.extend_from_slice(quote.unwrap_or_default());
                for (j, v) in kept.iter().enumerate() {
                    if j > 0 {
                        out.extend_from_slice(aggregator);
                    }
                    out.extend_from_slice(v.as_bytes());
                }
                out.extend_from_slice(quote.unwrap_or_default());
            }
        }
        out.push(b'\n');
    }

    /// Notes which tree fields a frame whose line is not written has (the filter dropped it),
    /// so that [`Self::unseen`] is about every frame read. Only fields not seen yet are looked
    /// for: nothing once each was found.
    pub fn observe(&mut self, frame: &FrameView<'_>) {
        for (c, seen) in self.columns.iter().zip(&mut self.seen) {
            if !*seen && c.is_tree_field() {
                *seen = c.present(frame);
            }
        }
    }

    /// Tree fields no frame had: a typo, most likely (tshark refuses names it does not know;
    /// poolshark's trees are built per message, so it can only say so at the end).
    pub fn unseen(&self) -> impl Iterator<Item = &str> {
        self.columns
            .iter()
            .zip(&self.seen)
            .filter(|(c, seen)| c.is_tree_field() && !**seen)
            .map(|(c, _)| c.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Timestamp;
    use crate::dissect::FrameSummary;
    use crate::field::Field;
    use crate::field::Record;

    fn record(fields: Vec<Field>) -> Record {
        Record {
            frame: 3,
            time: Some(Timestamp::new(100, 0)),
            src: String::new(),
            dst: String::new(),
            protocol: "asap",
            info: String::new(),
            fields,
            fields_json: None,
            errors: Vec::new(),
            reassembled_from: Vec::new(),
            quoted: false,
        }
    }

    /// The lines (header, if asked, and one frame) for `names` and the `-E` options: frame 3
    /// with two ASAP messages, PE identifiers 1 and 2 in the first and 3 in the second.
    fn lines(names: &[&str], options: &[&str]) -> String {
        let pe = |v: u32| Field::uint("asap.pe_identifier", "PE", v, 0, 4).hex(8);
        let records = [
            record(vec![pe(1), pe(2)]),
            record(vec![pe(3), Field::string("asap.name", "Name", "a b", 4, 3)]),
        ];
        let summary = FrameSummary::default();
        let view = FrameView {
            number: 3,
            len: 60,
            cap_len: 60,
            time: Timestamp::new(100, 0),
            first: Timestamp::new(99, 0),
            prev: Timestamp::new(99, 0),
            prev_displayed: Timestamp::new(99, 0),
            has_time: true,
            summary: &summary,
            records: &records,
            layers: &[],
        };
        let options = FieldsOptions::parse(options).expect("options");
        let mut c = Columns::new(names, options).expect("columns");
        let mut out = Vec::new();
        c.write_header(&mut out);
        c.write_row(&view, &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn a_line_per_frame_with_tsharks_options() {
        let names = ["frame.number", "asap.pe_identifier", "asap.name", "enrp.x"];
        assert_eq!(
            lines(&names, &[]),
            "3\t0x00000001,0x00000002,0x00000003\ta b\t\n"
        );
        assert_eq!(
            lines(&names, &["header=y", "separator=,", "aggregator=/s"]),
            "frame.number,asap.pe_identifier,asap.name,enrp.x\n\
             3,0x00000001 0x00000002 0x00000003,a b,\n"
        );
        for (occurrence, want) in [
            ("f", "0x00000001"),
            ("l", "0x00000003"),
            ("2", "0x00000002"),
            ("4", ""),
            ("a", "0x00000001,0x00000002,0x00000003"),
        ] {
            let o = format!("occurrence={occurrence}");
            assert_eq!(
                lines(&["asap.pe_identifier"], &[&o]),
                format!("{want}\n"),
                "{o}"
            );
        }
        assert_eq!(
            lines(
                &["frame.number", "asap.name", "enrp.x"],
                &["quote=d", "separator=/s", "header=y"]
            ),
            "frame.number asap.name enrp.x\n\"3\" \"a b\" \n"
        );
        assert_eq!(
            lines(&["asap.name"], &["quote=s", "quote=n"]),
            "a b\n",
            "a later option overrides"
        );
    }

    #[test]
    fn bad_options_and_names_are_refused_with_the_reason() {
        for (opt, says) in [
            ("header=yes", "use y or n"),
            ("separator=ab", "a single character"),
            ("occurrence=0", "a number from 1"),
            ("quote=x", "d (double)"),
            ("colour=y", "not an option"),
            ("header", "OPTION=VALUE"),
        ] {
            let e = FieldsOptions::parse(&[opt]).expect_err(opt);
            assert!(e.to_string().contains(says), "{opt}: {e}");
        }
        let none: [&str; 0] = [];
        let e = Columns::new(&none, FieldsOptions::default()).expect_err("no field");
        assert!(e.to_string().contains("-e NAME"), "{e}");
        let e = Columns::new(&["eth.lg"], FieldsOptions::default()).expect_err("eth");
        assert!(e.to_string().contains("not kept"), "{e}");
    }

    #[test]
    fn fields_no_frame_had_are_named() {
        let names = ["asap.pe_identifier", "asap.cookie", "frame.number", "enrp"];
        let mut c = Columns::new(&names, FieldsOptions::default()).expect("columns");
        let records = [record(vec![Field::uint(
            "asap.pe_identifier",
            "PE",
            1u32,
            0,
            4,
        )])];
        let summary = FrameSummary::default();
        let view = FrameView {
            number: 1,
            len: 1,
            cap_len: 1,
            time: Timestamp::default(),
            first: Timestamp::default(),
            prev: Timestamp::default(),
            prev_displayed: Timestamp::default(),
            has_time: true,
            summary: &summary,
            records: &records,
            layers: &[],
        };
        c.write_row(&view, &mut Vec::new());
        // An Nth(0) built in code (parse refuses it) keeps nothing, and does not panic.
        let nth0 = FieldsOptions {
            occurrence: Occurrence::Nth(0),
            ..FieldsOptions::default()
        };
        let mut out = Vec::new();
        Columns::new(&["asap.pe_identifier"], nth0)
            .expect("columns")
            .write_row(&view, &mut out);
        assert_eq!(out, b"\n");
        // Only tree fields: a protocol or frame field absent from a frame is no typo.
        assert_eq!(c.unseen().collect::<Vec<_>>(), vec!["asap.cookie"]);
        assert!(c.needs_trees());
        let frame_only = [
            "frame.number",
            "ip.src",
            "udp.port",
            "asap",
            "frame.time_epoch",
        ];
        let c = Columns::new(&frame_only, FieldsOptions::default()).expect("columns");
        assert!(!c.needs_trees());
    }
}
