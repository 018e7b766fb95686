//! Long Aider chat histories and Llama prompt logs generated from the samples, for the tests
//! of their line-by-line reads (tests/stream_text_logs.rs): each sample's turns repeated,
//! numbered, with what the readers treat apart mixed in (`/clear`, failed calls, quotes
//! longer than the look-ahead, multi-line output, `<|eom_id|>`, stray `<|begin_of_text|>`,
//! unknown roles), as `scripts/gen-big.py aider|llama` builds the 100 MB files.
//!
//! Include with `#[path = "support/text_logs.rs"] mod text_logs;`.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;

fn sample(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(rel);
    std::fs::read_to_string(path).unwrap()
}

/// One Aider session's turns, the sample's repeated `cycles` times (user lines numbered
/// `[tag.n]`), with extra turns in some cycles.
fn aider_turns(tag: usize, cycles: usize) -> String {
    let text = sample("aider/tinycalc__tinycalc-1.aider.chat.history.md");
    let at = text.find("\n#### ").unwrap();
    let body = &text[at..];
    let mut out = String::new();
    for n in 0..cycles {
        for line in body.split_inclusive('\n') {
            match line.strip_prefix("#### ") {
                Some(rest) if !rest.starts_with('/') => {
                    out.push_str(&format!("#### [{tag}.{n}] {rest}"));
                }
                _ => out.push_str(line),
            }
        }
        if n % 4 == 1 {
            out.push_str("\n#### /clear  \n\n");
        }
        if n % 5 == 2 {
            // A model call that failed: tokens spent, no reply.
            out.push_str(&format!(
                "\n#### [{tag}.{n}] try again  \n\n> Tokens: 1.2k sent, 0 received.  \n> litellm.APIError: overloaded  \n\n"
            ));
        }
        if n % 6 == 3 {
            // A reply quoting more lines than the look-ahead before Aider's own output
            // (unmarked first line, marked last line).
            out.push_str(&format!(
                "\n#### [{tag}.{n}] quote the log  \n\nHere it is:\n\n"
            ));
            for i in 0..100 {
                out.push_str(&format!("> log line {i}\n"));
            }
            out.push_str("done  \n\n> Tokens: 1.6k sent, 40 received.\nCost: $0.0030 message, $0.0081 session.  \n\n");
        }
    }
    out
}

/// An Aider chat history of `sessions` sessions of `cycles` cycles each, after a fragment
/// of a session whose start is not in the file when `fragment`, the last one interrupted.
pub fn long_aider(sessions: usize, cycles: usize, fragment: bool) -> String {
    let text = sample("aider/tinycalc__tinycalc-1.aider.chat.history.md");
    let at = text.find("\n#### ").unwrap();
    let banner = text[..at]
        .split_once("# aider chat started at")
        .map(|(_, rest)| rest.split_once('\n').unwrap().1)
        .unwrap();
    let mut out = String::new();
    if fragment {
        out.push_str(&aider_turns(0, 1));
    }
    for s in 1..=sessions {
        out.push_str(&format!(
            "\n# aider chat started at 2025-03-20 17:{:02}:{:02}\n",
            s / 60,
            s % 60
        ));
        out.push_str(banner);
        out.push_str(&aider_turns(s, cycles));
    }
    out.push_str("\n> ^C KeyboardInterrupt  \n");
    out
}

/// A Llama prompt log: the sample's turns from its first answer on repeated `cycles` times,
/// with `<|eom_id|>` endings, stray `<|begin_of_text|>`, user turns and unknown roles mixed
/// in, a long tool result now and then, and the header of the next answer at the end.
pub fn long_llama(cycles: usize) -> String {
    let text = sample("llama/tinycalc__tinycalc-1-prompt.txt");
    let at = text.find("<|start_header_id|>assistant").unwrap();
    let (head, body) = text.split_at(at);
    let mut out = head.to_string();
    for n in 0..cycles {
        let mut cycle = body.replace("ANALYSE:", &format!("ANALYSE: [{n}]"));
        if n % 3 == 1 {
            cycle = cycle.replacen(
                "<|eot_id|><|start_header_id|>assistant",
                "<|eom_id|><|start_header_id|>assistant",
                1,
            );
        }
        out.push_str(&cycle);
        if n % 4 == 2 {
            out.push_str("<|start_header_id|>user<|end_header_id|>\n\nContinue.<|eot_id|>");
        }
        if n % 5 == 3 {
            out.push_str("<|begin_of_text|>");
        }
        if n % 7 == 5 {
            out.push_str("<|start_header_id|>observer<|end_header_id|>\n\nnoted<|eot_id|>");
        }
        if n % 11 == 7 {
            out.push_str(&format!(
                "<|start_header_id|>tool<|end_header_id|>\n\n{}<|eot_id|>",
                "FAILED test_div\n".repeat(20_000)
            ));
        }
    }
    out.push_str("<|start_header_id|>assistant<|end_header_id|>\n\n");
    out
}
