//! The progress bar of the commands that read capture files: drawn on standard error when it is
//! a terminal, for regular files large enough to take a while, by bytes read; one bar per file
//! when several are read at once. Hidden otherwise, and with `--no-progress`.
//!
//! The run pays an increment and a comparison per frame: the bar is moved from the file's byte
//! counter every [`FRAMES_PER_UPDATE`] frames, and indicatif redraws at most
//! [`REDRAWS_PER_SECOND`] times a second whatever the updates.

use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::Path;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::anyhow_like::{Error, Result};
use crate::source::file::FileSource;
use crate::tui::loader::{ByteCount, Counted};

/// Files smaller than this are read in well under a second: no bar.
pub const MIN_BYTES: u64 = 8 << 20;
/// Frames between two moves of the bar.
pub const FRAMES_PER_UPDATE: u64 = 4096;
/// Redraws of the bars at most, per second.
pub const REDRAWS_PER_SECOND: u8 = 10;

/// The bars of one run (none when they are not wanted).
pub struct Bars {
    multi: Option<MultiProgress>,
}

impl Bars {
    /// Bars on standard error when it is a terminal, unless `--no-progress`; `extra` adds a
    /// condition of the command (`read` wants standard output not to be the terminal).
    pub fn new(no_progress: bool, extra: bool) -> Bars {
        let on = !no_progress && extra && std::io::stderr().is_terminal();
        Bars {
            multi: on.then(|| {
                MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(
                    REDRAWS_PER_SECOND,
                ))
            }),
        }
    }

    /// No bars.
    pub fn hidden() -> Bars {
        Bars { multi: None }
    }

    pub fn enabled(&self) -> bool {
        self.multi.is_some()
    }

    /// Opens `file` through a byte counter with a bar when bars are on and it is a regular file
    /// of at least [`MIN_BYTES`]; `None` otherwise (the caller opens it as usual, so that what
    /// is said of a file that cannot be opened does not depend on the bar).
    pub fn open(&self, file: &str) -> Option<Result<(FileSource, FileProgress)>> {
        let multi = self.multi.as_ref()?;
        if file == "-" {
            return None;
        }
        let f = File::open(file).ok()?;
        let len = f.metadata().ok().filter(|m| m.is_file())?.len();
        if len < MIN_BYTES {
            return None;
        }
        let (counted, bytes) = Counted::new(f);
        let source = match FileSource::from_reader(BufReader::with_capacity(1 << 16, counted)) {
            Ok(s) => s,
            Err(e) => return Some(Err(Error::msg(format!("cannot read {file}: {e}")))),
        };
        let bar = multi.add(ProgressBar::new(len));
        bar.set_style(style());
        bar.set_prefix(
            Path::new(file)
                .file_name()
                .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned()),
        );
        Some(Ok((
            source,
            FileProgress {
                bar,
                bytes,
                frames: 0,
            },
        )))
    }

    /// Writes a line to standard error without tearing the bars.
    pub fn eprintln(&self, line: &str) {
        match &self.multi {
            Some(m) => m.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{prefix:.bold} [{bar:32}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

/// One file's bar, moved from its byte counter.
pub struct FileProgress {
    bar: ProgressBar,
    bytes: ByteCount,
    frames: u64,
}

impl FileProgress {
    /// A frame was read.
    pub fn frame(&mut self) {
        self.frames = self.frames.wrapping_add(1);
        if self.frames % FRAMES_PER_UPDATE == 0 {
            self.bar.set_position(self.bytes.get());
        }
    }

    /// A line above the bars.
    pub fn println(&self, line: &str) {
        self.bar.println(line);
    }

    /// The file is read: the bar goes away.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
