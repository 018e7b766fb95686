"""An Aider chat history (`.aider.chat.history.md`): `####` lines are the user's input, `>`
lines are aider's own output (command output, token counts, lint reports), and the model's
replies are plain Markdown with SEARCH/REPLACE blocks. Edits are applied and committed for
real in a scratch copy, so the commit hashes and lint report are genuine.
"""

import os
import re

from .workspace import Workspace

ROOT = "/home/dev/tinycalc"
BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'
FLAKE8 = "/home/dev/.local/share/uv/tools/aider-chat/bin/python -m flake8 --select=E9,F821,F823,F831,F406,F407,F701,F702,F704,F706 --show-source --isolated tinycalc/evaluator.py"
REPRO = "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('-7 / 2'))\""


def quoted(text):
    """Aider's tool output: every line prefixed with `> ` and ending in two spaces."""
    return "".join(f"> {line}  \n" if line else ">  \n" for line in text.split("\n"))


def user(text):
    return "".join(f"#### {line}  \n" for line in text.split("\n")) + "\n"


def block(path, search, replace):
    return f"{path}\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"


class Session:
    def __init__(self, ws):
        self.ws = ws
        self.out = []
        self.session_cost = 0.0

    def write(self, text):
        self.out.append(text)

    def run(self, command, lines_word="line"):
        self.write(user("/run " + command))
        code, output = self.ws.bash(command)
        # unittest prints its wall time; keep the transcript reproducible.
        output = re.sub(r"(Ran \d+ tests? in )\d+\.\d+s", r"\g<1>0.001s", output).rstrip("\n")
        count = len(output.split("\n"))
        self.write(quoted(output))
        self.write(quoted(f"Add {len(output) / 4000:.1f}k tokens of command output to the chat? (Y)es/(N)o [Yes]: y"))
        self.write(quoted(f"Added {count} {lines_word if count == 1 else lines_word + 's'} of output to the chat."))
        self.write("\n")

    def reply(self, text, sent, received):
        cost = round(sent * 3e-6 + received * 15e-6, 4)
        self.session_cost += cost
        self.write(text.rstrip("\n") + "\n\n")
        return quoted(f"Tokens: {sent / 1000:.1f}k sent, {received} received. Cost: ${cost:.4f} message, ${self.session_cost:.4f} session.")

    def apply(self, search, replace, message):
        self.ws.replace("tinycalc/evaluator.py", search, replace)
        self.ws.bash(f"git commit -qam {message!r}")
        commit = self.ws.bash("git rev-parse --short=7 HEAD")[1].strip()
        return quoted(f"Applied edit to tinycalc/evaluator.py\nCommit {commit} {message}")


def lint(ws):
    """What aider's Python linter reports for the edited file (flake8's E999 for a syntax error)."""
    text = ws.read("tinycalc/evaluator.py")
    try:
        compile(text, "tinycalc/evaluator.py", "exec")
        return None
    except SyntaxError as err:
        line, col, message = err.lineno, err.offset, err.msg
    lines = text.split("\n")
    source = lines[line - 1]
    report = [
        "# Fix any errors below, if possible.",
        "",
        f"## Running: {FLAKE8}",
        "",
        f"tinycalc/evaluator.py:{line}:{col}: E999 SyntaxError: {message}",
        source,
        " " * (col - 1) + "^",
        "",
        "## See relevant line below marked with █.",
        "",
        "tinycalc/evaluator.py:",
        "...⋮...",
    ]
    for n in range(line - 8, line + 2):
        mark = "█" if n == line else "│"
        report.append(f"{n:3}{mark}{lines[n - 1]}")
    report.append("...⋮...")
    return "\n".join(report)


def history():
    with Workspace(shown_as=ROOT) as ws:
        s = Session(ws)
        s.write("\n# aider chat started at 2025-03-20 17:02:44\n\n")
        s.write(
            quoted(
                "/home/dev/.local/bin/aider tinycalc/evaluator.py\n"
                "Aider v0.82.2\n"
                "Main model: anthropic/claude-3-7-sonnet-20250219 with diff edit format, infinite output\n"
                "Weak model: anthropic/claude-3-5-haiku-20241022\n"
                "Git repo: .git with 9 files\n"
                "Repo-map: using 4096 tokens, auto refresh\n"
                "Added tinycalc/evaluator.py to the chat.\n"
                "Use /help <question> for help, run \"aider --help\" to see cmd line args"
            )
        )
        s.write("\n")
        s.run(REPRO)
        s.write(user("Division floors: 7 / 2 gives 3 and -7 / 2 gives -4. Make `/` true division, and raise a clear error for division by zero."))
        footer = s.reply(
            "To make this change I need to edit `tinycalc/operators.py`, where the division operator is most likely implemented.\n\n"
            "Please add `tinycalc/operators.py` to the chat so I can propose the edit.",
            2614,
            48,
        )
        s.write(footer + "\n")
        s.run("cat tinycalc/operators.py")
        s.write(user("There is no operators.py. Division is in tinycalc/evaluator.py, which is already in the chat."))
        footer = s.reply(
            "You're right, division is done in `_product` in `tinycalc/evaluator.py`, with floor division (`//`).\n"
            "I'll switch it to true division and raise a `ZeroDivisionError` with a clear message when the divisor is zero.\n\n"
            + block("tinycalc/evaluator.py", "            value = value // right", "            " + BROKEN),
            2797,
            131,
        )
        s.write(footer)
        s.write(s.apply("value = value // right", BROKEN, "fix: Use true division in evaluator"))
        report = lint(ws)
        # The lint report goes back to the model as the next message; aider logs it only as
        # its own output, not as a `####` user line.
        s.write(">  \n" + quoted(report) + quoted("Attempt to fix lint errors? (Y)es/(N)o [Yes]: y") + "\n")
        footer = s.reply(
            "`raise` is a statement and can't be used inside a conditional expression. Python's `/` already raises "
            "`ZeroDivisionError` for a zero divisor, so plain true division is all we need:\n\n"
            + block("tinycalc/evaluator.py", "            " + BROKEN, "            value = value / right"),
            3402,
            104,
        )
        s.write(footer)
        s.write(s.apply(BROKEN, "value = value / right", "fix: Remove invalid raise expression from division") + "\n")
        s.run(REPRO)
        s.run("python3 -m unittest")
        s.write(user("/exit"))
        return "".join(s.out)


def write(out):
    text = history()
    path = os.path.join(out, "aider", "tinycalc__tinycalc-1.aider.chat.history.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return text
