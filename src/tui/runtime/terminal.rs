//! Taking over the terminal and always giving it back: on quit, on error (the guard's Drop),
//! on panic (a hook that restores before the panic message prints), and around `$EDITOR`.

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{Write, stdout};

/// Holds the terminal in raw mode on the alternate screen until dropped.
pub struct Guard {
    mouse: bool,
}

impl Guard {
    pub fn enter(mouse: bool) -> std::io::Result<Guard> {
        install_panic_hook();
        let guard = Guard { mouse };
        guard.resume()?;
        Ok(guard)
    }

    /// Gives the terminal back (for `$EDITOR`), to be taken again with [`Guard::resume`].
    pub fn suspend(&self) -> std::io::Result<()> {
        restore()
    }

    pub fn resume(&self) -> std::io::Result<()> {
        enable_raw_mode()?;
        let mut out = stdout();
        crossterm::execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        if self.mouse {
            crossterm::execute!(out, EnableMouseCapture)?;
        }
        Ok(())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = restore();
    }
}

/// Leaves raw mode, mouse capture and the alternate screen, and shows the cursor. Safe to
/// call when none of them is on.
pub fn restore() -> std::io::Result<()> {
    let mut out = stdout();
    let screen = crossterm::execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let raw = disable_raw_mode();
    let _ = out.flush();
    screen.and(raw)
}

/// Restores the terminal before the default hook prints the panic, so the message is
/// readable and the shell usable. Installed once.
fn install_panic_hook() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = restore();
            previous(info);
        }));
    });
}
