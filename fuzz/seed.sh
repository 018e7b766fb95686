#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with small real logs to start from: the shared corpus
# (../../shared/corpus, when present) and the project's own fixtures and samples.
# libFuzzer adds what it finds there; the folder is git-ignored.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/corpus
max=262144

seed() { # target, files...
    local target=$1; shift
    mkdir -p "corpus/$target"
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le $max ] || continue
        cp "$f" "corpus/$target/$(echo "$f" | md5sum | cut -c1-16)"
    done
}

glob() { find "$@" -type f 2>/dev/null || true; }

seed swe_agent $(glob "$shared/swe-agent" -name '*.traj')
seed mini_swe_agent $(glob "$shared/mini-swe-agent" -name '*.traj.json' -size -256k)
seed openhands $(glob "$shared/openhands" -name '*.json*')
seed inspect_ai $(glob "$shared/inspect-ai" \( -name '*.json' -o -name '*.eval' \))
seed claude_code $(glob "$shared/claude-code" -name '*.json*')
seed codex $(glob "$shared/codex-cli" -name '*.jsonl')
agents="$shared/other-cli-agents/jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents"
seed gemini_cli $(glob "$agents/gemini" ../sample-trajectories/gemini-cli -name '*.json*')
seed copilot_cli $(glob "$agents/copilot" ../sample-trajectories/copilot-cli -name '*.jsonl')
seed cursor $(glob "$agents/cursor" ../sample-trajectories/cursor -name '*.jsonl')
seed kimi_cli $(glob "$agents/kimi" ../sample-trajectories/kimi-cli -name '*.jsonl')
seed opencode $(glob "$agents/opencode" ../sample-trajectories/opencode -name '*.json')
seed droid $(glob ../sample-trajectories/droid -name '*.jsonl')
seed hf_trace $(glob ../sample-trajectories/hf-trace -name '*.jsonl')
seed otel_genai $(glob ../sample-trajectories/otel-genai -name '*.json*')
seed llama_prompt $(glob ../tests/fixtures/llama-prompt -name '*.txt')
seed chat_messages $(glob ../sample-trajectories ../tests/fixtures -name '*chat*.json*')
seed trajscope $(glob ../sample-trajectories -name '*.trajscope.json')

# The Aider history is 4 MB: seed with its first sessions only.
if [ -f "$shared/aider/Aider-AI__aider/tests/fixtures/chat-history.md" ]; then
    mkdir -p corpus/aider
    head -c 60000 "$shared/aider/Aider-AI__aider/tests/fixtures/chat-history.md" > corpus/aider/head
    sed -n '85400,86000p' "$shared/aider/Aider-AI__aider/tests/fixtures/chat-history.md" > corpus/aider/whole-format
fi
# Hand-written seeds for shapes the files above may lack.
mkdir -p corpus/chat_messages corpus/trajscope
printf '%s\n' '[{"role":"user","content":"fix"},{"role":"assistant","content":"ok","tool_calls":[{"id":"1","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"1","content":"a.py"}]' > corpus/chat_messages/array
printf '%s\n%s\n' '{"role":"user","content":"fix"}' '{"role":"assistant","content":[{"type":"text","text":"ok"}]}' > corpus/chat_messages/lines
printf '%s\n' '{"source":"f.json","format":"swe-agent","instance_id":"a","steps":[{"index":1,"thought":"t","action":"ls","observation":"o","context":{"exactness":"exact","messages":{"prefix":{"len":1}}}}],"messages":[{"role":"user","content":"x"}]}' > corpus/trajscope/minimal

# The text parsers: commands the agents ran, patches, the rule files, key bindings, templates.
mkdir -p corpus/shell corpus/sed corpus/patch corpus/rule_file corpus/keys corpus/template
printf '%s' "cd /repo && sed -i 's/a/b/' x.py && cat <<'EOF' > y.py
print(1)
EOF
python y.py | head -n 3 > out.txt 2>&1" > corpus/shell/heredoc
printf '%s' 'echo "x" >> a.txt; mv a.txt b.txt; rm -rf build/ || true' > corpus/shell/chain
printf '%s\n%s\n%s\n?\n%s\n' '2,4s/foo/bar/g;$d' 'foo 1' 'foo 2' 'last' > corpus/sed/range
printf '%s\n%s\n' '/start/,/end/{s/x/y/;p}' 'start x' > corpus/sed/block
printf '%s\n' 'diff --git a/x.py b/x.py' '--- a/x.py' '+++ b/x.py' '@@ -1,2 +1,2 @@' ' a' '-b' '+c' > corpus/patch/one
for f in ../rules/*.toml; do cp "$f" "corpus/rule_file/$(basename "$f")"; done
for k in 'ctrl-x' 'shift-tab' 'g g' 'alt-enter' 'f12' '?'; do printf '%s' "$k" > "corpus/keys/$(echo "$k" | md5sum | cut -c1-8)"; done
printf '%s' '<returncode>{{output.returncode}}</returncode>{% if output.output | length < 10 -%}{{ output.output[:5] }}{%- else -%}{% set n = output.output | length - 1 %}{{ n }}{%- endif %}' > corpus/template/mini

# detect sees everything.
mkdir -p corpus/detect
for d in corpus/*/; do
    case "$d" in corpus/detect/|corpus/shell/|corpus/sed/|corpus/patch/|corpus/rule_file/|corpus/keys/|corpus/template/) continue ;; esac
    cp "$d"* corpus/detect/ 2>/dev/null || true
done
for d in corpus/*/; do echo "$d: $(ls "$d" | wc -l) seeds"; done
