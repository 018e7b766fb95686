"""A scratch git copy of the sample repository, and the tools agents use on it.

Commands run with bash in the copy's root, stderr merged into stdout, in a fixed environment
(no user git config, C.UTF-8 locale), so that re-running them in a fresh copy prints the same
bytes. Paths of the scratch copy are shown as the path the agent believes it works in
(`/testbed`, `/workspace/tinycalc`, ...), as in the container the agent ran in.
"""

import datetime
import os
import shlex
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "sample-trajectories"))
REPO = os.path.join(SAMPLES, "repo")

COMMIT_DATE = "2025-01-06T09:00:00+00:00"


def environment(home):
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PAGER": "cat",
        "MANPAGER": "cat",
        "LESS": "-R",
        "PIP_PROGRESS_BAR": "off",
        "TQDM_DISABLE": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "tinycalc",
        "GIT_AUTHOR_EMAIL": "dev@tinycalc.invalid",
        "GIT_COMMITTER_NAME": "tinycalc",
        "GIT_COMMITTER_EMAIL": "dev@tinycalc.invalid",
        "GIT_AUTHOR_DATE": COMMIT_DATE,
        "GIT_COMMITTER_DATE": COMMIT_DATE,
    }


def prepare(target):
    """Copy the sample repository to `target` and make it a git repository with one commit."""
    shutil.copytree(REPO, target, ignore=shutil.ignore_patterns("__pycache__"))
    env = environment(os.path.dirname(os.path.abspath(target)))
    for command in (
        ["git", "-c", "init.defaultBranch=main", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "-m", "tinycalc 0.1.0"],
    ):
        subprocess.run(command, cwd=target, env=env, check=True)


class Workspace:
    """A fresh copy of the repository, shown to the agent as `shown_as`."""

    def __init__(self, shown_as=None):
        self.tmp = tempfile.mkdtemp(prefix="trajscope-sample-")
        self.root = os.path.join(self.tmp, "tinycalc")
        prepare(self.root)
        self.env = environment(self.tmp)
        self.shown_as = shown_as

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Paths -------------------------------------------------------------------------------

    def show(self, text):
        """`text` with the scratch copy's path replaced by the one the agent sees."""
        if self.shown_as is None:
            return text
        return text.replace(self.root, self.shown_as)

    def real(self, path):
        """The scratch path of a path as the agent wrote it (absolute or relative)."""
        if self.shown_as and path.startswith(self.shown_as):
            path = path[len(self.shown_as):].lstrip("/")
        return os.path.join(self.root, path)

    def shown(self, relative):
        base = self.shown_as or self.root
        return base.rstrip("/") + "/" + relative if relative else base

    # Shell -------------------------------------------------------------------------------

    def bash(self, command, cwd=None):
        """Runs `command` like mini-swe-agent does: bash, stdout+stderr, in the repo root."""
        if self.shown_as:
            command_here = command.replace(self.shown_as, self.root)
        else:
            command_here = command
        done = subprocess.run(
            ["bash", "-c", command_here],
            cwd=cwd or self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
        )
        return done.returncode, self.show(done.stdout)

    def bash_split(self, command):
        """Runs `command` keeping stdout and stderr apart (Claude Code, Inspect)."""
        done = subprocess.run(
            ["bash", "-c", command.replace(self.shown_as, self.root) if self.shown_as else command],
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
        return done.returncode, self.show(done.stdout), self.show(done.stderr)

    def diff(self):
        """What `git add -A && git diff --cached` prints: the patch the agent submits."""
        return self.bash("git add -A && git diff --cached")[1]

    # Files -------------------------------------------------------------------------------

    def read(self, path):
        with open(self.real(path), encoding="utf-8") as f:
            return f.read()

    def write(self, path, text):
        full = self.real(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def exists(self, path):
        return os.path.exists(self.real(path))

    def replace(self, path, old, new):
        """Replaces the single occurrence of `old`; returns (old file, new file)."""
        before = self.read(path)
        if before.count(old) != 1:
            raise ValueError(f"{old!r} occurs {before.count(old)} times in {path}")
        after = before.replace(old, new)
        self.write(path, after)
        return before, after


# Editor tools (Anthropic's str_replace_editor, as in SWE-agent, OpenHands, Inspect) ---------

SNIPPET_LINES = 4


def cat_n(text, first=1):
    return "\n".join(f"{i + first:6}\t{line}" for i, line in enumerate(text.split("\n")))


def editor_view(ws, path, view_range=None):
    full = ws.real(path)
    if not os.path.exists(full):
        return f"The path {path} does not exist. Please provide a valid path.", True
    if os.path.isdir(full):
        code, out = ws.bash(f"find {shlex.quote(path)} -maxdepth 2 -not -path '*/\\.*' | sort")
        return (
            f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n{out}\n",
            False,
        )
    text = ws.read(path)
    first = 1
    if view_range:
        first, last = view_range
        text = "\n".join(text.split("\n")[first - 1 : last])
    return f"Here's the result of running `cat -n` on {path}:\n" + cat_n(text, first) + "\n", False


def editor_create(ws, path, text):
    ws.write(path, text)
    return f"File created successfully at: {path}"


def editor_str_replace(ws, path, old, new):
    before, after = ws.replace(path, old, new)
    line = before.split(old)[0].count("\n")
    start = max(0, line - SNIPPET_LINES)
    end = line + SNIPPET_LINES + new.count("\n")
    snippet = "\n".join(after.split("\n")[start : end + 1])
    return (
        f"The file {path} has been edited. "
        + f"Here's the result of running `cat -n` on a snippet of {path}:\n"
        + cat_n(snippet, start + 1)
        + "\n"
        + "Review the changes and make sure they are as expected. Edit the file again if necessary."
    ), before, after


def unified_diff(path, before, after, context=3):
    """A unified diff of one file, as `diff -u` / git print it (without the git header)."""
    import difflib

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=path,
        tofile=path,
        n=context,
    )
    return "".join(lines)


def hunks(before, after, context=3):
    """Claude Code's `structuredPatch`: hunks with old/new start and length and their lines."""
    import difflib

    a = before.split("\n")
    b = after.split("\n")
    out = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines = []
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines += [" " + l for l in a[x1:x2]]
            if tag in ("replace", "delete"):
                lines += ["-" + l for l in a[x1:x2]]
            if tag in ("replace", "insert"):
                lines += ["+" + l for l in b[y1:y2]]
        out.append(
            {"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1, "lines": lines}
        )
    return out


# Time, ids and tokens -----------------------------------------------------------------------


class Clock:
    """Synthetic wall clock: the samples carry plausible, fixed times."""

    def __init__(self, start):
        self.now = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))

    def tick(self, seconds):
        self.now += datetime.timedelta(seconds=seconds)
        return self.now

    def iso(self, millis=True):
        text = self.now.strftime("%Y-%m-%dT%H:%M:%S")
        if millis:
            text += f".{self.now.microsecond // 1000:03d}"
        return text + "Z"

    def iso_micro(self):
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.%f")

    def epoch(self):
        return round(self.now.timestamp(), 3)


def tokens(*texts):
    """A rough, deterministic token count (4 characters a token)."""
    return max(1, sum(len(t or "") for t in texts) // 4)


def ident(prefix, name, length=24):
    """A stable id that looks like the agent's own (`call_…`, `toolu_…`, `msg_…`)."""
    import hashlib

    alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    digest = hashlib.sha256(name.encode()).digest()
    return prefix + "".join(alphabet[b % len(alphabet)] for b in digest[:length])


def uuid_for(name):
    import uuid

    return str(uuid.uuid5(uuid.NAMESPACE_URL, "trajscope-sample:" + name))


def issue(instance_id):
    with open(os.path.join(SAMPLES, "issues", instance_id + ".txt"), encoding="utf-8") as f:
        return f.read()
