"""Split an expression into numbers and operator tokens."""

OPERATORS = "+-*/()"


def tokenize(text):
    """Return the tokens of `text`: ints and one-character operator strings."""
    tokens = []
    number = ""
    for char in text:
        if char.isdigit():
            number += char
            continue
        if number:
            tokens.append(int(number))
            number = ""
        if char in OPERATORS:
            tokens.append(char)
        elif not char.isspace():
            raise ValueError(f"unexpected character {char!r}")
    if number:
        tokens.append(int(number))
    return tokens
