//! Several capture files in one run (`check`, `stats`): each file on its own pipeline and
//! analysers, the files shared out over a few threads, their results handed back in the order the
//! files were given, each as soon as it and those before it are done.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::anyhow_like::{Error, Result};
use super::progress::FileProgress;
use crate::dissect::FrameSummary;
use crate::pipeline::{Decoded, Sink};
use crate::source::file::FileSource;
use crate::source::{Frame, SourceError};

/// The capture files of a run, in the order given (`-` is standard input), the threads it may
/// use and whether it draws progress bars.
#[derive(Clone, Debug, Default)]
pub struct Files {
    pub files: Vec<String>,
    /// `--jobs`; `None`: the cores available.
    pub jobs: Option<NonZeroUsize>,
    /// `--no-progress`.
    pub no_progress: bool,
}

impl Files {
    /// Threads to use: `--jobs`, else the cores available, never more than there are files.
    pub fn threads(&self) -> usize {
        self.thread_budget().min(self.files.len()).max(1)
    }

    /// Threads the run may use: `--jobs`, else the cores available.
    pub fn thread_budget(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        self.jobs.map_or(cores, NonZeroUsize::get)
    }
}

/// The pipeline's options from the decoding options (`--decode-as`, `--rserpool-encoding`, the
/// `--max-*` bounds), the dispatcher's bounds being those of `limits`.
pub fn pipeline_options(
    decode_as: Vec<crate::dissect::dispatch::DecodeAs>,
    rserpool_encoding: Option<crate::proto::rserpool::Encoding>,
    limits: crate::dissect::Limits,
) -> crate::pipeline::Options {
    use crate::dissect::dispatch::DispatchOptions;
    crate::pipeline::Options {
        dispatch: DispatchOptions {
            decode_as,
            rserpool_encoding,
            conversations: limits.conversations,
            framer_bytes: limits.framer_bytes,
            only: None,
        },
        limits,
        without_info: false,
    }
}

/// Opens a capture file (`-`: standard input).
pub fn open_file(file: &str) -> Result<FileSource> {
    FileSource::open(file).map_err(|e| {
        let name = if file == "-" { "standard input" } else { file };
        Error::msg(format!("cannot read {name}: {e}"))
    })
}

/// Runs `job` on every file with up to `threads` threads and calls `emit` with each result, in
/// the order of `files`, on the calling thread.
pub fn for_each_ordered<T, J, E>(files: &[String], threads: usize, job: J, mut emit: E)
where
    T: Send,
    J: Fn(&str) -> T + Sync,
    E: FnMut(usize, T),
{
    if threads <= 1 || files.len() <= 1 {
        for (i, f) in files.iter().enumerate() {
            emit(i, job(f));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let tx = tx.clone();
                let (next, job) = (&next, &job);
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else {
                        break;
                    };
                    if tx.send((i, job(f))).is_err() {
                        break;
                    }
                })
            })
            .collect();
        drop(tx);
        // Results that came before their turn wait here.
        let mut early: BTreeMap<usize, T> = BTreeMap::new();
        let mut due = 0;
        for (i, t) in rx {
            early.insert(i, t);
            while let Some(t) = early.remove(&due) {
                emit(due, t);
                due += 1;
            }
        }
        for w in workers {
            if let Err(panic) = w.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// Opens one file, with its progress bar when `bars` draws one.
fn open(file: &str, bars: &super::progress::Bars) -> Result<(FileSource, Option<FileProgress>)> {
    Ok(match bars.open(file) {
        Some(opened) => {
            let (s, p) = opened?;
            (s, Some(p))
        }
        None => (open_file(file)?, None),
    })
}

/// Reads one file through a pipeline of its own into `sink`, with its progress bar when `bars`
/// draws one. Returns the run's statistics and the error that ended the file early, if one did;
/// fails only when the file cannot be opened.
pub fn run_file<S: Sink>(
    file: &str,
    opts: &crate::pipeline::Options,
    bars: &super::progress::Bars,
    label: Option<&str>,
    sink: &mut S,
) -> Result<(crate::pipeline::RunStats, Option<SourceError>)> {
    let (mut source, progress) = open(file, bars)?;
    let tracked = Tracked {
        inner: sink,
        progress,
        label,
    };
    Ok(run_tracked(&mut source, opts, tracked))
}

/// [`run_file`] with the file dissected once on this thread and each part's payloads decoded
/// into its sink on a thread of its own ([`crate::handoff`]). The reading stops early once
/// `stop` is set (a part's output failed).
pub fn run_file_parts<S: Sink + Send>(
    file: &str,
    opts: &crate::pipeline::Options,
    bars: &super::progress::Bars,
    label: Option<&str>,
    parts: Vec<crate::handoff::Part<'_, S>>,
    stop: Option<&AtomicBool>,
) -> Result<(crate::pipeline::RunStats, Option<SourceError>)> {
    let (mut source, progress) = open(file, bars)?;
    let mut front = Tracked {
        inner: &mut Watch(stop),
        progress,
        label,
    };
    Ok(crate::handoff::run(&mut source, opts, &mut front, parts))
}

/// The dissecting thread's own sink: nothing but whether to stop.
struct Watch<'a>(Option<&'a AtomicBool>);

impl Sink for Watch<'_> {
    fn message(&mut self, _d: &Decoded<'_>) {}

    fn stopped(&self) -> bool {
        self.0.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Runs `source` through a pipeline of its own into `tracked`: the run's statistics and the
/// error that ended it early, if one did.
fn run_tracked<S: Sink>(
    source: &mut crate::source::file::FileSource,
    opts: &crate::pipeline::Options,
    mut tracked: Tracked<'_, S>,
) -> (crate::pipeline::RunStats, Option<SourceError>) {
    let mut pipeline = crate::pipeline::Pipeline::new(opts.clone());
    let fatal = pipeline.run(source, &mut tracked).err();
    (pipeline.stats(), fatal)
}

/// A command's sink with what every file adds: the progress bar moved as frames go by, and
/// reading problems told with the file's name when there are several files.
pub struct Tracked<'a, S> {
    pub inner: &'a mut S,
    pub progress: Option<FileProgress>,
    /// The file's name, when several files are read.
    pub label: Option<&'a str>,
}

impl<S: Sink> Sink for Tracked<'_, S> {
    fn message(&mut self, d: &Decoded<'_>) {
        self.inner.message(d);
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.inner.end_frame(frame, summary);
        if let Some(p) = &mut self.progress {
            p.frame();
        }
    }

    fn source_error(&mut self, e: &SourceError) {
        let line = match self.label {
            Some(file) => format!("poolshark: {file}: {e}"),
            None => format!("poolshark: {e}"),
        };
        match &self.progress {
            Some(p) => p.println(&line),
            None => eprintln!("{line}"),
        }
    }

    fn stopped(&self) -> bool {
        self.inner.stopped()
    }

    fn wants_quoted(&self) -> bool {
        self.inner.wants_quoted()
    }
}

impl<S> Drop for Tracked<'_, S> {
    fn drop(&mut self) {
        if let Some(p) = &self.progress {
            p.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("f{i}")).collect()
    }

    #[test]
    fn results_come_in_the_order_of_the_files_whatever_finishes_first() {
        for threads in [1, 2, 3, 8] {
            let files = names(7);
            let mut got = Vec::new();
            for_each_ordered(
                &files,
                threads,
                |f| {
                    // Early files take longest, so later ones finish first.
                    let i: u64 = f.trim_start_matches('f').parse().unwrap_or(0);
                    std::thread::sleep(std::time::Duration::from_millis(5 * (7 - i)));
                    f.to_uppercase()
                },
                |i, t| got.push((i, t)),
            );
            let want: Vec<(usize, String)> = (0..7).map(|i| (i, format!("F{i}"))).collect();
            assert_eq!(got, want, "threads {threads}");
        }
    }

    #[test]
    fn files_run_at_the_same_time_with_several_threads() {
        let files = names(2);
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        for_each_ordered(
            &files,
            2,
            |_| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(100));
                running.fetch_sub(1, Ordering::SeqCst);
            },
            |_, ()| {},
        );
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
