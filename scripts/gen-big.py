#!/usr/bin/env python3
"""Builds big runs and big trajectories for the scale benchmarks, from the shapes of the real
files in ../shared/corpus, so that the benchmarks are reproducible without storing gigabytes.

  scripts/gen-big.py trajectory OUT.traj [--mb 200]   one SWE-agent trajectory of ~N MB
  scripts/gen-big.py claude-code OUT.jsonl [--mb 200]  one Claude Code session of ~N MB
  scripts/gen-big.py openhands OUT.json [--mb 200]     one OpenHands event list of ~N MB
  scripts/gen-big.py mini-swe-agent OUT.traj.json [--mb 200]  one mini-swe-agent trajectory
  scripts/gen-big.py codex OUT.jsonl [--mb 200]        a Codex rollout (the sample's lines
                                                       repeated; likewise droid, hf-trace, chat,
                                                       kimi-cli, copilot-cli, cursor)
  scripts/gen-big.py gemini-cli OUT.json [--mb 200]    a Gemini CLI session document (fresh ids)
  scripts/gen-big.py inspect-ai OUT.json [--mb 200]    a JSON document whose step list is the
                                                       sample's repeated
  scripts/gen-big.py inspect-ai OUT.json --samples N    an eval log of N samples of ~MB/N each
                                                       (the shape of a big eval: hundreds of
                                                       samples of a few MB)
  scripts/gen-big.py aider OUT.aider.chat.history.md    a text log, the sample's turns repeated
                                                       (likewise llama, OUT-prompt.txt)
  scripts/gen-big.py otel-genai OUT.jsonl [--mb 200]   OTLP export requests, one per line, of
                                                       traces interleaved (OUT.json: one document)
  scripts/gen-big.py run OUT_DIR [--count 5000]        a run of N trajectories (~0.4 MB each)

The Claude Code and OpenHands files are built from the bundled samples (sample-trajectories/,
no corpus needed) and written as they are generated, so that a 1 GB file costs the generator
little memory.

Deterministic (seeded): the same arguments give the same bytes. Real steps are taken from
the CodeR SWE-bench Lite run and the mini-swe-agent run, with instance ids, step order and
lengths varied; some observations are inflated to several MB, as real test logs are."""
import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))


def corpus_files(sub, suffix):
    root = os.path.join(CORPUS, sub)
    out = []
    for dirpath, _, names in os.walk(root):
        out += [os.path.join(dirpath, n) for n in names if n.endswith(suffix)]
    if not out:
        sys.exit(f"no {suffix} files under {root}: the corpus is needed")
    return sorted(out)


def swe_steps(rng, files):
    """Real (step, history pair) shapes from SWE-agent/CodeR trajectories."""
    steps = []
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        steps += [s for s in doc.get("trajectory", []) if isinstance(s, dict)]
    rng.shuffle(steps)
    return steps


def big_trajectory(out, mb, seed):
    rng = random.Random(seed)
    files = corpus_files("coder-swebench-lite/trajs", ".traj")
    pool = swe_steps(rng, files[:40])
    with open(files[0]) as f:
        template = json.load(f)
    target = mb * 1024 * 1024
    size = 0
    trajectory, history = [], list(template["history"][:2])
    i = 0
    while size < target:
        step = dict(pool[i % len(pool)])
        step["thought"] = f"[{i}] " + step.get("thought", "")
        if i % 997 == 500:
            # A test log of a few MB, as pytest -v on a big project prints.
            line = "tests/test_module.py::test_case_%06d PASSED\n"
            step["observation"] = "".join(line % k for k in range(rng.randint(60_000, 120_000)))
        trajectory.append(step)
        history.append({"role": "assistant", "content": step.get("response", ""),
                        "thought": step.get("thought", ""), "action": step.get("action", ""),
                        "agent": "primary"})
        history.append({"role": "user", "content": step.get("observation", ""), "agent": "primary"})
        size += 2 * (len(step.get("observation", "")) + len(step.get("response", ""))) + 200
        i += 1
    doc = {"environment": "swe_main", "trajectory": trajectory, "history": history,
           "info": {"exit_status": "submitted", "submission": template["info"].get("submission", ""),
                    "model_stats": {"instance_cost": 12.5, "tokens_sent": 9_000_000,
                                    "tokens_received": 200_000, "api_calls": len(trajectory)}}}
    with open(out, "w") as f:
        json.dump(doc, f)
    print(f"{out}: {len(trajectory)} steps, {os.path.getsize(out) / 1e6:.0f} MB")


SAMPLES = os.path.normpath(os.path.join(HERE, "..", "sample-trajectories"))


def test_log(rng):
    """A pytest -v log of a few MB, as real test runs print."""
    line = "tests/test_module.py::test_case_%06d PASSED\n"
    return "".join(line % k for k in range(rng.randint(60_000, 120_000)))


def big_claude_code(out, mb, seed):
    """The sample session's turns repeated with fresh uuids, every 500th tool result a test
    log of a few MB; one JSON object per line, as Claude Code appends them."""
    rng = random.Random(seed)
    with open(os.path.join(SAMPLES, "claude-code", "tinycalc__tinycalc-1.jsonl")) as f:
        records = [json.loads(line) for line in f if line.strip()]
    head = [r for r in records if r.get("type") == "summary"] + records[1:2]
    turns = [r for r in records[2:] if r.get("type") in ("assistant", "user")]
    target = mb * 1024 * 1024
    size = 0
    n = 0
    with open(out, "w") as f:
        for r in head:
            size += f.write(json.dumps(r) + "\n")
        parent = head[-1].get("uuid")
        while size < target:
            for r in turns:
                r = json.loads(json.dumps(r))
                r["uuid"] = f"00000000-0000-4000-8000-{n:012d}"
                r["parentUuid"] = parent
                parent = r["uuid"]
                content = r.get("message", {}).get("content")
                if isinstance(content, list):
                    for block in content:
                        if block.get("type") == "tool_use":
                            block["id"] = f"toolu_{n:012d}"
                        elif block.get("type") == "tool_result":
                            block["tool_use_id"] = f"toolu_{n - 1:012d}"
                            if n % 500 == 250:
                                block["content"] = test_log(rng)
                        elif block.get("type") == "text":
                            block["text"] = f"[{n}] " + block["text"]
                size += f.write(json.dumps(r) + "\n")
                n += 1
                if size >= target:
                    break
    print(f"{out}: {n} records, {os.path.getsize(out) / 1e6:.0f} MB")


def big_openhands(out, mb, seed):
    """The sample session's events after the first two repeated with fresh ids and causes,
    every 500th observation a test log of a few MB; one JSON array, as OpenHands saves it."""
    rng = random.Random(seed)
    with open(os.path.join(SAMPLES, "openhands", "tinycalc__tinycalc-1.json")) as f:
        events = json.load(f)
    head, body = events[:2], events[2:]
    target = mb * 1024 * 1024
    size = 0
    n = 0
    with open(out, "w") as f:
        f.write("[")
        for e in head:
            size += f.write(json.dumps(e) + ",\n")
            n += 1
        first = True
        while size < target:
            base = n
            for e in body:
                e = json.loads(json.dumps(e))
                e["id"] = base + (e["id"] - 2)
                if "cause" in e:
                    e["cause"] = base + (e["cause"] - 2)
                if "observation" in e and n % 500 == 251:
                    e["content"] = test_log(rng)
                size += f.write(("" if first else ",\n") + json.dumps(e))
                first = False
                n += 1
            if size >= target:
                break
        f.write("]\n")
    print(f"{out}: {n} events, {os.path.getsize(out) / 1e6:.0f} MB")


def big_mini_swe_agent(out, mb, seed):
    """The v2 sample's turns repeated, texts numbered, every 500th observation a test log of
    a few MB; pretty-printed (indent 2) with `info` first and `trajectory_format` and
    `instance_id` after the messages, as mini-swe-agent saves it."""
    rng = random.Random(seed)
    with open(os.path.join(SAMPLES, "mini-swe-agent-v2", "tinycalc__tinycalc-2",
                           "tinycalc__tinycalc-2.traj.json")) as f:
        doc = json.load(f)
    messages = doc["messages"]
    head, turns, exit_message = messages[:2], messages[2:-1], messages[-1]

    def item(m):
        return "\n".join("    " + line for line in json.dumps(m, indent=2).split("\n"))

    target = mb * 1024 * 1024
    n = 0
    with open(out, "w") as f:
        info = json.dumps(doc["info"], indent=2).replace("\n", "\n  ")
        size = f.write('{\n  "info": ' + info + ',\n  "messages": [\n')
        size += f.write(",\n".join(item(m) for m in head))
        while size < target:
            for m in turns:
                m = json.loads(json.dumps(m))
                if isinstance(m.get("content"), str):
                    if m["role"] != "assistant" and n % 500 == 250:
                        m["content"] = "<returncode>1</returncode>\n" + test_log(rng)
                    m["content"] = f"#{n} " + m["content"]
                size += f.write(",\n" + item(m))
                n += 1
        f.write(",\n" + item(exit_message) + "\n  ],\n")
        f.write('  "trajectory_format": ' + json.dumps(doc["trajectory_format"]) + ",\n")
        f.write('  "instance_id": ' + json.dumps(doc["instance_id"]) + "\n}\n")
    print(f"{out}: {n + 3} messages, {os.path.getsize(out) / 1e6:.0f} MB")


# JSON Lines samples repeated whole, their first lines (the session's header) once.
LINE_SAMPLES = {
    "codex": ("codex/tinycalc__tinycalc-1.jsonl", 1),
    "droid": ("droid/tinycalc__tinycalc-1.jsonl", 1),
    "hf-trace": ("hf-trace/tinycalc__tinycalc-1.jsonl", 0),
    "chat": ("chat/tinycalc__tinycalc-1.jsonl", 0),
    "kimi-cli": (
        "kimi-cli/wd_tinycalc_0a1b2c3d4e5f/session_29214e84-27cb-5c6a-a869-2488cde5b6e1/"
        "agents/main/wire.jsonl",
        2,
    ),
    "copilot-cli": (
        "copilot-cli/session-state/65fa6fd1-3d5d-572e-bc4b-25eb62674233/events.jsonl",
        1,
    ),
    "cursor": ("cursor/agent-transcripts/8399813c-8e99-56b7-b2b4-ae7570985cb1.jsonl", 0),
}

# JSON documents whose steps sit in one list (found by its key path): the items after the
# first `keep` repeated, the rest of the document as it is.
DOC_SAMPLES = {
    "inspect-ai": (
        "inspect-ai/2025-03-17T10-00-00+00-00_tinycalc-swe_86KhjPLUTNeBL35abgajcV.json",
        ("samples", 0, "messages"),
        2,
    ),
}

# Text logs: everything from the first `marker` on repeated, what comes before it once.
TEXT_SAMPLES = {
    "aider": ("aider/tinycalc__tinycalc-1.aider.chat.history.md", "\n#### "),
    "llama": ("llama/tinycalc__tinycalc-1-prompt.txt", "<|start_header_id|>assistant"),
}


def big_lines(kind, out, mb):
    """A JSON Lines log of a format without a generator of its own: the bundled sample's
    lines after its header repeated until the file is ~N MB (ids repeat: what is measured
    is the reading, not what the steps say)."""
    rel, keep = LINE_SAMPLES[kind]
    with open(os.path.join(SAMPLES, rel)) as f:
        lines = [line.rstrip("\n") + "\n" for line in f if line.strip()]
    head, body = lines[:keep], lines[keep:]
    target = mb * 1024 * 1024
    n = 0
    with open(out, "w") as f:
        size = sum(f.write(line) for line in head)
        while size < target:
            for line in body:
                size += f.write(line)
                n += 1
    print(f"{out}: {n + len(head)} lines, {os.path.getsize(out) / 1e6:.0f} MB")


def big_gemini_cli(out, mb):
    """A Gemini CLI session document: the sample's messages repeated with fresh ids,
    pretty-printed (indent 2) with the session's fields first, as gemini-cli saves it."""
    with open(os.path.join(SAMPLES, "gemini-cli", "session-2026-01-05T08-00-6ce1f3e4.json")) as f:
        doc = json.load(f)
    messages = doc.pop("messages")

    def item(m):
        return "\n".join("    " + line for line in json.dumps(m, indent=2).split("\n"))

    target = mb * 1024 * 1024
    n = 0
    with open(out, "w") as f:
        head = json.dumps(doc, indent=2)[:-2]
        size = f.write(head + ',\n  "messages": [\n')
        first = True
        while size < target:
            for m in messages:
                m = json.loads(json.dumps(m))
                m["id"] = f"{m['id']}-{n}"
                for call in m.get("toolCalls", []):
                    call["id"] = f"{call['id']}-{n}"
                size += f.write(("" if first else ",\n") + item(m))
                first = False
            n += 1
        f.write("\n  ]\n}\n")
    print(f"{out}: {n * len(messages)} messages, {os.path.getsize(out) / 1e6:.0f} MB")


def big_doc(kind, out, mb):
    """A JSON document of a format without a generator of its own: the items of its step
    list repeated until the file is ~N MB, written as they go."""
    rel, keys, keep = DOC_SAMPLES[kind]
    with open(os.path.join(SAMPLES, rel)) as f:
        doc = json.load(f)
    parent = doc
    for key in keys[:-1]:
        parent = parent[key]
    items = parent[keys[-1]]
    head, body = items[:keep], items[keep:]
    parent[keys[-1]] = "@@ITEMS@@"
    before, after = json.dumps(doc).split('"@@ITEMS@@"')
    target = mb * 1024 * 1024
    n = 0
    with open(out, "w") as f:
        size = f.write(before + "[" + ", ".join(json.dumps(i) for i in head))
        while size < target:
            for item in body:
                size += f.write(", " + json.dumps(item))
                n += 1
        f.write("]" + after + "\n")
    print(f"{out}: {n + len(head)} items, {os.path.getsize(out) / 1e6:.0f} MB")


def big_inspect_samples(out, mb, count, seed):
    """An Inspect eval log of `count` samples of ~mb/count MB each, written as they are made:
    the bundled log's two samples taken in turn, each under a fresh id, its turns (the
    messages after the task) repeated under fresh message ids until it is big enough, every
    tenth tool output a test log of ~16 to 160 KB; one sample in five fails its score, one
    in seven has a second epoch. The events are the template's (the answers past them get
    contexts rebuilt from the messages, as in logs without model events)."""
    rng = random.Random(seed)
    rel = DOC_SAMPLES["inspect-ai"][0]
    with open(os.path.join(SAMPLES, rel)) as f:
        doc = json.load(f)
    templates = doc["samples"]
    doc["samples"] = "@@ITEMS@@"
    before, after = json.dumps(doc).split('"@@ITEMS@@"')
    per_sample = max(1, mb * 1024 * 1024 // max(1, count))
    log_line = "tests/test_evaluator.py::EvaluatorTest::test_case PASSED [ 42%]\n"
    steps = 0
    previous = None
    with open(out, "w") as f:
        f.write(before + "[")
        for i in range(count):
            sample = json.loads(json.dumps(templates[i % len(templates)]))
            base = sample["id"]
            # One in seven is the previous sample's second epoch.
            second = i % 7 == 6
            sample["id"] = previous if second else f"{base}-{i:05d}"
            previous = sample["id"]
            sample["uuid"] = f"u{i:08d}"
            sample["epoch"] = 2 if second else 1
            for score in (sample.get("scores") or {}).values():
                score["value"] = 0.0 if i % 5 == 4 else 1.0
            head, turns = sample["messages"][:2], sample["messages"][2:]
            messages = list(head)
            size = len(json.dumps(sample))
            k = 0
            while size < per_sample:
                for m in turns:
                    m = dict(m)
                    m["id"] = f"{m.get('id', 'm')}-{i}-{k}"
                    k += 1
                    if m.get("role") == "tool" and k % 10 == 0:
                        m["content"] = f"run {k}\n" + log_line * rng.randint(250, 2500)
                    size += len(json.dumps(m)) + 2
                    messages.append(m)
            sample["messages"] = messages
            steps += sum(1 for m in messages if m.get("role") == "assistant")
            f.write((", " if i else "") + json.dumps(sample))
        f.write("]" + after + "\n")
    print(f"{out}: {count} samples, {steps} answers, {os.path.getsize(out) / 1e6:.0f} MB")


def big_text(kind, out, mb):
    """A text log: the sample's turns from the first marker on repeated until ~N MB."""
    rel, marker = TEXT_SAMPLES[kind]
    with open(os.path.join(SAMPLES, rel)) as f:
        text = f.read()
    at = text.index(marker)
    head, body = text[:at], text[at:]
    target = mb * 1024 * 1024
    n = 0
    with open(out, "w") as f:
        size = f.write(head)
        while size < target:
            size += f.write(body)
            n += 1
    print(f"{out}: the turns {n} times, {os.path.getsize(out) / 1e6:.0f} MB")


def big_otel(out, mb, seed, concurrent=8, batch=40):
    """OTLP JSON of the sample's trace repeated under fresh trace, span and call ids, with
    `concurrent` traces running at once: each export request (one per line, as the
    collector's file exporter writes them; one document when OUT ends in .json) holds the
    next `batch` spans to end, of several traces, in the order they end."""
    rng = random.Random(seed)
    with open(os.path.join(SAMPLES, "otel-genai", "tinycalc__tinycalc-1.json")) as f:
        doc = json.load(f)
    resource = doc["resourceSpans"][0]
    scope = resource["scopeSpans"][0]
    template = json.dumps(scope["spans"])
    old_trace = scope["spans"][0]["traceId"]
    calls = sorted({m for m in re.findall(r'call_[A-Za-z0-9]+', template)})
    t0 = min(int(s["startTimeUnixNano"]) for s in scope["spans"])
    as_lines = not out.endswith(".json")
    target = mb * 1024 * 1024
    size = 0
    running = []
    n = 0

    def fresh(n):
        text = template.replace(old_trace, f"{n:032x}")
        for k, call in enumerate(calls):
            text = text.replace(call, f"call_{n:08d}_{k}")
        spans = json.loads(text)
        shift = n * 7_000_000_000 + rng.randrange(1_000_000_000)
        for s in spans:
            s["spanId"] = f"{n:08x}{rng.getrandbits(32):08x}"
            s["startTimeUnixNano"] = str(int(s["startTimeUnixNano"]) - t0 + shift)
            s["endTimeUnixNano"] = str(int(s["endTimeUnixNano"]) - t0 + shift)
        spans.sort(key=lambda s: int(s["endTimeUnixNano"]))
        return spans

    def request(spans):
        return json.dumps({"resourceSpans": [{"resource": resource["resource"], "scopeSpans": [
            {"scope": scope["scope"], "spans": spans}]}]})

    with open(out, "w") as f:
        if not as_lines:
            f.write('{"resourceSpans": [')
        first = True
        while size < target or running:
            while size < target and len(running) < concurrent:
                running.append(fresh(n))
                n += 1
            spans = []
            while len(spans) < batch and running:
                trace = running[rng.randrange(len(running))]
                spans.append(trace.pop(0))
                if not trace:
                    running.remove(trace)
            if as_lines:
                size += f.write(request(spans) + "\n")
            else:
                block = json.loads(request(spans))["resourceSpans"][0]
                size += f.write(("" if first else ",\n") + json.dumps(block))
            first = False
        if not as_lines:
            f.write("]}\n")
    print(f"{out}: {n} traces, {os.path.getsize(out) / 1e6:.0f} MB")


def big_run(out, count, seed):
    rng = random.Random(seed)
    swe = corpus_files("coder-swebench-lite/trajs", ".traj")
    mini = corpus_files("mini-swe-agent/gpt-5-mini-swebench-verified-run", ".traj.json")
    os.makedirs(out, exist_ok=True)
    docs = []
    for path in swe + mini:
        with open(path) as f:
            docs.append((path.endswith(".traj.json"), json.load(f)))
    resolved, applied = [], []
    total = 0
    for n in range(count):
        is_mini, doc = docs[rng.randrange(len(docs))]
        doc = json.loads(json.dumps(doc))
        instance = f"gen__repo-{n:05d}"
        if is_mini:
            doc["instance_id"] = instance
            msgs = doc["messages"]
            keep = max(4, int(len(msgs) * rng.uniform(0.5, 1.0)))
            doc["messages"] = msgs[:keep] + msgs[-1:]
            name = f"{instance}.traj.json"
        else:
            traj = doc["trajectory"]
            keep = max(2, int(len(traj) * rng.uniform(0.5, 1.0)))
            doc["trajectory"] = traj[:keep]
            name = f"{instance}.traj"
        path = os.path.join(out, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        total += os.path.getsize(path)
        applied.append(instance)
        if rng.random() < 0.3:
            resolved.append(instance)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"applied": applied, "resolved": resolved}, f)
    print(f"{out}: {count} trajectories, {total / 1e9:.2f} GB, {len(resolved)} resolved")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    t = sub.add_parser("trajectory")
    t.add_argument("out")
    t.add_argument("--mb", type=int, default=200)
    for name in ("claude-code", "openhands", "mini-swe-agent", "gemini-cli", "otel-genai", *LINE_SAMPLES,
                 *DOC_SAMPLES, *TEXT_SAMPLES):
        c = sub.add_parser(name)
        c.add_argument("out")
        c.add_argument("--mb", type=int, default=200)
    sub.choices["inspect-ai"].add_argument(
        "--samples", type=int, default=0,
        help="an eval log of this many samples (each ~MB/N), not one sample of ~MB")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--count", type=int, default=5000)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    if a.what == "trajectory":
        big_trajectory(a.out, a.mb, a.seed)
    elif a.what == "claude-code":
        big_claude_code(a.out, a.mb, a.seed)
    elif a.what == "openhands":
        big_openhands(a.out, a.mb, a.seed)
    elif a.what == "mini-swe-agent":
        big_mini_swe_agent(a.out, a.mb, a.seed)
    elif a.what == "gemini-cli":
        big_gemini_cli(a.out, a.mb)
    elif a.what == "otel-genai":
        big_otel(a.out, a.mb, a.seed)
    elif a.what in LINE_SAMPLES:
        big_lines(a.what, a.out, a.mb)
    elif a.what == "inspect-ai" and a.samples > 0:
        big_inspect_samples(a.out, a.mb, a.samples, a.seed)
    elif a.what in DOC_SAMPLES:
        big_doc(a.what, a.out, a.mb)
    elif a.what in TEXT_SAMPLES:
        big_text(a.what, a.out, a.mb)
    else:
        big_run(a.out, a.count, a.seed)


if __name__ == "__main__":
    main()
