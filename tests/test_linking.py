"""Linking reviewer comments to methods: every comment either links to one method or has a reason."""

from __future__ import annotations

import pytest

from revmine.preprocess.linking import comment_lines, count_lines, link_comment
from revmine.preprocess.methods import extract_methods
from revmine.schema import DropReason

SOURCE = """\
class Cart {                          // 1
  private int n;                      // 2
  /** Adds. */                        // 3
  @Override                           // 4
                                      // 5
  @Deprecated                         // 6
  public void add() {                 // 7
    Runnable r = new Runnable() {     // 8
      public void run() { n++; }      // 9
    };                                // 10
  }                                   // 11
  int size() {                        // 12
    return n;                         // 13
  }                                   // 14
}                                     // 15
"""
METHODS = extract_methods(SOURCE)
N_LINES = count_lines(SOURCE)


def test_the_file_has_two_methods_with_annotations_linked():
    assert [(m.signature, m.link_start, m.start_line, m.end_line) for m in METHODS] == [
        ("add()", 4, 7, 11),  # every annotation of the declaration, blank line or not; not the Javadoc
        ("size()", 12, 12, 14),
    ]


@pytest.mark.parametrize("comment, method", [
    ({"line": 7}, "add()"),
    ({"line": 4}, "add()"),  # on an annotation
    ({"line": 5}, "add()"),  # between two annotations
    ({"line": 9}, "add()"),  # in the anonymous class: the enclosing method
    ({"line": 13, "side": "REVISION"}, "size()"),
    ({"line": 13, "side": "RIGHT"}, "size()"),
    ({"line": 13, "side": "right"}, "size()"),
    ({"line": 1, "start_line": 12, "end_line": 14}, "size()"),  # the range wins over line
    ({"start_line": 9, "end_line": 12, "end_character": 0}, "add()"),  # selection ends before line 12
])
def test_linked(comment, method):
    link = link_comment(comment, METHODS, N_LINES)
    assert link.reason is None and link.method.signature == method


@pytest.mark.parametrize("comment, reason", [
    ({"line": None}, DropReason.FILE_COMMENT),
    ({"line": 13, "side": "PARENT"}, DropReason.WRONG_SIDE),
    ({"line": 13, "side": "LEFT"}, DropReason.WRONG_SIDE),
    ({"line": 2}, DropReason.OUTSIDE_METHOD),  # a field
    ({"line": 3}, DropReason.OUTSIDE_METHOD),  # Javadoc
    ({"line": 15}, DropReason.OUTSIDE_METHOD),
    ({"start_line": 10, "end_line": 13}, DropReason.SPANS_METHODS),
    ({"start_line": 2, "end_line": 8}, DropReason.PARTLY_OUTSIDE_METHOD),
    ({"start_line": 13, "end_line": 15}, DropReason.PARTLY_OUTSIDE_METHOD),
    ({"line": 16}, DropReason.LINE_OUT_OF_RANGE),  # after the final newline: no line
    ({"start_line": 14, "end_line": 16}, DropReason.LINE_OUT_OF_RANGE),
    ({"line": 0}, DropReason.LINE_OUT_OF_RANGE),
    ({"start_line": 9, "end_line": 8}, DropReason.LINE_OUT_OF_RANGE),
])
def test_unlinked_with_reason(comment, reason):
    link = link_comment(comment, METHODS, N_LINES)
    assert link.method is None and link.reason == reason and link.detail


def test_comment_lines():
    assert comment_lines({"line": 5}) == (5, 5)
    assert comment_lines({"line": 5, "start_line": 3, "end_line": 5}) == (3, 5)
    assert comment_lines({"start_line": 3, "end_line": 5, "end_character": 0}) == (3, 4)
    assert comment_lines({"start_line": 3, "end_line": 3, "end_character": 0}) == (3, 3)
    assert comment_lines({"line": None, "start_line": None}) is None


def test_count_lines():
    """A final newline ends the last line; it does not start one (Gerrit shows no empty line after it)."""
    assert [count_lines(s) for s in ("", "\n", "a", "a\n", "a\nb", "a\nb\n", "a\n\n")] == [0, 1, 1, 1, 2, 2, 2]


RECORD = """\
record Range(int lo, int hi) {        // 1
  Range {                             // 2
    check(lo, hi);                    // 3
  }                                   // 4
  Range(int lo) { this(lo, lo); }     // 5
  int $size() {                       // 6
    return hi - lo;                   // 7
  }                                   // 8
}                                     // 9
"""


@pytest.mark.parametrize("line, method", [(3, "Range(int lo, int hi)"), (5, "Range(int lo)"), (7, "$size()")])
def test_comments_in_a_record_link(line, method):
    link = link_comment({"line": line}, extract_methods(RECORD), count_lines(RECORD))
    assert link.reason is None and link.method.signature == method
