//! A mouse event as the app reads it: what happened and on which cell. The terminal
//! library's event is translated at the edge (the runtime), so `update` and its tests do not
//! depend on it.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mouse {
    pub kind: MouseKind,
    pub column: u16,
    pub row: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    WheelUp,
    WheelDown,
    /// The left button pressed.
    Click,
}

impl Mouse {
    /// The app's reading of a terminal mouse event; `None` for what it does not use (other
    /// buttons, releases, drags, moves).
    pub fn from_event(event: &MouseEvent) -> Option<Mouse> {
        let kind = match event.kind {
            MouseEventKind::ScrollUp => MouseKind::WheelUp,
            MouseEventKind::ScrollDown => MouseKind::WheelDown,
            MouseEventKind::Down(MouseButton::Left) => MouseKind::Click,
            _ => return None,
        };
        Some(Mouse {
            kind,
            column: event.column,
            row: event.row,
        })
    }
}
