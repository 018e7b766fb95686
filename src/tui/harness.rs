//! The app without a terminal: state, update and view driven by code, effects run inline,
//! frames drawn into ratatui's `TestBackend`. For tests (key flows, snapshots) and the
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
}

impl Harness {
    /// Opens `roots` as `trajscope PATH…` would, and loads everything.
    pub fn open(roots: &[PathBuf], config: Config, width: u16, height: u16) -> Harness {
        let state = State::new(roots.to_vec(), config, Size { width, height });
        let mut harness = Harness::with_state(state);
        let effects = update::start(&mut harness.state);
        harness.run(effects);
        harness
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

    fn execute(&mut self, effect: Effect, queue: &mut VecDeque<Msg>) {
        let never = AtomicBool::new(false);
        match effect {
            Effect::LoadRun { roots, rules } => {
                let (candidates, msg) = job::discover(&roots);
                queue.push_back(msg);
                queue.push_back(job::results_above(&roots));
                queue.extend(
                    candidates
                        .iter()
                        .flat_map(|c| job::read_run_file(c, &rules)),
                );
                queue.push_back(Msg::RunLoaded);
            }
            Effect::LoadTrajectory {
                id,
                source,
                lazy_above,
            } => {
                queue.push_back(job::load_trajectory(id, &source, lazy_above));
            }
            Effect::LoadCompare { id, a, b } => {
                queue.push_back(job::load_compare(id, &a, &b));
            }
            Effect::LoadInstance { id, sources } => {
                queue.push_back(job::load_instance(id, &sources));
            }
            Effect::BuildDocument(request) => {
                queue.extend(job::build_document(&request, &never));
            }
            Effect::Search {
                trajectory,
                query,
                source,
            } => queue.push_back(job::search(trajectory, &query, &source, &never)),
            Effect::Grep { id, query, files } => {
                for (done, path) in files.iter().enumerate() {
                    queue.extend(job::grep_file(id, &query, path));
                    queue.push_back(Msg::GrepProgress {
                        id,
                        files_done: done + 1,
                    });
                }
                queue.push_back(Msg::GrepDone { id });
            }
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
            Effect::LoadLabels { roots } => queue.push_back(job::labels::load(&roots)),
            Effect::SaveLabels { set, edit } => queue.push_back(job::labels::save(set, edit)),
            Effect::Export(request) => queue.push_back(job::export::export(&request)),
            Effect::Replay(request) => {
                // The real job on a runtime of its own; its reports are handled in order,
                // after it ends (so a test sees the streamed text whole).
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match runtime {
                    Ok(runtime) => runtime.block_on(job::replay::run(*request, &mut |msg| {
                        queue.push_back(msg);
                    })),
                    Err(err) => queue.push_back(Msg::Notice(Notice::error(err.to_string()))),
                }
            }
            Effect::CancelReplay(token) => token.cancel(),
            Effect::EditContext { text, name } => {
                let edited = (self.editor)(&text);
                self.edited.push((name, text));
                queue.push_back(Msg::Replay(crate::tui::msg::ReplayMsg::Edited(Ok(edited))));
            }
            // Time does not pass in the harness: timers never fire.
            Effect::Later { .. } | Effect::Cancel(_) => {}
        }
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
