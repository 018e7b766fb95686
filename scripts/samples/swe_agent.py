"""SWE-agent `.traj` samples: a 1.1 function-calling run (exact `query` per step) and a
0.x multi-agent run in the style of CodeR (Manager, Reproducer, Programmer) that hits its
cost limit and is autosubmitted.
"""

import copy
import json
import os
import shlex

from .mini_swe_agent import dump_json
from .workspace import (
    Clock,
    Workspace,
    cat_n,
    editor_create,
    editor_str_replace,
    editor_view,
    ident,
    issue,
    tokens,
)

WORKDIR = "/testbed"
EVALUATOR = f"{WORKDIR}/tinycalc/evaluator.py"
BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'

SYSTEM_V1 = "You are a helpful assistant that can interact with a computer to solve tasks."

INSTANCE_V1 = """<uploaded_files>
{working_dir}
</uploaded_files>
I've uploaded a python code repository in the directory {working_dir}. Consider the following PR description:

<pr_description>
{problem_statement}
</pr_description>

Can you help me implement the necessary changes to the repository so that the requirements specified in the <pr_description> are met?
I've already taken care of all changes to any of the test files described in the <pr_description>. This means you DON'T have to modify the testing logic or any of the tests in any way!
Your task is to make the minimal changes to non-tests files in the {working_dir} directory to ensure the <pr_description> is satisfied.
Follow these steps to resolve the issue:
1. As a first step, it might be a good idea to find and read code relevant to the <pr_description>
2. Create a script to reproduce the error and execute it with `python <filename.py>` using the bash tool, to confirm the error
3. Edit the sourcecode of the repo to resolve the issue
4. Rerun your reproduce script and confirm that the error is fixed!
5. Think about edgecases and make sure your fix handles them as well"""

REVIEW = """Thank you for your work on this issue. Please carefully follow the steps below to help review your changes.

1. If you made any changes to your code after running the reproduction script, please run the reproduction script again.
  If the reproduction script is failing, please revisit your changes and make sure they are correct.
  If you have already removed your reproduction script, please ignore this step.
2. Remove your reproduction script (if you haven't done so already).
3. If you have modified any TEST files, please revert them to the state they had before you started fixing the issue.
  You can do this with `git checkout -- /path/to/test/file.py`. Use below <diff> to find the files you need to revert.
4. Run the submit command again to confirm.

Here is a list of all of your changes:

<diff>
{diff}
</diff>"""

REPRODUCE = """from tinycalc import evaluate

for expression in ["7 / 2", "1 / 3", "-7 / 2", "8 / 2"]:
    print(expression, "=", evaluate(expression))
"""

# (thought, tool, arguments). Observations come from running the tool in a fresh copy.
STEPS_V1 = [
    (
        "I'll start by finding where floor division (`//`) is used in the code.",
        "bash",
        {"command": f"grep -rn --include='*.py' '//' {WORKDIR}"},
    ),
    (
        "Only one place. Let me look at the surrounding function in the evaluator.",
        "str_replace_editor",
        {"command": "view", "path": EVALUATOR, "view_range": [26, 36]},
    ),
    (
        "`_product` uses `value // right`, which is floor division. Let me write a script that reproduces the issue.",
        "str_replace_editor",
        {"command": "create", "path": f"{WORKDIR}/reproduce.py", "file_text": REPRODUCE},
    ),
    ("Now let me run it.", "bash", {"command": f"cd {WORKDIR} && python3 reproduce.py"}),
    (
        "Confirmed: 7 / 2 gives 3. I'll use true division and give a clear error for division by zero.",
        "str_replace_editor",
        {"command": "str_replace", "path": EVALUATOR, "old_str": "value = value // right", "new_str": BROKEN},
    ),
    ("Let me run the reproduction script again.", "bash", {"command": f"cd {WORKDIR} && python3 reproduce.py"}),
    (
        "A SyntaxError: `raise` cannot be used inside a conditional expression. Maybe the project "
        "keeps its arithmetic helpers and error messages in an operators module; let me check.",
        "str_replace_editor",
        {"command": "view", "path": f"{WORKDIR}/tinycalc/operators.py"},
    ),
    (
        "There is no operators module. Python's `/` already raises ZeroDivisionError, so plain true division is enough.",
        "str_replace_editor",
        {"command": "str_replace", "path": EVALUATOR, "old_str": BROKEN, "new_str": "value = value / right"},
    ),
    (
        "Let me rerun the reproduction script and the test suite.",
        "bash",
        {"command": f"cd {WORKDIR} && python3 reproduce.py && python3 -m unittest 2>&1 | tail -n 1"},
    ),
    ("The fix works and the tests pass. Let me submit.", "submit", {}),
    ("The review asks me to remove the reproduction script.", "bash", {"command": f"rm {WORKDIR}/reproduce.py"}),
    ("The script is removed. Submitting again.", "submit", {}),
]

MODEL_V1 = "claude-sonnet-4-20250514"


def action_string(tool, arguments):
    """How SWE-agent 1.x writes a function call as an action line."""
    if tool == "bash":
        return arguments["command"]
    if tool == "submit":
        return "submit"
    command, path = arguments["command"], arguments["path"]
    if command == "view" and "view_range" in arguments:
        first, last = arguments["view_range"]
        return f"str_replace_editor view {path}  --view_range {first} {last}"
    if command == "view":
        return f"str_replace_editor view {path}"
    if command == "create":
        return f"str_replace_editor create {path} --file_text {shlex.quote(arguments['file_text'])}"
    return (
        f"str_replace_editor str_replace {path}   --old_str {shlex.quote(arguments['old_str'])} "
        f"--new_str {shlex.quote(arguments['new_str'])}"
    )


def run_tool(ws, tool, arguments, submitted_once):
    """Executes one SWE-agent tool; returns (observation, submission or None)."""
    if tool == "bash":
        return ws.bash(arguments["command"])[1], None
    if tool == "submit":
        diff = ws.diff()
        if not submitted_once:
            return REVIEW.format(diff=diff.rstrip("\n")), None
        return diff, diff
    command = arguments["command"]
    if command == "view":
        return editor_view(ws, arguments["path"], arguments.get("view_range"))[0], None
    if command == "create":
        return editor_create(ws, arguments["path"], arguments["file_text"]), None
    return editor_str_replace(ws, arguments["path"], arguments["old_str"], arguments["new_str"])[0], None


def with_cache_control(messages):
    """SWE-agent's cache_control history processor: the last two user/tool messages are sent
    as content blocks marked ephemeral."""
    out = copy.deepcopy(messages)
    marked = 0
    for message in reversed(out):
        if marked == 2:
            break
        if message["role"] in ("user", "tool"):
            message["content"] = [
                {"type": "text", "text": message["content"], "cache_control": {"type": "ephemeral"}}
            ]
            marked += 1
    return out


def edited_files(diff, ws, context):
    """`edited_filesNN`: each edited file around its changes, as SWE-agent's PatchFormatter."""
    parts = []
    for block in diff.split("diff --git ")[1:]:
        path = block.split(" b/", 1)[1].split("\n", 1)[0]
        if not ws.exists(path):
            continue
        lines = ws.read(path).split("\n")
        changed = [
            int(h.split("+")[1].split(",")[0]) for h in block.split("\n") if h.startswith("@@")
        ]
        first = max(1, min(changed) - context)
        last = min(len(lines), max(changed) + context + 6)
        out = [f"[File: {path}]"]
        if first > 1:
            out.append(f"[{first - 1} lines above omitted]")
        out += [f"{n:6}: {lines[n - 1]}" for n in range(first, last + 1)]
        if last < len(lines):
            out.append(f"[{len(lines) - last} lines below omitted]")
        parts.append("\n".join(out))
    return "\n".join(parts)


def record_v11(instance_id="tinycalc__tinycalc-1"):
    clock = Clock("2025-03-14T09:40:00Z")
    history = [
        {"role": "system", "content": SYSTEM_V1, "agent": "main", "message_type": "system_prompt"},
        {
            "role": "user",
            "content": INSTANCE_V1.format(working_dir=WORKDIR, problem_statement=issue(instance_id).strip()),
            "agent": "main",
            "message_type": "observation",
        },
    ]
    trajectory = []
    sent = received = 0
    submission = None
    with Workspace(shown_as=WORKDIR) as ws:
        submitted_once = False
        for n, (thought, tool, arguments) in enumerate(STEPS_V1, 1):
            query = with_cache_control([{k: v for k, v in m.items()} for m in history])
            call_id = ident("toolu_", f"{instance_id}-swe-{n}")
            tool_calls = [
                {"index": 1, "function": {"arguments": json.dumps(arguments), "name": tool}, "id": call_id, "type": "function"}
            ]
            observation, submission = run_tool(ws, tool, arguments, submitted_once)
            if tool == "submit":
                submitted_once = True
            action = action_string(tool, arguments)
            sent += tokens(*(str(m["content"]) for m in history))
            received += tokens(thought, json.dumps(arguments))
            clock.tick(5)
            history.append(
                {
                    "role": "assistant",
                    "content": thought,
                    "thought": thought,
                    "action": action,
                    "agent": "main",
                    "tool_calls": tool_calls,
                    "message_type": "action",
                    "thinking_blocks": [],
                }
            )
            shown = observation if observation.strip() else None
            history.append(
                {
                    "role": "tool",
                    "content": "OBSERVATION:\n" + shown if shown else "Your command ran successfully and did not produce any output.",
                    "agent": "main",
                    "message_type": "observation",
                    "tool_call_ids": [call_id],
                }
            )
            trajectory.append(
                {
                    "action": action,
                    "observation": observation,
                    "response": thought,
                    "thought": thought,
                    "execution_time": round(0.05 + (n % 5) * 0.07, 3),
                    "state": {"working_dir": WORKDIR},
                    "query": query,
                    "extra_info": {},
                }
            )
        files = {f"edited_files{c}": edited_files(submission, ws, c) for c in (30, 50, 70)}
    cost = round(sent * 3e-6 + received * 15e-6, 6)
    info = {
        "swe_agent_hash": "f1b0c5d0e0c3e1f2a8b6d5c4e3f2a1b0c9d8e7f6",
        "swe_agent_version": "1.1.0",
        "swe_rex_version": "1.2.1",
        "swe_rex_hash": "unavailable",
        "submission": submission,
        "exit_status": "submitted",
        **files,
        "model_stats": {"instance_cost": cost, "tokens_sent": sent, "tokens_received": received, "api_calls": len(STEPS_V1)},
    }
    replay_config = {
        "env": {
            "deployment": {"image": "python:3.11", "type": "docker"},
            "repo": {"path": "/home/dev/tinycalc", "base_commit": "HEAD", "type": "local"},
            "name": "main",
        },
        "agent": {
            "name": "main",
            "templates": {"system_template": SYSTEM_V1, "next_step_template": "OBSERVATION:\n{{observation}}"},
            "tools": {"parse_function": {"type": "function_calling"}, "bundles": [{"path": "tools/registry"}, {"path": "tools/edit_anthropic"}, {"path": "tools/review_on_submit_m"}]},
            "model": {"name": MODEL_V1, "per_instance_cost_limit": 3.0, "temperature": 0.0},
            "type": "default",
        },
        "problem_statement": {"path": f"issues/{instance_id}.txt", "id": instance_id, "type": "text_file"},
        "output_dir": "trajectories/dev/default__claude-sonnet-4-20250514__t-0.00__p-1.00__c-3.00___tinycalc",
    }
    return {
        "trajectory": trajectory,
        "history": history,
        "info": info,
        "replay_config": json.dumps(replay_config),
        "environment": "main",
    }


# 0.x multi-agent (CodeR style) -----------------------------------------------------------

CODER_ROOT = "/tinycalc"


def footer(open_file):
    return f"\n(Open file: {open_file})\n(Current directory: {CODER_ROOT})\nbash-$"


def windowed(ws, relative):
    """SWE-agent 0.x `open`: `[File: … (N lines total)]` and numbered lines."""
    text = ws.read(relative).rstrip("\n").split("\n")
    shown = "\n".join(f"{i}:{line}" for i, line in enumerate(text, 1))
    return f"[File: {CODER_ROOT}/{relative} ({len(text)} lines total)]\n{shown}"


MANAGER_SYSTEM = """SETTING: You are a Manager responsible for overseeing a software engineering team. Your team comprises three members: the **Reproducer**, the **Programmer** and the **Tester**. Your primary task is to efficiently solve GitHub issues and ensure smooth collaboration among team members.

Select a plan from the predefined ones and write it as JSON between `plan` and `end_of_plan`.
IMPORTANT TIPS: your job is only to select a plan to resolve the issue and not to create a new plan yourself. DO NOT EDIT THE CODE IN THE REPOSITORY!!!"""

REPRODUCER_SYSTEM = """SETTING: You are a helpful assistant tasked with writing tests to reproduce a specified issue, and you're working directly in the command line with a special interface.

COMMANDS:
open <path> [<line_number>], goto <line_number>, create <filename>, edit <start_line>:<end_line> ... end_of_edit, find_file <file_name> [<dir>], succeed, fail

Once you have reproduced the issue in `reproduce.py`, run `succeed`.
IMPORTANT TIPS: your job is reproduce the bug described in the issue USING A NEWLY CREATED FILE NAMED `reproduce.py`. DO NOT EDIT THE CODE IN THE REPOSITORY!!!"""

PROGRAMMER_SYSTEM = """You are an autonomous programmer, and you're working directly in the command line with a special interface.

COMMANDS:
open <path> [<line_number>], goto <line_number>, edit <start_line>:<end_line> ... end_of_edit, find_file <file_name> [<dir>], search_file <search_term> [<file>], succeed, fail

Python files will be checked for syntax errors after an edit. If the system detects a syntax error, the edit will not be executed.
IMPORTANT TIPS: Your job is to edit the repository code and resolve the issue. DO NOT EDIT ANY TEST CODE IN THE REPOSITORY!!!"""

PLAN = """plan
{
  "entry": "Reproducer",
  "roles": [
    {
      "name": "Reproducer",
      "attributes": {
        "task": "Reproduce the issue in reproduce.py.",
        "downstream": {"succeed": {"to": "Programmer", "info": "ReproducerReport"}, "fail": {"to": "Manager", "info": "PlanFailed"}}
      }
    },
    {
      "name": "Programmer",
      "attributes": {
        "task": "Edit the repository until reproduce.py prints the expected results.",
        "downstream": {"succeed": {"to": "Manager", "info": "Patch"}, "fail": {"to": "Manager", "info": "PlanFailed"}}
      }
    }
  ]
}
end_of_plan
"""

CODER_REPRODUCE = """from tinycalc import evaluate

print("7 / 2 =", evaluate("7 / 2"))
print("1 / 3 =", evaluate("1 / 3"))"""

LINT_FAILURE = """Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.

ERRORS:
- E999 SyntaxError: invalid syntax

This is how your edit would have looked if applied
-------------------------------------------------
{proposed}
-------------------------------------------------

This is the original code before your edit
-------------------------------------------------
{original}
-------------------------------------------------
Your changes have NOT been applied. Please fix your edit command and try again.
You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.
DO NOT re-run the same failed edit command. Running it again will lead to the same error."""


def window_around(lines, path, line, total, radius=5):
    first = max(1, line - radius)
    last = min(total, line + radius)
    out = [f"[File: {path} ({total} lines total)]"]
    if first > 1:
        out.append(f"({first - 1} more lines above)")
    out += [f"{i}:{lines[i - 1]}" for i in range(first, last + 1)]
    if last < total:
        out.append(f"({total - last} more lines below)")
    return "\n".join(out)


def record_coder(instance_id="tinycalc__tinycalc-1"):
    """A CodeR-style run: every command is executed or linted for real, in /tinycalc."""
    task = issue(instance_id).strip()
    history = []
    trajectory = []
    sent = received = 0
    evaluator = f"{CODER_ROOT}/tinycalc/evaluator.py"

    def ask(agent, content, is_demo=False):
        history.append({"role": "user", "content": content, "agent": agent})

    def answer(agent, discussion, command, observation, open_file, state_file=None):
        nonlocal sent, received
        sent += tokens(*(m["content"] for m in history if m.get("agent") == agent))
        response = f"DISCUSSION\n{discussion}\n\n```\n{command}\n```"
        received += tokens(response)
        history.append(
            {"role": "assistant", "content": response, "thought": f"DISCUSSION\n{discussion}\n\n", "action": command + "\n", "agent": agent}
        )
        trajectory.append(
            {
                "action": command + "\n",
                "observation": observation or "",
                "response": response,
                "state": json.dumps({"open_file": state_file or open_file, "working_dir": CODER_ROOT}),
                "thought": f"DISCUSSION\n{discussion}\n\n",
            }
        )
        if observation is not None:
            ask(agent, (observation if observation.strip() else "Your command ran successfully and did not produce any output.") + footer(open_file))

    with Workspace(shown_as=CODER_ROOT) as ws:
        history.append({"role": "system", "content": MANAGER_SYSTEM, "agent": "Manager"})
        ask("Manager", f"We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n{task}\n\nINSTRUCTION:\nSelect one of the predefined plans.\n" + footer("n/a"))
        plan_note = "\nIn order to solve this issue, the manager has planned for several roles to work together to resolve the problem:\nReproducer,Programmer\n"
        answer(
            "Manager",
            "The issue gives examples that can be turned into a reproduction script, so the Reproducer should confirm the bug before the Programmer changes the code.",
            PLAN.rstrip("\n"),
            None,
            "n/a",
        )
        trajectory[-1]["observation"] = plan_note

        history.append({"role": "system", "content": REPRODUCER_SYSTEM, "agent": "Reproducer"})
        ask("Reproducer", f"We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n{task}\n\nINSTRUCTIONS:\nYou are now going to reproduce the provided issue.\n{plan_note}\n\nCURRENT STATE" + footer("n/a"))
        ws.write("reproduce.py", "\n")
        answer("Reproducer", "I'll create reproduce.py to run the examples from the issue.", "create reproduce.py", f"[File: {CODER_ROOT}/reproduce.py (1 lines total)]\n1:\n", f"{CODER_ROOT}/reproduce.py")
        ws.write("reproduce.py", CODER_REPRODUCE + "\n")
        edited = windowed(ws, "reproduce.py") + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary."
        answer("Reproducer", "Now I'll write the examples into the file.", f"edit 1:1\n{CODER_REPRODUCE}\nend_of_edit", edited, f"{CODER_ROOT}/reproduce.py")
        code, output = ws.bash("python reproduce.py")
        answer("Reproducer", "Let me run the script.", "python reproduce.py", output, f"{CODER_ROOT}/reproduce.py")
        conclusion = "The script prints `7 / 2 = 3` and `1 / 3 = 0`, so division drops the fractional part, as the issue says. The issue is reproduced in reproduce.py."
        answer("Reproducer", conclusion, "succeed", None, f"{CODER_ROOT}/reproduce.py")

        history.append({"role": "system", "content": PROGRAMMER_SYSTEM, "agent": "Programmer"})
        ask("Programmer", f"We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n{task}\n\nBelow are the conclusions obtained by colleague named Reproducer after some efforts:\n\"conclusions\": {conclusion}\n\nCURRENT STATE" + footer("n/a"))
        answer("Programmer", "Division is probably implemented with the other arithmetic operators. Let me open the operators module.", "open tinycalc/operators.py", "File tinycalc/operators.py not found", "n/a")
        code, output = ws.bash("find tinycalc -name '*.py' | sort")
        found = output.strip().split("\n")
        listing = f'Found {len(found)} matches for "*.py" in {CODER_ROOT}/tinycalc:\n' + "\n".join(f"{CODER_ROOT}/{p}" for p in found)
        answer("Programmer", "There is no operators module. Let me list the package's modules.", "find_file *.py tinycalc", listing, "n/a")
        lines = ws.read("tinycalc/evaluator.py").rstrip("\n").split("\n")
        total = len(lines)
        answer("Programmer", "The evaluator is the place. Let me open it at the division.", "open tinycalc/evaluator.py 34", window_around(lines, evaluator, 34, total, 12), evaluator)

        for attempt in (BROKEN, 'value = value / right if right != 0 else raise ZeroDivisionError("division by zero")'):
            proposed = list(lines)
            proposed[33] = "            " + attempt
            check = "\n".join(proposed) + "\n"
            code, out = ws.bash("python3 -c " + shlex.quote("import ast, sys; ast.parse(sys.stdin.read())") + " <<'PYEOF'\n" + check + "PYEOF")
            if code == 0:
                raise RuntimeError("the CodeR sample expects the edit to be rejected")
            failure = LINT_FAILURE.format(
                proposed=window_around(proposed, evaluator, 34, total),
                original=window_around(lines, evaluator, 34, total),
            )
            discussion = (
                "Line 34 floors the result. I'll use true division and raise a clear error for a zero divisor."
                if attempt == BROKEN
                else "The linter rejected the edit. I'll compare against zero explicitly."
            )
            answer("Programmer", discussion, f"edit 34:34\n            {attempt}\nend_of_edit", failure, evaluator)

        # The cost limit is reached here: SWE-agent 0.x exits with `exit_cost` and autosubmits.
        submission = "\n" + ws.diff()
        history.append({"role": "assistant", "content": "Exit due to cost limit", "thought": "Exit due to cost limit", "action": "exit_cost", "agent": "Programmer"})
        trajectory.append(
            {
                "action": "exit_cost",
                "observation": "Exited (autosubmitted)",
                "response": "Exit due to cost limit",
                "state": json.dumps({"open_file": evaluator, "working_dir": CODER_ROOT}),
                "thought": "Exit due to cost limit",
            }
        )
    cost = round(sent * 5e-6 + received * 15e-6, 4)
    return {
        "environment": "swe_main",
        "trajectory": trajectory,
        "history": history,
        "info": {
            "exit_status": "submitted (exit_cost)",
            "submission": submission,
            "model_stats": {"instance_cost": max(cost, 0.1012), "tokens_sent": sent, "tokens_received": received, "api_calls": len(trajectory) - 1},
        },
    }


def write(out):
    v11 = record_v11()
    dump_json(os.path.join(out, "swe-agent", "tinycalc__tinycalc-1", "tinycalc__tinycalc-1.traj"), v11)
    coder = record_coder()
    dump_json(os.path.join(out, "swe-agent-coder", "trajs", "tinycalc__tinycalc-1.traj"), coder)
    return v11, coder
