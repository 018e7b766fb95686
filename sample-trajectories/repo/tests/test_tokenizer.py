import unittest

from tinycalc.tokenizer import tokenize


class TokenizerTest(unittest.TestCase):
    def test_numbers_and_operators(self):
        self.assertEqual(tokenize("12 + 3*(4)"), [12, "+", 3, "*", "(", 4, ")"])

    def test_rejects_unknown_characters(self):
        with self.assertRaises(ValueError):
            tokenize("2 ^ 3")
