//! Prometheus metrics of a run: `capture --check --metrics ADDR:PORT` serves them at `/metrics`
//! while it captures, `check --metrics-file FILE` writes them once at the end.
//!
//! The flow: the thread that runs the analysers takes a [`snapshot`] of them at most once a
//! second (and at the end), renders it ([`exposition`]) and swaps the text into [`Published`];
//! the HTTP side ([`http`]) only ever reads that text. The capture never waits for a client, and
//! a client never sees analyser state half updated.

pub mod exposition;
pub mod http;
pub mod snapshot;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

pub use exposition::Exposition;

/// The latest rendered snapshot, shared with the HTTP side: the lock is held only to swap or
/// clone a pointer.
#[derive(Clone, Default)]
pub struct Published(Arc<Mutex<Arc<String>>>);

impl Published {
    pub fn new() -> Self {
        Published::default()
    }

    /// Makes `text` the page served from now on.
    pub fn publish(&self, text: String) {
        let text = Arc::new(text);
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = text;
    }

    /// The page served now.
    pub fn current(&self) -> Arc<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// At most one snapshot per `every`: whether one is due now.
pub struct Pace {
    every: Duration,
    last: Option<Instant>,
}

/// How often a live capture renders its metrics.
pub const SNAPSHOT_EVERY: Duration = Duration::from_secs(1);

impl Pace {
    pub fn new(every: Duration) -> Self {
        Pace { every, last: None }
    }

    /// True (and the clock restarted) when the last snapshot is `every` old, or none was made.
    pub fn due(&mut self) -> bool {
        let now = Instant::now();
        match self.last {
            Some(t) if now.duration_since(t) < self.every => false,
            _ => {
                self.last = Some(now);
                true
            }
        }
    }
}

/// Writes `text` to `path` whole: into a file beside it, then renamed over it, so a reader (a
/// node exporter's textfile collector) never sees half of it.
pub fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "metrics".into());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_swapped_whole() {
        let p = Published::new();
        assert_eq!(*p.current(), "");
        let reader = p.clone();
        p.publish("a 1\n".into());
        let held = reader.current();
        p.publish("a 2\n".into());
        // A client still writing the old page keeps it; the next one gets the new one.
        assert_eq!(*held, "a 1\n");
        assert_eq!(*reader.current(), "a 2\n");
    }

    #[test]
    fn pace_lets_one_snapshot_through_per_interval() {
        let mut p = Pace::new(Duration::from_secs(3600));
        assert!(p.due());
        assert!(!p.due());
        let mut q = Pace::new(Duration::ZERO);
        assert!(q.due() && q.due());
    }

    #[test]
    fn the_file_is_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("poolshark-metrics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("poolshark.prom");
        write_file(&f, "x 1\n").unwrap();
        write_file(&f, "x 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "x 2\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
