//! The terminal: raw mode and the alternate screen while the UI runs, and the terminal as it was
//! afterwards, whether the UI ends normally, with an error or with a panic (a panic hook restores
//! it before the panic message is printed, so the message is readable and the shell usable).

use std::io::{self, BufWriter, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, BeginSynchronizedUpdate, EndSynchronizedUpdate,
    EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{execute, queue};
use ratatui::{Frame, Terminal};

/// Room for a whole frame's changes, so that each is written to the terminal at once (through
/// the standard output's own line buffer it went out in pieces of a kilobyte, and a terminal
/// could show half of one frame over the other: the chart of one pool above the members of
/// another). A full redraw of a 300x100 terminal in colour is about this size.
const FRAME_BUFFER: usize = 256 * 1024;

/// Set once the terminal was put in UI mode and not yet restored.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Set when a panic restored the terminal: the UI must stop drawing.
static PANICKED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// The terminal in UI mode; restored when dropped.
pub struct Tui {
    pub terminal: Terminal<CrosstermBackend<BufWriter<Stdout>>>,
}

/// Restores the terminal if the UI had it (idempotent: safe from the hook and from `Drop`).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(io::stdout(), LeaveAlternateScreen, Show);
    }
}

/// Whether a panic (on any thread) restored the terminal.
pub fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ACTIVE.load(Ordering::SeqCst) {
                PANICKED.store(true, Ordering::SeqCst);
            }
            restore();
            previous(info);
        }));
    });
}

impl Tui {
    /// Raw mode, alternate screen, hidden cursor.
    pub fn enter() -> io::Result<Tui> {
        install_panic_hook();
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen) {
            restore();
            return Err(e);
        }
        let out = BufWriter::with_capacity(FRAME_BUFFER, out);
        let terminal = match Terminal::new(CrosstermBackend::new(out)) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        let mut t = Tui { terminal };
        t.terminal.hide_cursor()?;
        t.terminal.clear()?;
        Ok(t)
    }

    /// Draws one frame as one update: between the synchronized-update marks (terminals that know
    /// them, such as kitty, WezTerm, foot or tmux 3.4, show the frame only when it is whole;
    /// others ignore them) and written out in one piece.
    pub fn draw(&mut self, render: impl FnOnce(&mut Frame)) -> io::Result<()> {
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)?;
        let drawn = self.terminal.draw(render).map(|_| ());
        // Closed even when drawing failed, so that the terminal does not wait for the rest.
        let closed = execute!(self.terminal.backend_mut(), EndSynchronizedUpdate);
        drawn.and(closed)
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
    }
}
