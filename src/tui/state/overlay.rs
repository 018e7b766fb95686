//! The overlay panels, registered in one place: each is a variant here with its layer (the
//! keys it takes) and what it scrolls. Settling, the mouse wheel and clicks go through
//! [`Overlay::scrolled`], so a new panel's list works with all three from one arm.

use super::finder::FinderState;
use super::grep::GrepState;
use super::help::HelpState;
use super::list::ListCursor;
use super::replay::ReplayPanel;
use crate::tui::layer::Layer;

/// A window over the screen that takes the keys while open.
#[derive(Debug, Clone)]
pub enum Overlay {
    Help(HelpState),
    Finder(FinderState),
    Grep(GrepState),
    Failures(ListCursor),
    /// Configuration problems found at start-up, all at once.
    Problems(Vec<String>),
    /// Re-running from a step against a live model.
    Replay(Box<ReplayPanel>),
}

/// What an overlay scrolls, for keeping it in view, the wheel and clicks.
pub enum Scrolled<'a> {
    /// A list with a selection: `len` rows.
    Rows {
        cursor: &'a mut ListCursor,
        len: usize,
    },
    /// Text scrolled by lines: `lines` of them at the window's width.
    Text { scroll: &'a mut usize, lines: usize },
    /// Nothing the app scrolls for it (the panel lays itself out, or fits).
    Fixed,
}

impl Overlay {
    pub fn layer(&self) -> Layer {
        match self {
            Overlay::Help(_) => Layer::Help,
            Overlay::Finder(_) => Layer::Finder,
            Overlay::Grep(_) => Layer::Grep,
            Overlay::Failures(_) => Layer::Failures,
            Overlay::Problems(_) => Layer::Problems,
            Overlay::Replay(_) => Layer::Replay,
        }
    }

    /// What it scrolls; `failures` is the number of files the run could not read, `width`
    /// the width of the window's text.
    pub fn scrolled(&mut self, failures: usize, width: usize) -> Scrolled<'_> {
        match self {
            Overlay::Finder(f) => Scrolled::Rows {
                cursor: &mut f.cursor,
                len: f.matches.len(),
            },
            Overlay::Grep(g) => Scrolled::Rows {
                cursor: &mut g.cursor,
                len: g.lines.len(),
            },
            Overlay::Failures(cursor) => Scrolled::Rows {
                cursor,
                len: failures,
            },
            Overlay::Help(h) => {
                // The help wraps: its scroll is over the lines as shown.
                let lines = h.rows(width).len();
                Scrolled::Text {
                    scroll: &mut h.scroll,
                    lines,
                }
            }
            Overlay::Problems(_) | Overlay::Replay(_) => Scrolled::Fixed,
        }
    }

    /// Whether a click outside it closes it and a click on a row selects the row. The
    /// replay panel is driven by keys: a stray click must not drop a running job's panel.
    pub fn takes_clicks(&self) -> bool {
        !matches!(self, Overlay::Replay(_))
    }
}
