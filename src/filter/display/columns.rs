//! A `-T fields` column ([`Column`]): a name a filter can test, and its values in a frame as
//! tshark's `-T fields` writes them (the writing of the lines is [`crate::output::fields`]).

use super::check::subject;
use super::eval::{lower_values, occurrences, present};
use super::parser::{FrameField, Subject};
use super::FrameView;
use crate::base::localtime::absolute_text;
use crate::base::Timestamp;
use crate::field::catalogue;
use crate::field::{format_float_g15, Base, Field, Value};

/// A field to extract (`read -T fields -e NAME`): any name a filter can test.
#[derive(Clone, Debug)]
pub struct Column {
    name: String,
    subject: Subject,
}

impl Column {
    /// The column of a name; an error says why the name cannot be one.
    pub fn parse(name: &str) -> Result<Column, String> {
        Ok(Column {
            name: name.to_string(),
            subject: subject(name)?,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name is a field of the messages' trees (which one message or another may
    /// lack), not a protocol or a field of the frame.
    pub fn is_tree_field(&self) -> bool {
        matches!(self.subject, Subject::Field(_))
    }

    /// Whether the column needs the lower layers' trees ([`FrameView::layers`]).
    pub fn needs_layers(&self) -> bool {
        self.subject.needs_layers()
    }

    /// The name of the messages' tree field the column shows, if it shows one.
    pub fn tree_field(&self) -> Option<&str> {
        match &self.subject {
            Subject::Field(name) => Some(name),
            _ => None,
        }
    }

    /// Whether the column writes a lower layer's label: a protocol of the lower layers' trees
    /// (`-e eth`, `-e frame`) is written as its header line ([`Column::values`]), where any
    /// other column writes values.
    pub fn needs_labels(&self) -> bool {
        matches!(self.subject, Subject::Layer(name) if !name.contains('.'))
    }

    /// Whether the frame has it (for a tree field: whether a message has one).
    pub fn present(&self, f: &FrameView<'_>) -> bool {
        present(&self.subject, f)
    }

    /// Each occurrence in the frame, as tshark's `-T fields` writes it: numbers in the base the
    /// tree shows them in, booleans as 1 and 0, addresses, bytes as hex digits, times in
    /// seconds with nine decimals, a protocol as its name (once per message).
    pub fn values(&self, f: &FrameView<'_>, each: &mut impl FnMut(String)) {
        match &self.subject {
            Subject::App(p) => {
                for _ in f.records.iter().filter(|r| r.protocol == *p) {
                    each(self.name.clone());
                }
            }
            Subject::Lower(_) => {
                if present(&self.subject, f) {
                    each(self.name.clone());
                }
            }
            Subject::Frame(ff) if ff.is_time() && !f.has_time => {}
            Subject::Frame(FrameField::TimeEpoch) => each(f.time.to_string()),
            Subject::Frame(FrameField::TimeRelative) => each(seconds_between(f.first, f.time)),
            Subject::Frame(FrameField::TimeDelta) => each(seconds_between(f.prev, f.time)),
            Subject::Frame(FrameField::TimeDeltaDisplayed) => {
                each(seconds_between(f.prev_displayed, f.time))
            }
            Subject::Frame(FrameField::Time) => each(absolute_text(f.time, false)),
            Subject::Frame(FrameField::TimeUtc) => each(absolute_text(f.time, true)),
            Subject::Field(name) => {
                for r in f.records {
                    occurrences(&r.fields, name, &mut |fld| {
                        column_value(fld, each);
                        false
                    });
                }
            }
            Subject::Layer(name) => {
                occurrences(f.layers, name, &mut |fld| {
                    match fld.value {
                        // A protocol: its header line, as tshark writes it.
                        Value::None => each(escape_controls(&fld.label)),
                        _ => column_value(fld, each),
                    }
                    false
                });
            }
            _ => lower_values(&self.subject, f, &mut |v| each(v.display(Base::Dec))),
        }
    }
}

/// One occurrence of a tree field as tshark's `-T fields` writes it (a subtree header: nothing).
fn column_value(fld: &Field, each: &mut impl FnMut(String)) {
    match fld.value {
        Value::None if catalogue::no_value(fld.name) => each("1".into()),
        Value::None => {}
        Value::Bool(b) => each(u8::from(b).to_string()),
        Value::Float(x) => each(format_float_g15(x)),
        Value::Str(ref t) => each(escape_controls(t)),
        _ => each(fld.display_value()),
    }
}

/// Text with its control characters written as escapes (`\t`, `\n`, `\r`, `\xNN`), so that a
/// value cannot break the line or the columns it is written in.
pub(super) fn escape_controls(t: &str) -> String {
    if !t.chars().any(char::is_control) {
        return t.to_string();
    }
    let mut out = String::with_capacity(t.len() + 8);
    for c in t.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `later - earlier` in seconds with nine decimals, as tshark writes `frame.time_relative`.
pub(crate) fn seconds_between(earlier: Timestamp, later: Timestamp) -> String {
    let ns = |t: Timestamp| i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos);
    let d = ns(later) - ns(earlier);
    let sign = if d < 0 { "-" } else { "" };
    let d = d.unsigned_abs();
    format!("{sign}{}.{:09}", d / 1_000_000_000, d % 1_000_000_000)
}
