use super::*;
use crate::metrics::matcher::pattern_regex;
use crate::metrics::pack;
use crate::metrics::rule_set::RuleSet;

/// Every regex source of the built-in packs' rules (patterns and `unless`), as compiled.
fn pack_sources() -> Vec<String> {
    let mut sources = Vec::new();
    for name in pack::names() {
        let Some(set) = RuleSet::pack(name) else {
            continue;
        };
        for rule in set.rules {
            for p in rule.pattern.iter().chain(rule.unless.iter()) {
                if p.regex || p.ignore_case {
                    sources.push(pattern_regex(p));
                }
            }
        }
    }
    sources
}

/// Lines built from pieces the packs' patterns look for, ASCII and not.
fn texts(pieces: &[&str], count: usize, seed: u64) -> Vec<String> {
    let mut seed = seed;
    (0..count)
        .map(|_| {
            let mut text = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 33) % 12;
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            text
        })
        .collect()
}

const ASCII_PIECES: &[&str] = &[
    "Traceback (most recent call last):",
    "\n",
    " ",
    "\t",
    "E   ",
    "- E999 ",
    "x",
    "1",
    "+",
    "-",
    "ValueError",
    "Error",
    "Exception",
    ": ",
    "foo.",
    "_bar",
    "No such file or directory",
    ": command not found",
    "sh: 2: ",
    "edit ",
    "sed -i ",
    "python ",
    "t.py",
    "pytest",
    "submit",
    "timed out after ",
    "3.5",
    " seconds",
    "<returncode>",
    "</returncode>",
    "{\"returncode\": ",
    "error: ",
    "fatal: ",
    "SyntaxError",
    "File ",
    " not found",
    "cat > ",
    "tee ",
    "=",
    ";",
    "(",
    "[",
    ".write_text(",
    "open(",
    "'w'",
    "EXECUTION TIMED OUT",
    "context window exceeded",
];

#[test]
fn counts_equal_the_regex_crate_on_ascii_and_other_texts() {
    let sources = pack_sources();
    assert!(sources.len() >= 14, "{}", sources.len());
    let mut pieces = ASCII_PIECES.to_vec();
    let ascii = texts(&pieces, 1500, 11);
    // Non-ASCII letters, digits and spaces, where ASCII and Unicode classes part ways.
    pieces.extend(["é", "\u{a0}", "٣", "K", "ſ", "“"]);
    let mixed = texts(&pieces, 1500, 12);
    let mut differs = false;
    for source in &sources {
        let ours = RuleRegex::new(source).unwrap();
        let theirs = Regex::new(source).unwrap();
        let ascii_only = regex::bytes::Regex::new(&format!("(?-u){source}")).unwrap();
        for text in ascii.iter().chain(&mixed) {
            let want = theirs.find_iter(text).count();
            assert_eq!(ours.count(text), want, "{source} on {text:?}");
            assert_eq!(ours.is_match(text), want > 0, "{source} on {text:?}");
            differs |= ascii_only.find_iter(text.as_bytes()).count() != want;
        }
    }
    // The ASCII form alone would be wrong on some non-ASCII text: the fallback is needed.
    assert!(differs);
}

#[test]
fn errors_are_the_regex_crates() {
    for bad in ["(?m)foo(", r"(?m)\p{NoSuchClass}", "(?m)a{5,2}"] {
        let want = Regex::new(bad).unwrap_err().to_string();
        assert_eq!(RuleRegex::new(bad).unwrap_err().to_string(), want, "{bad}");
    }
    // Past the size limit only in its Unicode form: still refused when the rules load.
    let big = r"(?m)(?:\w{40}\s){60}";
    assert!(regex::bytes::Regex::new(&format!("(?-u){big}")).is_ok());
    assert!(Regex::new(big).is_err());
    assert!(RuleRegex::new(big).is_err());
}

#[test]
fn the_unicode_form_waits_for_a_non_ascii_text() {
    let regex = RuleRegex::new(r"(?m)^\w+Error:").unwrap();
    assert!(regex.0.unicode.get().is_none());
    assert_eq!(regex.count("ValueError: x\nKeyError: y"), 2);
    assert!(regex.0.unicode.get().is_none());
    assert_eq!(regex.count("ÉtatError: x"), 1);
    // Searched by a form cut to its characters: the Unicode form waits longer still (see
    // `a_cut_form_serves_every_text_of_its_characters` for when it compiles).
    assert!(regex.0.unicode.get().is_none());
    assert_eq!(regex.0.narrowed.len(), 1);
    // No ASCII form (a Unicode property class): compiled whole at once.
    let greek = RuleRegex::new(r"\p{Greek}+").unwrap();
    assert!(greek.0.unicode.get().is_some());
    assert_eq!(greek.count("αβ x γ"), 2);
}

#[test]
fn forms_cut_to_a_texts_characters_count_as_the_regex_crate() {
    let mut pieces = ASCII_PIECES.to_vec();
    // Letters, digits, spaces and symbols outside ASCII, and the ones case folding joins.
    pieces.extend(["é", "\u{a0}", "٣", "K", "ſ", "“", "İ", "ı", "—", "✓"]);
    let mixed = texts(&pieces, 200, 13);
    let (mut cut, mut whole) = (0, 0);
    for source in pack_sources() {
        let theirs = Regex::new(&source).unwrap();
        let mut ours = RuleRegex::new(&source).unwrap();
        for text in &mixed {
            if ours.0.unicode.get().is_some() {
                whole += 1;
                // Fresh, so that most texts meet the cut forms.
                ours = RuleRegex::new(&source).unwrap();
            }
            let want = theirs.find_iter(text).count();
            assert_eq!(ours.count(text), want, "{source} on {text:?}");
            assert_eq!(ours.is_match(text), want > 0, "{source} on {text:?}");
            assert!(ours.0.narrowed.len() <= narrow::NARROW_MAX);
            cut += usize::from(!text.is_ascii() && ours.0.unicode.get().is_none());
        }
    }
    assert!(cut > 1000 && whole > 10, "{cut} {whole}");
}

#[test]
fn a_cut_form_serves_every_text_of_its_characters() {
    let regex = RuleRegex::new(r"(?m)^\w+Error:").unwrap();
    assert_eq!(regex.count("ÉtatError: x\nÉtatError: y"), 2);
    assert_eq!(regex.count("ÉÉError: z"), 1);
    assert_eq!(regex.0.narrowed.len(), 1);
    assert!(regex.0.unicode.get().is_none());
    // A character outside the set: another form; past the limit, the Unicode regex.
    assert_eq!(regex.count("ÇaError: z"), 1);
    assert_eq!(regex.0.narrowed.len(), 2);
    for c in 'α'..='ω' {
        assert_eq!(regex.count(&format!("{c}Error: z —")), 1);
    }
    assert_eq!(regex.0.narrowed.len(), narrow::NARROW_MAX);
    assert!(regex.0.unicode.get().is_some());
    // A dash is no word character: cut or whole, the regex says so.
    assert_eq!(regex.count("—Error: z"), 0);
}
