#!/usr/bin/env python3
"""Sum a Codex CLI session's token usage the way ccusage (apps/codex, data-loader.ts) sums it,
written independently of trajscope's reader so that tests/codex_ccusage.rs can compare the two.

    scripts/ccusage-codex-sum.py FILE...     one JSON object per file, a line each:
        {"path": FILE, "events": N, "tokens_in": …, "tokens_cached": …, "tokens_out": …,
         "tokens_reasoning": …}

ccusage's rules, as its loader applies them (read at ryoppippi/ccusage, 2026):
- only `event_msg` records whose payload has `type: token_count` and whose record has a
  `timestamp` count; lines that are not JSON objects are skipped;
- an event's usage is `info.last_token_usage`; without it, what `info.total_token_usage` grew by
  since the previous event's running total (each counter floored at 0);
- `cached_input_tokens` (or `cache_read_input_tokens`) is capped at that event's input;
- an event whose four counters are all 0 is dropped;
- input is the log's `input_tokens` (cached included), output the log's `output_tokens`
  (reasoning included); reasoning is summed for display only.
A file with no counted event has null totals (ccusage lists no usage for it).
"""

import json
import sys

COUNTERS = ("input", "cached", "output", "reasoning")


def number(value):
    # ccusage treats anything but a finite number as 0.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if value != value or value in (float("inf"), float("-inf")):
        return 0
    return value


def counters(usage):
    if not isinstance(usage, dict):
        return None
    cached = usage.get("cached_input_tokens")
    if cached is None:
        cached = usage.get("cache_read_input_tokens")
    return {
        "input": number(usage.get("input_tokens")),
        "cached": number(cached),
        "output": number(usage.get("output_tokens")),
        "reasoning": number(usage.get("reasoning_output_tokens")),
    }


def grown(now, before):
    return {k: max(now[k] - (before[k] if before else 0), 0) for k in COUNTERS}


def session_sum(path):
    totals = dict.fromkeys(COUNTERS, 0)
    events = 0
    previous_total = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("type"), str):
                continue
            if record["type"] != "event_msg":
                continue
            payload = record.get("payload")
            if not isinstance(payload, dict) or payload.get("type") != "token_count":
                continue
            if not isinstance(record.get("timestamp"), str):
                continue
            info = payload.get("info")
            info = info if isinstance(info, dict) else {}
            last = counters(info.get("last_token_usage"))
            running = counters(info.get("total_token_usage"))
            usage = last
            if usage is None and running is not None:
                usage = grown(running, previous_total)
            if running is not None:
                previous_total = running
            if usage is None:
                continue
            usage["cached"] = min(usage["cached"], usage["input"])
            if not any(usage[k] for k in COUNTERS):
                continue
            events += 1
            for k in COUNTERS:
                totals[k] += usage[k]
    out = {"path": path, "events": events}
    for k, key in zip(COUNTERS, ("tokens_in", "tokens_cached", "tokens_out", "tokens_reasoning")):
        out[key] = int(totals[k]) if events else None
    return out


def main(paths):
    for path in paths:
        print(json.dumps(session_sum(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
