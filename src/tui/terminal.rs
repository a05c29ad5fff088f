//! The terminal: raw mode and the alternate screen while the UI runs, and the terminal as it was
//! afterwards, whether the UI ends normally, with an error or with a panic (a panic hook restores
//! it before the panic message is printed, so the message is readable and the shell usable).

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;

/// Set once the terminal was put in UI mode and not yet restored.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Set when a panic restored the terminal: the UI must stop drawing.
static PANICKED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// The terminal in UI mode; restored when dropped.
pub struct Tui {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
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
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
    }
}
