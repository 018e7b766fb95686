//! Colours as data: a theme maps each [`Paint`] to a style. `themes/dark.toml` and
//! `themes/light.toml` are embedded; a user theme file or `[theme.<section>]` entries in the
//! config replace single roles. Rendering asks `theme.style(Paint::DiffAdded)`, nothing else.

pub mod paint;
mod style;

pub use paint::Paint;
use ratatui::style::Style;
use std::hash::{Hash, Hasher};
use std::path::Path;
pub use style::parse_style;

const DARK: &str = include_str!("../../themes/dark.toml");
const LIGHT: &str = include_str!("../../themes/light.toml");

/// The names of the embedded themes.
pub const BUILTIN: [&str; 2] = ["dark", "light"];

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    /// The syntect theme used for code in actions and observations.
    pub syntax: String,
    styles: Vec<Style>,
    /// Tells cached, pre-styled text of one theme from another's.
    pub id: u64,
}

impl Theme {
    /// An embedded theme by name.
    pub fn builtin(name: &str) -> Option<Theme> {
        let text = match name {
            "dark" => DARK,
            "light" => LIGHT,
            _ => return None,
        };
        let mut theme = Theme::blank(name);
        let table: toml::Table = text.parse().ok()?;
        theme.apply_file(&table, name, &mut Vec::new());
        Some(theme)
    }

    pub fn dark() -> Theme {
        Theme::builtin("dark").unwrap_or_else(|| Theme::blank("dark"))
    }

    fn blank(name: &str) -> Theme {
        let mut theme = Theme {
            name: name.to_string(),
            syntax: "base16-ocean.dark".into(),
            styles: vec![Style::new(); Paint::ALL.len()],
            id: 0,
        };
        theme.rehash();
        theme
    }

    /// The theme `name`: an embedded one, or `<config_dir>/themes/<name>.toml`, or a path to
    /// a theme file. Roles a user file leaves out come from `dark`. Problems are reported and
    /// the dark theme is used instead.
    pub fn named(name: &str, config_dir: Option<&Path>, problems: &mut Vec<String>) -> Theme {
        if let Some(theme) = Theme::builtin(name) {
            return theme;
        }
        let candidates = [
            config_dir.map(|d| d.join("themes").join(format!("{name}.toml"))),
            Some(Path::new(name).to_path_buf()).filter(|p| p.extension().is_some()),
        ];
        let Some(path) = candidates.into_iter().flatten().find(|p| p.is_file()) else {
            problems.push(format!(
                "theme: no theme named `{name}` (built in: {}); using dark",
                BUILTIN.join(", ")
            ));
            return Theme::dark();
        };
        let table = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| text.parse::<toml::Table>().map_err(|e| e.to_string()));
        match table {
            Ok(table) => {
                let mut theme = Theme::dark();
                theme.name = name.to_string();
                theme.apply_file(&table, &path.display().to_string(), problems);
                theme
            }
            Err(err) => {
                problems.push(format!("theme {}: {err}; using dark", path.display()));
                Theme::dark()
            }
        }
    }

    /// Applies a theme file's sections (`[diff] added = …`), or a config's `[theme]` table.
    pub fn apply_file(&mut self, table: &toml::Table, origin: &str, problems: &mut Vec<String>) {
        for (section, value) in table {
            match (section.as_str(), value) {
                ("name", _) => {}
                ("syntax", toml::Value::String(s)) => self.syntax = s.clone(),
                (_, toml::Value::Table(entries)) => {
                    for (role, value) in entries {
                        let name = format!("{section}.{role}");
                        let Some(role) = Paint::from_name(&name) else {
                            problems.push(format!("{origin}: unknown theme role `{name}`"));
                            continue;
                        };
                        match parse_style(value) {
                            Ok(style) => self.styles[role.index()] = style,
                            Err(err) => problems.push(format!("{origin}: {name}: {err}")),
                        }
                    }
                }
                _ => problems.push(format!(
                    "{origin}: `{section}` should be a [section] of roles"
                )),
            }
        }
        self.rehash();
    }

    pub fn style(&self, role: Paint) -> Style {
        self.styles[role.index()]
    }

    fn rehash(&mut self) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.name.hash(&mut hasher);
        self.syntax.hash(&mut hasher);
        format!("{:?}", self.styles).hash(&mut hasher);
        self.id = hasher.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_define_every_role_and_nothing_else() {
        for (name, text) in [("dark", DARK), ("light", LIGHT)] {
            let table: toml::Table = text.parse().unwrap();
            let mut defined = Vec::new();
            for (section, value) in &table {
                if let toml::Value::Table(entries) = value {
                    for (role, style) in entries {
                        let full = format!("{section}.{role}");
                        assert!(Paint::from_name(&full).is_some(), "{name}: unknown {full}");
                        parse_style(style).unwrap();
                        defined.push(full);
                    }
                }
            }
            for role in Paint::ALL {
                assert!(
                    defined.iter().any(|d| d == role.name()),
                    "{name} lacks {}",
                    role.name()
                );
            }
            let mut problems = Vec::new();
            let theme = Theme::named(name, None, &mut problems);
            assert!(problems.is_empty());
            assert_eq!(theme.name, name);
        }
        assert_ne!(Theme::dark().id, Theme::builtin("light").unwrap().id);
    }

    #[test]
    fn user_entries_replace_single_roles() {
        let mut theme = Theme::dark();
        let before = theme.style(Paint::DiffRemoved);
        let user: toml::Table =
            "[diff]\nadded = \"#00ff00\"\nnope = \"red\"\n[step]\nerror = { fg = \"blurple\" }"
                .parse()
                .unwrap();
        let mut problems = Vec::new();
        theme.apply_file(&user, "config", &mut problems);
        assert_eq!(
            theme.style(Paint::DiffAdded),
            Style::new().fg(ratatui::style::Color::Rgb(0, 255, 0))
        );
        assert_eq!(theme.style(Paint::DiffRemoved), before);
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn unknown_theme_falls_back_to_dark_with_a_problem() {
        let mut problems = Vec::new();
        let theme = Theme::named("solarized-nope", None, &mut problems);
        assert_eq!(theme, Theme::dark());
        assert!(problems[0].contains("solarized-nope"));
    }
}
