//! The whole of `poolshark read` and `poolshark check` over bytes taken as a capture file: the
//! file reader, the dissector, the dispatcher, every message's display tree and JSON, and the
//! analysers `check` runs with its default arguments (so analysers added later are fuzzed too).
#![no_main]

use std::io::Cursor;
use std::sync::OnceLock;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use poolshark::analyse::Report;
use poolshark::cli::check::{analysers, CheckArgs, CheckSink};
use poolshark::dissect::FrameSummary;
use poolshark::output::{json, text};
use poolshark::pipeline::{Decoded, Pipeline, Sink};
use poolshark::source::file::FileSource;
use poolshark::source::Frame;

/// `poolshark check -` as the command line builds it.
#[derive(Parser)]
struct Check {
    #[command(flatten)]
    args: CheckArgs,
}

fn default_args() -> &'static CheckArgs {
    static ARGS: OnceLock<CheckArgs> = OnceLock::new();
    ARGS.get_or_init(|| match Check::try_parse_from(["check", "-"]) {
        Ok(c) => c.args,
        Err(e) => panic!("default check arguments: {e}"),
    })
}

/// What `read -V --format json` and `check` do with each message.
struct FuzzSink {
    check: CheckSink,
    out: Vec<u8>,
}

impl Sink for FuzzSink {
    fn message(&mut self, d: &Decoded<'_>) {
        let fields = d.message.fields();
        self.out.clear();
        json::write_fields(&mut self.out, &fields);
        text::write_tree(&mut self.out, &fields, 1);
        self.out.extend_from_slice(d.message.info().as_bytes());
        self.check.message(d);
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.check.end_frame(frame, summary);
    }
}

fuzz_target!(|data: &[u8]| {
    let args = default_args();
    let Ok(opts) = args.input.options() else {
        panic!("default capture options rejected");
    };
    let Ok(found) = analysers(&args.analysis) else {
        panic!("default analysers rejected");
    };
    let Ok(mut source) = FileSource::from_reader(Cursor::new(data.to_vec())) else {
        return;
    };
    let mut sink = FuzzSink {
        // A recording timeline (as stats and the TUI have), so that its records are fuzzed too.
        check: CheckSink::new(
            found,
            Report::new(args.analysis.max_findings, 60_000_000_000),
        ),
        out: Vec::new(),
    };
    let mut pipeline = Pipeline::new(opts);
    let _ = pipeline.run(&mut source, &mut sink);
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
        a.report_text(&mut text);
        a.report_json(&mut json);
    }
    for f in report.findings.list() {
        std::hint::black_box(f.to_json());
    }
    text.push_str(&report.findings.listing(false));
    text.push_str(&report.findings.listing(true));
    std::hint::black_box((text, json, stats.summary_line()));
});
