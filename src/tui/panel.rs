//! Overlay panels: windows over the screen that take the keys while open (help, the finder,
//! the run-wide search, the failures and problems lists, the replay panel, the rule picker).
//!
//! A panel is the folder `panel/<name>` plus `panel/<name>.rs`: its state and its [`Panel`]
//! impl in `<name>.rs`, its key handling in `<name>/update.rs`, its drawing in
//! `<name>/view.rs`, its default keys in `<name>/keys.toml`. It is registered once, by one row
//! of [`registry!`]; from that row come its module, its [`Layer`] (keymap section, help
//! heading, status-bar hints), its [`Overlay`] variant, the dispatch of its keys and typed
//! text, its drawing, what settling, the mouse wheel and clicks scroll in it, and the action
//! that opens it from the screens ([`Panel::OPENER`]). `state.rs`, `update.rs`, `view.rs`,
//! `action.rs`, `layer.rs` and the keymap name no panel.

use super::action::Action;
use super::effect::Effect;
use super::layer::Layer;
use super::state::State;
use super::state::list::ListCursor;
use ratatui::Frame;
use ratatui::layout::Rect;

/// One overlay panel: what the registry needs from it. Everything but its name, keys and
/// update has a default.
pub trait Panel: Sized {
    /// Its section in the keymap file (`[keymap.<NAME>]`).
    const NAME: &'static str;
    /// The heading of its part of the help screen.
    const TITLE: &'static str;
    /// The keys worth knowing while it is open, most important first, for the status bar.
    const HINTS: &'static [(Action, &'static str)] = &[];
    /// Its default keys: its own `[NAME]` section, and the keys that open it in the screens'
    /// sections when it has an [`Panel::OPENER`]. Usually `include_str!("<name>/keys.toml")`.
    const KEYS: &'static str;
    /// Whether printable keys that are bound to nothing type text into it.
    const TAKES_TEXT: bool = false;
    /// The action that opens it, when it has one of its own (the keymap binds it in the
    /// screens' sections); [`Panel::open`] builds it.
    const OPENER: Option<Opener> = None;

    /// Opens it, for its [`Panel::OPENER`].
    fn open(_state: &mut State, _fx: &mut Vec<Effect>) {}
    /// A key's action while it is open.
    fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>);
    /// A typed character, when it [`Panel::TAKES_TEXT`].
    fn type_char(_state: &mut State, _c: char, _fx: &mut Vec<Effect>) {}
    /// Pasted text, when it [`Panel::TAKES_TEXT`]: its characters typed one by one, control
    /// characters left out, unless the panel takes it at once.
    fn paste(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
        for c in text.chars().filter(|c| !c.is_control()) {
            Self::type_char(state, c, fx);
        }
    }
    /// Draws it over the screen.
    fn render(&self, state: &State, frame: &mut Frame, area: Rect);
    /// What it scrolls; `failures` is the number of files the run could not read, `width`
    /// the width of the window's text.
    fn scrolled(&mut self, _failures: usize, _width: usize) -> Scrolled<'_> {
        Scrolled::Fixed
    }
    /// Whether a click outside it closes it and a click on a row selects the row.
    fn takes_clicks(&self) -> bool {
        true
    }
}

/// A panel's own opening action: its name in the keymap file and its line on the help screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opener {
    pub name: &'static str,
    pub help: &'static str,
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

/// Every overlay panel, once, in the order of the help screen: `Variant => module::State`.
/// Hands the rows to `$callback!` after `$pre`; `layer.rs` builds [`Layer`] from them and this
/// file the rest. A new panel is one row here.
macro_rules! registry {
    ($callback:ident { $($pre:tt)* }) => {
        $callback! {
            $($pre)*
            @panels
            Finder => finder::FinderState,
            Grep => grep::GrepState,
            Failures => failures::Failures,
            Help => help::HelpState,
            Problems => problems::Problems,
            Replay => replay::ReplayPanel,
            RulePicker => rule_picker::RulePicker,
        }
    };
}
pub(crate) use registry;

/// The modules, the [`Overlay`] enum and the dispatch from the registry's rows.
macro_rules! panels {
    (@panels $($variant:ident => $module:ident::$ty:ident,)*) => {
        $(pub mod $module;)*

        /// A window over the screen that takes the keys while open: one variant per panel.
        #[derive(Debug, Clone)]
        pub enum Overlay {
            $($variant(Box<$module::$ty>),)*
        }

        $(
            impl From<$module::$ty> for Overlay {
                fn from(panel: $module::$ty) -> Overlay {
                    Overlay::$variant(Box::new(panel))
                }
            }
        )*

        impl Overlay {
            pub fn layer(&self) -> Layer {
                match self {
                    $(Overlay::$variant(_) => Layer::$variant,)*
                }
            }

            /// What it scrolls; see [`Panel::scrolled`].
            pub fn scrolled(&mut self, failures: usize, width: usize) -> Scrolled<'_> {
                match self {
                    $(Overlay::$variant(p) => p.scrolled(failures, width),)*
                }
            }

            /// See [`Panel::takes_clicks`]. The replay panel is driven by keys: a stray click
            /// must not drop a running job's panel.
            pub fn takes_clicks(&self) -> bool {
                match self {
                    $(Overlay::$variant(p) => p.takes_clicks(),)*
                }
            }

            pub fn render(&self, state: &State, frame: &mut Frame, area: Rect) {
                match self {
                    $(Overlay::$variant(p) => p.render(state, frame, area),)*
                }
            }
        }

        impl Layer {
            /// Runs `action` in this layer's panel; false when the layer is no panel.
            pub(crate) fn panel_action(
                self,
                state: &mut State,
                action: Action,
                fx: &mut Vec<Effect>,
            ) -> bool {
                match self {
                    $(Layer::$variant => <$module::$ty as Panel>::action(state, action, fx),)*
                    _ => return false,
                }
                true
            }

            /// Types `c` into this layer's panel, if it takes text.
            pub(crate) fn panel_type_char(self, state: &mut State, c: char, fx: &mut Vec<Effect>) {
                match self {
                    $(Layer::$variant => <$module::$ty as Panel>::type_char(state, c, fx),)*
                    _ => {}
                }
            }

            /// Pastes `text` into this layer's panel, if it takes text.
            pub(crate) fn panel_paste(self, state: &mut State, text: &str, fx: &mut Vec<Effect>) {
                match self {
                    $(Layer::$variant if <$module::$ty as Panel>::TAKES_TEXT => {
                        <$module::$ty as Panel>::paste(state, text, fx);
                    })*
                    _ => {}
                }
            }

            /// Opens this layer's panel, for its opening action.
            pub(crate) fn open_panel(self, state: &mut State, fx: &mut Vec<Effect>) {
                match self {
                    $(Layer::$variant => <$module::$ty as Panel>::open(state, fx),)*
                    _ => {}
                }
            }

            /// The action of its own that opens this layer's panel.
            pub fn opener(self) -> Option<Opener> {
                match self {
                    $(Layer::$variant => <$module::$ty as Panel>::OPENER,)*
                    _ => None,
                }
            }

            /// Whether unbound printable keys type text into this layer's panel.
            pub(crate) fn panel_takes_text(self) -> bool {
                match self {
                    $(Layer::$variant => <$module::$ty as Panel>::TAKES_TEXT,)*
                    _ => false,
                }
            }
        }

        /// Every panel's default keys (`keys.toml`), merged into the keymap's defaults.
        pub const DEFAULT_KEYS: &[(&str, &str)] = &[
            $((stringify!($module), <$module::$ty as Panel>::KEYS),)*
        ];
    };
}

registry!(panels {});
