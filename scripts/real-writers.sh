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
# What a writer needs beside itself to talk to an OpenAI-compatible server: Inspect leaves its
# model providers' SDKs out ("OpenAI API requires optional dependencies").
declare -A EXTRAS=([inspect-ai]=openai)

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
    # shellcheck disable=SC2086 # EXTRAS holds package names, split on purpose
    if ! "$venv/bin/python" -m pip install --quiet --upgrade "$name" ${EXTRAS[$name]:-} >&2; then
        log "installing the latest $name failed"
        return 1
    fi
    log "$name $(installed_version "$name")"
}

# Installs every writer, even when one fails; the names of those that failed go to
# $CACHE/install-failed, so that `run` reports them (naming the release) instead of running an
# older version left in the venv.
install() {
    mkdir -p "$CACHE"
    (
        flock 9
        : >"$CACHE/install-failed"
        for name in "${WRITERS[@]}"; do
            install_one "$name" || echo "$name" >>"$CACHE/install-failed"
        done
        [ ! -s "$CACHE/install-failed" ]
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
        install || log "continuing: each writer that did not install is reported as failed"
        url="$(model_url)" || die "no live model: start it with scripts/live-model.sh start"
        mkdir -p "$2"
        "$PYTHON" "$ROOT/scripts/real_writers/run.py" --cache "$CACHE" --url "$url" --out "$2" \
            --install-failed "$CACHE/install-failed"
        ;;
    *) die "usage: $0 install|run OUT" ;;
esac
