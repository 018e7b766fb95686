//! The app without a terminal: state, update and view driven by code, effects run inline
//! through the app's own interpreter (`job::run`, the run cache included), frames drawn into
//! ratatui's `TestBackend`. For tests (key flows, snapshots) and the
//! render benchmark; it runs exactly the `update`, `view` and jobs the real app runs.

use super::config::Config;
use super::effect::Effect;
use super::job;
use super::keymap::{KeyError, parse_keys};
use super::msg::Msg;
use super::state::{Notice, Size, State};
use super::{update, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

pub struct Harness {
    pub state: State,
    terminal: Terminal<TestBackend>,
    /// What `y` copied: (what, text).
    pub copied: Vec<(String, String)>,
    /// What `o` would have opened in the editor: (file name, text).
    pub edited: Vec<(String, String)>,
    /// What the "editor" makes of a text the app wants back (the replay context): the text
    /// unchanged unless a test sets it.
    pub editor: fn(&str) -> String,
    /// The live watch, once the app asked for it; driven by [`Harness::live_scan`] instead
    /// of filesystem notifications.
    live: Option<job::live::LiveJob>,
    /// The run cache of this harness: its own, so that tests load through the cache as the
    /// app does without touching the user's.
    cache: CacheDir,
}

impl Harness {
    /// Opens `roots` as `trajscope PATH…` would, and loads everything (through a run cache
    /// of its own, empty at first).
    pub fn open(roots: &[PathBuf], config: Config, width: u16, height: u16) -> Harness {
        let opening = job::opening(roots, config.options.lazy_above);
        let state = State::with_opening(roots.to_vec(), config, Size { width, height }, opening);
        let mut harness = Harness::with_state(state);
        harness.start();
        harness
    }

    /// Opens the same paths again in a new app that keeps this one's run cache, as a second
    /// `trajscope PATH…` would: unchanged files are listed from the cache.
    pub fn reopen(self, config: Config) -> Harness {
        let roots = self.state.run.roots.clone();
        let opening = job::opening(&roots, config.options.lazy_above);
        let state = State::with_opening(roots, config, self.state.size, opening);
        let mut harness = Harness::with_state(state);
        harness.cache = self.cache;
        harness.start();
        harness
    }

    fn start(&mut self) {
        let effects = update::start(&mut self.state);
        self.run(effects);
    }

    /// Wraps a state built by hand; nothing is run.
    pub fn with_state(state: State) -> Harness {
        let size = state.size;
        let backend = TestBackend::new(size.width, size.height);
        let terminal = match Terminal::new(backend) {
            Ok(terminal) => terminal,
            Err(never) => match never {},
        };
        Harness {
            state,
            terminal,
            copied: Vec::new(),
            edited: Vec::new(),
            editor: str::to_string,
            live: None,
            cache: CacheDir::new(),
        }
    }

    /// Sends one message and runs every effect it leads to, until nothing is left to do.
    pub fn send(&mut self, msg: Msg) {
        let effects = update::update(&mut self.state, msg);
        self.run(effects);
    }

    /// Types keys as written in tests and the keymap: `"/error<CR>n"`.
    pub fn keys(&mut self, keys: &str) -> Result<(), KeyError> {
        for key in parse_keys(keys)? {
            self.send(Msg::Key(key));
        }
        Ok(())
    }

    /// Reads every followed file again, as the live watch would on notifications, and
    /// sends what changed. Does nothing until the app has started watching.
    pub fn live_scan(&mut self) {
        let Some(job) = self.live.as_mut() else {
            return;
        };
        let msgs = job.scan();
        let mut effects = Vec::new();
        for msg in msgs {
            effects.extend(update::update(&mut self.state, msg));
        }
        self.run(effects);
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        self.send(Msg::Resize { width, height });
    }

    /// Draws one frame and returns the buffer.
    pub fn render(&mut self) -> &Buffer {
        let state = &self.state;
        // Drawing into a TestBackend cannot fail (its error type is `Infallible`).
        let _ = self.terminal.draw(|frame| view::render(state, frame));
        self.terminal.backend().buffer()
    }

    /// Draws one frame and returns it as text, one line per row, trailing spaces trimmed.
    pub fn text(&mut self) -> String {
        buffer_text(self.render())
    }

    fn run(&mut self, effects: Vec<Effect>) {
        let mut queue: VecDeque<Msg> = VecDeque::new();
        let mut pending: VecDeque<Effect> = effects.into();
        loop {
            while let Some(effect) = pending.pop_front() {
                self.execute(effect, &mut queue);
            }
            let Some(msg) = queue.pop_front() else {
                return;
            };
            pending.extend(update::update(&mut self.state, msg));
        }
    }

    /// Runs one effect: through the app's own interpreter (`job::run`), but for what needs
    /// a terminal (copy, the editor), a clock (timers) or notifications (the live watch).
    fn execute(&mut self, effect: Effect, queue: &mut VecDeque<Msg>) {
        match effect {
            Effect::Copy { text, what } => {
                let mut sink = Vec::new();
                let notice = job::clipboard::copy(&text, &what, &self.state.options, &mut sink);
                self.copied.push((what, text));
                queue.push_back(Msg::Notice(notice));
            }
            Effect::Edit { text, name } => {
                queue.push_back(Msg::Notice(Notice::info(format!(
                    "opened {name} in the editor"
                ))));
                self.edited.push((name, text));
            }
            Effect::Watch { roots, rules } => {
                // The app's rules, as the real app passes them (the harness's are the
                // built-in ones: a developer's own rule file must not change tests).
                self.live = Some(job::live::LiveJob::with_matcher(&roots, rules));
                queue.push_back(Msg::Live(crate::tui::msg::LiveMsg::Started {
                    polling: None,
                }));
            }
            Effect::EditContext { text, name } => {
                let edited = (self.editor)(&text);
                self.edited.push((name, text));
                queue.push_back(Msg::Replay(crate::tui::msg::ReplayMsg::Edited(Ok(edited))));
            }
            // Time does not pass in the harness: timers never fire. Jobs run inline, so none
            // is left running to cancel or stop.
            Effect::Later { .. } | Effect::Cancel(_) | Effect::Stop(_) => {}
            // A replay's reports are handled in order after it ends (so a test sees the
            // streamed text whole), as every job's are.
            job_effect => {
                let (tx, rx) = mpsc::channel();
                let never = AtomicBool::new(false);
                job::run(
                    job_effect,
                    &|msg| tx.send(msg).is_ok(),
                    &never,
                    Some(self.cache.path()),
                );
                queue.extend(rx.try_iter());
            }
        }
    }
}

/// A folder of its own under the system's temporary folder, removed when dropped.
struct CacheDir(PathBuf);

impl CacheDir {
    fn new() -> CacheDir {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CacheDir(std::env::temp_dir().join(format!("trajscope-harness-{}-{n}", std::process::id())))
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for CacheDir {
    fn drop(&mut self) {
        // Left behind only costs disk space in the temporary folder.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A buffer as text: its symbols row by row, trailing spaces trimmed.
pub fn buffer_text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buffer[(x, y)].symbol();
            line.push_str(symbol);
            skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
