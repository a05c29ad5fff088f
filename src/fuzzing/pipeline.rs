//! The whole-program target.

use std::io::{self, Cursor, Write};
use std::sync::{Arc, Mutex, OnceLock};

use clap::Parser;

use crate::analyse::Report;
use crate::dissect::FrameSummary;
use crate::output::capture_file::CaptureFile;
use crate::output::{json, text};
use crate::pipeline::{Decoded, Pipeline, Sink};
use crate::run::analysis::{analysers, AnalysisArgs};
use crate::run::check::CheckSink;
use crate::run::files::pipeline_options;
use crate::source::file::FileSource;
use crate::source::{Frame, FrameSource};

/// `poolshark check -`'s analysis options, as the command line builds them.
#[derive(Parser)]
pub(super) struct Check {
    #[command(flatten)]
    pub(super) analysis: AnalysisArgs,
}

pub(super) fn default_args() -> &'static Check {
    static ARGS: OnceLock<Check> = OnceLock::new();
    ARGS.get_or_init(|| match Check::try_parse_from(["check"]) {
        Ok(c) => c,
        Err(e) => panic!("default check arguments: {e}"),
    })
}

/// Bytes written by the capture file, kept for reading back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self.0.lock() {
            Ok(mut v) => v.extend_from_slice(b),
            Err(_) => return Err(io::Error::other("poisoned")),
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What `read -V --format json`, `read -w` and `check` do with each message.
struct FuzzSink {
    check: CheckSink,
    out: Vec<u8>,
    file: CaptureFile,
    depends_on: Vec<u64>,
}

impl Sink for FuzzSink {
    fn message(&mut self, d: &Decoded<'_>) {
        let fields = d.message.fields();
        self.out.clear();
        json::write_fields(&mut self.out, &fields);
        text::write_tree(&mut self.out, &fields, 1);
        self.out.extend_from_slice(d.message.info().as_bytes());
        self.depends_on
            .extend_from_slice(&d.payload.reassembled_from);
        self.check.message(d);
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.file
            .frame(frame, frame.number % 2 == 0, self.depends_on.drain(..));
        self.check.end_frame(frame, summary);
    }
}

/// The whole of `poolshark read` and `poolshark check` over bytes taken as a capture file: the
/// file reader, the dissector, the dispatcher, every message's display tree and JSON, the
/// analysers `check` runs with its default arguments (so analysers added later are fuzzed too)
/// and their reports, and `read -Y ... -w`: every other frame written with the frames it depends
/// on, the file read back frame for frame.
pub fn pipeline(data: &[u8]) {
    let args = default_args();
    // The decoding options `check -` has by default.
    let opts = pipeline_options(Vec::new(), None, crate::dissect::Limits::default());
    let Ok(found) = analysers(&args.analysis) else {
        panic!("default analysers rejected");
    };
    let Ok(mut source) = FileSource::from_reader(Cursor::new(data.to_vec())) else {
        return;
    };
    let written = Shared::default();
    let mut sink = FuzzSink {
        // A recording timeline (as stats and the TUI have), so that its records are fuzzed too.
        check: CheckSink::new(
            found,
            Report::new(args.analysis.max_findings, 60_000_000_000),
        ),
        out: Vec::new(),
        file: match CaptureFile::new(Box::new(written.clone()), true) {
            Ok(f) => f,
            Err(e) => panic!("a capture file in memory: {e}"),
        },
        depends_on: Vec::new(),
    };
    let mut pipeline = Pipeline::new(opts);
    let _ = pipeline.run(&mut source, &mut sink);
    // The file written reads back, frame for frame (unless writing failed, on a time pcapng
    // cannot hold, say).
    if sink.file.finish().is_ok() {
        let bytes = written.0.lock().map(|v| v.clone()).unwrap_or_default();
        let Ok(mut back) = FileSource::from_reader(Cursor::new(bytes)) else {
            panic!("the file written does not open");
        };
        let mut n = 0u64;
        loop {
            match back.next_frame() {
                Ok(Some(_)) => n += 1,
                Ok(None) => break,
                Err(e) => panic!("frame {} of the file written: {e}", n + 1),
            }
        }
        assert_eq!(n, sink.file.written(), "frames read back");
    }
    let stats = pipeline.stats();
    let CheckSink {
        analysers, report, ..
    } = &mut sink.check;
    for a in analysers.iter_mut() {
        a.finish(stats.last, report);
    }
    report.findings.sort();
    let mut text = String::new();
    let mut json = serde_json::Map::new();
    for a in analysers.iter() {
        crate::output::report::text(a.view(), &mut text);
        crate::output::report::json(a.view(), &mut json);
    }
    for f in report.findings.list() {
        std::hint::black_box(f.to_json());
    }
    text.push_str(&report.findings.listing(false));
    text.push_str(&report.findings.listing(true));
    std::hint::black_box((text, json, stats.summary_line()));
}
