//! A style as written in a theme file: `"red"` (a foreground), or
//! `{ fg = "#ff5555", bg = "reset", modifiers = ["bold", "underlined"] }`.

use ratatui::style::{Color, Modifier, Style};
use std::str::FromStr;

pub fn parse_style(value: &toml::Value) -> Result<Style, String> {
    match value {
        toml::Value::String(fg) => Ok(Style::new().fg(parse_color(fg)?)),
        toml::Value::Table(table) => {
            let mut style = Style::new();
            for (key, value) in table {
                match key.as_str() {
                    "fg" => style = style.fg(parse_color(as_str(value, "fg")?)?),
                    "bg" => style = style.bg(parse_color(as_str(value, "bg")?)?),
                    "modifiers" => {
                        let items = value.as_array().ok_or("`modifiers` must be a list")?;
                        for item in items {
                            style = style.add_modifier(parse_modifier(as_str(item, "modifiers")?)?);
                        }
                    }
                    other => {
                        return Err(format!("unknown key `{other}` (use fg, bg, modifiers)"));
                    }
                }
            }
            Ok(style)
        }
        _ => Err("expected a colour string or a table { fg, bg, modifiers }".into()),
    }
}

fn as_str<'a>(value: &'a toml::Value, key: &str) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("`{key}` must be a string"))
}

fn parse_color(text: &str) -> Result<Color, String> {
    Color::from_str(text)
        .map_err(|_| format!("unknown colour `{text}` (a name such as `red`, `#rrggbb`, or 0-255)"))
}

fn parse_modifier(text: &str) -> Result<Modifier, String> {
    Ok(match text {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" | "underline" => Modifier::UNDERLINED,
        "reversed" | "reverse" => Modifier::REVERSED,
        "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
        other => {
            return Err(format!(
                "unknown modifier `{other}` (bold, dim, italic, underlined, reversed, crossed_out)"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_tables() {
        let v: toml::Table = r##"
            a = "red"
            b = { fg = "#102030", bg = "reset", modifiers = ["bold"] }
            c = { fg = "nocolour" }
            d = { shade = "red" }
        "##
        .parse()
        .unwrap();
        assert_eq!(parse_style(&v["a"]), Ok(Style::new().fg(Color::Red)));
        assert_eq!(
            parse_style(&v["b"]),
            Ok(Style::new()
                .fg(Color::Rgb(0x10, 0x20, 0x30))
                .bg(Color::Reset)
                .add_modifier(Modifier::BOLD))
        );
        assert!(parse_style(&v["c"]).unwrap_err().contains("nocolour"));
        assert!(parse_style(&v["d"]).unwrap_err().contains("shade"));
    }
}
