//! Everything the app knows, owned in one place. `update` is the only writer; `view` reads.
//! Nothing here reads or writes files: the caller reads what the state needs ([`Opening`]).
//!
//! A screen (`Run`, `Trajectory`, `Compare`, `Dashboard`, `Runs`) is a [`Screen`] variant with
//! its state in `state/<name>.rs`. An overlay panel (help, finder, grep, failures, problems,
//! replay, rule picker) is an [`Overlay`] variant held in `overlay`, its state in
//! `panel/<name>.rs`; the panels are registered in `panel.rs`, not here.

pub mod compare;
pub mod dashboard;
pub mod documents;
pub mod list;
pub mod live;
pub mod metrics;
pub mod prompt;
pub mod run;
pub mod runs;
pub mod search;
pub mod trajectory;

use super::config::{Config, Options};
use super::document::{DocKey, DocRequest, Page};
use super::keymap::Keymap;
use super::layer::Layer;
use super::layout;
use super::panel::problems::Problems;
use super::panel::replay::ReplaySetup;
pub use super::panel::{Overlay, Scrolled};
use super::theme::Theme;
use compare::CompareState;
use dashboard::DashboardState;
use documents::Documents;
use live::LiveState;
use metrics::MetricsState;
use prompt::Prompt;
use ratatui::layout::Rect;
use run::RunState;
use runs::RunsState;
use search::SearchState;
use std::path::PathBuf;
use std::sync::Arc;
use trajectory::TrajectoryState;

/// The full-screen view under any overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Run,
    Trajectory,
    /// Two runs of one task side by side.
    Compare,
    /// The failure-mode tally of the run.
    Dashboard,
    /// Several runs side by side, one column each.
    Runs,
}

impl Screen {
    pub fn layer(self) -> Layer {
        match self {
            Screen::Run => Layer::Run,
            Screen::Trajectory => Layer::Trajectory,
            Screen::Compare => Layer::Compare,
            Screen::Dashboard => Layer::Dashboard,
            Screen::Runs => Layer::Runs,
        }
    }
}

/// A one-line message in the status bar until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

impl Notice {
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            error: true,
        }
    }
}

/// Terminal size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub width: u16,
    pub height: u16,
}

#[derive(Debug, Clone)]
pub struct State {
    pub screen: Screen,
    pub run: RunState,
    pub trajectory: Option<TrajectoryState>,
    /// Marked trajectories and the compare screen.
    pub compare: CompareState,
    pub overlay: Option<Overlay>,
    pub prompt: Option<Prompt>,
    pub search: SearchState,
    pub documents: Documents,
    pub metrics: MetricsState,
    pub dashboard: DashboardState,
    /// Every root as a run of its own, side by side.
    pub runs: RunsState,
    /// The gold patches of `--dataset`: the working-tree page compares each step with them.
    pub gold: Option<Arc<crate::diff::GoldPatches>>,
    pub notice: Option<Notice>,
    pub live: LiveState,
    /// What the replay panel offers: backends, a workspace.
    pub replay_setup: ReplaySetup,
    pub size: Size,
    pub keymap: Arc<Keymap>,
    pub theme: Arc<Theme>,
    pub options: Options,
    /// Open the trajectory as soon as the run holds exactly one (the user opened a file).
    pub open_single: bool,
    /// The one file opened is big and opens lazily: open it at once, while the run table
    /// lists it, rather than after (the two reads then overlap).
    pub open_at_start: bool,
    pub quit: bool,
    /// Keys pressed while the trajectory they are meant for is still being read: replayed,
    /// in order, once it is there.
    pub held_keys: Vec<super::keymap::Key>,
    next_id: u64,
}

/// How the paths were given, as the caller read them from the disk (`job::opening`): the
/// state never looks at the disk itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Opening {
    /// One path, a file: open its trajectory as soon as the run holds exactly one.
    pub single_file: bool,
    /// That file is big and opens lazily: open it at once, while the run lists it.
    pub lazy: bool,
}

impl State {
    /// The state for opening `roots` (folders, or paths taken as folders), before anything is
    /// loaded.
    pub fn new(roots: Vec<PathBuf>, config: Config, size: Size) -> State {
        State::with_opening(roots, config, size, Opening::default())
    }

    /// The state for opening `roots` given as `opening` says.
    pub fn with_opening(
        roots: Vec<PathBuf>,
        config: Config,
        size: Size,
        opening: Opening,
    ) -> State {
        let open_single = opening.single_file;
        let open_at_start = opening.single_file && opening.lazy;
        let screen = if config.compare_runs && roots.len() > 1 {
            Screen::Runs
        } else {
            Screen::Run
        };
        State {
            screen,
            run: RunState::with_results(
                roots,
                config.named_results,
                config
                    .rules
                    .rules()
                    .iter()
                    .map(|r| r.name.clone())
                    .collect(),
            ),
            trajectory: None,
            compare: CompareState::default(),
            overlay: (!config.problems.is_empty()).then(|| Problems(config.problems).into()),
            prompt: None,
            search: SearchState::default(),
            documents: Documents::default(),
            metrics: MetricsState::new(config.rules),
            dashboard: DashboardState::default(),
            runs: RunsState::default(),
            gold: config.gold.clone(),
            notice: None,
            live: LiveState::default(),
            replay_setup: config.replay,
            size,
            keymap: Arc::new(config.keymap),
            theme: Arc::new(config.theme),
            options: config.options,
            open_single,
            open_at_start,
            quit: false,
            held_keys: Vec::new(),
            next_id: 1,
        }
    }

    /// A fresh id for an opening, a search, a job generation.
    pub fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Who gets a key, in order: the prompt, else the overlay, else the screen; then `Global`.
    pub fn layers(&self) -> [Layer; 2] {
        let top = if self.prompt.is_some() {
            Layer::Prompt
        } else if let Some(overlay) = &self.overlay {
            overlay.layer()
        } else {
            self.screen.layer()
        };
        [top, Layer::Global]
    }

    /// The open trajectory, if the trajectory screen shows one that has loaded.
    pub fn open_trajectory(&self) -> Option<&TrajectoryState> {
        self.trajectory
            .as_ref()
            .filter(|_| self.screen == Screen::Trajectory)
    }

    /// The whole screen.
    pub fn area(&self) -> Rect {
        Rect::new(0, 0, self.size.width, self.size.height)
    }

    /// The document the right pane shows now, if a trajectory is open and loaded.
    pub fn document_key(&self) -> Option<DocKey> {
        let t = self.open_trajectory()?;
        t.trajectory.as_ref()?;
        let step = if t.page.per_step() {
            t.step_index()?
        } else {
            0
        };
        Some(DocKey {
            trajectory: t.id,
            page: t.page,
            step,
            width: layout::trajectory(self.area()).detail.width,
            theme: self.theme.id,
            unfolded: t.page == Page::Step && t.unfolded.contains(&step),
        })
    }

    /// What building the current document needs.
    pub fn document_request(&self) -> Option<DocRequest> {
        let key = self.document_key()?;
        Some(DocRequest {
            key,
            trajectory: self.trajectory.as_ref()?.trajectory.clone()?,
            theme: self.theme.clone(),
            fold_lines: self.options.fold_lines,
            unfold_key: self
                .keymap
                .key_name(Layer::Trajectory, crate::tui::action::Action::ToggleFold),
            analysis: self.trajectory.as_ref()?.analysis.clone(),
            gold: self.gold.as_ref().and_then(|g| {
                let t = self.trajectory.as_ref()?.trajectory.as_ref()?;
                g.get(&t.instance_id).map(Arc::from)
            }),
        })
    }
}
