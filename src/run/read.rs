//! `poolshark read FILE|-r FILE [-V] [--format text|json|jsonl|fields] [-Y FILTER] [-c N]
//! [-t FORMAT] [-u s|hms] [-w OUT [-P]]`: decode a capture, or write the frames a filter keeps to
//! a pcapng file.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::anyhow_like::{Error, Result};
use super::exit;
use super::files::run_file;
use super::progress::Bars;
use crate::base::localtime::absolute_text;
use crate::base::Timestamp;
use crate::dissect::dispatch::tunnel_ports;
use crate::dissect::streams::Streams;
use crate::dissect::{layers, FrameSummary};
use crate::field::out::TreeSink;
use crate::field::Field;
use crate::field::Record;
use crate::filter::display::quoted;
use crate::filter::display::{seconds_between, Filter, FrameView};
use crate::output::capture_file::CaptureFile;
use crate::output::fields::Columns;
use crate::output::json::{JsonFields, JsonRecords};
use crate::output::text::{write_line, write_tree, FrameLine};
use crate::output::time::{FrameTimes, TimeColumn};
use crate::output::Format;
use crate::pipeline::{Decoded, Sink};
use crate::source::{Frame, SourceError};
use crate::wire::tunnel::TunnelPorts;

/// What a `read` run reads and writes.
pub struct Options {
    /// The capture file (`-`: standard input).
    pub file: String,
    /// How it is dissected and decoded.
    pub pipeline: crate::pipeline::Options,
    /// The whole field tree of every message.
    pub verbose: bool,
    pub format: Format,
    /// The columns of `-T fields`.
    pub columns: Option<Columns>,
    /// The display filter.
    pub filter: Option<Filter>,
    pub time: TimeColumn,
    /// Stop after reading this many frames.
    pub count: Option<u64>,
    /// `-w FILE.pcapng` (`-`: standard output).
    pub write: Option<PathBuf>,
    /// With `write`: list the frames too.
    pub print: bool,
    /// `--no-progress`.
    pub no_progress: bool,
}

/// Reads and lists (or writes) one capture.
pub fn run(args: Options) -> Result<i32> {
    let opts = args.pipeline;
    let filter = args.filter;
    let columns = args.columns;
    let capture_file = match &args.write {
        Some(path) => Some(open_capture_file(path, &args.file, filter.is_some())?),
        None => None,
    };
    let print = capture_file.is_none() || args.print;
    // The bar would be torn by the output if that went to the same terminal.
    let bars = Bars::new(args.no_progress, !io::stdout().is_terminal());
    let stdout = io::stdout().lock();
    let mut sink = if print {
        ReadSink::new(stdout, args.format, args.verbose).columns(columns)
    } else {
        ReadSink::new(stdout, Format::Text, false)
    }
    .tunnels(tunnel_ports(&opts.dispatch.decode_as))
    .time_column(args.time)
    .filter(filter)
    .count(args.count)
    .capture_file(capture_file, print);
    let (stats, fatal) = run_file(&args.file, &opts, &bars, None, &mut sink)?;
    let mut write_failed = false;
    if let (Some(mut file), Some(path)) = (sink.take_capture_file(), &args.write) {
        let name = if path == Path::new("-") {
            "standard output".to_string()
        } else {
            path.display().to_string()
        };
        match file.finish() {
            Ok(()) => eprintln!("poolshark: wrote {} frames to {name}", file.written()),
            // `-w - | head -c N`: the reader has all it wants; stop quietly, as the listing
            // does when its reader goes away.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && path == Path::new("-") => {
                return Ok(exit::OK);
            }
            Err(e) => {
                eprintln!("poolshark: cannot write {name}: {e}");
                write_failed = true;
            }
        }
        if file.unreachable() > 0 {
            eprintln!(
                "poolshark: {} frame(s) that messages in the file were reassembled from had \
                 already left the window ({} frames, {} MiB): they are in the file only if the \
                 filter kept them, else those messages do not decode from it",
                file.unreachable(),
                crate::output::capture_file::WINDOW_FRAMES,
                crate::output::capture_file::WINDOW_BYTES >> 20
            );
        }
    }
    sink.finish()?;
    eprintln!("poolshark: {}", stats.summary_line());
    match fatal {
        Some(e) => {
            eprintln!("poolshark: stopped reading {}: {e}", args.file);
            Ok(exit::USAGE)
        }
        None if write_failed => Ok(exit::USAGE),
        None => Ok(exit::OK),
    }
}

/// The file `-w` names (`-`: standard output, unless that is a terminal); never the input.
fn open_capture_file(path: &Path, input: &str, windowed: bool) -> Result<CaptureFile> {
    let out: Box<dyn Write + Send> = if path == Path::new("-") {
        if io::stdout().is_terminal() {
            return Err(Error::msg(
                "-w -: standard output is a terminal; name a file, or send the output to a \
                 file or a pipe",
            ));
        }
        Box::new(io::stdout())
    } else {
        let same = match (path.canonicalize(), Path::new(input).canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            return Err(Error::msg(format!(
                "-w {}: that is the capture being read",
                path.display()
            )));
        }
        let file = File::create(path)
            .map_err(|e| Error::msg(format!("cannot write {}: {e}", path.display())))?;
        Box::new(file)
    };
    CaptureFile::new(out, windowed)
        .map_err(|e| Error::msg(format!("cannot write {}: {e}", path.display())))
}

/// Writes what `read` shows; remembers the first output error (a closed pipe ends the run).
pub(crate) struct ReadSink<W: Write> {
    verbose: bool,
    text: W,
    json: Option<JsonRecords>,
    buf: Vec<u8>,
    first: Option<Timestamp>,
    /// The frame read before, and the frame shown before (the last the filter kept).
    prev: Option<Timestamp>,
    prev_displayed: Option<Timestamp>,
    /// The listing's time column (`-t`, `-u`).
    time: TimeColumn,
    /// The current frame's messages: (protocol column, info, tree).
    pending: Vec<Record>,
    error: Option<io::Error>,
    filter: Option<Filter>,
    /// `-T fields`: the fields of each frame's line.
    columns: Option<Columns>,
    /// Stop after this many frames (`read -c`).
    count: Option<u64>,
    frames: u64,
    /// `-w`: where the frames kept are written.
    capture_file: Option<CaptureFile>,
    /// Whether the frames kept are listed (always, unless written with `-w` and no `-P`).
    print: bool,
    /// Whether each frame's lower layers are decoded into trees ([`frame_layers`]): only when
    /// the filter or a column names one of their fields, or `-V` prints them.
    layers: bool,
    /// Whether those trees need the labels formatted from their values: only when `-V` prints
    /// them or a column is a protocol's header line (`-e eth`); filters and other columns read
    /// the values alone.
    labels: bool,
    /// The conversations seen so far, for the stream indices and relative TCP sequence numbers
    /// of the layers' trees: made with the first frame whose layers are decoded.
    streams: Option<Box<Streams>>,
    /// The UDP ports of VXLAN and Geneve, for the layers' trees.
    tunnels: TunnelPorts,
    /// Of the tree fields the columns and the filter name, those each protocol's messages may
    /// hold (by [`AppProtocol`] number; the others they never have): made with the first
    /// message, after the columns and the filter are set.
    names: Option<Box<Names>>,
}

/// The tree fields each protocol's messages may hold ([`crate::proto::may_hold`]), by
/// [`AppProtocol`] number: those the columns name, and whether the filter names any.
struct Names {
    columns: [Vec<String>; 5],
    filter: [bool; 5],
}

impl Names {
    fn new(columns: Option<&Columns>, filter: Option<&Filter>) -> Self {
        let columns = columns.map_or(&[][..], Columns::tree_names);
        Names {
            columns: crate::proto::AppProtocol::ALL.map(|p| {
                columns
                    .iter()
                    .filter(|n| crate::proto::may_hold(p, n))
                    .cloned()
                    .collect()
            }),
            filter: crate::proto::AppProtocol::ALL.map(|p| {
                filter.is_some_and(|f| f.tree_names().any(|n| crate::proto::may_hold(p, n)))
            }),
        }
    }
}

impl<W: Write> ReadSink<W> {
    pub(crate) fn new(out: W, format: Format, verbose: bool) -> Self {
        ReadSink {
            verbose,
            text: out,
            json: match format {
                Format::Text | Format::Fields => None,
                Format::Json => Some(JsonRecords::new(true)),
                Format::Jsonl => Some(JsonRecords::new(false)),
            },
            buf: Vec::with_capacity(1 << 16),
            first: None,
            prev: None,
            prev_displayed: None,
            time: TimeColumn::default(),
            pending: Vec::new(),
            error: None,
            filter: None,
            columns: None,
            count: None,
            frames: 0,
            capture_file: None,
            print: true,
            layers: false,
            labels: false,
            streams: None,
            tunnels: TunnelPorts::default(),
            names: None,
        }
        .needs()
    }

    /// Notes whether the lower layers must be decoded, after the filter, the columns or the
    /// format changed.
    fn needs(mut self) -> Self {
        self.layers = (self.verbose && self.json.is_none())
            || self.filter.as_ref().is_some_and(Filter::needs_layers)
            || self.columns.as_ref().is_some_and(Columns::needs_layers);
        self.labels = (self.verbose && self.json.is_none())
            || self.columns.as_ref().is_some_and(Columns::needs_labels);
        self
    }

    /// Writes the frames kept to `file`; `print`: list them too.
    pub(crate) fn capture_file(mut self, file: Option<CaptureFile>, print: bool) -> Self {
        self.capture_file = file;
        self.print = print;
        self
    }

    /// The `-w` file, to be finished (the frames in its window written) by the caller.
    pub(crate) fn take_capture_file(&mut self) -> Option<CaptureFile> {
        self.capture_file.take()
    }

    /// Writes a line of these fields per frame (`-T fields`), after their header if asked.
    pub(crate) fn columns(mut self, columns: Option<Columns>) -> Self {
        if let Some(c) = &columns {
            c.write_header(&mut self.buf);
        }
        self.columns = columns;
        self.needs()
    }

    /// Decodes the layers' VXLAN and Geneve on these ports (the decode-as rules').
    pub(crate) fn tunnels(mut self, tunnels: TunnelPorts) -> Self {
        self.tunnels = tunnels;
        self
    }

    /// Shows the listing's time column so (`-t`, `-u`).
    pub(crate) fn time_column(mut self, time: TimeColumn) -> Self {
        self.time = time;
        self
    }

    /// Shows only the frames that pass `filter`.
    pub(crate) fn filter(mut self, filter: Option<Filter>) -> Self {
        self.filter = filter;
        self.needs()
    }

    /// Stops after `count` frames.
    pub(crate) fn count(mut self, count: Option<u64>) -> Self {
        self.count = count;
        self
    }

    fn flush_if_full(&mut self) {
        if self.buf.len() >= 1 << 16 && self.error.is_none() {
            if let Err(e) = self.text.write_all(&self.buf) {
                self.error = Some(e);
            }
            self.buf.clear();
        }
    }

    /// Writes out what is buffered now (a live capture shows each frame as it comes).
    pub(crate) fn flush_now(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self
                .text
                .write_all(&self.buf)
                .and_then(|_| self.text.flush())
            {
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }

    pub(crate) fn finish(mut self) -> io::Result<()> {
        if let Some(f) = &self.filter {
            for name in f.unseen_fields() {
                eprintln!(
                    "poolshark: the display filter's field '{name}' was in no message \
                     (`read -V` shows the field names)"
                );
            }
            for problem in f.problems() {
                eprintln!("poolshark: {problem}");
            }
        }
        if let Some(c) = &self.columns {
            for name in c.unseen() {
                eprintln!(
                    "poolshark: the field '{name}' (-e) was in no message \
                     (`read -V` shows the field names)"
                );
            }
        }
        if let Some(j) = self.json.take() {
            j.finish(&mut self.buf);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.text.write_all(&self.buf)?;
        self.text.flush()
    }
}

impl<W: Write> Sink for ReadSink<W> {
    fn message(&mut self, d: &Decoded<'_>) {
        let mut fields = Vec::new();
        // `-V` and the JSON records show the whole tree. Otherwise a message's tree is built only
        // when the filter or a column names a field its protocol's trees may hold (a filter on
        // `dhcp.*` builds none for an ASAP message, which never has one); and a column's value
        // is read straight from the message where it can say it, so that no tree is built, formatted
        // and dropped to print a type or a transaction id. The filter reads the trees' value
        // names (`== Solicit`) too, which those straight reads leave out: a tree for it.
        // JSON records without a filter or columns: the `fields` object is written straight from
        // the message, with no tree built (and no display text formatted) for it.
        let straight_json = self.json.is_some() && self.filter.is_none() && self.columns.is_none();
        let fields_json = straight_json.then(|| {
            let mut object = JsonFields::default();
            d.message.write_tree(&mut object);
            let mut written = Vec::new();
            object.write(&mut written);
            written
        });
        let tree = if straight_json {
            false
        } else if self.verbose || self.json.is_some() {
            true
        } else if self.filter.is_none() && self.columns.as_ref().is_none_or(|c| !c.needs_trees()) {
            false
        } else {
            let (columns, filter) = (self.columns.as_ref(), self.filter.as_ref());
            let names = self
                .names
                .get_or_insert_with(|| Box::new(Names::new(columns, filter)));
            let i = d.protocol as usize;
            names.filter[i]
                || !names.columns[i]
                    .iter()
                    .all(|n| d.message.quick_fields(n, &mut fields))
        };
        if tree {
            // `-V` prints the whole tree; a filter compares values and their descriptions
            // (notes), columns and JSON only values: no text is formatted that none of them uses.
            fields = if self.verbose {
                d.message.fields()
            } else {
                let mut sink = TreeSink::with_texts(false, self.filter.is_some());
                d.message.write_tree(&mut sink);
                sink.finish()
            };
            if let Some(o) = d.frame_offset {
                for f in &mut fields {
                    f.shift(o);
                }
            }
        }
        // Only the JSON records and the listing show the addresses of a message.
        let columns_only = self.columns.is_some() && self.json.is_none();
        let addr = |a: &dyn std::fmt::Display| {
            if columns_only {
                String::new()
            } else {
                a.to_string()
            }
        };
        self.pending.push(Record {
            frame: d.frame.number,
            time: d.frame.has_time().then_some(d.frame.ts),
            src: addr(&d.payload.src),
            dst: addr(&d.payload.dst),
            protocol: d.protocol.name(),
            // Only the listing shows the info column.
            info: if self.json.is_some() || self.columns.is_some() || !self.print {
                String::new()
            } else {
                d.message.info()
            },
            fields,
            fields_json,
            errors: d.errors.to_vec(),
            reassembled_from: d.payload.reassembled_from.clone(),
            quoted: d.payload.quoted,
        });
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.frames += 1;
        let first = *self.first.get_or_insert(frame.ts);
        let prev = self.prev.replace(frame.ts).unwrap_or(frame.ts);
        let prev_displayed = self.prev_displayed.unwrap_or(frame.ts);
        // An ICMP error's quoted packet gives addresses and ports to filters and columns too
        // (`filter::display::quoted`): its layers are decoded whenever there is one of them.
        let quoting = (self.filter.is_some() || self.columns.is_some()) && quoted::is_icmp(summary);
        let layers = if self.layers || quoting {
            let streams = self.streams.get_or_insert_with(Box::default);
            let times = [first, prev, prev_displayed];
            frame_layers(
                frame,
                &self.pending,
                self.labels,
                &self.tunnels,
                streams,
                times,
            )
        } else {
            Vec::new()
        };
        let view = FrameView {
            number: frame.number,
            len: u64::from(frame.orig_len),
            cap_len: frame.data.len() as u64,
            time: frame.ts,
            first,
            prev,
            prev_displayed,
            has_time: frame.has_time(),
            summary,
            records: &self.pending,
            layers: &layers,
        };
        let keep = self.filter.as_mut().is_none_or(|f| f.matches(&view));
        if keep {
            self.prev_displayed = Some(frame.ts);
        }
        if let Some(file) = &mut self.capture_file {
            let depends_on = self.pending.iter().flat_map(|r| r.reassembled_from.iter());
            file.frame(frame, keep, depends_on.copied());
        }
        if !keep || !self.print {
            // A column's field in a frame not kept was still there (its notice says so).
            if let Some(c) = &mut self.columns {
                c.observe(&view);
            }
            self.pending.clear();
            return;
        }
        if let Some(c) = &mut self.columns {
            c.write_row(&view, &mut self.buf);
            self.pending.clear();
            self.flush_if_full();
            return;
        }
        let addr =
            |a: &Option<crate::dissect::Address>| a.map(|a| a.to_string()).unwrap_or_default();
        if !summary.errors.is_empty() {
            // Errors below the application: a record of their own, so nothing is lost.
            self.pending.push(Record {
                frame: frame.number,
                time: frame.has_time().then_some(frame.ts),
                src: addr(&summary.src),
                dst: addr(&summary.dst),
                protocol: lower_layer_name(summary.protocol),
                info: String::new(),
                fields: Vec::new(),
                fields_json: None,
                errors: summary.errors.clone(),
                reassembled_from: Vec::new(),
                quoted: false,
            });
        }
        if let Some(j) = &mut self.json {
            for r in self.pending.drain(..) {
                j.write(&mut self.buf, &r);
            }
        } else {
            // A message quoted in an ICMP error leaves the columns to the error (tshark's too).
            let messages: Vec<&Record> = self
                .pending
                .iter()
                .filter(|r| !r.quoted && (!r.info.is_empty() || !r.fields.is_empty()))
                .collect();
            let (protocol, mut info) = match messages.last() {
                Some(last) => (
                    column(last.protocol),
                    messages
                        .iter()
                        .map(|r| r.info.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                None => (summary.protocol, summary.info.clone()),
            };
            crate::dissect::cap_info(&mut info);
            let src = addr(&summary.src);
            let dst = addr(&summary.dst);
            // A frame without a time shows none, whatever the format (tshark's too).
            let mut time = String::new();
            if frame.has_time() {
                self.time.write(
                    &mut time,
                    &FrameTimes {
                        time: frame.ts,
                        digits: frame.ts_digits,
                        first,
                        prev,
                        prev_displayed,
                    },
                );
            }
            write_line(
                &mut self.buf,
                &FrameLine {
                    number: frame.number,
                    time: &time,
                    src: &src,
                    dst: &dst,
                    protocol,
                    len: frame.orig_len,
                    info: &info,
                },
            );
            if self.verbose {
                write_tree(&mut self.buf, &layers, 1);
            }
            for r in &self.pending {
                if self.verbose {
                    write_tree(&mut self.buf, &r.fields, 1);
                }
                for e in &r.errors {
                    let _ = writeln!(
                        self.buf,
                        "    [{} error at byte {}: {}]",
                        r.protocol, e.offset, e.what
                    );
                }
            }
            self.pending.clear();
        }
        self.flush_if_full();
    }

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }

    fn wants_quoted(&self) -> bool {
        true
    }

    fn stopped(&self) -> bool {
        self.error.is_some()
            || self.count.is_some_and(|c| self.frames >= c)
            || self
                .capture_file
                .as_ref()
                .is_some_and(|f| f.error().is_some())
    }
}

/// The frame's lower layers as trees, under a `frame` root that holds `frame.protocols` (the
/// layers' protocols, then one per message of `records`, as tshark lists them), with the fields
/// `streams` works out from the frames before (stream indices, relative TCP numbers). Without
/// `labels`, the labels formatted from the values (the header lines) are left empty.
fn frame_layers(
    frame: &Frame<'_>,
    records: &[Record],
    labels: bool,
    tunnels: &TunnelPorts,
    streams: &mut Streams,
    [first, prev, prev_displayed]: [Timestamp; 3],
) -> Vec<Field> {
    let custom = frame.custom_block();
    let mut l = if custom.is_some() {
        // A pcapng custom block: its bytes are data to tshark.
        layers::Layers {
            protocols: vec!["data"],
            ..Default::default()
        }
    } else if labels {
        layers::decode(frame.linktype, frame.data, tunnels)
    } else {
        layers::decode_values(frame.linktype, frame.data, tunnels)
    };
    streams.annotate_at(&mut l, frame.has_time().then_some(frame.ts));
    let mut protocols = l.protocols.join(":");
    // tshark names each message of a SCTP packet or UDP datagram, but a protocol once per TCP
    // segment, however many messages it ends.
    let tcp = l.protocols.last() == Some(&"tcp");
    let mut last = "";
    for r in records {
        let name = match r.protocol {
            "dhcpv4" => "dhcp",
            p => p,
        };
        if tcp && name == last {
            continue;
        }
        last = name;
        if !protocols.is_empty() {
            protocols.push(':');
        }
        protocols.push_str(name);
    }
    let cap = frame.data.len();
    let len = frame.orig_len;
    let flags = frame.pcapng.and_then(|p| p.flags());
    // The flags' direction, as `frame.p2p_dir` gives it (1 received, 0 sent) and `-V`'s title.
    let p2p = match flags.map(|f| f & 3) {
        Some(1) => Some((1, "Received", " (inbound)")),
        Some(2) => Some((0, "Sent", " (outbound)")),
        _ => None,
    };
    let title = if let (true, Some((pen, copy))) = (labels, custom) {
        let copying = if copy { "allowed" } else { "not allowed" };
        Cow::Owned(format!(
            "PCAPNG Custom Block {}: {cap} bytes ({} bits) of custom data and options, PEN {pen}, \
             copying {copying}",
            frame.number,
            cap as u64 * 8
        ))
    } else if labels {
        let mut t = format!(
            "Frame {}: {len} bytes on wire ({} bits), {cap} bytes captured ({} bits)",
            frame.number,
            u64::from(len) * 8,
            cap as u64 * 8
        );
        if let Some(p) = frame.pcapng {
            t.push_str(&format!(
                " on interface {}, id {}",
                p.names.shown(),
                frame.interface
            ));
        }
        if let Some((_, _, suffix)) = p2p {
            t.push_str(suffix);
        }
        Cow::Owned(t)
    } else {
        Cow::Borrowed("")
    };
    let mut root = Field::node("frame", title, 0, cap);
    if let (Some(p), Some((pen, copy))) = (frame.pcapng, custom) {
        root = root.children(vec![
            Field::uint("frame.section_number", "Section number", p.section, 0, 0),
            Field::uint("frame.cb_pen", "Private Enterprise Number", pen, 0, 0),
            Field::boolean("frame.cb_copy", "Copying", copy, 0, 0),
        ]);
    } else if let Some(p) = frame.pcapng {
        root = root.child(Field::uint(
            "frame.section_number",
            "Section number",
            p.section,
            0,
            0,
        ));
        // tshark names an interface that has neither name nor description "unknown".
        let mut id = Field::uint("frame.interface_id", "Interface id", frame.interface, 0, 0);
        if labels {
            id = id.note(p.names.shown().to_string()).show(format!(
                "{} ({})",
                frame.interface,
                p.names.shown()
            ));
        }
        id = id.child(Field::string(
            "frame.interface_name",
            "Interface name",
            p.names.shown(),
            0,
            0,
        ));
        if let Some(d) = &p.names.description {
            id = id.child(Field::string(
                "frame.interface_description",
                "Interface description",
                &**d,
                0,
                0,
            ));
        }
        root = root.child(id);
    }
    if let Some(f) = flags {
        root = root.child(packet_flags(f));
    }
    if let Some((n, name)) = crate::base::linktype::wtap_encap(frame.linktype) {
        root =
            root.child(Field::uint("frame.encap_type", "Encapsulation type", n, 0, 0).note(name));
    }
    if let Some((dir, name, _)) = p2p {
        let label = "Point-to-Point Direction";
        root = root.child(Field::int("frame.p2p_dir", label, dir, 0, 0).note(name));
    }
    if labels && custom.is_none() {
        // The times, number and lengths tshark shows of every frame: text for `-V` alone (the
        // filters and columns have these as frame fields of their own).
        let text = |t: String| Field::node("", t, 0, 0);
        if frame.has_time() {
            let ts = frame.ts;
            let epoch = seconds_between(Timestamp::new(0, 0), ts);
            root = root.children(vec![
                text(format!("Arrival Time: {}", absolute_text(ts, false))),
                text("Time shift for this packet: 0.000000000 seconds".into()).generated(),
                text(format!("Epoch Time: {epoch} seconds")),
                text(format!(
                    "Time delta from previous captured frame: {} seconds",
                    seconds_between(prev, ts)
                ))
                .generated(),
                text(format!(
                    "Time delta from previous displayed frame: {} seconds",
                    seconds_between(prev_displayed, ts)
                ))
                .generated(),
                text(format!(
                    "Time since reference or first frame: {} seconds",
                    seconds_between(first, ts)
                ))
                .generated(),
            ]);
        }
        let bits = |n: u64| format!("{n} bytes ({} bits)", n * 8);
        root = root.children(vec![
            text(format!("Frame Number: {}", frame.number)),
            text(format!("Frame Length: {}", bits(u64::from(len)))),
            text(format!("Capture Length: {}", bits(cap as u64))),
            text("Frame is marked: False".into()).generated(),
            text("Frame is ignored: False".into()).generated(),
        ]);
    }
    root = root
        .child(Field::string("frame.protocols", "Protocols in frame", protocols, 0, 0).generated());
    let mut out = Vec::with_capacity(l.trees.len() + 2);
    // A pcapng packet's comments, in a tree of their own before the frame's, as tshark shows them.
    if let Some(p) = frame.pcapng {
        let comments: Vec<Field> = p
            .comments()
            .map(|c| Field::string("frame.comment", "Comment", String::from_utf8_lossy(c), 0, 0))
            .collect();
        if !comments.is_empty() {
            out.push(Field::node("pkt_comment", "Packet comments", 0, 0).children(comments));
        }
    }
    out.push(root);
    out.extend(l.trees);
    out
}

/// A pcapng packet's flags word (`epb_flags`) and its parts, as tshark 4.0 names them.
fn packet_flags(f: u32) -> Field {
    let direction = [
        "Information not available",
        "Inbound",
        "Outbound",
        "Invalid",
    ];
    let reception = [
        "Not specified",
        "Unicast",
        "Multicast",
        "Broadcast",
        "Promiscuous",
    ];
    let bit = |n: u32| f & (1 << n) != 0;
    Field::uint("frame.packet_flags", "Packet flags", f, 0, 0)
        .hex(8)
        .children(vec![
            Field::uint("frame.packet_flags_direction", "Direction", f & 3, 0, 0)
                .hex(8)
                .note(direction[(f & 3) as usize]),
            Field::uint(
                "frame.packet_flags_reception_type",
                "Reception type",
                (f >> 2) & 7,
                0,
                0,
            )
            .note(
                reception
                    .get(((f >> 2) & 7) as usize)
                    .copied()
                    .unwrap_or("Unknown"),
            ),
            Field::uint(
                "frame.packet_flags_fcs_length",
                "FCS length",
                (f >> 5) & 15,
                0,
                0,
            ),
            Field::uint(
                "frame.packet_flags_reserved",
                "Reserved",
                (f >> 9) & 0x7f,
                0,
                0,
            ),
            Field::boolean("frame.packet_flags_crc_error", "CRC error", bit(24), 0, 0),
            Field::boolean(
                "frame.packet_flags_packet_too_error",
                "Packet too long error",
                bit(25),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_packet_too_short_error",
                "Packet too short error",
                bit(26),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_wrong_inter_frame_gap_error",
                "Wrong interframe gap error",
                bit(27),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_unaligned_frame_error",
                "Unaligned frame error",
                bit(28),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_start_frame_delimiter_error",
                "Start frame delimiter error",
                bit(29),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_preamble_error",
                "Preamble error",
                bit(30),
                0,
                0,
            ),
            Field::boolean(
                "frame.packet_flags_symbol_error",
                "Symbol error",
                bit(31),
                0,
                0,
            ),
        ])
}

fn column(protocol: &str) -> &'static str {
    match protocol.parse::<crate::proto::AppProtocol>() {
        Ok(p) => p.column(),
        Err(_) => "?",
    }
}

/// The JSON `protocol` of a record that only carries lower-layer errors.
fn lower_layer_name(column: &'static str) -> &'static str {
    match column {
        "SCTP" => "sctp",
        "TCP" => "tcp",
        "UDP" => "udp",
        "IPv4" => "ipv4",
        "IPv6" => "ipv6",
        "ICMPv6" => "icmpv6",
        "ARP" => "arp",
        "Ethernet" | "ETH" => "eth",
        _ => "frame",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fields::FieldsOptions;

    /// Which protocols' messages get a tree for a filter and columns: those whose trees may hold
    /// a field the filter names (DHCPv6's carry DHCPv4's), and the columns' names each
    /// protocol's messages may hold; a name of no protocol's family may be anywhere.
    #[test]
    fn trees_only_for_the_protocols_named() {
        let names = |filter: &str, columns: &[&str]| {
            let f = Filter::parse(filter).expect("filter");
            let c = (!columns.is_empty())
                .then(|| Columns::new(columns, FieldsOptions::default()).expect("columns"));
            Names::new(c.as_ref(), Some(&f))
        };
        // ASAP, ENRP, DHCPv4, DHCPv6, failover.
        let n = names("dhcp.option.dhcp == 5", &[]);
        assert_eq!(n.filter, [false, false, true, true, false]);
        assert!(n.columns.iter().all(Vec::is_empty));
        let n = names("asap.message_type == 3 || dhcpfo.xid > 2", &["dhcpv6.xid"]);
        assert_eq!(n.filter, [true, true, false, false, true]);
        assert_eq!(n.columns.map(|c| c.len()), [0, 0, 0, 1, 0]);
        // Protocols, the frame's and the lower layers' fields are no tree field.
        let n = names(
            "udp.port == 67 && frame.len > 10 && asap && ip.ttl < 5",
            &[],
        );
        assert_eq!(n.filter, [false; 5]);
        // A slice's and a function's arguments are read from the trees too.
        let n = names(
            "len(dhcpv6.client_domain) > 1 || enrp.pool_handle_pool_handle[0:1] == 00",
            &[],
        );
        assert_eq!(n.filter, [true, true, false, true, false]);
    }
}
