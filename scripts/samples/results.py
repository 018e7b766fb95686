"""Eval results next to the sample runs, in the shapes the SWE-bench tooling writes: harness
`report.json` per instance, run summaries `<model>.<run_id>.json`, an old-style `results.json`
(with the trailing comma real ones carry), and predictions (`preds.json`, `all_preds.jsonl`).

The verdicts follow each story: an agent that submitted a working fix is resolved, one that
submitted a broken or partial patch is not.
"""

import json
import os

from .mini_swe_agent import dump_json

TESTS = [
    "test_addition_and_subtraction (tests.test_evaluator.EvaluatorTest.test_addition_and_subtraction)",
    "test_exact_division (tests.test_evaluator.EvaluatorTest.test_exact_division)",
    "test_parentheses (tests.test_evaluator.EvaluatorTest.test_parentheses)",
    "test_precedence (tests.test_evaluator.EvaluatorTest.test_precedence)",
    "test_unary_minus (tests.test_evaluator.EvaluatorTest.test_unary_minus)",
    "test_numbers_and_operators (tests.test_tokenizer.TokenizerTest.test_numbers_and_operators)",
    "test_rejects_unknown_characters (tests.test_tokenizer.TokenizerTest.test_rejects_unknown_characters)",
]

HIDDEN = {
    "tinycalc__tinycalc-1": "test_true_division (tests.test_evaluator.EvaluatorTest.test_true_division)",
    "tinycalc__tinycalc-2": "test_decimals (tests.test_evaluator.EvaluatorTest.test_decimals)",
}


def harness_report(instance_id, resolved):
    hidden = HIDDEN[instance_id]
    return {
        instance_id: {
            "patch_is_None": False,
            "patch_exists": True,
            "patch_successfully_applied": True,
            "resolved": resolved,
            "tests_status": {
                "FAIL_TO_PASS": {"success": [hidden] if resolved else [], "failure": [] if resolved else [hidden]},
                "PASS_TO_PASS": {"success": TESTS, "failure": []},
                "FAIL_TO_FAIL": {"success": [], "failure": []},
                "PASS_TO_FAIL": {"success": [], "failure": []},
            },
        }
    }


def run_summary(submitted, resolved, errors=(), total=2):
    submitted = sorted(submitted)
    resolved = sorted(resolved)
    errors = sorted(errors)
    completed = [i for i in submitted if i not in errors]
    unresolved = [i for i in completed if i not in resolved]
    return {
        "total_instances": total,
        "submitted_instances": len(submitted),
        "completed_instances": len(completed),
        "resolved_instances": len(resolved),
        "unresolved_instances": len(unresolved),
        "empty_patch_instances": 0,
        "error_instances": len(errors),
        "completed_ids": completed,
        "incomplete_ids": [],
        "empty_patch_ids": [],
        "submitted_ids": submitted,
        "resolved_ids": resolved,
        "unresolved_ids": unresolved,
        "error_ids": errors,
        "schema_version": 2,
    }


def prediction(instance_id, model, patch):
    return {"model_name_or_path": model, "instance_id": instance_id, "model_patch": patch}


def write(out, patches):
    """`patches` maps a run folder to {instance_id: (model, patch)}."""
    one, two = "tinycalc__tinycalc-1", "tinycalc__tinycalc-2"

    # mini-swe-agent: preds.json and per-instance harness reports under eval_results/<model>/.
    for folder, instance, model in (
        ("mini-swe-agent", one, "anthropic/claude-haiku-4-5-20251001"),
        ("mini-swe-agent-v2", two, "openai/gpt-5-mini"),
    ):
        patch = patches[folder][instance]
        dump_json(os.path.join(out, folder, "preds.json"), {instance: prediction(instance, model, patch)})
        report = os.path.join(out, folder, "eval_results", model.replace("/", "__"), instance, "report.json")
        dump_json(report, harness_report(instance, True))

    # SWE-agent 1.1: preds.json and the harness's run summary, named <model>.<run_id>.json.
    dump_json(
        os.path.join(out, "swe-agent", "preds.json"),
        {one: prediction(one, "claude-sonnet-4-20250514", patches["swe-agent"][one])},
    )
    dump_json(os.path.join(out, "swe-agent", "claude-sonnet-4-20250514.swe-agent.json"), run_summary([one], [one]))

    # CodeR-style 0.x run: all_preds.jsonl and the old harness's results.json.
    with open(os.path.join(out, "swe-agent-coder", "all_preds.jsonl"), "w", encoding="utf-8") as f:
        f.write(json.dumps(prediction(one, "CodeR", patches["swe-agent-coder"][one])) + "\n")
    with open(os.path.join(out, "swe-agent-coder", "results.json"), "w", encoding="utf-8") as f:
        f.write(
            "{\n"
            '    "no_generation": [],\n'
            f'    "generated": [\n        "{one}"\n    ],\n'
            f'    "with_logs": [\n        "{one}",\n    ],\n'
            '    "install_fail": [],\n'
            '    "reset_failed": [],\n'
            '    "no_apply": [],\n'
            f'    "applied": [\n        "{one}"\n    ],\n'
            '    "test_errored": [],\n'
            '    "test_timeout": [],\n'
            '    "resolved": []\n'
            "}\n"
        )

    # OpenHands evaluation: a run summary for its output.jsonl.
    dump_json(
        os.path.join(out, "openhands", "eval-run", "openai__gpt-4o-2024-08-06.eval-run.json"),
        run_summary([one, two], [one]),
    )

    # The CLI agents were scored the same way, one run summary per folder.
    for folder, model, instance, resolved in (
        ("claude-code", "claude-sonnet-4-5-20250929", one, True),
        ("codex", "gpt-5-codex", one, True),
        ("aider", "claude-3-7-sonnet-20250219", one, True),
        ("llama", "llama-3.3-70b-instruct", one, False),
    ):
        dump_json(
            os.path.join(out, folder, f"{model}.{folder}.json"),
            run_summary([instance], [instance] if resolved else [], total=2),
        )
