"""mini-swe-agent: a text-mode v1 trajectory recorded against the sample repository (replayable),
and a tool-call-mode trajectory in the 2.x file format (`trajectory_format: mini-swe-agent-1.1`).
"""

import json
import os

from .workspace import Clock, Workspace, ident, issue, tokens

SYSTEM_V1 = """You are a helpful assistant that can interact multiple times with a computer shell to solve programming tasks.
Your response must contain exactly ONE bash code block with ONE command (or commands connected with && or ||).

Include a THOUGHT section before your command where you explain your reasoning process.
Format your response as shown in <format_example>.

<format_example>
THOUGHT: Your reasoning and analysis here

```bash
your_command_here
```
</format_example>

Failure to follow these rules will cause your response to be rejected."""

INSTANCE_V1 = """<pr_description>
Consider the following PR description:
{task}
</pr_description>

<instructions>
# Task Instructions

You're a software engineer interacting continuously with a computer by submitting commands.
Make changes to non-test files in the current directory to resolve the issue described in the PR description.

For each response:
1. Include a THOUGHT section explaining your reasoning and what you're trying to accomplish
2. Provide exactly ONE bash command to execute

## Recommended Workflow
1. Analyze the codebase by finding and reading relevant files
2. Reproduce the issue
3. Edit the source code to resolve the issue
4. Verify your fix and run the tests

## Command Execution Rules
- Every action is executed in a new subshell in the repository root: `cd` does not persist.
- Avoid interactive tools like vi, nano, or any that require user input.

## Submission
When you've completed your work, issue exactly the following command:

```bash
echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached
```

You cannot continue working on this task after submitting.
</instructions>"""

OBSERVATION_TEMPLATE = "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>"

SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"

BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'

# The recorded run: (thought, command). The commands run for real; only the thoughts are written.
RECORDED = [
    (
        "Let me start by looking at the structure of the repository to find the code that "
        "evaluates expressions.",
        "find . -name '*.py' -not -path './.git/*' | sort && cat README.md",
    ),
    (
        "The evaluator lives in tinycalc/evaluator.py. Let me read it with line numbers to see "
        "how `/` is handled.",
        "nl -ba tinycalc/evaluator.py",
    ),
    (
        "Line 34 uses `//`, which is floor division. Let me reproduce the issue with the "
        "examples from the PR description before changing anything.",
        "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('1 / 3'), evaluate('-7 / 2'))\"",
    ),
    (
        "Reproduced: 3, 0 and -4 are floor-division results. I'll switch to true division and, "
        "while I'm there, raise a clear error for a zero divisor. Then I'll byte-compile the "
        "file to check the edit.",
        "sed -i 's|value = value // right|" + BROKEN + "|' tinycalc/evaluator.py "
        "&& python3 -m py_compile tinycalc/evaluator.py && echo OK",
    ),
    (
        "That is a SyntaxError: `raise` is a statement and cannot appear inside a conditional "
        "expression. Let me compare with the original line; sed may have left a backup.",
        "diff tinycalc/evaluator.py.orig tinycalc/evaluator.py",
    ),
    (
        "`sed -i` without a suffix keeps no backup. The repository is under git, so git has "
        "the original.",
        "git diff",
    ),
    (
        "Python's `/` already raises ZeroDivisionError for a zero divisor, so the guard is not "
        "needed at all. I'll make the line plain true division and check that it compiles.",
        "sed -i 's|" + BROKEN + "|value = value / right|' tinycalc/evaluator.py "
        "&& python3 -m py_compile tinycalc/evaluator.py && git diff",
    ),
    (
        "The file compiles. Let me check the examples from the PR description again, plus an "
        "exact division.",
        "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('1 / 3'), evaluate('-7 / 2'), evaluate('8 / 2'))\"",
    ),
    (
        "7 / 2 is now 3.5 and -7 / 2 is -3.5. Let me run the test suite to make sure nothing "
        "else broke.",
        "python3 -m unittest 2>&1 | tail -n 1",
    ),
    (
        "The tests pass and the fix is a one-line change in tinycalc/evaluator.py. I'll submit.",
        SUBMIT,
    ),
]

MODEL_V1 = "anthropic/claude-haiku-4-5-20251001"


def render_observation(code, output):
    return f"<returncode>{code}</returncode>\n<output>\n{output}</output>"


def answer_text(thought, command):
    return f"THOUGHT: {thought}\n\n```bash\n{command}\n```"


def record_text_mode(instance_id="tinycalc__tinycalc-1"):
    """Runs RECORDED in a fresh copy and returns the mini-swe-agent v1 trajectory."""
    clock = Clock("2025-03-14T09:12:05Z")
    messages = [
        {"role": "system", "content": SYSTEM_V1},
        {"role": "user", "content": INSTANCE_V1.format(task=issue(instance_id).strip())},
    ]
    cost = 0.0
    exit_status, submission = None, None
    with Workspace() as ws:
        for n, (thought, command) in enumerate(RECORDED, 1):
            content = answer_text(thought, command)
            prompt = tokens(*(m["content"] for m in messages))
            completion = tokens(content)
            call_cost = round(prompt * 1e-6 + completion * 5e-6, 6)
            cost += call_cost
            clock.tick(4 + n % 3)
            messages.append(
                {
                    "role": "assistant",
                    "content": content,
                    "extra": {
                        "response": {
                            "id": ident("chatcmpl-", f"{instance_id}-{n}", 20),
                            "created": int(clock.epoch()),
                            "model": MODEL_V1.split("/")[1],
                            "object": "chat.completion",
                            "choices": [
                                {
                                    "finish_reason": "stop",
                                    "index": 0,
                                    "message": {"content": content, "role": "assistant"},
                                }
                            ],
                            "usage": {
                                "completion_tokens": completion,
                                "prompt_tokens": prompt,
                                "total_tokens": prompt + completion,
                            },
                        }
                    },
                }
            )
            code, output = ws.bash(command)
            lines = output.lstrip().splitlines(keepends=True)
            if lines and lines[0].strip() == "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT":
                # mini-swe-agent raises Submitted: the rest of the output is the submission,
                # and it goes back as the last user message.
                submission = "".join(lines[1:])
                exit_status = "Submitted"
                messages.append({"role": "user", "content": submission})
                break
            messages.append({"role": "user", "content": render_observation(code, output)})
    return {
        "info": {
            "exit_status": exit_status,
            "submission": submission,
            "model_stats": {"instance_cost": round(cost, 6), "api_calls": len(RECORDED)},
            "mini_version": "1.17.3",
            "config": {
                "agent": {
                    "system_template": SYSTEM_V1,
                    "instance_template": INSTANCE_V1.replace("{task}", "{{task}}"),
                    "timeout_template": "The last command <command>{{action['action']}}</command> timed out and has been killed.",
                    "format_error_template": "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.",
                    "action_observation_template": OBSERVATION_TEMPLATE,
                    "step_limit": 50,
                    "cost_limit": 1.0,
                },
                "model": {
                    "model_name": MODEL_V1,
                    "model_kwargs": {"temperature": 0.0, "drop_params": True},
                    "litellm_model_registry": None,
                    "set_cache_control": None,
                },
                "environment": {
                    "cwd": "",
                    "env": {"PAGER": "cat", "MANPAGER": "cat", "LESS": "-R", "PIP_PROGRESS_BAR": "off", "TQDM_DISABLE": "1"},
                    "timeout": 30,
                },
                "agent_type": "minisweagent.agents.default.DefaultAgent",
                "model_type": "minisweagent.models.litellm_model.LitellmModel",
                "environment_type": "minisweagent.environments.local.LocalEnvironment",
            },
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }


# Tool-call mode (mini-swe-agent 2.x, trajectory format 1.1) on the second issue -------------

SYSTEM_V2 = """You are a helpful assistant that can interact multiple times with a computer shell to solve programming tasks.
Use the `bash` tool to run exactly one command per response, and explain your reasoning before each call."""

INSTANCE_V2 = """<pr_description>
Consider the following PR description:
{task}
</pr_description>

<instructions>
Make changes to non-test files in /testbed (the working directory of every command) to resolve the issue.
Reproduce the issue, fix it, and verify the fix. When you are done, run exactly
`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached`.
</instructions>"""

FORMAT_ERROR = (
    "No tool calls found in the response. Every response MUST include at least one tool call "
    "to the `bash` tool. If you are done, submit with "
    "`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached`."
)

TOKENIZER_FIX_BROKEN = """python3 - <<'EOF'
from pathlib import Path
p = Path("tinycalc/tokenizer.py")
s = p.read_text()
s = s.replace('if char.isdigit():', 'if char.isdigit() or char == ".":')
s = s.replace('tokens.append(int(number))', 'tokens.append(float(number) if "." in number else int(number)')
p.write_text(s)
EOF
python3 -m py_compile tinycalc/tokenizer.py && echo compiled"""

TOKENIZER_FIX = """python3 - <<'EOF'
from pathlib import Path
p = Path("tinycalc/tokenizer.py")
s = p.read_text()
s = s.replace('else int(number)\\n', 'else int(number))\\n')
p.write_text(s)
EOF
python3 -m py_compile tinycalc/tokenizer.py && git diff"""

EVALUATOR_FIX = (
    "sed -i 's/isinstance(token, int)/isinstance(token, (int, float))/' tinycalc/evaluator.py "
    "&& git diff tinycalc/evaluator.py"
)

TOOLCALL_STEPS = [
    ("Let me look at the tokenizer, which turns the text into numbers and operators.", "cat tinycalc/tokenizer.py"),
    (
        "Numbers are built from digits only, so '.' is rejected. Let me reproduce the issue.",
        "python3 -c \"from tinycalc import evaluate; print(evaluate('2.5 * 2'))\"",
    ),
    (
        "Reproduced. I'll accept '.' inside numbers and convert numbers that contain one to float.",
        TOKENIZER_FIX_BROKEN,
    ),
    (
        "The second replacement lost a closing parenthesis: the `append(` is never closed. "
        "Before fixing it, let me check how numbers are parsed elsewhere; there may be a "
        "helper module for numbers.",
        "cat tinycalc/numbers.py",
    ),
    (None, None),  # a reply without a tool call: a format error
    ("Let me restore the missing parenthesis and compile again.", TOKENIZER_FIX),
    (
        "The tokenizer compiles. The evaluator only accepts int tokens in `_atom`, so floats "
        "would be rejected there next. Let me allow floats too.",
        EVALUATOR_FIX,
    ),
    (
        "Now the examples from the PR description and the test suite.",
        "python3 -c \"from tinycalc import evaluate; print(evaluate('2.5 * 2'), evaluate('0.5 + 0.25'))\" "
        "&& python3 -m unittest 2>&1 | tail -n 1",
    ),
    ("Both examples work and the tests pass. Submitting.", SUBMIT),
]

MODEL_V2 = "openai/gpt-5-mini"


def record_tool_call_mode(instance_id="tinycalc__tinycalc-2"):
    clock = Clock("2025-03-14T11:40:00Z")
    messages = [
        {"role": "system", "content": SYSTEM_V2, "extra": {"timestamp": clock.epoch()}},
        {
            "role": "user",
            "content": INSTANCE_V2.format(task=issue(instance_id).strip()),
            "extra": {"timestamp": clock.epoch()},
        },
    ]
    cost = 0.0
    calls = 0
    submission = None
    with Workspace(shown_as="/testbed") as ws:
        for n, (thought, command) in enumerate(TOOLCALL_STEPS, 1):
            calls += 1
            prompt = tokens(*(str(m.get("content")) for m in messages))
            clock.tick(3 + n % 4)
            if command is None:
                text = (
                    "I will add the closing parenthesis to the append call in "
                    "tinycalc/tokenizer.py and then compile the module again."
                )
                completion = tokens(text)
                call_cost = round(prompt * 0.25e-6 + completion * 2e-6, 7)
                cost += call_cost
                messages.append(
                    {
                        "content": text,
                        "role": "assistant",
                        "tool_calls": None,
                        "function_call": None,
                        "extra": {
                            "actions": [],
                            "response": response_v2(instance_id, n, completion, prompt, "stop"),
                            "cost": call_cost,
                            "timestamp": clock.epoch(),
                        },
                    }
                )
                clock.tick(0.1)
                messages.append(
                    {
                        "role": "user",
                        "content": FORMAT_ERROR,
                        "extra": {"interrupt_type": "FormatError", "timestamp": clock.epoch()},
                    }
                )
                continue
            call_id = ident("call_", f"{instance_id}-{n}")
            arguments = json.dumps({"command": command}, separators=(",", ":"))
            completion = tokens(thought, arguments)
            call_cost = round(prompt * 0.25e-6 + completion * 2e-6, 7)
            cost += call_cost
            messages.append(
                {
                    "content": thought,
                    "role": "assistant",
                    "tool_calls": [
                        {"function": {"arguments": arguments, "name": "bash"}, "id": call_id, "type": "function"}
                    ],
                    "function_call": None,
                    "extra": {
                        "actions": [{"command": command, "tool_call_id": call_id}],
                        "response": response_v2(instance_id, n, completion, prompt, "tool_calls"),
                        "cost": call_cost,
                        "timestamp": clock.epoch(),
                    },
                }
            )
            code, output = ws.bash(command)
            clock.tick(0.4)
            lines = output.lstrip().splitlines(keepends=True)
            if lines and lines[0].strip() == "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT":
                submission = "".join(lines[1:])
                messages.append(
                    {
                        "role": "exit",
                        "content": submission,
                        "extra": {"exit_status": "Submitted", "submission": submission},
                    }
                )
                break
            messages.append(
                {
                    "content": render_observation(code, output),
                    "extra": {
                        "raw_output": output,
                        "returncode": code,
                        "timestamp": clock.epoch(),
                        "exception_info": "",
                    },
                    "tool_call_id": call_id,
                    "role": "tool",
                }
            )
    return {
        "info": {
            "model_stats": {"instance_cost": round(cost, 7), "api_calls": calls},
            "config": {
                "agent": {
                    "system_template": SYSTEM_V2,
                    "instance_template": INSTANCE_V2.replace("{task}", "{{task}}"),
                    "step_limit": 30,
                    "cost_limit": 0.5,
                    "output_path": None,
                },
                "agent_type": "minisweagent.agents.default.DefaultAgent",
                "model": {
                    "model_name": MODEL_V2,
                    "model_kwargs": {"temperature": 1.0, "drop_params": True},
                    "cost_tracking": "default",
                    "format_error_template": "{{ error }}",
                    "observation_template": OBSERVATION_TEMPLATE,
                },
                "model_type": "minisweagent.models.litellm_model.LitellmModel",
                "environment": {
                    "image": "docker.io/library/python:3.11-slim",
                    "cwd": "/testbed",
                    "env": {
                        "PAGER": "cat",
                        "MANPAGER": "cat",
                        "LESS": "-R",
                        "PIP_PROGRESS_BAR": "off",
                        "TQDM_DISABLE": "1",
                    },
                    "timeout": 60,
                    "executable": "docker",
                    "interpreter": ["bash", "-lc"],
                },
                "environment_type": "minisweagent.environments.docker.DockerEnvironment",
            },
            "mini_version": "2.2.4",
            "exit_status": "Submitted",
            "submission": submission,
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": instance_id,
    }


def response_v2(instance_id, n, completion, prompt, finish):
    return {
        "id": ident("chatcmpl-", f"{instance_id}-v2-{n}", 29),
        "model": "gpt-5-mini-2025-08-07",
        "object": "chat.completion",
        "choices": [{"finish_reason": finish, "index": 0}],
        "usage": {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": prompt + completion},
    }


def write(out):
    """Writes both mini-swe-agent samples; returns their submissions by instance id."""
    one = record_text_mode()
    path1 = os.path.join(out, "mini-swe-agent", "tinycalc__tinycalc-1", "tinycalc__tinycalc-1.traj.json")
    two = record_tool_call_mode()
    path2 = os.path.join(out, "mini-swe-agent-v2", "tinycalc__tinycalc-2", "tinycalc__tinycalc-2.traj.json")
    for path, data in ((path1, one), (path2, two)):
        dump_json(path, data)
    return one, two


def dump_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
