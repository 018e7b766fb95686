//! One key press as data, and the one parser for key strings used by the config file, the
//! help screen and the tests: `j`, `G`, `ctrl-d`, `enter`, `shift-tab`, and sequences such as
//! `/error<CR>n` or `<C-d><Down>`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::fmt;
use thiserror::Error;

/// A key with its modifiers, normalised so that equal presses compare equal: letters carry
/// their case rather than SHIFT, and `shift-tab` is [`KeyCode::BackTab`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    #[error("empty key")]
    Empty,
    #[error("unknown key `{0}`")]
    Unknown(String),
    #[error("unknown modifier `{0}` (use ctrl-, alt- or shift-)")]
    Modifier(String),
    #[error("`<` without a closing `>` in `{0}`")]
    Unclosed(String),
}

impl Key {
    pub fn new(code: KeyCode, modifiers: KeyModifiers) -> Key {
        let mut key = Key { code, modifiers };
        key.normalise();
        key
    }

    pub fn char(c: char) -> Key {
        Key::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    pub fn from_event(event: &KeyEvent) -> Key {
        Key::new(event.code, event.modifiers)
    }

    fn normalise(&mut self) {
        self.modifiers &= KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT;
        match self.code {
            KeyCode::Char(c) if self.modifiers.contains(KeyModifiers::SHIFT) => {
                self.code = KeyCode::Char(c.to_uppercase().next().unwrap_or(c));
                self.modifiers.remove(KeyModifiers::SHIFT);
            }
            KeyCode::Tab if self.modifiers.contains(KeyModifiers::SHIFT) => {
                self.code = KeyCode::BackTab;
                self.modifiers.remove(KeyModifiers::SHIFT);
            }
            KeyCode::BackTab => self.modifiers.remove(KeyModifiers::SHIFT),
            _ => {}
        }
    }

    /// The character this key types into a text field, if it types one.
    pub fn typed_char(&self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if (self.modifiers - KeyModifiers::SHIFT).is_empty() => Some(c),
            _ => None,
        }
    }
}

/// Parses one key: `j`, `G`, `?`, `ctrl-d`, `C-d`, `alt-x`, `enter`, `<CR>`, `pgdown`, `f1`.
pub fn parse_key(text: &str) -> Result<Key, KeyError> {
    let text = text.trim();
    let inner = text
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .filter(|t| !t.is_empty())
        .unwrap_or(text);
    if inner.is_empty() {
        return Err(KeyError::Empty);
    }
    let mut modifiers = KeyModifiers::NONE;
    let mut rest = inner;
    // `-` alone is the minus key; `ctrl--` is ctrl and minus.
    while let Some((head, tail)) = rest.split_once('-') {
        if head.is_empty() || tail.is_empty() {
            break;
        }
        modifiers |= match head.to_ascii_lowercase().as_str() {
            "ctrl" | "c" | "control" => KeyModifiers::CONTROL,
            "alt" | "a" | "m" | "meta" => KeyModifiers::ALT,
            "shift" | "s" => KeyModifiers::SHIFT,
            _ => return Err(KeyError::Modifier(head.to_string())),
        };
        rest = tail;
    }
    let code = parse_code(rest).ok_or_else(|| KeyError::Unknown(text.to_string()))?;
    Ok(Key::new(code, modifiers))
}

fn parse_code(name: &str) -> Option<KeyCode> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(KeyCode::Char(c));
    }
    let code = match name.to_ascii_lowercase().as_str() {
        "enter" | "cr" | "return" | "ret" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" | "bs" => KeyCode::Backspace,
        "space" => KeyCode::Char(' '),
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdown" | "pgdn" | "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "lt" => KeyCode::Char('<'),
        "gt" => KeyCode::Char('>'),
        "minus" => KeyCode::Char('-'),
        "bar" => KeyCode::Char('|'),
        other => {
            let n: u8 = other.strip_prefix('f')?.parse().ok()?;
            return (1..=24).contains(&n).then_some(KeyCode::F(n));
        }
    };
    Some(code)
}

/// Parses a sequence: plain characters stand for themselves, `<…>` holds one named key.
/// `"/error<CR>n"` is `/`, `e`, `r`, `r`, `o`, `r`, enter, `n`.
pub fn parse_keys(text: &str) -> Result<Vec<Key>, KeyError> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '<' && rest.len() > 1 {
            let end = rest
                .find('>')
                .ok_or_else(|| KeyError::Unclosed(text.to_string()))?;
            keys.push(parse_key(&rest[..=end])?);
            rest = &rest[end + 1..];
        } else {
            keys.push(Key::char(c));
            rest = &rest[c.len_utf8()..];
        }
    }
    Ok(keys)
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::Delete => f.write_str("del"),
            KeyCode::Insert => f.write_str("ins"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_keys() {
        assert_eq!(parse_key("j"), Ok(Key::char('j')));
        assert_eq!(parse_key("G"), Ok(Key::char('G')));
        assert_eq!(parse_key("shift-g"), Ok(Key::char('G')));
        assert_eq!(
            parse_key("ctrl-d"),
            Ok(Key::new(KeyCode::Char('d'), KeyModifiers::CONTROL))
        );
        assert_eq!(parse_key("<C-d>"), parse_key("ctrl-d"));
        assert_eq!(
            parse_key("<CR>"),
            Ok(Key::new(KeyCode::Enter, KeyModifiers::NONE))
        );
        assert_eq!(
            parse_key("shift-tab"),
            Ok(Key::new(KeyCode::BackTab, KeyModifiers::NONE))
        );
        assert_eq!(parse_key("-"), Ok(Key::char('-')));
        assert_eq!(
            parse_key("f12"),
            Ok(Key::new(KeyCode::F(12), KeyModifiers::NONE))
        );
    }

    #[test]
    fn bad_keys_say_what_is_wrong() {
        assert_eq!(parse_key(""), Err(KeyError::Empty));
        assert!(matches!(parse_key("hyper-x"), Err(KeyError::Modifier(_))));
        assert!(matches!(parse_key("enterr"), Err(KeyError::Unknown(_))));
        assert!(matches!(parse_keys("<C-d"), Err(KeyError::Unclosed(_))));
    }

    #[test]
    fn sequences() {
        let keys = parse_keys("/ab<CR>n<C-d><lt>").unwrap();
        let shown: Vec<String> = keys.iter().map(Key::to_string).collect();
        assert_eq!(shown, ["/", "a", "b", "enter", "n", "ctrl-d", "<"]);
    }

    #[test]
    fn events_from_the_terminal_match_parsed_keys() {
        let shifted = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(Key::from_event(&shifted), Key::char('G'));
        let backtab = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(Some(Key::from_event(&backtab)), parse_key("shift-tab").ok());
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "j",
            "G",
            "ctrl-d",
            "enter",
            "space",
            "pgdn",
            "shift-tab",
            "f1",
            "alt-x",
        ] {
            let key = parse_key(text).unwrap();
            assert_eq!(parse_key(&key.to_string()), Ok(key), "{text}");
        }
    }
}
