"""Per-category error counts of sniffly's Claude Code error classification, for the parity
test of trajscope's `sniffly-claude-code-errors` pack (tests/rule_packs.rs).

Runs sniffly's own code, imported unchanged from a checkout of chiphuyen/sniffly (argument 1;
needs `pip install orjson`), on each FILE alone. sniffly reads a folder of *.jsonl: each file
is linked into a temporary folder by itself; a web-session export `{"loglines": [...]}` is
written there as JSON lines, one record per line. Two counts per category:

  records   sniffly's reader (`ClaudeLogProcessor._process_file`) extracts the messages, and
            sniffly's `StatisticsGenerator._analyze_errors` classifies those flagged `error`;
  pipeline  the same after sniffly's whole `process_logs` (deduplication and the regrouping
            into user-prompted interactions, which drops some messages: sub-agent records,
            results before the first prompt).

Only the error analysis of the statistics is computed: the rest parses timestamps that
trimmed fixtures do not have.

usage: python3 sniffly_error_categories.py CHECKOUT FILE...
"""
import json, os, sys, tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from sniffly.core.constants import ERROR_PATTERNS  # noqa: E402
from sniffly.core.processor import ClaudeLogProcessor  # noqa: E402
from sniffly.core.stats import StatisticsGenerator  # noqa: E402

StatisticsGenerator.generate_statistics = (
    lambda self, messages, tz=0: {"errors": self._analyze_errors(messages)}
)

records, pipeline = Counter(), Counter()
for name in sys.argv[2:]:
    path = Path(name)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / (path.stem + ".jsonl")
        if path.suffix == ".json":
            lines = json.loads(path.read_text()).get("loglines", [])
            target.write_text("".join(json.dumps(r) + "\n" for r in lines))
        else:
            os.symlink(path.resolve(), target)
        processor = ClaudeLogProcessor(tmp)
        raw = []
        processor._process_file(str(target), target.stem, raw)
        errors = StatisticsGenerator(tmp, processor.running_stats)._analyze_errors(
            [m for m in raw if m["error"]]
        )["by_category"]
        _messages, stats = ClaudeLogProcessor(tmp).process_logs()
    records.update(errors)
    pipeline.update(stats["errors"]["by_category"])
    print(f"# {path}: records {dict(errors)} pipeline {dict(stats['errors']['by_category'])}",
          file=sys.stderr)
print("category\trecords\tpipeline")
for category in list(ERROR_PATTERNS) + ["Other"]:
    print(f"{category}\t{records[category]}\t{pipeline[category]}")
