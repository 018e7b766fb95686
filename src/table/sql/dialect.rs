//! The two SQL dialects the rules are written in, as the few spellings that differ: string
//! literals (Spark reads backslash escapes in them, DuckDB does not), the regex and string
//! functions, lambdas over the tool-call list, and how a query names a Parquet folder.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// DuckDB: RE2 regexes.
    DuckDb,
    /// Apache Spark SQL: `java.util.regex`.
    Spark,
}

impl Dialect {
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "duckdb" => Some(Dialect::DuckDb),
            "spark" => Some(Dialect::Spark),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dialect::DuckDb => "duckdb",
            Dialect::Spark => "spark",
        }
    }

    /// `text` as a string literal.
    pub fn string(self, text: &str) -> String {
        match self {
            Dialect::DuckDb => format!("'{}'", text.replace('\'', "''")),
            Dialect::Spark => format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'")),
        }
    }

    /// Non-overlapping matches of `pattern` (engine syntax) in `text`.
    pub fn regex_count(self, text: &str, pattern: &str) -> String {
        let p = self.string(pattern);
        match self {
            Dialect::DuckDb => format!("len(regexp_extract_all({text}, {p}))"),
            Dialect::Spark => format!("size(regexp_extract_all({text}, {p}, 0))"),
        }
    }

    /// Whether `pattern` matches somewhere in `text`.
    pub fn regex_matches(self, text: &str, pattern: &str) -> String {
        let p = self.string(pattern);
        match self {
            Dialect::DuckDb => format!("regexp_matches({text}, {p})"),
            Dialect::Spark => format!("({text} RLIKE {p})"),
        }
    }

    /// `text` without the (anchored) match of `pattern`.
    pub fn regex_strip(self, text: &str, pattern: &str) -> String {
        format!("regexp_replace({text}, {}, '')", self.string(pattern))
    }

    /// Non-overlapping occurrences of the non-empty `literal` in `text`, leftmost first.
    pub fn literal_count(self, text: &str, literal: &str) -> String {
        let chars = literal.chars().count();
        let l = self.string(literal);
        let div = match self {
            Dialect::DuckDb => "//",
            Dialect::Spark => "div",
        };
        format!("((length({text}) - length(replace({text}, {l}, ''))) {div} {chars})")
    }

    pub fn contains(self, text: &str, literal: &str) -> String {
        format!("contains({text}, {})", self.string(literal))
    }

    pub fn starts_with(self, text: &str, literal: &str) -> String {
        let l = self.string(literal);
        match self {
            Dialect::DuckDb => format!("starts_with({text}, {l})"),
            Dialect::Spark => format!("startswith({text}, {l})"),
        }
    }

    pub fn ends_with(self, text: &str, literal: &str) -> String {
        let l = self.string(literal);
        match self {
            Dialect::DuckDb => format!("ends_with({text}, {l})"),
            Dialect::Spark => format!("endswith({text}, {l})"),
        }
    }

    /// Up to the first newline.
    pub fn first_line(self, text: &str) -> String {
        match self {
            Dialect::DuckDb => format!("split_part({text}, chr(10), 1)"),
            Dialect::Spark => format!("substring_index({text}, chr(10), 1)"),
        }
    }

    /// Unicode lowercasing as Rust's `str::to_lowercase` does it. DuckDB maps code point by
    /// code point: `İ` is given its two-character lowercase first, and a capital sigma (whose
    /// lowercase depends on its place in a word) stops the query rather than count wrong.
    pub fn lower(self, text: &str, rule: &str) -> String {
        match self {
            Dialect::DuckDb => format!(
                "CASE WHEN contains({text}, 'Σ') THEN error({}) ELSE lower(replace({text}, 'İ', 'i̇')) END",
                self.string(&format!(
                    "trajscope: rule `{rule}` lowercases a text with a capital sigma, which DuckDB cannot lowercase as trajscope does"
                ))
            ),
            Dialect::Spark => format!("lower({text})"),
        }
    }

    /// The tool calls of the step whose name is one of `names`.
    pub fn tool_calls_named(self, names: &[String]) -> String {
        let list = names
            .iter()
            .map(|n| self.string(n))
            .collect::<Vec<_>>()
            .join(", ");
        match self {
            Dialect::DuckDb => format!("len(list_filter(tool_calls, lambda x: x IN ({list})))"),
            Dialect::Spark => format!("size(filter(tool_calls, x -> x IN ({list})))"),
        }
    }

    /// Stops the query with `message`, typed as a count.
    pub fn fail(self, message: &str) -> String {
        match self {
            Dialect::DuckDb => format!("CAST(error({}) AS BIGINT)", self.string(message)),
            Dialect::Spark => format!("CAST(raise_error({}) AS BIGINT)", self.string(message)),
        }
    }

    /// The relation of a folder of Parquet files.
    pub fn relation(self, folder: &str) -> Result<String, String> {
        match self {
            Dialect::DuckDb => Ok(format!(
                "read_parquet({})",
                self.string(&format!("{folder}/*.parquet"))
            )),
            Dialect::Spark if folder.contains('`') => Err(format!(
                "{folder}: Spark cannot name a path holding a backtick"
            )),
            Dialect::Spark => Ok(format!("parquet.`{folder}`")),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
