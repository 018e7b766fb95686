//! The user's configuration: `<config dir>/trajscope/config.toml` (on Linux
//! `~/.config/trajscope/config.toml`), over the embedded defaults.
//!
//! ```toml
//! [theme]
//! name = "light"            # or `theme = "light"`; a file <config dir>/trajscope/themes/NAME.toml
//! [theme.diff]
//! added = "#00ff00"         # single roles
//! [keymap.trajectory]
//! next_error = ["e", "ctrl-n"]
//! [options]
//! fold_lines = 80
//! ```
//!
//! Every bad entry is collected into `problems` (shown together at start-up) and its default
//! is used; a bad file never stops the app.

mod options;

use super::keymap::Keymap;
use super::theme::Theme;
use crate::metrics::{Matcher, RuleOptions, RuleSet, user_rules_path};
pub use options::{CopyTarget, ExportFormat, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Config {
    pub keymap: Keymap,
    pub theme: Theme,
    pub options: Options,
    /// The failure-mode rules: the defaults, plus the user's `rules.toml` with `load`.
    pub rules: Arc<Matcher>,
    /// What was wrong in the user's files, one line each, naming the entry.
    pub problems: Vec<String>,
    /// The replay panel's backends (`backends.toml` with `load`) and what flags add.
    pub replay: super::panel::replay::ReplaySetup,
    /// The results files named with `--results`, read before start: they come before any
    /// found by looking.
    pub named_results: Vec<crate::model::ResultsSource>,
    /// Open on the runs screen: each root is a run to compare (`trajscope --runs A B C`).
    pub compare_runs: bool,
    /// The gold patches of `--dataset`, for the working-tree page.
    pub gold: Option<Arc<crate::diff::GoldPatches>>,
}

/// Compiles `set`, adding its problems and the compiler's to `problems`.
fn compile(set: RuleSet, problems: &mut Vec<String>) -> Arc<Matcher> {
    let (matcher, errors) = Matcher::new(set.rules);
    problems.extend(
        set.errors
            .iter()
            .chain(&errors)
            .map(|e| format!("{e} (the other rules still run)")),
    );
    Arc::new(matcher)
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keymap: Keymap::defaults(),
            theme: Theme::dark(),
            options: Options::default(),
            rules: compile(RuleSet::defaults(), &mut Vec::new()),
            problems: Vec::new(),
            replay: Default::default(),
            named_results: Vec::new(),
            compare_runs: false,
            gold: None,
        }
    }
}

impl Config {
    /// `<config dir>/trajscope`, where the config file and user themes live.
    pub fn dir() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("trajscope"))
    }

    /// The user's config and rules, or the defaults when there are none.
    pub fn load() -> Config {
        Config::load_with_rules(Vec::new(), Vec::new())
    }

    /// Like [`Config::load`], with the rule files or built-in packs of `--rules` added and
    /// those of `--only-rules` instead of the defaults and the user's rules.
    pub fn load_with_rules(extra: Vec<PathBuf>, only: Vec<PathBuf>) -> Config {
        let mut config = Config::load_file();
        let set = RuleSet::load(&RuleOptions {
            user_file: user_rules_path(),
            extra,
            only,
        });
        config.rules = compile(set, &mut config.problems);
        let sandbox = config.replay.sandbox.clone();
        config.replay = super::panel::replay::ReplaySetup::load(crate::backend::AdHoc::default());
        config.replay.sandbox = sandbox;
        config
    }

    fn load_file() -> Config {
        let Some(dir) = Config::dir() else {
            return Config::default();
        };
        let path = dir.join("config.toml");
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text, &path, Some(&dir)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Config::default(),
            Err(err) => Config {
                problems: vec![format!("{}: {err}", path.display())],
                ..Config::default()
            },
        }
    }

    /// A config file's text, read from `origin`, with user themes looked up in `dir`.
    pub fn parse(text: &str, origin: &Path, dir: Option<&Path>) -> Config {
        let mut problems = Vec::new();
        let table = match text.parse::<toml::Table>() {
            Ok(table) => table,
            Err(err) => {
                let message = err.to_string().replace('\n', " ");
                return Config {
                    problems: vec![format!("{}: not valid TOML: {message}", origin.display())],
                    ..Config::default()
                };
            }
        };
        let origin_name = origin.display().to_string();
        let keymap = match table.get("keymap") {
            Some(toml::Value::Table(t)) => Keymap::with_overrides(Some(t), &mut problems),
            Some(_) => {
                problems.push(format!("{origin_name}: `keymap` must be a table"));
                Keymap::defaults()
            }
            None => Keymap::defaults(),
        };
        let theme = match table.get("theme") {
            Some(toml::Value::String(name)) => Theme::named(name, dir, &mut problems),
            Some(toml::Value::Table(t)) => {
                let name = t
                    .get("name")
                    .and_then(toml::Value::as_str)
                    .unwrap_or("dark");
                let mut theme = Theme::named(name, dir, &mut problems);
                theme.apply_file(t, &format!("{origin_name} [theme]"), &mut problems);
                theme
            }
            Some(_) => {
                problems.push(format!("{origin_name}: `theme` must be a name or a table"));
                Theme::dark()
            }
            None => Theme::dark(),
        };
        let options = match table.get("options") {
            Some(toml::Value::Table(t)) => Options::parse(t, &mut problems),
            Some(_) => {
                problems.push(format!("{origin_name}: `options` must be a table"));
                Options::default()
            }
            None => Options::default(),
        };
        let mut replay = super::panel::replay::ReplaySetup::default();
        match table.get("replay") {
            Some(toml::Value::Table(t)) => {
                replay.sandbox =
                    super::panel::replay::SandboxDefaults::parse(t, &origin_name, &mut problems);
            }
            Some(_) => problems.push(format!("{origin_name}: `replay` must be a table")),
            None => {}
        }
        for key in table.keys() {
            if !["keymap", "theme", "options", "replay"].contains(&key.as_str()) {
                problems.push(format!(
                    "{origin_name}: unknown entry `{key}` (known: theme, keymap, options, replay)"
                ));
            }
        }
        Config {
            keymap,
            theme,
            options,
            problems,
            replay,
            ..Config::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;
    use crate::tui::keymap::Key;
    use crate::tui::layer::Layer;
    use crate::tui::theme::Paint;

    #[test]
    fn a_good_file_changes_what_it_names() {
        let text = r##"
            [theme]
            name = "light"
            [theme.step]
            error = "#ff0000"
            [keymap.trajectory]
            next_error = ["x"]
            [options]
            fold_lines = 12
        "##;
        let config = Config::parse(text, Path::new("config.toml"), None);
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        assert_eq!(config.theme.name, "light");
        assert_eq!(
            config.theme.style(Paint::StepError).fg,
            Some(ratatui::style::Color::Rgb(255, 0, 0))
        );
        assert_eq!(
            config.keymap.action(Layer::Trajectory, &Key::char('x')),
            Some(Action::NextError)
        );
        assert_eq!(config.options.fold_lines, 12);
    }

    #[test]
    fn every_bad_entry_is_reported_and_defaults_are_used() {
        let text = r#"
            colour = "blue"
            theme = "nonesuch"
            [keymap.run]
            sort_next = ["hyper-s"]
            [options]
            fold_lines = "many"
            copy = "carrier-pigeon"
        "#;
        let config = Config::parse(text, Path::new("c.toml"), None);
        assert_eq!(config.problems.len(), 5, "{:?}", config.problems);
        assert_eq!(config.theme.name, "dark");
        assert_eq!(config.options, Options::default());
        assert_eq!(
            config.keymap.action(Layer::Run, &Key::char('s')),
            Some(Action::SortNext)
        );
    }

    #[test]
    fn invalid_toml_is_one_problem_not_a_crash() {
        let config = Config::parse("[keymap\n", Path::new("c.toml"), None);
        assert_eq!(config.problems.len(), 1);
        assert!(config.problems[0].starts_with("c.toml: not valid TOML"));
    }
}
