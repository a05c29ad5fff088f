//! One Parquet table of one capture, written as rows come: the rows gather in plain vectors per
//! column and go out as a row group (Arrow arrays) every [`ROW_GROUP`] rows, so a table of a billion rows holds one row
//! group in memory (and one more on its way out). A row group is encoded, compressed and written
//! on a thread of the table's own, so the thread that makes the rows (the analysis) does not wait
//! for it. The file is written beside its name and renamed to it once complete: a reader (an
//! engine scanning the dataset) never sees half a file.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::builder::{ArrayBuilder, BooleanBuilder};
use arrow_array::types::{
    ArrowPrimitiveType, Float64Type, TimestampNanosecondType, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::base::Timestamp;

/// Rows per row group: about 5-20 MB of builders for the widest table, and large enough that
/// engines read whole column chunks at a time.
pub const ROW_GROUP: usize = 65_536;

/// A column's type, as the schema gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text that repeats (a file, a protocol, a rule, a server): dictionary-encoded.
    Label,
    /// Text that seldom repeats (a message): plain unless its column says otherwise, and no
    /// minimum and maximum.
    Text,
    U8,
    U32,
    U64,
    F64,
    Bool,
    /// Timestamp(ns, UTC).
    Time,
}

/// How a column's values are encoded in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Dictionary (`RLE_DICTIONARY`): values that repeat.
    Dictionary,
    /// `DELTA_BINARY_PACKED`: integers that rise by small steps (frames, times).
    Delta,
    /// `PLAIN`: values that seldom repeat.
    Plain,
}

/// A column of the schema: its name, its type, whether it may be null, its encoding.
#[derive(Clone, Copy, Debug)]
pub struct Col {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    pub encoding: Encoding,
    /// Minimum and maximum kept per page and row group (engines skip row groups with them).
    pub statistics: bool,
    /// Snappy-compressed.
    pub compressed: bool,
}

/// A column encoded as its kind's values usually are: labels in a dictionary, times and
/// 64-bit counts and frames as deltas, the rest plain.
pub const fn col(name: &'static str, kind: Kind, nullable: bool) -> Col {
    let encoding = match kind {
        Kind::Label => Encoding::Dictionary,
        Kind::Time | Kind::U64 => Encoding::Delta,
        _ => Encoding::Plain,
    };
    Col {
        name,
        kind,
        nullable,
        encoding,
        // No minimum and maximum of text that seldom repeats (a client key, a list of PEs, a
        // message): no engine prunes on them, and they cost a comparison per value.
        statistics: !matches!(kind, Kind::Text),
        // Dictionary indices and deltas are already packed: Snappy would go through them and
        // save a tenth at most.
        compressed: matches!(encoding, Encoding::Plain),
    }
}

impl Col {
    /// The column encoded as `encoding` instead.
    pub const fn encoded(self, encoding: Encoding) -> Col {
        Col {
            encoding,
            compressed: matches!(encoding, Encoding::Plain),
            ..self
        }
    }

    /// The column Snappy-compressed whatever its encoding (deltas that still repeat).
    pub const fn compressed(self) -> Col {
        Col {
            compressed: true,
            ..self
        }
    }

    /// The column without minimum and maximum: values that mix in every row group (addresses,
    /// message types), where they would skip nothing and cost a comparison per value.
    pub const fn without_statistics(self) -> Col {
        Col {
            statistics: false,
            ..self
        }
    }
}

/// Whether each value of a column is there (`false`: null), made into the array's null buffer
/// when there was a null.
#[derive(Default)]
struct Nulls {
    valid: Vec<bool>,
    nulls: usize,
}

impl Nulls {
    fn push(&mut self, valid: bool) {
        self.valid.push(valid);
        self.nulls += usize::from(!valid);
    }

    fn finish(&mut self) -> Option<NullBuffer> {
        let fresh = Vec::with_capacity(self.valid.len());
        let valid = std::mem::replace(&mut self.valid, fresh);
        (std::mem::take(&mut self.nulls) > 0).then(|| NullBuffer::from(valid))
    }
}

/// A text column of one row group: its bytes, where each value ends, its nulls (the parts of a
/// `StringArray`, gathered as plain vectors and handed over whole: one allocation per column
/// per row group, no builder's bookkeeping per value).
struct Texts {
    offsets: Vec<i32>,
    values: Vec<u8>,
    nulls: Nulls,
    /// The bytes passed what 32-bit offsets reach: the row group cannot be made.
    overflow: bool,
}

impl Texts {
    fn new() -> Texts {
        Texts {
            offsets: vec![0],
            values: Vec::new(),
            nulls: Nulls::default(),
            overflow: false,
        }
    }

    /// Ends the current value (its bytes written by [`Texts::append_value`] or through
    /// `fmt::Write`).
    fn end_value(&mut self, valid: bool) {
        let end = match i32::try_from(self.values.len()) {
            Ok(end) => end,
            Err(_) => {
                self.overflow = true;
                self.offsets.last().copied().unwrap_or(0)
            }
        };
        self.offsets.push(end);
        self.nulls.push(valid);
    }

    fn append_value(&mut self, v: &str) {
        self.values.extend_from_slice(v.as_bytes());
        self.end_value(true);
    }

    fn append_null(&mut self) {
        self.end_value(false);
    }

    fn append_option(&mut self, v: Option<&str>) {
        match v {
            Some(v) => self.append_value(v),
            None => self.append_null(),
        }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn finish(&mut self) -> std::io::Result<ArrayRef> {
        let n = self.len();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let offsets = std::mem::replace(&mut self.offsets, offsets);
        let fresh = Vec::with_capacity(self.values.len());
        let values = std::mem::replace(&mut self.values, fresh);
        let nulls = self.nulls.finish();
        if std::mem::take(&mut self.overflow) {
            return Err(std::io::Error::other(
                "a row group's text passed 2 GiB: it cannot be written",
            ));
        }
        let array = StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            Buffer::from_vec(values),
            nulls,
        )
        .map_err(std::io::Error::other)?;
        Ok(Arc::new(array))
    }
}

impl std::fmt::Write for Texts {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.values.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// A column of numbers of one row group, gathered as a plain vector (see [`Texts`]).
struct Values<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    nulls: Nulls,
}

impl<T: ArrowPrimitiveType> Values<T> {
    fn new() -> Self {
        Values {
            values: Vec::new(),
            nulls: Nulls::default(),
        }
    }

    fn append_value(&mut self, v: T::Native) {
        self.values.push(v);
        self.nulls.push(true);
    }

    fn append_null(&mut self) {
        self.values.push(T::Native::default());
        self.nulls.push(false);
    }

    fn append_option(&mut self, v: Option<T::Native>) {
        match v {
            Some(v) => self.append_value(v),
            None => self.append_null(),
        }
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn finish(&mut self) -> std::io::Result<PrimitiveArray<T>> {
        let fresh = Vec::with_capacity(self.values.len());
        let values = std::mem::replace(&mut self.values, fresh);
        let nulls = self.nulls.finish();
        PrimitiveArray::<T>::try_new(ScalarBuffer::from(values), nulls)
            .map_err(std::io::Error::other)
    }
}

enum Builder {
    Str(Texts),
    U8(Values<UInt8Type>),
    U32(Values<UInt32Type>),
    U64(Values<UInt64Type>),
    F64(Values<Float64Type>),
    Bool(BooleanBuilder),
    Time(Values<TimestampNanosecondType>),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Label | Kind::Text => Builder::Str(Texts::new()),
            Kind::U8 => Builder::U8(Values::new()),
            Kind::U32 => Builder::U32(Values::new()),
            Kind::U64 => Builder::U64(Values::new()),
            Kind::F64 => Builder::F64(Values::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            Kind::Time => Builder::Time(Values::new()),
        }
    }

    fn finish(&mut self) -> std::io::Result<ArrayRef> {
        Ok(match self {
            Builder::Str(b) => b.finish()?,
            Builder::U8(b) => Arc::new(b.finish()?),
            Builder::U32(b) => Arc::new(b.finish()?),
            Builder::U64(b) => Arc::new(b.finish()?),
            Builder::F64(b) => Arc::new(b.finish()?),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()?.with_timezone("UTC")),
        })
    }

    fn len(&self) -> usize {
        match self {
            Builder::Str(b) => b.len(),
            Builder::U8(b) => b.len(),
            Builder::U32(b) => b.len(),
            Builder::U64(b) => b.len(),
            Builder::F64(b) => b.len(),
            Builder::Bool(b) => b.len(),
            Builder::Time(b) => b.len(),
        }
    }
}

fn data_type(kind: Kind) -> DataType {
    match kind {
        Kind::Label | Kind::Text => DataType::Utf8,
        Kind::U8 => DataType::UInt8,
        Kind::U32 => DataType::UInt32,
        Kind::U64 => DataType::UInt64,
        Kind::F64 => DataType::Float64,
        Kind::Bool => DataType::Boolean,
        Kind::Time => DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
    }
}

/// Nanoseconds since the epoch (saturating far outside the years 1677-2262).
pub fn nanos(t: Timestamp) -> i64 {
    t.secs
        .saturating_mul(1_000_000_000)
        .saturating_add(i64::from(t.nanos))
}

/// The thread that encodes and writes a table's row groups, and the file it writes: shared by
/// the table's fronts ([`Table::another`]), and ended by the last of them to go.
struct Writer {
    thread: Mutex<Option<JoinHandle<std::io::Result<()>>>>,
    path: PathBuf,
    tmp: PathBuf,
    /// A front went without being closed (an error on its way): the file is not complete, and
    /// the last front removes it rather than name it.
    abandoned: AtomicBool,
}

/// Row groups waiting for the writing thread: the table's thread goes on making the next while
/// one is written, and waits when the writing falls behind (memory stays bounded).
const GROUPS_IN_FLIGHT: usize = 1;

impl Writer {
    fn start(
        mut w: ArrowWriter<File>,
        path: PathBuf,
        tmp: PathBuf,
    ) -> std::io::Result<(SyncSender<RecordBatch>, Writer)> {
        let (tx, rx) = mpsc::sync_channel::<RecordBatch>(GROUPS_IN_FLIGHT);
        let thread = std::thread::Builder::new()
            .name("parquet-writer".into())
            .spawn(move || {
                for batch in rx {
                    w.write(&batch).map_err(std::io::Error::other)?;
                }
                w.close().map_err(std::io::Error::other)?;
                Ok(())
            })?;
        Ok((
            tx,
            Writer {
                thread: Mutex::new(Some(thread)),
                path,
                tmp,
                abandoned: AtomicBool::new(false),
            },
        ))
    }

    /// Waits for the writing thread (every front's way to it gone: it has written what they
    /// handed over and the footer): the first error of the writing, if any.
    fn join(&self) -> std::io::Result<()> {
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        match thread.map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Ok(()),
        }
    }

    /// The last front has gone: the file written whole is given its name (`complete`), else
    /// removed.
    fn end(self, complete: bool) -> std::io::Result<()> {
        let written = self.join();
        if complete && !self.abandoned.load(Ordering::Relaxed) {
            written?;
            return std::fs::rename(&self.tmp, &self.path);
        }
        let _ = std::fs::remove_file(&self.tmp);
        written?;
        Err(std::io::Error::other(format!(
            "{}: not complete: the writing of a part of it failed",
            self.path.display()
        )))
    }
}

/// A table being written: call the setters for each column of a row, in any order (a column
/// left out is null), then [`Table::end_row`].
///
/// A table may have several fronts ([`Table::another`]), each making rows on a thread of its
/// own: each hands its row groups to the one writing thread, so the file holds each front's
/// row groups (each in the order its rows were made) in the order they were handed over. The
/// file is given its name when the last front closes.
pub struct Table {
    cols: &'static [Col],
    schema: Arc<Schema>,
    builders: Vec<Builder>,
    /// The way to the writing thread; `None` once it has failed or the front is closed.
    tx: Option<SyncSender<RecordBatch>>,
    writer: Option<Arc<Writer>>,
    rows: u64,
    /// The column after the one set last.
    next: usize,
    /// Columns set in the current row (all of them: no column to fill with nulls).
    set: usize,
    scratch: String,
}

impl Table {
    /// Creates the table's file at `path` (written beside it until [`Table::close`]).
    pub fn create(path: &Path, cols: &'static [Col]) -> std::io::Result<Table> {
        let schema = Arc::new(Schema::new(
            cols.iter()
                .map(|c| Field::new(c.name, data_type(c.kind), c.nullable))
                .collect::<Vec<_>>(),
        ));
        let mut props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_size(ROW_GROUP)
            .set_dictionary_enabled(true);
        // Dictionaries where values repeat; elsewhere a dictionary would only be given up
        // page after page. Deltas where integers rise by small steps: a byte or two a value
        // rather than eight, for Snappy to go through.
        for c in cols {
            let path = ColumnPath::from(c.name);
            match c.encoding {
                Encoding::Dictionary => {}
                Encoding::Delta => {
                    props = props
                        .set_column_dictionary_enabled(path.clone(), false)
                        .set_column_encoding(path, parquet::basic::Encoding::DELTA_BINARY_PACKED);
                }
                Encoding::Plain => {
                    props = props.set_column_dictionary_enabled(path, false);
                }
            }
        }
        for c in cols.iter().filter(|c| !c.compressed) {
            props =
                props.set_column_compression(ColumnPath::from(c.name), Compression::UNCOMPRESSED);
        }
        for c in cols.iter().filter(|c| !c.statistics) {
            props = props
                .set_column_statistics_enabled(ColumnPath::from(c.name), EnabledStatistics::None);
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&tmp)?;
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props.build()))
            .map_err(std::io::Error::other)?;
        let (tx, writer) = Writer::start(writer, path.to_path_buf(), tmp)?;
        Ok(Table {
            cols,
            schema,
            builders: cols.iter().map(|c| Builder::new(c.kind)).collect(),
            tx: Some(tx),
            writer: Some(Arc::new(writer)),
            rows: 0,
            next: 0,
            set: 0,
            scratch: String::new(),
        })
    }

    /// Another front of the same file, for rows made on another thread (see [`Table`]).
    pub fn another(&self) -> Table {
        Table {
            cols: self.cols,
            schema: self.schema.clone(),
            builders: self.cols.iter().map(|c| Builder::new(c.kind)).collect(),
            tx: self.tx.clone(),
            writer: self.writer.clone(),
            rows: 0,
            next: 0,
            set: 0,
            scratch: String::new(),
        }
    }

    fn path(&self) -> &Path {
        self.writer.as_deref().map_or(Path::new(""), |w| &w.path)
    }

    fn index(&mut self, name: &str) -> usize {
        // Rows set their columns in the schema's order: the next one is tried first.
        let next = self.next;
        let i = match self.cols.get(next) {
            Some(c) if c.name == name => next,
            // The tables name their own columns: a wrong name is a bug of this module.
            _ => self
                .cols
                .iter()
                .position(|c| c.name == name)
                .unwrap_or_else(|| panic!("no column {name} in {}", self.path().display())),
        };
        self.next = i + 1;
        i
    }

    /// Column `i`'s builder, the column counted as set in this row.
    fn at(&mut self, i: usize) -> Option<&mut Builder> {
        self.set += 1;
        self.builders.get_mut(i)
    }

    pub fn str(&mut self, name: &str, v: Option<&str>) {
        let i = self.index(name);
        self.str_at(i, v);
    }

    /// Column `i` (its place in the schema) set to text: for rows made by place rather than
    /// name (the messages, a row per message).
    pub fn str_at(&mut self, i: usize, v: Option<&str>) {
        if let Some(Builder::Str(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    /// Column `i` set to `v` written as text, straight into the column (no string made).
    pub fn display_at(&mut self, i: usize, v: Option<&dyn std::fmt::Display>) {
        if let Some(Builder::Str(b)) = self.at(i) {
            match v {
                Some(v) => {
                    use std::fmt::Write as _;
                    let _ = write!(b, "{v}");
                    b.append_value("");
                }
                None => b.append_null(),
            }
        }
    }

    /// Column `i` set to `v` in lowercase hex (made in a buffer kept between rows).
    pub fn hex_at(&mut self, i: usize, v: Option<&[u8]>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        if let Some(Builder::Str(b)) = self.at(i) {
            match v {
                Some(v) => {
                    scratch.clear();
                    crate::field::push_hex(&mut scratch, v, None);
                    b.append_value(&scratch);
                }
                None => b.append_null(),
            }
        }
        self.scratch = scratch;
    }

    /// Column `name` set to the text `build` makes (in a buffer kept between rows), or null.
    pub fn text_with(&mut self, name: &str, build: Option<impl FnOnce(&mut String)>) {
        let i = self.index(name);
        let mut scratch = std::mem::take(&mut self.scratch);
        if let Some(Builder::Str(b)) = self.at(i) {
            match build {
                Some(build) => {
                    scratch.clear();
                    build(&mut scratch);
                    b.append_value(&scratch);
                }
                None => b.append_null(),
            }
        }
        self.scratch = scratch;
    }

    /// Bytes in lowercase hex, straight into the column.
    pub fn hex(&mut self, name: &str, v: Option<&[u8]>) {
        let i = self.index(name);
        self.hex_at(i, v);
    }

    /// A value written as text (an address, a pool handle), straight into the column.
    pub fn display(&mut self, name: &str, v: Option<&dyn std::fmt::Display>) {
        let i = self.index(name);
        self.display_at(i, v);
    }

    pub fn u32_at(&mut self, i: usize, v: Option<u32>) {
        if let Some(Builder::U32(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn u64_at(&mut self, i: usize, v: Option<u64>) {
        if let Some(Builder::U64(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn time_at(&mut self, i: usize, v: Option<Timestamp>) {
        if let Some(Builder::Time(b)) = self.at(i) {
            b.append_option(v.map(nanos));
        }
    }

    pub fn u8(&mut self, name: &str, v: Option<u8>) {
        let i = self.index(name);
        if let Some(Builder::U8(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn u32(&mut self, name: &str, v: Option<u32>) {
        let i = self.index(name);
        if let Some(Builder::U32(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn u64(&mut self, name: &str, v: Option<u64>) {
        let i = self.index(name);
        if let Some(Builder::U64(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn f64(&mut self, name: &str, v: Option<f64>) {
        let i = self.index(name);
        if let Some(Builder::F64(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn bool(&mut self, name: &str, v: Option<bool>) {
        let i = self.index(name);
        if let Some(Builder::Bool(b)) = self.at(i) {
            b.append_option(v);
        }
    }

    pub fn time(&mut self, name: &str, v: Option<Timestamp>) {
        let i = self.index(name);
        if let Some(Builder::Time(b)) = self.at(i) {
            b.append_option(v.map(nanos));
        }
    }

    /// Ends a row: columns not set in it are null; a full row group is written out.
    pub fn end_row(&mut self) -> std::io::Result<()> {
        self.rows += 1;
        self.next = 0;
        let rows = self.rows as usize;
        // Every column set (a setter called once per column): none to fill.
        let full = std::mem::take(&mut self.set) == self.cols.len();
        for (b, c) in self.builders.iter_mut().zip(self.cols).filter(|_| !full) {
            if b.len() < rows_in_group(rows) {
                // Left out: null (or, for a column that may not be null, a zero value).
                match (b, c.nullable) {
                    (Builder::Str(b), true) => b.append_null(),
                    (Builder::Str(b), false) => b.append_value(""),
                    (Builder::U8(b), n) => append(b, n, 0),
                    (Builder::U32(b), n) => append(b, n, 0),
                    (Builder::U64(b), n) => append(b, n, 0),
                    (Builder::F64(b), n) => append(b, n, 0.0),
                    (Builder::Bool(b), true) => b.append_null(),
                    (Builder::Bool(b), false) => b.append_value(false),
                    (Builder::Time(b), n) => append(b, n, 0),
                }
            }
        }
        if self.builders.first().map_or(0, Builder::len) >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let n = self.builders.first().map_or(0, Builder::len);
        if n == 0 {
            return Ok(());
        }
        let columns = self
            .builders
            .iter_mut()
            .map(Builder::finish)
            .collect::<std::io::Result<Vec<ArrayRef>>>()?;
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(std::io::Error::other)?;
        let Some(tx) = &self.tx else {
            return Err(std::io::Error::other("the table's writing stopped"));
        };
        if tx.send(batch).is_ok() {
            return Ok(());
        }
        // The writing thread has stopped on an error: its own, given by the last front.
        self.tx = None;
        Err(std::io::Error::other("the table's writing stopped"))
    }

    /// Rows written so far (by this front).
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes what is left of this front's rows; the last front to close writes the footer
    /// and gives the file its name. The rows this front wrote.
    pub fn close(mut self) -> std::io::Result<u64> {
        let flushed = self.flush();
        self.tx = None;
        let writer = self.writer.take();
        if flushed.is_err() {
            if let Some(w) = &writer {
                w.abandoned.store(true, Ordering::Relaxed);
            }
        }
        // The last front waits for the writing (every way to it is gone) and names the file.
        let ended = match writer.and_then(Arc::into_inner) {
            Some(w) => w.end(true),
            None => Ok(()),
        };
        flushed?;
        ended?;
        Ok(self.rows)
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // Not closed (an error on the way): no half table under the table's name.
        self.tx = None;
        if let Some(w) = self.writer.take() {
            w.abandoned.store(true, Ordering::Relaxed);
            if let Some(w) = Arc::into_inner(w) {
                let _ = w.end(false);
            }
        }
    }
}

/// Rows of the current group once this row ends.
fn rows_in_group(rows: usize) -> usize {
    match rows % ROW_GROUP {
        0 => ROW_GROUP,
        r => r,
    }
}

fn append<T: ArrowPrimitiveType>(b: &mut Values<T>, nullable: bool, zero: T::Native) {
    if nullable {
        b.append_null();
    } else {
        b.append_value(zero);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    const COLS: &[Col] = &[
        col("file", Kind::Label, false),
        col("frame", Kind::U64, false),
        col("time", Kind::Time, true),
        col("key", Kind::Text, true),
    ];

    #[test]
    fn rows_go_out_in_row_groups_and_the_file_appears_whole() {
        let dir = std::env::temp_dir().join(format!("poolshark-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let mut t = Table::create(&path, COLS).unwrap();
        let n = ROW_GROUP as u64 + 10;
        for i in 0..n {
            t.str("file", Some("a.pcap"));
            t.u64("frame", Some(i + 1));
            if i % 2 == 0 {
                t.time(
                    "time",
                    Some(Timestamp {
                        secs: 1_700_000_000,
                        nanos: 5,
                    }),
                );
            }
            // `key` left out: null.
            t.end_row().unwrap();
        }
        assert!(!path.exists(), "named before it is complete");
        assert_eq!(t.close().unwrap(), n);
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let meta = r.metadata();
        assert_eq!(meta.file_metadata().num_rows() as u64, n);
        assert_eq!(meta.num_row_groups(), 2);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fronts_on_two_threads_make_one_file_named_when_the_last_closes() {
        let dir = std::env::temp_dir().join(format!("poolshark-fronts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let mut a = Table::create(&path, COLS).unwrap();
        let b = a.another();
        let n = ROW_GROUP as u64 + 3;
        let other = std::thread::spawn(move || {
            let mut b = b;
            for i in 0..n {
                b.str("file", Some("b.pcap"));
                b.u64("frame", Some(i));
                b.end_row().unwrap();
            }
            b
        });
        for i in 0..5 {
            a.str("file", Some("a.pcap"));
            a.u64("frame", Some(i));
            a.hex("key", Some(&[0xab, 0x01]));
            a.end_row().unwrap();
        }
        assert_eq!(a.close().unwrap(), 5);
        assert!(!path.exists(), "named before its last front closed");
        assert_eq!(other.join().unwrap().close().unwrap(), n);
        let r = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(r.metadata().file_metadata().num_rows() as u64, n + 5);
        // A front that goes without closing leaves no file, whoever closes last.
        let half = dir.join("half.parquet");
        let mut a = Table::create(&half, COLS).unwrap();
        let mut b = a.another();
        b.str("file", Some("b.pcap"));
        b.end_row().unwrap();
        drop(b);
        a.str("file", Some("a.pcap"));
        a.end_row().unwrap();
        assert!(a.close().is_err());
        assert!(!half.exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no file left beside"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
