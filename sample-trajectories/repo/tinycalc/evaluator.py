"""Evaluate tokens with the usual precedence: * and / before + and -."""

from .tokenizer import tokenize


def evaluate(text):
    """Evaluate an arithmetic expression such as "2 * (3 + 4)"."""
    value, rest = _sum(tokenize(text))
    if rest:
        raise ValueError(f"unexpected token {rest[0]!r}")
    return value


def _sum(tokens):
    value, tokens = _product(tokens)
    while tokens and tokens[0] in ("+", "-"):
        op, tokens = tokens[0], tokens[1:]
        right, tokens = _product(tokens)
        if op == "+":
            value = value + right
        else:
            value = value - right
    return value, tokens


def _product(tokens):
    value, tokens = _atom(tokens)
    while tokens and tokens[0] in ("*", "/"):
        op, tokens = tokens[0], tokens[1:]
        right, tokens = _atom(tokens)
        if op == "*":
            value = value * right
        else:
            value = value // right
    return value, tokens


def _atom(tokens):
    if not tokens:
        raise ValueError("unexpected end of expression")
    token, tokens = tokens[0], tokens[1:]
    if token == "(":
        value, tokens = _sum(tokens)
        if not tokens or tokens[0] != ")":
            raise ValueError("missing closing parenthesis")
        return value, tokens[1:]
    if token == "-":
        value, tokens = _atom(tokens)
        return -value, tokens
    if isinstance(token, int):
        return token, tokens
    raise ValueError(f"unexpected token {token!r}")
