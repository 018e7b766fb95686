//! A generated trajectory dataset in Parquet, laid out as the Hugging Face Hub publishes
//! nebius/SWE-agent-trajectories (`data/train-0000K-of-0000N.parquet`, snappy, row groups of
//! 1,000 rows): for measuring how `trajscope ls`, `stats` and the app cope with 100,000
//! trajectories. The text is ours, made up from a fixed seed (the same bytes every run).
//!
//!   cargo run --release --example gen_parquet -- /tmp/hub100k [ROWS] [SHARDS]
//!
//! Defaults: 100,000 rows in 4 shards. Each row: 6 to 25 text-mode steps, about 1 in 5
//! observations a Python traceback, a verdict in `target`, a patch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/support/hub_parquet.rs"]
mod hub_parquet;

use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::{Value, json};
use std::path::PathBuf;

const GROUP_ROWS: usize = 1000;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const REPOS: &[&str] = &[
    "django__django",
    "sympy__sympy",
    "astropy__astropy",
    "pytest-dev__pytest",
];
const MODELS: &[&str] = &[
    "swe-agent-llama-70b",
    "swe-agent-qwen-72b",
    "gpt-4o-2024-08-06",
];
const COMMANDS: &[&str] = &[
    "find_file \"models.py\"",
    "open django/db/models/query.py 120",
    "search_dir \"def resolve\" src",
    "edit 42:44\n    return self.value\nend_of_edit",
    "python reproduce.py",
    "ls -la tests/",
];

fn row(rng: &mut Lcg, n: usize) -> Value {
    let repo = REPOS[rng.next(REPOS.len() as u64) as usize];
    let id = format!("{repo}-{}", 10_000 + n);
    let steps = 6 + rng.next(20) as usize;
    let mut turns = vec![
        json!({"role": "system", "system_prompt": "SETTING: You are an autonomous programmer working in a command line.", "mask": false}),
        json!({"role": "user", "text": format!("We're currently solving the following issue within our repository ({id}): calling resolve() on a lazy object returns the wrong value.\nINSTRUCTIONS: edit the code, then submit."), "mask": false}),
    ];
    for step in 0..steps {
        let command = if step + 1 == steps {
            "submit"
        } else {
            COMMANDS[rng.next(COMMANDS.len() as u64) as usize]
        };
        turns.push(json!({"role": "ai", "mask": true, "text": format!(
            "DISCUSSION\nStep {step}: the next thing to check is how the value is resolved; \
             I'll run a command to see the code around it.\n```\n{command}\n```")}));
        let observation = if rng.next(5) == 0 {
            "Traceback (most recent call last):\n  File \"reproduce.py\", line 3, in <module>\n    print(obj.resolve())\nAttributeError: 'Lazy' object has no attribute 'value'".to_string()
        } else {
            format!(
                "[File: src/module_{step}.py (240 lines total)]\n{}",
                "    def resolve(self):\n        return self._wrapped\n".repeat(4)
            )
        };
        turns.push(json!({"role": "user", "mask": false, "text": observation}));
    }
    let resolved = match rng.next(10) {
        0..=3 => json!(true),
        4..=8 => json!(false),
        _ => Value::Null,
    };
    json!({
        "instance_id": id,
        "model_name": MODELS[rng.next(MODELS.len() as u64) as usize],
        "target": resolved,
        "trajectory": turns,
        "exit_status": if rng.next(8) == 0 { "exit_cost" } else { "submitted" },
        "generated_patch": "diff --git a/src/lazy.py b/src/lazy.py\n--- a/src/lazy.py\n+++ b/src/lazy.py\n@@ -40,3 +40,3 @@\n-        return self._wrapped\n+        return self.value\n",
        "eval_logs": "",
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(
        args.first()
            .ok_or("usage: gen_parquet DIR [ROWS] [SHARDS]")?,
    );
    let rows: usize = args.get(1).map_or(Ok(100_000), |a| a.parse())?;
    let shards: usize = args.get(2).map_or(Ok(4), |a| a.parse())?;
    let data = out.join("data");
    std::fs::create_dir_all(&data)?;
    let schema = hub_parquet::swe_agent_schema();
    let mut rng = Lcg(23);
    let per_shard = rows.div_ceil(shards.max(1));
    let mut n = 0;
    for shard in 0..shards {
        let path = data.join(format!("train-{shard:05}-of-{shards:05}.parquet"));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(GROUP_ROWS))
            .build();
        let mut writer =
            ArrowWriter::try_new(std::fs::File::create(&path)?, schema.clone(), Some(props))?;
        let end = rows.min(n + per_shard);
        while n < end {
            let take = GROUP_ROWS.min(end - n);
            let batch: Vec<Value> = (n..n + take).map(|i| row(&mut rng, i)).collect();
            writer.write(&hub_parquet::batch(&schema, &batch))?;
            n += take;
        }
        writer.close()?;
        eprintln!(
            "{}: {} bytes",
            path.display(),
            std::fs::metadata(&path)?.len()
        );
    }
    eprintln!("{rows} rows in {shards} shard(s) under {}", data.display());
    Ok(())
}
