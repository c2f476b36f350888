"""PHP and Ruby through every stage, on real released files: ``tests/data/php_ruby_revisions`` (16 real revisions
of guzzle/psr7's and rack's sources, MIT; README.md there gives commits and licences).

References are independent of the code under test: ``git diff -U3`` (hunks), Lizard (which functions, where they
end), Pygments' lexers (the tokens' text), and the abstraction's own inverse; the round and its comment are
written here on the lines git says the commit changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import lizard
import pyarrow as pa
import pytest
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment

from revmine.io.store import read_table, write_table
from revmine.lang.idioms import default_idioms
from revmine.lang.languages import canonical, language_of
from revmine.lang.representations import token_stream
from revmine.metrics.tokens import code_tokens
from revmine.metrics.tree import TreeEditSimilarity, method_tree
from revmine.preprocess.abstraction import unabstract
from revmine.preprocess.candidates import preprocess
from revmine.preprocess.functions import extract_functions
from revmine.preprocess.hunks import diff_hunks
from revmine.preprocess.treeabstraction import abstract_code, raw_tokens
from revmine.schema import ROUNDS_SCHEMA

sys.path.insert(0, str(Path(__file__).resolve().parent))

from git_diff import git_hunks, header_numbers  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "php_ruby_revisions" / "revisions.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
LANGUAGES = ("php", "ruby")


def _sides():
    for row in ROWS:
        for side in ("before", "after"):
            yield row, row[side]


def test_the_files_are_php_and_ruby_by_their_names():
    assert len(ROWS) == 16 and {row["language"] for row in ROWS} == set(LANGUAGES)
    assert all(language_of(row["path"]) == row["language"] for row in ROWS)
    assert canonical("rb") == "ruby" and language_of("Rakefile.rake") == "ruby"


def test_hunks_are_git_diffs_byte_for_byte(tmp_path):
    for row in ROWS:
        assert [h.text for h in diff_hunks(row["before"], row["after"])] == \
            git_hunks(tmp_path, row["before"], row["after"]), row["commit"]


def test_functions_are_lizards_where_it_names_them():
    """Every function read from the tree is one Lizard finds with the same name and end line, but Ruby's operator
    methods (``def =~(other)``), which Lizard does not name."""
    read = unmatched = 0
    for row, text in _sides():
        lizard_functions = {(f.name.replace("::", ".").split(".")[-1], f.end_line)
                            for f in lizard.analyze_file.analyze_source_code(row["path"], text).function_list}
        for method in extract_functions(text, row["language"]):
            read += 1
            if (method.name, method.end_line) not in lizard_functions:
                assert not method.name[0].isalpha(), (row["path"], method.name)
                unmatched += 1
    assert (read, unmatched) == (170, 4)


def _pygments_text(code: str, language: str) -> str:
    """The code's characters outside comments and whitespace as Pygments lexes them; Ruby's explicit line joining
    (a backslash ending a line) is whitespace, as Python's."""
    if language == "ruby":
        code = code.replace("\\\n", "")
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False, **({"startinline": True}
                                                                          if language == "php" else {}))
    return "".join("".join(text.split()) for kind, text in lexer.get_tokens(code) if kind not in Comment)


def test_tokens_abstraction_and_its_inverse_on_every_function():
    """The tokens are the code's characters as Pygments lexes them, comments and whitespace aside; the abstraction
    with the shipped idioms gives them back exactly; the token streams classify every token."""
    checked, ids = dict.fromkeys(LANGUAGES, 0), dict.fromkeys(LANGUAGES, 0)
    for row, text in _sides():
        language = row["language"]
        for method in extract_functions(text, language):
            raw = raw_tokens(method.text, language)
            assert "".join(raw.split()) == _pygments_text(method.text, language), method.text
            result = abstract_code(method.text, language)
            assert unabstract(result.code, result) == raw
            ids[language] += sum(token.startswith(("VAR_", "METHOD_", "TYPE_")) for token in result.code.split())
            tokens = token_stream(method.text, language)
            assert "".join("".join(t.text.split()) for t in tokens) == "".join(raw.split())
            assert all(t.kind != "unknown" for t in tokens), [t for t in tokens if t.kind == "unknown"]
            assert code_tokens(method.text, language)
            checked[language] += 1
    assert checked == {"php": 76, "ruby": 94} and all(ids.values())


def test_idioms_are_counted_lists_and_stay_in_the_abstraction():
    for language in LANGUAGES:
        idioms = default_idioms(language)
        assert len(idioms) == 300
    result = abstract_code("def call(env)\n  status, headers, body = @app.call(env)\nend\n", "ruby")
    # counted from Ruby code: `call`, `env`, `status`, `headers`, `body` are idioms, rack's `@app` is not
    assert result.code == "def call ( env ) status , headers , body = VAR_1 . call ( env ) end"
    result = abstract_code("public function f($zq) { return $this->count($zq); }", "php")
    assert result.code == "public function METHOD_1 ( $ VAR_1 ) { return $ this -> count ( $ VAR_1 ) ; }"


def test_tree_metrics_read_the_functions():
    for language in LANGUAGES:
        pairs = []
        for row in ROWS:
            if row["language"] != language:
                continue
            before = {m.name: m.text for m in extract_functions(row["before"], language)}
            pairs += [(before[m.name], m.text) for m in extract_functions(row["after"], language) if m.name in before]
        trees = [method_tree(code, lang=language) for pair in pairs for code in pair]
        assert pairs and all(tree is not None for tree in trees), language
        scores = TreeEditSimilarity(lang=language).sentence_scores([a for _, a in pairs], [b for b, _ in pairs])
        same = [b == a for b, a in pairs]
        assert all((score == 1.0) == equal for score, equal in zip(scores, same)), language


def _changed_lines(tmp: Path, row: dict) -> tuple[int, int]:
    """From git's diff of the row: the first line of ``before`` the commit removed and the first line of ``after``
    it added (1 when it has none)."""
    old = new = None
    for hunk in git_hunks(tmp, row["before"], row["after"]):
        a, _, c, _ = header_numbers(hunk)
        for line in hunk.split("\n")[1:]:
            if line.startswith("-") and old is None:
                old = a
            if line.startswith("+") and new is None:
                new = c
            a += line[:1] in (" ", "-")
            c += line[:1] in (" ", "+")
    return old or 1, new or 1


def _comment(cid: str, line: int) -> dict:
    return {"id": cid, "author": "reviewer", "is_owner": False, "side": "REVISION", "line": line,
            "message": f"Please look at this again ({cid}).", "in_reply_to": None}


def test_review_rounds_give_method_and_hunk_rows(tmp_path):
    """Each real revision as two rounds written here: before -> after with a comment on the first line the commit
    changed (a method-level triplet and pair), and after reviewed against before as the change's base with a
    comment on its first added line (a hunk row, y = 1, whose patch is git's hunk holding that line)."""
    rounds, wanted = [], {}
    for n, row in enumerate(ROWS):
        old, new = _changed_lines(tmp_path, row)
        common = {"source": "gerrit", "host": "h", "project": row["repo"], "round": 1, "path_before": row["path"],
                  "path_after": row["path"], "file_status": "modified", "language": row["language"]}
        rounds.append({**common, "round_id": f"gerrit:h:p:{n}m:1", "change": f"{n}m", "content_before": row["before"],
                       "content_after": row["after"], "comments": [_comment(f"m{n}", old)]})
        rounds.append({**common, "round_id": f"gerrit:h:p:{n}h:1", "change": f"{n}h", "content_base": row["before"],
                       "content_before": row["after"], "content_after": row["after"], "comments": [_comment(f"h{n}", new)]})
        wanted[f"h{n}"] = next(h for h in git_hunks(tmp_path, row["before"], row["after"])
                               if header_numbers(h)[2] <= new < header_numbers(h)[2] + header_numbers(h)[3])
    write_table(pa.Table.from_pylist(rounds, schema=ROUNDS_SCHEMA), tmp_path / "rounds.parquet", ROUNDS_SCHEMA)
    counts = preprocess(tmp_path / "rounds.parquet", tmp_path / "out", levels=("method", "hunk"))
    candidates = read_table(tmp_path / "out" / "candidates.parquet").to_pylist()
    for language in LANGUAGES:
        kinds = {r["kind"] for r in candidates if r["language"] == language}
        assert kinds == {"triplet", "pair"}, language
    for row in candidates:  # abstracted with the language's rules and idioms, m_s first
        assert row["m_s_abstract"] == abstract_code(row["m_s"], row["language"]).code
    hunks = [r for r in read_table(tmp_path / "out" / "hunks.parquet").to_pylist() if r["y"] == 1]
    assert {r["comment_id"]: r["patch"] for r in hunks if r["comment_id"].startswith("h")} == wanted
    assert counts["hunk_comments"] == 2 * len(ROWS)  # the method rounds have no base: their file is all added
