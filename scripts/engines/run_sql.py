#!/usr/bin/env python3
"""Runs queries emitted by `trajscope stats --emit-sql` on a real engine and writes the rows.

    run_sql.py duckdb|spark JOBS.json

JOBS.json is a list of {"sql": FILE, "out": FILE}: each query is read from its file and its
rows written to `out` as a JSON list of objects (column -> value). Every job runs in the same
engine session: one Spark start-up (the slow part) for all of them. A failing query writes
{"error": message} to its `out` and the others still run. Used by tests/sql_engines.rs with the
venv scripts/engines.sh installs.
"""

import json
import sys


def run_duckdb(jobs):
    import duckdb

    con = duckdb.connect()
    for job in jobs:
        sql = open(job["sql"], encoding="utf-8").read()
        try:
            cur = con.execute(sql)
            names = [d[0] for d in cur.description]
            rows = [dict(zip(names, row)) for row in cur.fetchall()]
            result = rows
        except Exception as err:  # the message goes to the test's assertion
            result = {"error": str(err)}
        write(job["out"], result)


def run_spark(jobs):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("trajscope-sql-check")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        # The rules make very large expressions: generating and compiling Java for whole
        # stages of them costs far more than interpreting them (1g and codegen: no answer
        # for the corpus in 15 minutes; without: the samples in 5 under a load of 10).
        .config("spark.sql.codegen.wholeStage", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for job in jobs:
            sql = open(job["sql"], encoding="utf-8").read()
            try:
                rows = [r.asDict() for r in spark.sql(sql).collect()]
                result = rows
            except Exception as err:
                result = {"error": str(err)}
            write(job["out"], result)
    finally:
        spark.stop()


def write(path, result):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f)


def main():
    engine, jobs_file = sys.argv[1], sys.argv[2]
    jobs = json.load(open(jobs_file, encoding="utf-8"))
    {"duckdb": run_duckdb, "spark": run_spark}[engine](jobs)


if __name__ == "__main__":
    main()
