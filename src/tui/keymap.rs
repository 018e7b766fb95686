//! Keys as data: which key does what, per layer. Defaults are the embedded `default.toml` (the
//! screens) and each overlay panel's `panel/<name>/keys.toml`; the user's `[keymap.<layer>]`
//! entries replace single actions. The help screen and the status bar are generated from
//! here, so they always say what the keys really do.

pub mod key;

use super::action::Action;
use super::layer::Layer;
pub use key::{Key, KeyError, parse_key, parse_keys};
use std::collections::BTreeMap;

const DEFAULT: &str = include_str!("keymap/default.toml");

/// One action and the keys bound to it in one layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub action: Action,
    pub keys: Vec<Key>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keymap {
    layers: BTreeMap<Layer, Vec<Binding>>,
}

impl Keymap {
    /// The embedded defaults. A problem in them is a bug that the tests catch; at run time
    /// the entries that did parse are kept.
    pub fn defaults() -> Keymap {
        let mut keymap = Keymap::default();
        let mut problems = Vec::new();
        for (name, text) in default_sources() {
            match text.parse::<toml::Table>() {
                Ok(table) => keymap.apply(&table, "keymap", &mut problems),
                Err(err) => problems.push(format!("default keymap of {name}: {err}")),
            }
        }
        keymap
    }

    /// The defaults with the user's `[keymap]` table applied, and what was wrong in it.
    pub fn with_overrides(table: Option<&toml::Table>, problems: &mut Vec<String>) -> Keymap {
        let mut keymap = Keymap::defaults();
        if let Some(table) = table {
            keymap.apply(table, "keymap", problems);
        }
        keymap
    }

    /// Applies `[section] action = ["key", …]` entries; bad ones are reported and skipped.
    fn apply(&mut self, table: &toml::Table, prefix: &str, problems: &mut Vec<String>) {
        for (section, entries) in table {
            let Some(layer) = Layer::from_name(section) else {
                let known: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
                problems.push(format!(
                    "{prefix}.{section}: unknown section (known: {})",
                    known.join(", ")
                ));
                continue;
            };
            let Some(entries) = entries.as_table() else {
                problems.push(format!(
                    "{prefix}.{section}: expected a table of action = [keys]"
                ));
                continue;
            };
            for (name, value) in entries {
                let at = format!("{prefix}.{section}.{name}");
                let Some(action) = Action::from_name(name) else {
                    problems.push(format!("{at}: unknown action (`?` lists them)"));
                    continue;
                };
                match parse_value(value) {
                    Ok(keys) => self.bind(layer, action, keys),
                    Err(message) => problems.push(format!("{at}: {message}")),
                }
            }
        }
    }

    /// Binds `keys` to `action` in `layer`, replacing its keys and taking them from any
    /// other action of the layer: the newest binding is the one the user meant.
    fn bind(&mut self, layer: Layer, action: Action, keys: Vec<Key>) {
        let bindings = self.layers.entry(layer).or_default();
        for binding in bindings.iter_mut() {
            binding.keys.retain(|k| !keys.contains(k));
        }
        match bindings.iter_mut().find(|b| b.action == action) {
            Some(binding) => binding.keys = keys,
            None => bindings.push(Binding { action, keys }),
        }
        // Help lists actions in the order they are declared: related ones together.
        bindings.sort_by_key(|b| b.action);
    }

    /// The action `key` triggers in `layer`, if any.
    pub fn action(&self, layer: Layer, key: &Key) -> Option<Action> {
        self.layers
            .get(&layer)?
            .iter()
            .find(|b| b.keys.contains(key))
            .map(|b| b.action)
    }

    pub fn bindings(&self, layer: Layer) -> &[Binding] {
        self.layers.get(&layer).map_or(&[], Vec::as_slice)
    }

    /// The keys of `action` in `layer`.
    pub fn keys(&self, layer: Layer, action: Action) -> &[Key] {
        self.bindings(layer)
            .iter()
            .find(|b| b.action == action)
            .map_or(&[], |b| b.keys.as_slice())
    }

    /// The first key of `action` in `layer` as shown to users, e.g. `e` or `ctrl-p`.
    pub fn hint(&self, layer: Layer, action: Action) -> Option<String> {
        self.keys(layer, action).first().map(Key::to_string)
    }

    /// The key to name in a message about `action`: its first key in `layer`, else in
    /// `global`; `(unbound)` when the user unbound it. Messages never spell a key literally,
    /// so a remapped key shows up in every one.
    pub fn key_name(&self, layer: Layer, action: Action) -> String {
        self.hint(layer, action)
            .or_else(|| self.hint(Layer::Global, action))
            .unwrap_or_else(|| "(unbound)".to_string())
    }
}

/// The default keys: the screens' file, then each overlay panel's own `keys.toml`.
fn default_sources() -> impl Iterator<Item = (&'static str, &'static str)> {
    std::iter::once(("the screens", DEFAULT)).chain(super::panel::DEFAULT_KEYS.iter().copied())
}

/// `"j"` or `["j", "down"]`.
fn parse_value(value: &toml::Value) -> Result<Vec<Key>, String> {
    let texts: Vec<&str> = match value {
        toml::Value::String(s) => vec![s.as_str()],
        toml::Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().ok_or("keys must be strings"))
            .collect::<Result<_, _>>()?,
        _ => return Err("expected a key string or a list of them".into()),
    };
    texts
        .into_iter()
        .map(|t| parse_key(t).map_err(|e| e.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn defaults_parse_cleanly_and_have_no_conflicts() {
        let mut problems = Vec::new();
        let mut keymap = Keymap::default();
        for (_, text) in default_sources() {
            let table: toml::Table = text.parse().unwrap();
            // A panel's file taking a key from another file's action would hide a conflict.
            let mut alone = Keymap::default();
            alone.apply(&table, "keymap", &mut problems);
            for (layer, bindings) in &alone.layers {
                for binding in bindings {
                    for key in &binding.keys {
                        let before = keymap.action(*layer, key);
                        assert!(before.is_none(), "{key} bound twice in {layer:?}");
                    }
                }
            }
            keymap.apply(&table, "keymap", &mut problems);
        }
        assert!(problems.is_empty(), "{problems:?}");
        for layer in Layer::ALL {
            let mut seen = std::collections::HashMap::new();
            for binding in keymap.bindings(layer) {
                for key in &binding.keys {
                    if let Some(other) = seen.insert(*key, binding.action) {
                        panic!(
                            "{key} bound to {other:?} and {:?} in {layer:?}",
                            binding.action
                        );
                    }
                }
            }
        }
        assert_eq!(keymap, Keymap::defaults());
    }

    #[test]
    fn the_keys_the_issue_promises() {
        let k = Keymap::defaults();
        let key = |s: &str| parse_key(s).unwrap();
        assert_eq!(
            k.action(Layer::Trajectory, &key("e")),
            Some(Action::NextError)
        );
        assert_eq!(
            k.action(Layer::Trajectory, &key("E")),
            Some(Action::PreviousError)
        );
        assert_eq!(k.action(Layer::Trajectory, &key("/")), Some(Action::Search));
        assert_eq!(k.action(Layer::Trajectory, &key("g")), Some(Action::Top));
        assert_eq!(k.action(Layer::Trajectory, &key("G")), Some(Action::Bottom));
        assert_eq!(
            k.action(Layer::Trajectory, &key("y")),
            Some(Action::CopyAction)
        );
        assert_eq!(
            k.action(Layer::Trajectory, &key("o")),
            Some(Action::OpenInEditor)
        );
        assert_eq!(k.action(Layer::Global, &key("?")), Some(Action::Help));
    }

    #[test]
    fn overrides_replace_one_action_and_report_bad_entries_together() {
        let user: toml::Table = r#"
            [trajectory]
            next_error = ["x", "ctrl-n"]
            bogus_action = ["q"]
            down = ["notakey"]
            [nowhere]
            quit = "q"
        "#
        .parse()
        .unwrap();
        let mut problems = Vec::new();
        let k = Keymap::with_overrides(Some(&user), &mut problems);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("keymap.nowhere"), "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("trajectory.bogus_action: unknown action"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("trajectory.down: unknown key `notakey`"))
        );
        let ctrl_n = Key::new(KeyCode::Char('n'), KeyModifiers::CONTROL);
        assert_eq!(
            k.action(Layer::Trajectory, &ctrl_n),
            Some(Action::NextError)
        );
        assert_eq!(
            k.action(Layer::Trajectory, &Key::char('x')),
            Some(Action::NextError)
        );
        assert_eq!(k.action(Layer::Trajectory, &Key::char('e')), None);
        // The bad `down` entry leaves the default in place.
        assert_eq!(
            k.action(Layer::Trajectory, &Key::char('j')),
            Some(Action::Down)
        );
    }

    #[test]
    fn taking_a_key_from_another_action() {
        let user: toml::Table = "[trajectory]\nsearch = [\"n\"]".parse().unwrap();
        let k = Keymap::with_overrides(Some(&user), &mut Vec::new());
        assert_eq!(
            k.action(Layer::Trajectory, &Key::char('n')),
            Some(Action::Search)
        );
        assert_eq!(k.keys(Layer::Trajectory, Action::NextHit), &[]);
    }
}
