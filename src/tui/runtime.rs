//! The event loop: terminal input and job results go through `update`; the screen is
//! redrawn when something changed, at most once per frame interval, so a burst of messages
//! (a thousand files loading) becomes one frame and an idle app does not wake up at all.

mod editor;
mod jobs;
mod terminal;

use super::config::Config;
use super::effect::Effect;
use super::job;
use super::keymap::Key;
use super::msg::{Mouse, Msg, ReplayMsg};
use super::state::{Size, State};
use super::{update, view};
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_core::Stream;
use jobs::Jobs;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};
use std::path::PathBuf;
use std::pin::Pin;
use std::time::{Duration, Instant};
use terminal::Guard;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// Frames are at least this far apart (about 60 per second while things change).
const FRAME: Duration = Duration::from_millis(16);

/// Runs the app on `roots` until the user quits. The terminal is restored however it ends.
pub fn run(roots: Vec<PathBuf>, config: Config) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("trajscope")
        .build()?;
    let result = runtime.block_on(main_loop(roots, config));
    // Blocking jobs still in flight (the file watcher between events, a parse of a big file)
    // must not keep a quitting app alive: dropping the runtime would wait for them.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

type Term = Terminal<CrosstermBackend<Stdout>>;

struct App {
    state: State,
    terminal: Term,
    guard: Guard,
    jobs: Jobs,
    tx: UnboundedSender<Msg>,
    events: Option<EventStream>,
    dirty: bool,
    last_draw: Instant,
}

async fn main_loop(roots: Vec<PathBuf>, config: Config) -> std::io::Result<()> {
    let guard = Guard::enter(config.options.mouse)?;
    let terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    let area = terminal.size()?;
    let opening = job::opening(&roots, config.options.lazy_above);
    let state = State::with_opening(
        roots,
        config,
        Size {
            width: area.width,
            height: area.height,
        },
        opening,
    );
    let (tx, mut rx) = unbounded_channel();
    let mut app = App {
        state,
        terminal,
        guard,
        jobs: Jobs::new(tx.clone()),
        tx,
        events: Some(EventStream::new()),
        dirty: true,
        last_draw: Instant::now() - FRAME,
    };
    let effects = update::start(&mut app.state);
    app.execute(effects)?;
    app.draw()?;
    while !app.state.quit {
        app.step(&mut rx).await?;
    }
    drop(app.guard);
    Ok(())
}

impl App {
    /// Waits for the next thing to happen, handles everything that has arrived, and draws
    /// if a frame is due.
    async fn step(&mut self, rx: &mut UnboundedReceiver<Msg>) -> std::io::Result<()> {
        let due = self.last_draw + FRAME;
        tokio::select! {
            event = next_event(&mut self.events) => match event {
                Some(Ok(event)) => {
                    if let Some(msg) = to_msg(event) {
                        self.handle(msg)?;
                    }
                }
                Some(Err(err)) => return Err(err),
                None => self.state.quit = true,
            },
            Some(msg) = rx.recv() => self.handle(msg)?,
            _ = tokio::time::sleep_until(due.into()), if self.dirty => {}
        }
        while let Ok(msg) = rx.try_recv() {
            self.handle(msg)?;
        }
        if self.dirty && self.last_draw.elapsed() >= FRAME {
            self.draw()?;
        }
        Ok(())
    }

    fn handle(&mut self, msg: Msg) -> std::io::Result<()> {
        let effects = update::update(&mut self.state, msg);
        self.dirty = true;
        self.execute(effects)
    }

    fn execute(&mut self, effects: Vec<Effect>) -> std::io::Result<()> {
        for effect in effects {
            match effect {
                Effect::Copy { text, what } => {
                    let notice =
                        job::clipboard::copy(&text, &what, &self.state.options, &mut stdout());
                    let _ = self.tx.send(Msg::Notice(notice));
                }
                Effect::Edit { text, name } => {
                    let notice = self.suspended(|| editor::open(&text, &name))?;
                    let _ = self.tx.send(Msg::Notice(notice));
                }
                Effect::EditContext { text, name } => {
                    let edited = self.suspended(|| editor::edit(&text, &name))?;
                    let _ = self.tx.send(Msg::Replay(ReplayMsg::Edited(edited)));
                }
                Effect::Later { after, msg } => {
                    let tx = self.tx.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(after).await;
                        let _ = tx.send(*msg);
                    });
                }
                Effect::Cancel(key) => self.jobs.cancel(key),
                Effect::Stop(key) => self.jobs.stop(key),
                other => self.jobs.spawn(other),
            }
        }
        Ok(())
    }

    /// Runs `work` (an editor) with the terminal handed over to it, then takes it back.
    fn suspended<T>(&mut self, work: impl FnOnce() -> T) -> std::io::Result<T> {
        // The input reader must not compete with the editor for keys.
        self.events = None;
        self.guard.suspend()?;
        let result = work();
        self.guard.resume()?;
        // Clears the screen and forgets the last frame, so the next one is drawn
        // whole. (`Terminal::clear` would ask the terminal for the cursor
        // position, racing the input reader for the answer.)
        let area = self.terminal.size()?;
        self.terminal
            .resize(ratatui::layout::Rect::new(0, 0, area.width, area.height))?;
        self.events = Some(EventStream::new());
        Ok(result)
    }

    fn draw(&mut self) -> std::io::Result<()> {
        let state = &self.state;
        crossterm::queue!(
            self.terminal.backend_mut(),
            crossterm::terminal::BeginSynchronizedUpdate
        )?;
        self.terminal.draw(|frame| view::render(state, frame))?;
        crossterm::execute!(
            self.terminal.backend_mut(),
            crossterm::terminal::EndSynchronizedUpdate
        )?;
        self.dirty = false;
        self.last_draw = Instant::now();
        Ok(())
    }
}

async fn next_event(events: &mut Option<EventStream>) -> Option<std::io::Result<Event>> {
    match events {
        Some(stream) => std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await,
        None => std::future::pending().await,
    }
}

fn to_msg(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            Some(Msg::Key(Key::from_event(&key)))
        }
        Event::Mouse(mouse) => Mouse::from_event(&mouse).map(Msg::Mouse),
        Event::Resize(width, height) => Some(Msg::Resize { width, height }),
        Event::Paste(text) => Some(Msg::Paste(text)),
        _ => None,
    }
}
