//! The Prometheus text exposition format, version 0.0.4: metric families, each with its `# HELP`
//! and `# TYPE` lines and its samples together, label values escaped as the format requires.
//!
//! A family holds at most [`MAX_SERIES`] series: a capture with a million servers must not make a
//! million series (each costs a scraper memory for as long as it keeps the data). The series
//! past the bound are left out and counted per family; [`Exposition::render`] writes the counts
//! as `poolshark_metrics_series_dropped{family="..."}`.

use std::fmt::Write as _;

/// Series kept per family; the rest are counted, not written.
pub const MAX_SERIES: usize = 1000;

/// The family that counts the series left out.
const DROPPED: &str = "poolshark_metrics_series_dropped";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (its name ends in `_total`).
    Counter,
    /// Goes up and down.
    Gauge,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
        }
    }
}

/// One series' value at the time of the snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

/// A metric family: its name, what it means, its type and its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    pub samples: Vec<Sample>,
    /// Series left out past [`MAX_SERIES`].
    pub dropped: u64,
}

/// The families of one snapshot, in the order they were first named.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    families: Vec<Family>,
}

impl Exposition {
    pub fn new() -> Self {
        Exposition::default()
    }

    pub fn families(&self) -> &[Family] {
        &self.families
    }

    /// The family `name`, made the first time it is named.
    fn family(&mut self, name: &'static str, help: &'static str, kind: Kind) -> &mut Family {
        let i = match self.families.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                self.families.push(Family {
                    name,
                    help,
                    kind,
                    samples: Vec::new(),
                    dropped: 0,
                });
                self.families.len() - 1
            }
        };
        &mut self.families[i]
    }

    /// Names a family without adding a sample (it is written only once it has one).
    pub fn declare(&mut self, name: &'static str, help: &'static str, kind: Kind) {
        self.family(name, help, kind);
    }

    /// Adds a sample to family `name` (named with `help` and `kind` the first time).
    pub fn add(
        &mut self,
        name: &'static str,
        help: &'static str,
        kind: Kind,
        labels: Vec<(&'static str, String)>,
        value: f64,
    ) {
        let f = self.family(name, help, kind);
        if f.samples.len() >= MAX_SERIES {
            f.dropped += 1;
        } else {
            f.samples.push(Sample { labels, value });
        }
    }

    /// Every sample gets `label="value"` as its first label: one capture's snapshot among those
    /// of several files.
    pub fn labelled(mut self, label: &'static str, value: &str) -> Self {
        for f in &mut self.families {
            for s in &mut f.samples {
                s.labels.insert(0, (label, value.to_string()));
            }
        }
        self
    }

    /// Adds `other`'s samples to the families of the same name (each family's samples stay
    /// together, as the format requires), within the bound.
    pub fn merge(&mut self, other: Exposition) {
        for of in other.families {
            let f = self.family(of.name, of.help, of.kind);
            f.dropped += of.dropped;
            for s in of.samples {
                if f.samples.len() >= MAX_SERIES {
                    f.dropped += 1;
                } else {
                    f.samples.push(s);
                }
            }
        }
    }

    /// The text a scraper reads: each family with samples, its `# HELP` and `# TYPE` lines
    /// first; then the series left out, per family.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for f in self.families.iter().filter(|f| !f.samples.is_empty()) {
            write_family(&mut out, f.name, f.help, f.kind, &f.samples);
        }
        let dropped: Vec<Sample> = self
            .families
            .iter()
            .filter(|f| f.dropped > 0)
            .map(|f| Sample {
                labels: vec![("family", f.name.to_string())],
                value: f.dropped as f64,
            })
            .collect();
        if !dropped.is_empty() {
            write_family(
                &mut out,
                DROPPED,
                "Series of a family left out of this snapshot: each family keeps at most 1000.",
                Kind::Gauge,
                &dropped,
            );
        }
        out
    }
}

fn write_family(out: &mut String, name: &str, help: &str, kind: Kind, samples: &[Sample]) {
    let _ = writeln!(out, "# HELP {name} {}", escape_help(help));
    let _ = writeln!(out, "# TYPE {name} {}", kind.name());
    for s in samples {
        out.push_str(name);
        if !s.labels.is_empty() {
            out.push('{');
            for (i, (k, v)) in s.labels.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push_str("=\"");
                escape_label_into(out, v);
                out.push('"');
            }
            out.push('}');
        }
        out.push(' ');
        out.push_str(&value_text(s.value));
        out.push('\n');
    }
}

/// A label value as the format writes it: backslash, double quote and line feed escaped.
pub fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    escape_label_into(&mut s, v);
    s
}

fn escape_label_into(out: &mut String, v: &str) {
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// HELP text: backslash and line feed escaped (a double quote is itself there).
fn escape_help(h: &str) -> String {
    h.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A value as Go's ParseFloat reads it: whole numbers without a fraction, `NaN`, `+Inf`, `-Inf`.
pub fn value_text(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_render_with_help_type_and_escaped_labels() {
        let mut e = Exposition::new();
        e.add(
            "poolshark_x_total",
            "Things.\nCounted \\ here.",
            Kind::Counter,
            vec![("server", "a\"b\\c\nd".into())],
            3.0,
        );
        e.add("poolshark_y", "A level.", Kind::Gauge, vec![], 0.25);
        e.add(
            "poolshark_x_total",
            "ignored: the first help stays",
            Kind::Counter,
            vec![("server", "plain".into())],
            1.0,
        );
        let text = e.render();
        assert_eq!(
            text,
            "# HELP poolshark_x_total Things.\\nCounted \\\\ here.\n\
             # TYPE poolshark_x_total counter\n\
             poolshark_x_total{server=\"a\\\"b\\\\c\\nd\"} 3\n\
             poolshark_x_total{server=\"plain\"} 1\n\
             # HELP poolshark_y A level.\n\
             # TYPE poolshark_y gauge\n\
             poolshark_y 0.25\n"
        );
    }

    #[test]
    fn values_are_written_as_prometheus_reads_them() {
        assert_eq!(value_text(0.0), "0");
        assert_eq!(value_text(12.0), "12");
        assert_eq!(value_text(-3.0), "-3");
        assert_eq!(value_text(0.125), "0.125");
        assert_eq!(value_text(f64::NAN), "NaN");
        assert_eq!(value_text(f64::INFINITY), "+Inf");
        assert_eq!(value_text(f64::NEG_INFINITY), "-Inf");
        assert_eq!(value_text(1e300).parse::<f64>().ok(), Some(1e300));
    }

    #[test]
    fn a_family_keeps_a_bounded_number_of_series_and_counts_the_rest() {
        let mut e = Exposition::new();
        for i in 0..MAX_SERIES + 5 {
            e.add(
                "poolshark_s",
                "s",
                Kind::Gauge,
                vec![("id", i.to_string())],
                1.0,
            );
        }
        let mut other = Exposition::new();
        other.add("poolshark_s", "s", Kind::Gauge, vec![], 1.0);
        e.merge(other);
        let text = e.render();
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("poolshark_s{"))
                .count(),
            MAX_SERIES
        );
        assert!(text.ends_with("poolshark_metrics_series_dropped{family=\"poolshark_s\"} 6\n"));
    }

    #[test]
    fn snapshots_of_several_files_keep_each_family_together() {
        let one = |v: f64| {
            let mut e = Exposition::new();
            e.add("poolshark_a_total", "a", Kind::Counter, vec![], v);
            e.add("poolshark_b", "b", Kind::Gauge, vec![("k", "x".into())], v);
            e
        };
        let mut all = one(1.0).labelled("file", "f1.pcap");
        all.merge(one(2.0).labelled("file", "f2.pcap"));
        let text = all.render();
        assert_eq!(text.matches("# TYPE").count(), 2, "{text}");
        assert!(text.contains(
            "poolshark_a_total{file=\"f1.pcap\"} 1\npoolshark_a_total{file=\"f2.pcap\"} 2\n"
        ));
        assert!(text.contains("poolshark_b{file=\"f2.pcap\",k=\"x\"} 2\n"));
    }
}
