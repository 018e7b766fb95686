#!/usr/bin/env bash
# Install the newest releases of three agents that write logs trajscope reads, run each against
# the small local model of scripts/live-model.sh on a scratch repository, and leave their logs
# (with a manifest naming each writer's version) for tests/real_writers.rs to read.
#
#   scripts/real-writers.sh install        install (or upgrade to) the latest release of each writer
#   scripts/real-writers.sh run OUT        run them all; logs and OUT/manifest.json go to OUT
#
# Each writer lives in its own virtual environment (aider pins old versions of libraries the
# others share) under ${TRAJSCOPE_REAL_WRITERS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/trajscope/real-writers},
# so that a fresh clone (what CI runs on) reuses them; `install` asks PyPI for the newest
# release each time and upgrades only when there is one. The model's URL comes from
# TRAJSCOPE_LIVE_MODEL_URL, else from `scripts/live-model.sh url`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${TRAJSCOPE_REAL_WRITERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trajscope/real-writers}"
PYTHON="${TRAJSCOPE_PYTHON:-python3}"
WRITERS=(mini-swe-agent inspect-ai aider-chat)

log() { printf 'real-writers: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

venv_of() { printf '%s/venv-%s\n' "$CACHE" "$1"; }

installed_version() {
    local venv
    venv="$(venv_of "$1")"
    [ -x "$venv/bin/python" ] || return 1
    "$venv/bin/python" -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'
}

install_one() {
    local name="$1" venv
    venv="$(venv_of "$name")"
    if [ ! -x "$venv/bin/python" ]; then
        "$PYTHON" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
    fi
    log "installing the latest $name into $venv"
    "$venv/bin/python" -m pip install --quiet --upgrade "$name" >&2 || die "installing $name failed"
    log "$name $(installed_version "$name")"
}

install() {
    mkdir -p "$CACHE"
    (
        flock 9
        for name in "${WRITERS[@]}"; do install_one "$name"; done
    ) 9>"$CACHE/install.lock"
}

model_url() {
    if [ -n "${TRAJSCOPE_LIVE_MODEL_URL:-}" ]; then
        printf '%s\n' "${TRAJSCOPE_LIVE_MODEL_URL%/}"
    else
        "$ROOT/scripts/live-model.sh" url
    fi
}

case "${1:-}" in
    install) install ;;
    run)
        [ -n "${2:-}" ] || die "usage: $0 run OUT"
        install
        url="$(model_url)" || die "no live model: start it with scripts/live-model.sh start"
        mkdir -p "$2"
        "$PYTHON" "$ROOT/scripts/real_writers/run.py" --cache "$CACHE" --url "$url" --out "$2"
        ;;
    *) die "usage: $0 install|run OUT" ;;
esac
