//! Plot files (`stats --plot`, `check --plot`): each pool's or DHCP pair's share of answers per
//! member over time against its expected share, its episodes shaded, its findings marked, and a
//! failover pair's pools (free, backup, lts) in a second panel; as SVG or PNG by the file's
//! extension.
//!
//! One picture per subject: a capture with one pool or pair gets the file named; with several,
//! each gets `FILE-<name>.EXT` (the name made safe for a file name), and so does each capture's
//! when several are read (`FILE-<capture>-<name>.EXT`). The SVG and the PNG are drawn by the same
//! code ([`draw`]) and have the same size and layout.

pub mod axis;
pub mod draw;
pub mod font;
pub mod picture;
pub mod png;
pub mod svg;

use std::path::{Path, PathBuf};

use crate::analyse::finding::{Finding, Subject};
use crate::analyse::timeline::Timeline;
use picture::Picture;

/// The file formats, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// The format of `path` by its extension (any case): `.svg` or `.png`.
    pub fn of(path: &str) -> Result<Format, String> {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(format!(
                "--plot {path}: the file name must end in .svg or .png (the format)"
            )),
        }
    }
}

/// The bytes of `p` as a file of `format`.
pub fn render(p: &Picture, format: Format) -> Result<Vec<u8>, String> {
    match format {
        Format::Svg => svg::render(p),
        Format::Png => png::render(p),
    }
}

/// `name` as part of a file name: letters, digits, `.`, `-` and `_` kept, every run of other
/// characters one `_`, at most 80 characters.
pub fn file_part(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out: String = out
        .trim_matches(|c| c == '_' || c == '.')
        .chars()
        .take(80)
        .collect();
    if out.is_empty() {
        "_".to_string()
    } else {
        out
    }
}

/// `path` with `-part` before its extension.
fn with_part(path: &str, part: &str) -> PathBuf {
    let p = Path::new(path);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("plot");
    let name = match p.extension().and_then(|e| e.to_str()) {
        Some(ext) => format!("{stem}-{part}.{ext}"),
        None => format!("{stem}-{part}"),
    };
    p.with_file_name(name)
}

/// What to plot of one capture.
pub struct Request<'a> {
    /// The `--plot` file.
    pub path: &'a str,
    /// The capture file, as named on the command line.
    pub capture: &'a str,
    /// Several captures are read: each one's files are named after it too.
    pub several_captures: bool,
    /// Only the subjects with findings (`check`).
    pub with_findings_only: bool,
    /// The windows are the user's (`stats --interval`): a picture with few of them says that a
    /// shorter interval would draw more.
    pub interval_given: bool,
    /// The capture's last frame's time.
    pub last: Option<crate::base::Timestamp>,
}

/// Pictures written for one capture, at most: a capture with thousands of pools would otherwise
/// fill a folder; the first ones (pools by handle, then pairs, then failover pools) are drawn.
pub const MAX_FILES: usize = 100;

/// Fewer columns than this make a picture that says little: `stats` suggests a shorter interval.
const FEW_COLUMNS: usize = 8;

/// A round interval that gives a picture of `span` seconds about 40 columns.
fn suggested_interval(span: f64) -> String {
    let want = span / 40.0;
    let ns = crate::output::chart::round_times()
        .into_iter()
        .find(|t| *t as f64 / 1e9 >= want)
        .unwrap_or(1_000_000_000);
    picture::duration_text(ns as f64 / 1e9)
}

/// Writes the plots of a capture; returns the lines for standard error (what was written).
pub fn write(
    req: &Request<'_>,
    timeline: &Timeline,
    findings: &[Finding],
) -> Result<Vec<String>, String> {
    let format = Format::of(req.path)?;
    let capture_name = Path::new(req.capture)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(req.capture);
    let mut subjects = picture::subjects(timeline);
    if req.with_findings_only {
        subjects.retain(|s| findings.iter().any(|f| about(f, s, timeline)));
    }
    let mut pictures: Vec<Picture> = subjects
        .iter()
        .filter_map(|s| picture::picture(capture_name, timeline, findings, s))
        .take(MAX_FILES + 1)
        .collect();
    let more = pictures.len() > MAX_FILES;
    pictures.truncate(MAX_FILES);
    let mut notes = Vec::new();
    if pictures.is_empty() {
        let what = if req.with_findings_only {
            "no pool or pair with findings"
        } else {
            "no pool or pair answered"
        };
        notes.push(format!(
            "poolshark: nothing to plot in {} ({what})",
            req.capture
        ));
        return Ok(notes);
    }
    let one_file = pictures.len() == 1 && !req.several_captures;
    if !one_file {
        notes.push(format!(
            "poolshark: {}: {} to plot, one file each, named {}",
            req.capture,
            count(pictures.len()),
            with_part(
                req.path,
                &if req.several_captures {
                    format!("{}-<name>", file_part(capture_stem(req.capture)))
                } else {
                    "<name>".to_string()
                }
            )
            .display()
        ));
    }
    let mut used: Vec<PathBuf> = Vec::new();
    for p in &pictures {
        let path = if one_file {
            PathBuf::from(req.path)
        } else {
            let mut part = file_part(&p.name);
            if req.several_captures {
                part = format!("{}-{part}", file_part(capture_stem(req.capture)));
            }
            let mut path = with_part(req.path, &part);
            let mut n = 2;
            while used.contains(&path) {
                path = with_part(req.path, &format!("{part}-{n}"));
                n += 1;
            }
            path
        };
        let bytes = render(p, format)?;
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write the plot {}: {e}", path.display()))?;
        notes.push(format!("poolshark: plot written to {}", path.display()));
        used.push(path);
    }
    if more {
        notes.push(format!(
            "poolshark: {}: more than {MAX_FILES} pools and pairs to plot: the first {MAX_FILES} are drawn",
            req.capture
        ));
    }
    let few = pictures.iter().filter(|p| p.columns < FEW_COLUMNS).count();
    if req.interval_given && few > 0 {
        let column = pictures.iter().map(|p| p.column).fold(0.0, f64::max);
        let span = timeline
            .origin()
            .zip(req.last)
            .map_or(column, |(a, b)| b.since(a));
        let which = if pictures.len() == 1 {
            "the plot has".to_string()
        } else {
            format!("{few} of the plots have")
        };
        notes.push(format!(
            "poolshark: {}: {which} fewer than {FEW_COLUMNS} windows of {}: a shorter --interval draws more (--interval {} gives about 40)",
            req.capture,
            picture::duration_text(column),
            suggested_interval(span.max(1e-3))
        ));
    }
    Ok(notes)
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 pool or pair".to_string()
    } else {
        format!("{n} pools and pairs")
    }
}

fn capture_stem(capture: &str) -> &str {
    Path::new(capture)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(capture)
}

/// Whether `f` is about `subject` (or one of a DHCP pair's servers).
fn about(f: &Finding, subject: &Subject, timeline: &Timeline) -> bool {
    if &f.subject == subject {
        return true;
    }
    match (&f.subject, subject, timeline.series().get(subject)) {
        (Subject::Server(s), Subject::Server(_), Some(series)) => {
            crate::output::chart::member_ids(series)
                .iter()
                .any(|m| m == s)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of("a.svg"), Ok(Format::Svg));
        assert_eq!(Format::of("dir/A.PNG"), Ok(Format::Png));
        assert!(Format::of("a.pdf").unwrap_err().contains(".svg or .png"));
        assert!(Format::of("plot").is_err());
    }

    #[test]
    fn names_are_safe_for_files() {
        assert_eq!(
            file_part("00:03:00:01+00:03:00:02/dhcpv6"),
            "00_03_00_01_00_03_00_02_dhcpv6"
        );
        assert_eq!(file_part("LU-Pool"), "LU-Pool");
        assert_eq!(file_part("../../etc/passwd"), "etc_passwd");
        assert_eq!(file_part("///"), "_");
        assert_eq!(file_part(&"x".repeat(200)).len(), 80);
        assert_eq!(
            with_part("out/kea.svg", "LU-Pool"),
            PathBuf::from("out/kea-LU-Pool.svg")
        );
        assert_eq!(with_part("plot", "a"), PathBuf::from("plot-a"));
    }
}
