"""Predictions of chat models: the code of a Markdown fence (CommonMark's fenced code blocks), and perfect
predictions ignoring whitespace. Every expected value is worked out by hand."""

from __future__ import annotations

import pytest

from revmine.metrics.normalize import fenced_code, normalize
from revmine.metrics.score import exact_ignoring_whitespace

ANSWER = """Sure! Here is the revised method:

```java
public int size() {
    return items.size();
}
```

It now delegates to the list, so the count can never be stale."""


@pytest.mark.parametrize("text, code", [
    (ANSWER, "public int size() {\n    return items.size();\n}"),
    ("```\nint a;\n```", "int a;"),  # no info string
    ("~~~ java {.numberLines}\nint a;\n~~~", "int a;"),  # tildes, an info string with spaces
    ("````\nint a;\n```\nint b;\n````\nafter", "int a;\n```\nint b;"),  # a shorter fence is content
    ("```\nint a;\n`````  \nafter", "int a;"),  # a longer closing fence, trailing spaces
    ("```java\nint a;\n~~~\nint b;", "int a;\n~~~\nint b;"),  # never closed (a truncated answer): to the end
    ("1. Change the loop:\n   ```java\n   for (x : xs) {\n     f(x);\n   }\n   ```\n2. Done.",
     "for (x : xs) {\n  f(x);\n}"),  # in a list item: the fence's indentation is removed from the content
    ("  ```\n    a\nb\n   c\n  ```", "  a\nb\n c"),  # content indented less than the fence loses what it has
    ("First:\r\n```\r\nint a;\r\n```\r\nthen:\r\n```\r\nint b;\r\n```", "int a;"),  # CRLF; the first block
    ("```\n```", ""),  # an empty block is empty code
])
def test_the_code_of_the_first_fenced_block(text: str, code: str) -> None:
    assert fenced_code(text) == code


@pytest.mark.parametrize("text", [
    "public int size() { return items.size(); }",  # code without a fence
    "use ```size()``` here",  # inline code, not a block
    "``` java `x`\nint a;",  # a backtick fence's info string may not hold a backtick: no fence opens
    "``\nint a;\n``",  # two backticks are not a fence
])
def test_no_fenced_block(text: str) -> None:
    assert fenced_code(text) is None


def test_normalize_counts_the_predictions_it_applied_to() -> None:
    texts = [ANSWER, "int a;", "```\n```", "``\nx\n``"]
    assert normalize(texts, "code-fence") == (
        ["public int size() {\n    return items.size();\n}", "int a;", "", "``\nx\n``"], 2)
    with pytest.raises(ValueError, match="unknown normalisation 'markdown'; known: code-fence"):
        normalize(texts, "markdown")


@pytest.mark.parametrize("prediction, reference, token_equal, loose_equal", [
    ("foo(a, b);", "foo ( a , b ) ;", False, True),  # formatted code against tokenised code
    ("foo ( a , b ) ;", "foo  (\ta ,\nb ) ;", True, True),  # spacing between tokens: equal either way
    ("if (x) {\n    y();\n}", "if ( x ) { y ( ) ; }", False, True),  # lines and indentation too
    ("if (x) {\n    y();\n}", "if ( x ) { y ( ) }", False, False),  # a token differs: ';'
    ("int x", "intx", False, True),  # the documented price: tokens may merge
    ("a", "b", False, False),
])
def test_exact_ignoring_whitespace(prediction: str, reference: str, token_equal: bool, loose_equal: bool) -> None:
    assert (prediction.split() == reference.split()) is token_equal
    assert exact_ignoring_whitespace(prediction, reference) is loose_equal
