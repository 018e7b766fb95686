//! Where rules come from and how the sources combine: the built-in defaults, the user's file
//! in the XDG config folder, and `--rules` files add to each other in that order (a rule
//! named like an earlier one replaces it in place; `enabled = false` removes it);
//! `--only-rules` files replace the defaults and the user's file. Wherever a file is
//! accepted, the name of a built-in pack ([`super::pack`]) is too.

use super::pack;
use super::rule::Rule;
use super::rule_error::RuleError;
use super::rule_file::{self, DEFAULT_RULES, DEFAULT_RULES_NAME, Entry};
use std::path::{Path, PathBuf};

/// The rules to run and the problems found while reading them.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub errors: Vec<RuleError>,
}

/// What the user asked for on the command line.
#[derive(Debug, Clone, Default)]
pub struct RuleOptions {
    /// `--rules FILE|PACK`: added after the defaults and the user's file.
    pub extra: Vec<PathBuf>,
    /// `--only-rules FILE|PACK`: used instead of the defaults and the user's file.
    pub only: Vec<PathBuf>,
    /// The user's rule file; [`user_rules_path`] unless a caller (a test) says otherwise.
    pub user_file: Option<PathBuf>,
}

/// `<config dir>/trajscope/rules.toml` (on Linux `$XDG_CONFIG_HOME/trajscope/rules.toml`).
pub fn user_rules_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("trajscope").join("rules.toml"))
}

impl RuleSet {
    /// The built-in rules alone.
    pub fn defaults() -> RuleSet {
        let mut set = RuleSet::default();
        set.add(rule_file::parse(DEFAULT_RULES, DEFAULT_RULES_NAME));
        set
    }

    /// The rules `options` select. The user's file is read only when it exists.
    pub fn load(options: &RuleOptions) -> RuleSet {
        let mut set = if options.only.is_empty() {
            let mut set = RuleSet::defaults();
            if let Some(user) = options.user_file.as_deref().filter(|p| p.is_file()) {
                set.add(rule_file::read(user));
            }
            set
        } else {
            let mut set = RuleSet::default();
            for path in &options.only {
                set.add(read_source(path));
            }
            set
        };
        for path in &options.extra {
            set.add(read_source(path));
        }
        set
    }

    /// The rules of the built-in pack `name`, or `None` when there is no such pack.
    pub fn pack(name: &str) -> Option<RuleSet> {
        let mut set = RuleSet::default();
        set.add(pack::find(name)?.entries());
        Some(set)
    }

    /// Adds the rules of a file text (for tests and embedders).
    pub fn add_text(&mut self, text: &str, file: &str) {
        self.add(rule_file::parse(text, file));
    }

    /// Adds the rules of the file at `path`.
    pub fn add_file(&mut self, path: &Path) {
        self.add(rule_file::read(path));
    }

    /// Adds the rules of the file at `path`, or of the built-in pack it names.
    pub fn add_source(&mut self, path: &Path) {
        self.add(read_source(path));
    }

    fn add(&mut self, (entries, errors): (Vec<Entry>, Vec<RuleError>)) {
        self.errors.extend(errors);
        for entry in entries {
            let existing = self.rules.iter().position(|r| r.name == entry.name());
            match (entry, existing) {
                (Entry::Rule(rule), Some(i)) => self.rules[i] = *rule,
                (Entry::Rule(rule), None) => self.rules.push(*rule),
                (Entry::Disable { .. }, Some(i)) => {
                    self.rules.remove(i);
                }
                (Entry::Disable { name, origin }, None) => self.errors.push(RuleError {
                    rule: Some(name),
                    file: origin.file,
                    line: origin.line,
                    message: "`enabled = false`, but no earlier rule has this name".into(),
                }),
            }
        }
    }
}

/// A rule file, or a built-in pack when `path` is a pack's name and no such file exists.
fn read_source(path: &Path) -> (Vec<Entry>, Vec<RuleError>) {
    if !path.exists()
        && let Some(pack) = path.to_str().and_then(pack::find)
    {
        return pack.entries();
    }
    let (entries, mut errors) = rule_file::read(path);
    if !path.exists() {
        for error in &mut errors {
            error.message.push_str(&format!(
                " (nor is it a built-in pack: {})",
                pack::names().join(", ")
            ));
        }
    }
    (entries, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: &RuleSet) -> Vec<&str> {
        set.rules.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn later_files_replace_disable_and_add() {
        let mut set = RuleSet::default();
        set.add_text(
            "[[rule]]\nname = \"a\"\npattern = \"1\"\n[[rule]]\nname = \"b\"\npattern = \"2\"\n[[rule]]\nname = \"c\"\npattern = \"3\"\n",
            "first.toml",
        );
        set.add_text(
            "[[rule]]\nname = \"b\"\npattern = \"two\"\n[[rule]]\nname = \"a\"\nenabled = false\n[[rule]]\nname = \"d\"\npattern = \"4\"\n[[rule]]\nname = \"zzz\"\nenabled = false\n",
            "second.toml",
        );
        assert_eq!(names(&set), vec!["b", "c", "d"]);
        assert_eq!(set.rules[0].pattern.as_ref().unwrap().text, "two");
        assert_eq!(set.rules[0].origin.file, "second.toml");
        assert_eq!(set.errors.len(), 1);
        assert!(set.errors[0].to_string().contains("`zzz`"));
    }

    #[test]
    fn only_rules_replace_the_defaults_and_rules_add_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.toml");
        std::fs::write(&mine, "[[rule]]\nname = \"mine\"\npattern = \"x\"\n").unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[[rule]]\nname = \"from_user\"\npattern = \"u\"\n").unwrap();
        let defaults = RuleSet::defaults();
        assert!(defaults.errors.is_empty(), "{:?}", defaults.errors);

        let only = RuleSet::load(&RuleOptions {
            only: vec![mine.clone()],
            user_file: Some(user.clone()),
            ..RuleOptions::default()
        });
        assert_eq!(names(&only), vec!["mine"]);

        let added = RuleSet::load(&RuleOptions {
            extra: vec![mine.clone()],
            user_file: Some(user.clone()),
            ..RuleOptions::default()
        });
        assert_eq!(added.rules.len(), defaults.rules.len() + 2);
        assert_eq!(
            names(&added)[added.rules.len() - 2..],
            ["from_user", "mine"]
        );

        let packed = RuleSet::load(&RuleOptions {
            only: vec!["swe-bench-pro-failure-modes".into()],
            extra: vec![mine.clone()],
            ..RuleOptions::default()
        });
        assert!(packed.errors.is_empty(), "{:?}", packed.errors);
        assert_eq!(names(&packed)[0], "apply_patch_cmd_not_found");
        assert_eq!(names(&packed).last(), Some(&"mine"));
        assert_eq!(
            packed.rules[0].origin.file,
            "pack:swe-bench-pro-failure-modes"
        );
        let typo = RuleSet::load(&RuleOptions {
            only: vec!["swe-bench-pro".into()],
            ..RuleOptions::default()
        });
        assert!(typo.rules.is_empty());
        assert!(
            typo.errors[0]
                .to_string()
                .contains("nor is it a built-in pack: default, swe-bench-pro-failure-modes"),
            "{}",
            typo.errors[0]
        );

        let missing_user = RuleSet::load(&RuleOptions {
            user_file: Some(dir.path().join("absent.toml")),
            ..RuleOptions::default()
        });
        assert_eq!(missing_user.rules.len(), defaults.rules.len());
        assert!(
            missing_user.errors.is_empty(),
            "an absent user file is not an error"
        );
    }
}
