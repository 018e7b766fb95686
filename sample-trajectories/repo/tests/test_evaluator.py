import unittest

from tinycalc import evaluate


class EvaluatorTest(unittest.TestCase):
    def test_addition_and_subtraction(self):
        self.assertEqual(evaluate("1 + 2 - 4"), -1)

    def test_precedence(self):
        self.assertEqual(evaluate("2 + 3 * 4"), 14)

    def test_parentheses(self):
        self.assertEqual(evaluate("2 * (3 + 4)"), 14)

    def test_exact_division(self):
        self.assertEqual(evaluate("8 / 2"), 4)

    def test_unary_minus(self):
        self.assertEqual(evaluate("-3 + 5"), 2)
