"""tinycalc: evaluate small arithmetic expressions such as "2 * (3 + 4)"."""

from .evaluator import evaluate

__all__ = ["evaluate"]
