//! What an export includes: which steps, whether to show diffs, where to fold, and the
//! badges (matched metric rules, labels) to put on each step.

use super::ExportError;
use crate::present::StepBadges;
use std::fmt;

/// Which steps to export, 1-based and inclusive as users count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepRange {
    #[default]
    All,
    /// Steps `first..=last`.
    Span { first: usize, last: usize },
}

impl StepRange {
    pub fn one(step: usize) -> StepRange {
        StepRange::Span {
            first: step,
            last: step,
        }
    }

    /// Parses `A..B`, `A..` or `..B` (inclusive), or a single `N`.
    pub fn parse(text: &str) -> Result<StepRange, ExportError> {
        let bad = || ExportError::BadRange(text.to_string());
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        let (first, last) = match text.split_once("..") {
            Some((a, b)) => {
                let b = b.strip_prefix('=').unwrap_or(b);
                let first = if a.trim().is_empty() { 1 } else { number(a)? };
                let last = if b.trim().is_empty() {
                    usize::MAX
                } else {
                    number(b)?
                };
                (first, last)
            }
            None => {
                let n = number(text)?;
                (n, n)
            }
        };
        if first == 0 || last < first {
            return Err(bad());
        }
        Ok(StepRange::Span { first, last })
    }

    /// The 1-based steps of a trajectory of `len` steps this range picks, or an error
    /// naming the valid range when it picks none.
    pub fn resolve(self, len: usize) -> Result<std::ops::RangeInclusive<usize>, ExportError> {
        match self {
            StepRange::All => Ok(1..=len),
            StepRange::Span { first, last } if first <= len => Ok(first..=last.min(len)),
            StepRange::Span { first, .. } => Err(ExportError::NoSuchStep { step: first, len }),
        }
    }

    pub fn is_all(self) -> bool {
        self == StepRange::All
    }
}

impl fmt::Display for StepRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StepRange::All => f.write_str("all steps"),
            StepRange::Span { first, last } if first == last => write!(f, "step {first}"),
            StepRange::Span { first, last } if last == usize::MAX => {
                write!(f, "steps {first}..")
            }
            StepRange::Span { first, last } => write!(f, "steps {first}..{last}"),
        }
    }
}

/// What `ExportOptions::default()` tags steps with: nothing.
static NO_BADGES: StepBadges = StepBadges::NONE;

/// How to export.
#[derive(Clone, Copy)]
pub struct ExportOptions<'a> {
    pub steps: StepRange,
    /// Per-step file diffs (from the working-tree reconstruction) and the final patch.
    pub diffs: bool,
    /// Observations longer than this many lines are folded (`<details>`).
    pub fold_lines: usize,
    /// Observations longer than this many bytes are folded too.
    pub fold_bytes: usize,
    /// The matched rules and labels of each step ([`StepBadges`], the same list the TUI
    /// shows).
    pub badges: &'a StepBadges,
    /// The name the page gives the trajectory: the row's label in the run it came from
    /// (`django__django-11099 · …/run-b`); its instance id when not set.
    pub title: Option<&'a str>,
}

impl Default for ExportOptions<'_> {
    fn default() -> Self {
        ExportOptions {
            steps: StepRange::All,
            diffs: true,
            fold_lines: 30,
            fold_bytes: 3000,
            badges: &NO_BADGES,
            title: None,
        }
    }
}

impl ExportOptions<'_> {
    /// The page's name for `t`.
    pub(crate) fn title<'t>(&'t self, t: &'t crate::model::Trajectory) -> &'t str {
        self.title.unwrap_or(&t.instance_id)
    }

    pub(crate) fn labels(&self, step: usize) -> &[String] {
        self.badges.at(step)
    }

    pub(crate) fn folds(&self, text: &str) -> bool {
        text.len() > self.fold_bytes || text.lines().nth(self.fold_lines).is_some()
    }
}

impl fmt::Debug for ExportOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExportOptions")
            .field("steps", &self.steps)
            .field("diffs", &self.diffs)
            .field("fold_lines", &self.fold_lines)
            .field("fold_bytes", &self.fold_bytes)
            .field("badges", &!self.badges.is_empty())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_inclusive_and_one_based() {
        assert_eq!(
            StepRange::parse("3..5").ok(),
            Some(StepRange::Span { first: 3, last: 5 })
        );
        assert_eq!(
            StepRange::parse("3..=5").ok(),
            Some(StepRange::Span { first: 3, last: 5 })
        );
        assert_eq!(StepRange::parse("7").ok(), Some(StepRange::one(7)));
        assert_eq!(
            StepRange::parse("4..").ok(),
            Some(StepRange::Span {
                first: 4,
                last: usize::MAX
            })
        );
        assert_eq!(
            StepRange::parse("..2").ok(),
            Some(StepRange::Span { first: 1, last: 2 })
        );
        for bad in ["0", "0..3", "5..3", "a..b", "", "1...3", "-1"] {
            assert!(StepRange::parse(bad).is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn ranges_resolve_against_the_length() {
        assert_eq!(StepRange::All.resolve(4).ok(), Some(1..=4));
        assert_eq!(
            StepRange::parse("3..9").and_then(|r| r.resolve(4)).ok(),
            Some(3..=4)
        );
        assert!(matches!(
            StepRange::one(5).resolve(4),
            Err(ExportError::NoSuchStep { step: 5, len: 4 })
        ));
        assert_eq!(
            StepRange::parse("2..").map(|r| r.to_string()).ok(),
            Some("steps 2..".into())
        );
    }

    #[test]
    fn folding_by_lines_or_bytes() {
        let options = ExportOptions {
            fold_lines: 2,
            fold_bytes: 10,
            ..ExportOptions::default()
        };
        assert!(!options.folds("a\nb"));
        assert!(options.folds("a\nb\nc"));
        assert!(options.folds("0123456789ab"));
    }
}
