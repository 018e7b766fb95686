#!/usr/bin/env bash
# Installs the engines the `--emit-sql` checks run on (tests/sql_engines.rs): DuckDB and
# PySpark, pinned, in ONE venv under ~/.cache/trajscope/engines, and a JRE for Spark only
# when `java` is missing. Idempotent: a venv with the pinned versions is left alone.
#
#   scripts/engines.sh          install (or check) and print the venv's python
set -euo pipefail

DUCKDB_VERSION=2.0.0
PYSPARK_VERSION=4.3.0
VENV="${TRAJSCOPE_ENGINES_VENV:-$HOME/.cache/trajscope/engines}"

if ! command -v java >/dev/null; then
    # Spark 4 runs on Java 17 or 21.
    apt-get update -qq && apt-get install -y -qq default-jre-headless >/dev/null
fi

stamp="$VENV/.pinned"
want="duckdb==$DUCKDB_VERSION pyspark==$PYSPARK_VERSION"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check $want
    echo "$want" >"$stamp"
fi
echo "$VENV/bin/python"
