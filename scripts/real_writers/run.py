#!/usr/bin/env python3
"""Run the newest mini-swe-agent, Inspect AI and Aider against a small local model, and write
what each log records (model calls, tokens, exit) to OUT/manifest.json.

Called by scripts/real-writers.sh, which installs each writer in its own virtual environment
under CACHE. The figures in the manifest come from each log read with the writer's own
conventions (Inspect's own log reader, mini-swe-agent's `extra.response.usage`, Aider's
`Tokens:` lines), never from trajscope: tests/real_writers.rs compares trajscope with them.
A writer that fails to run is recorded with its error, so that the test names it.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

TASK = "The function add in calc.py subtracts instead of adding. Fix it."
CALC = "def add(a, b):\n    return a - b\n"
TIMEOUT = 900
# Every writer's replies are capped at this many tokens: enough for a command or an edit, and
# short enough that a rambling small model costs CI seconds, not minutes.
MAX_TOKENS = 128
# litellm (under mini-swe-agent and Aider) fetches a price list from the web unless told not to.
OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def scratch_repo(path):
    """A one-file git repository with the bug the task describes."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    with open(os.path.join(path, "calc.py"), "w") as f:
        f.write(CALC)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "init"]):
        subprocess.run(command, cwd=path, env=env, check=True)
    return path


def version(cache, package):
    python = os.path.join(cache, f"venv-{package}", "bin", "python")
    out = subprocess.run([python, "-m", "pip", "show", package], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("Version: "):
            return line.split(": ", 1)[1]
    return "unknown"


def latest_release(package):
    """The newest release on PyPI, to name what failed to install (pip's own index query)."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package],
                         capture_output=True, text=True)
    match = re.match(r"\S+ \(([^)]+)\)", out.stdout)
    return match.group(1) if match else "latest"


def run(command, cwd, env, log_path):
    """Runs a writer; its console output goes to `log_path`. Returns the exit code."""
    with open(log_path, "w") as log:
        try:
            done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=subprocess.STDOUT, timeout=TIMEOUT)
            return done.returncode
        except subprocess.TimeoutExpired:
            log.write(f"\n(timed out after {TIMEOUT} s)\n")
            return -1


# mini-swe-agent ------------------------------------------------------------------------------

def mini_expected(path):
    """Model calls, tokens and exit as the trajectory records them: every assistant message
    and every format error carries its response's usage in `extra.response.usage`."""
    with open(path) as f:
        traj = json.load(f)
    calls = tokens_in = tokens_out = 0
    for message in traj.get("messages", []):
        extra = message.get("extra") or {}
        response = extra.get("response")
        if message.get("role") == "assistant" or isinstance(response, dict):
            calls += 1
            usage = (response or {}).get("usage") or {}
            tokens_in += usage.get("prompt_tokens") or 0
            tokens_out += usage.get("completion_tokens") or 0
    info = traj.get("info", {})
    return {"model_calls": calls, "tokens_in": tokens_in, "tokens_out": tokens_out,
            "exit": info.get("exit_status")}


# The runs of each writer, by config; tests/real_writers.rs expects all six.
CONFIGS = {
    "mini-swe-agent": ["mini.yaml", "mini_textbased.yaml"],
    "inspect-ai": ["--log-format eval", "--log-format json"],
    "aider-chat": ["--edit-format diff", "--edit-format whole"],
}


def mini(cache, url, out, repo):
    bin_dir = os.path.join(cache, "venv-mini-swe-agent", "bin")
    env = {**os.environ, **OFFLINE, "MSWEA_CONFIGURED": "1", "MSWEA_COST_TRACKING": "ignore_errors",
           "OPENAI_API_KEY": "sk-local", "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    runs = []
    for config in CONFIGS["mini-swe-agent"]:
        name = "mini-" + config.removesuffix(".yaml").replace("_", "-")
        traj = os.path.join(out, f"{name}.traj.json")
        code = run([os.path.join(bin_dir, "mini"), "-m", "openai/smollm2", "-t", TASK, "-y",
                    "--exit-immediately", "-l", "0", "--agent-class", "default",
                    "-c", config, "-c", "agent.step_limit=4",
                    "-c", f"model.model_kwargs.api_base={url}/v1",
                    "-c", "model.model_kwargs.temperature=0",
                    "-c", f"model.model_kwargs.max_tokens={MAX_TOKENS}",
                    "-c", f"environment.cwd={repo}", "-o", traj],
                   repo, env, os.path.join(out, f"{name}.console.txt"))
        entry = {"writer": "mini-swe-agent", "config": config, "files": [traj], "code": code}
        if os.path.exists(traj):
            entry["expected"] = [mini_expected(traj)]
        runs.append(entry)
    return runs


# Inspect AI ----------------------------------------------------------------------------------

INSPECT_TASK = textwrap.dedent('''
    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import includes
    from inspect_ai.solver import basic_agent
    from inspect_ai.tool import bash


    @task
    def fix_add():
        return Task(
            dataset=[Sample(input=TASK, target="a + b")],
            solver=basic_agent(tools=[bash(timeout=30)], max_attempts=1, message_limit=8),
            scorer=includes(),
            sandbox="local",
        )
''').replace("TASK", repr(TASK))

INSPECT_FIGURES = textwrap.dedent('''
    import json, sys
    from inspect_ai.log import read_eval_log
    log = read_eval_log(sys.argv[1])
    out = []
    for sample in log.samples or []:
        calls = [e for e in sample.events if e.event == "model"]
        usage = sample.model_usage or {}
        if sample.error is not None:
            exit = "error"
        elif sample.limit is not None:
            exit = f"{sample.limit.type}_limit"
        elif sample.output is not None or sample.scores:
            exit = "completed"
        else:
            exit = None
        out.append({
            "model_calls": len(calls),
            "tokens_in": sum(u.input_tokens for u in usage.values()),
            "tokens_out": sum(u.output_tokens for u in usage.values()),
            "exit": exit,
        })
    print(json.dumps(out))
''')


def inspect(cache, url, out, repo):
    bin_dir = os.path.join(cache, "venv-inspect-ai", "bin")
    # `openai-api/<name>/…` is Inspect's provider for OpenAI-compatible servers (LOCAL_BASE_URL,
    # LOCAL_API_KEY): its `openai/` provider takes any model for OpenAI's own and sends what
    # gpt-5 needs (the Responses API, a `developer` role), which the local server refuses.
    env = {**os.environ, "LOCAL_API_KEY": "sk-local", "LOCAL_BASE_URL": f"{url}/v1",
           "INSPECT_LOG_LEVEL": "warning", "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    # Inside the repository, named relative to it: Inspect globs the task's path, and Python
    # 3.11's glob refuses an absolute pattern ("Non-relative patterns are unsupported").
    task_file = "inspect_task.py"
    with open(os.path.join(repo, task_file), "w") as f:
        f.write(INSPECT_TASK)
    runs = []
    for fmt in (c.removeprefix("--log-format ") for c in CONFIGS["inspect-ai"]):
        log_dir = os.path.join(out, f"inspect-{fmt}")
        shutil.rmtree(log_dir, ignore_errors=True)
        code = run([os.path.join(bin_dir, "inspect"), "eval", task_file, "--model", "openai-api/local/smollm2",
                    "--log-dir", log_dir, "--log-format", fmt,
                    "--display", "plain", "--temperature", "0", "--max-tokens", str(MAX_TOKENS)],
                   repo, env, os.path.join(out, f"inspect-{fmt}.console.txt"))
        files = sorted(os.path.join(log_dir, n) for n in os.listdir(log_dir)) if os.path.isdir(log_dir) else []
        files = [p for p in files if p.endswith("." + fmt)]
        entry = {"writer": "inspect-ai", "config": f"--log-format {fmt}", "files": files, "code": code}
        if len(files) == 1:
            figures = subprocess.run([os.path.join(bin_dir, "python"), "-c", INSPECT_FIGURES, files[0]],
                                     capture_output=True, text=True)
            if figures.returncode == 0:
                entry["expected"] = json.loads(figures.stdout)
            else:
                entry["error"] = figures.stderr[-2000:]
        runs.append(entry)
    return runs


# Aider ---------------------------------------------------------------------------------------

TOKENS = re.compile(r"^> Tokens: ([\d.,]+)(k?) sent, ([\d.,]+)(k?) received", re.M)


def count(number, k):
    value = float(number.replace(",", ""))
    return round(value * 1000) if k else round(value)


def aider_expected(chat_history, llm_history):
    with open(chat_history) as f:
        chat = f.read()
    tokens_in = tokens_out = 0
    for m in TOKENS.finditer(chat):
        tokens_in += count(m.group(1), m.group(2))
        tokens_out += count(m.group(3), m.group(4))
    calls = 0
    if os.path.exists(llm_history):
        with open(llm_history) as f:
            calls = sum(1 for line in f if line.startswith("LLM RESPONSE "))
    return {"model_calls": calls, "tokens_in": tokens_in, "tokens_out": tokens_out, "exit": None}


def aider(cache, url, out, repo):
    bin_dir = os.path.join(cache, "venv-aider-chat", "bin")
    env = {**os.environ, **OFFLINE, "OPENAI_API_KEY": "sk-local", "AIDER_ANALYTICS": "false",
           "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    # Aider sets no output limit of its own: without one, the small model may ramble until the
    # context is full (an hour on a loaded machine). The same cap and temperature as the others.
    settings = os.path.join(out, "aider-model-settings.yml")
    with open(settings, "w") as f:
        f.write(f"- name: aider/extra_params\n  extra_params:\n    max_tokens: {MAX_TOKENS}\n    temperature: 0\n")
    runs = []
    for edit_format in (c.removeprefix("--edit-format ") for c in CONFIGS["aider-chat"]):
        folder = os.path.join(out, f"aider-{edit_format}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        chat = os.path.join(folder, ".aider.chat.history.md")
        llm = os.path.join(folder, ".aider.llm.history")
        code = run([os.path.join(bin_dir, "aider"), "--model", "openai/smollm2",
                    "--openai-api-base", f"{url}/v1", "--edit-format", edit_format,
                    "--model-settings-file", settings,
                    "--yes-always", "--no-auto-commits", "--no-check-update", "--analytics-disable",
                    "--no-show-model-warnings", "--no-pretty", "--no-stream", "--map-tokens", "0",
                    "--chat-history-file", chat, "--llm-history-file", llm,
                    "--input-history-file", os.path.join(folder, ".aider.input.history"),
                    "--message", TASK, "calc.py"],
                   repo, env, os.path.join(out, f"aider-{edit_format}.console.txt"))
        entry = {"writer": "aider-chat", "config": f"--edit-format {edit_format}", "files": [chat], "code": code}
        if os.path.exists(chat):
            entry["expected"] = [aider_expected(chat, llm)]
        runs.append(entry)
    return runs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--install-failed", help="a file naming, a line each, the writers whose install failed")
    args = parser.parse_args()
    failed = set()
    if args.install_failed and os.path.exists(args.install_failed):
        with open(args.install_failed) as f:
            failed = {line.strip() for line in f if line.strip()}
    out = os.path.abspath(args.out)
    url = args.url.rstrip("/").removesuffix("/v1")
    manifest = []
    for package, writer in (("mini-swe-agent", mini), ("inspect-ai", inspect), ("aider-chat", aider)):
        if package in failed:
            # Not run: the venv may hold an older release, which would pass for the newest.
            release = latest_release(package)
            entries = [{"writer": package, "config": config, "files": [], "code": None,
                        "version": release,
                        "error": f"installing {package} {release} failed (see scripts/real-writers.sh's log)"}
                       for config in CONFIGS[package]]
        else:
            repo = scratch_repo(os.path.join(out, "repo-" + package))
            entries = writer(args.cache, url, out, repo)
        for entry in entries:
            entry.setdefault("version", version(args.cache, package))
            manifest.append(entry)
            print(f"real-writers: {package} {entry['version']} ({entry['config']}): "
                  f"exit code {entry['code']}, {len(entry['files'])} log(s)", file=sys.stderr)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
