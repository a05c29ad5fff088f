//! The UI thread: takes the loader's updates, reads keys, asks for the detail view's frame, and
//! redraws when something changed. It never waits on the loader, so it stays responsive while a
//! large file loads.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event};
use ratatui::layout::Rect;

use super::app::{App, DetailState};
use super::detail::{decode_frame, RecentFrames};
use super::keys;
use super::loader::Loader;
use super::snapshot::Progress;
use super::terminal::{self, Tui};
use super::view;
use crate::pipeline::Options;
use crate::source::FrameSource;

/// Opens the input again from its start.
pub type Reopen = Arc<dyn Fn() -> Result<Box<dyn FrameSource + Send>, String> + Send + Sync>;

/// Where the detail view gets a frame from.
#[derive(Clone)]
pub enum FrameLookup {
    /// Read the input again through the pipeline, up to the frame (a file).
    Reopen { open: Reopen, options: Options },
    /// The decoded trees the loader keeps of the last frames (live capture, standard input).
    Recent(Arc<Mutex<RecentFrames>>),
}

/// How long a wait for a key lasts before updates are looked at again.
const POLL: Duration = Duration::from_millis(50);

/// Starts getting frame `number` for the detail view; the answer comes on `tx`. Returns the flag
/// that cancels a re-read.
fn fetch(
    lookup: &FrameLookup,
    number: u64,
    tx: Sender<(u64, DetailState)>,
) -> Option<Arc<AtomicBool>> {
    let state = |r: Result<_, String>| match r {
        Ok(d) => DetailState::Ready(d),
        Err(e) => DetailState::Failed(e),
    };
    match lookup {
        FrameLookup::Recent(recent) => {
            let r = recent
                .lock()
                .map_err(|_| "the recent frames are unavailable".to_string())
                .and_then(|r| r.get(number));
            let _ = tx.send((number, state(r)));
            None
        }
        FrameLookup::Reopen { open, options } => {
            let cancel = Arc::new(AtomicBool::new(false));
            let (open, options, flag) = (open.clone(), options.clone(), cancel.clone());
            let failed = tx.clone();
            let spawned = thread::Builder::new()
                .name("poolshark-detail".into())
                .spawn(move || {
                    let r = open()
                        .and_then(|mut src| decode_frame(src.as_mut(), options, number, &flag));
                    let _ = tx.send((number, state(r)));
                });
            if let Err(e) = spawned {
                let _ = failed.send((
                    number,
                    DetailState::Failed(format!("cannot start decoding: {e}")),
                ));
            }
            Some(cancel)
        }
    }
}

/// Runs the UI until the user quits; returns how far the loader got.
pub fn run(mut app: App, loader: Loader, lookup: FrameLookup) -> io::Result<Progress> {
    let mut tui = Tui::enter()?;
    let (detail_tx, detail_rx) = mpsc::channel();
    let mut cancel: Option<Arc<AtomicBool>> = None;
    let mut loader_open = true;
    let mut dirty = true;
    let result = loop {
        if terminal::panicked() {
            break Err(io::Error::other(
                "stopped after an internal error (see above)",
            ));
        }
        while loader_open {
            match loader.updates().try_recv() {
                Ok(u) => {
                    app.apply(u);
                    dirty = true;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => loader_open = false,
            }
        }
        while let Ok((n, state)) = detail_rx.try_recv() {
            app.set_detail(n, state);
            dirty = true;
        }
        if let Some(n) = app.take_detail_request() {
            if let Some(c) = cancel.take() {
                c.store(true, Ordering::Relaxed);
            }
            cancel = fetch(&lookup, n, detail_tx.clone());
        }
        if dirty {
            let size = tui.terminal.size()?;
            app.set_viewport(view::viewport(Rect::new(0, 0, size.width, size.height)));
            tui.draw(|f| view::draw(f, &app))?;
            dirty = false;
        }
        if event::poll(POLL)? {
            // Take every key already typed before drawing again.
            loop {
                match event::read()? {
                    Event::Key(k) => {
                        if let Some(a) = keys::action(k, app.mode()) {
                            app.handle(a);
                            dirty = true;
                        }
                    }
                    Event::Resize(..) => dirty = true,
                    _ => {}
                }
                if app.should_quit() || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        if app.should_quit() {
            break Ok(());
        }
    };
    loader.stop();
    if let Some(c) = cancel {
        c.store(true, Ordering::Relaxed);
    }
    drop(tui);
    result.map(|()| app.progress().clone())
}
