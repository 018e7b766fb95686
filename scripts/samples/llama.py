"""A raw Llama-3 prompt log (`<instance_id>-prompt.txt`): the full text the agent sent to a
completions endpoint at its last step, with tools list_files / view_file / edit_file / finish
called in Llama's pythonic style `[func(a="b")]`.

The agent parses each call with Python's `ast`, so a malformed call is reported with the
parser's own SyntaxError; a missing file with the agent's `ERROR - File … does not exist`.
"""

import ast
import json
import os

from .workspace import Workspace, issue

ROOT = "/workspace/tinycalc"
EVALUATOR = f"{ROOT}/tinycalc/evaluator.py"
BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'

TOOLS = [
    {"name": "list_files", "description": "List all files in a directory.", "parameters": {"type": "dict", "required": ["path"], "properties": {"path": {"type": "string", "description": "Absolute path to a directory, e.g. `/workspace/tinycalc`."}}}},
    {"name": "edit_file", "description": "Edit a file. Specify the path to the file and the new_str to write to it. If old_str is specified, only the old_str will be replaced with new_str, otherwise the entire file will be replaced by new_str.", "parameters": {"type": "dict", "required": ["path", "new_str"], "properties": {"path": {"type": "string", "description": "Absolute path to file, e.g. `/workspace/tinycalc/file.py`."}, "old_str": {"type": "string", "description": "The string in the file at `path` to replace."}, "new_str": {"type": "string", "description": "The new string to write to the file."}}}},
    {"name": "view_file", "description": "View a file", "parameters": {"type": "dict", "required": ["path"], "properties": {"path": {"type": "string", "description": "Absolute path to file, e.g. `/workspace/tinycalc/file.py`."}}}},
    {"name": "finish", "description": "If you have solved the problem, you can call this function to finish the task.", "parameters": {}},
]

SYSTEM = """You are an expert software engineer. You are given the following problem:
<problem_statement>
{problem}
</problem_statement>

The repo is called tinycalc.

Here is the file tree of the repository:
<file_tree>
{tree}
</file_tree>

Your task is to solve the user's problem through analysis and appropriate function/tool calls.

You can perform only one of the following steps at a time:
1. ANALYZE:
- Explain what you understand about the current state
- Review the previous tool call (if any)
- Describe the next steps that are needed to solve the problem

2. EXECUTE:
- Make the appropriate function call(s)

Here is a list of functions in JSON format that you can invoke.

{tools}

If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]
You SHOULD NOT include any other text in the response if you call a function"""

USER = """<working_directory>
{root}
</working_directory>

Please start by listing out and viewing files in the repository to understand the problem.
Then make the necessary changes to solve the problem. Paths must be absolute."""

# The model's turns: (thinking, call text as the model wrote it).
TURNS = [
    ("I need to find where division is evaluated. Let me list the package.", f'[list_files(path="{ROOT}/tinycalc")]'),
    ("The evaluator is the most likely place.", f'[view_file(path="{EVALUATOR}")]'),
    (
        "Line 34 uses floor division `//`. I will replace it with true division and raise an error for a zero divisor.",
        f'[edit_file(path="{EVALUATOR}", old_str="value = value // right", new_str="{BROKEN}")]',
    ),
    (
        "The call could not be parsed because of the double quotes inside new_str. I will use single quotes for new_str.",
        f"[edit_file(path=\"{EVALUATOR}\", old_str=\"value = value // right\", new_str='{BROKEN}')]",
    ),
    (
        "The error type for division might be defined with the operators. Let me check the operators module.",
        f'[view_file(path="{ROOT}/tinycalc/operators.py")]',
    ),
    ("There is no operators module. Division now uses true division, so the problem is solved.", "[finish()]"),
]


def header(role):
    return f"<|start_header_id|>{role}<|end_header_id|>\n\n"


def execute(ws, call_text):
    """Parses and runs the model's call the way the agent does; returns the tool message."""
    try:
        tree = ast.parse(call_text, mode="eval")
    except SyntaxError as err:
        return f"ERROR - Could not parse tool call: {call_text}\nSyntaxError: {err.msg}"
    results = []
    for call in tree.body.elts:
        name = call.func.id
        args = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
        rendered = f"[{name}(" + ", ".join(f'{k}="{v}"' for k, v in args.items()) + ")]"
        if name == "list_files":
            entries = sorted(os.listdir(ws.real(args["path"])))
            entries = [e + "/" if os.path.isdir(os.path.join(ws.real(args["path"]), e)) else e for e in entries if e != "__pycache__"]
            result = "\n".join(entries)
        elif name == "view_file":
            if not ws.exists(args["path"]):
                result = f"ERROR - File {args['path']} does not exist. Please ensure the file exists."
            else:
                result = ws.read(args["path"])
        elif name == "edit_file":
            before, after = ws.replace(args["path"], args["old_str"], args["new_str"])
            result = "File successfully updated"
        else:
            result = "Task marked as finished"
        results.append(f"Executing tool call: {rendered}\nResult: {result}")
    return "\n".join(results)


def file_tree(ws):
    names = sorted(n for n in os.listdir(ws.root) if not n.startswith("."))
    return "\n".join(n + "/" if os.path.isdir(os.path.join(ws.root, n)) else n for n in names)


def prompt_log(instance_id="tinycalc__tinycalc-1"):
    with Workspace(shown_as=ROOT) as ws:
        text = "<|begin_of_text|>" + header("system") + SYSTEM.format(
            problem=issue(instance_id).strip(), tree=file_tree(ws), tools=json.dumps(TOOLS, indent=4)
        ) + "<|eot_id|>"
        text += header("user") + USER.format(root=ROOT) + "<|eot_id|>"
        for thinking, call in TURNS:
            text += header("assistant") + f"ANALYSE:\n{thinking}\n\nEXECUTE:\n{call}" + "<|eot_id|>"
            text += header("tool") + execute(ws, call) + "<|eot_id|>"
        patch = ws.diff()
    return text, patch


def write(out):
    text, patch = prompt_log()
    path = os.path.join(out, "llama", "tinycalc__tinycalc-1-prompt.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return text, patch
