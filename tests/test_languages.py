"""Languages as a setting: which files the miners keep, the rows' ``language``, the change's base, and the
files written before languages existed (still read, as Java)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.io.store import read_table
from revmine.lang.languages import LANGUAGES, check_languages, language_of
from revmine.miners import JobOptions, run_job
from revmine.miners.rounds import reads
from revmine.preprocess.candidates import preprocess
from revmine.schema import ROUNDS_SCHEMA, SCHEMA_KEY

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mining"
POLYGLOT = EXAMPLE / "repos" / "polyglot"

#: examples/mining/README.md, "example/polyglot": (change, file, language) -> comments, worked out by hand
POLYGLOT_ROWS = {
    ("301", "_hooks.py", "python"): 1, ("302", "_manager.py", "python"): 2,
    ("303", "_callers.py", "python"): 1, ("303", "_result.py", "python"): 1,
    ("401", "version4.go", "go"): 1, ("402", "uuid.go", "go"): 1, ("403", "version7.go", "go"): 3,
    ("501", "TPythonState.cpp", "cpp"): 2, ("502", "greenlet_greenlet.hpp", "cpp"): 1,
    ("503", "TThreadStateDestroy.cpp", "cpp"): 2, ("503", "greenlet_cpython_compat.hpp", "cpp"): 1,
}


@pytest.mark.parametrize(("path", "language"), [
    ("src/Main.java", "java"), ("pkg/mod.py", "python"), ("types.pyi", "python"), ("app.js", "javascript"),
    ("x.mjs", "javascript"), ("ui/View.jsx", "javascript"), ("src/index.ts", "typescript"), ("a.tsx", None),
    ("cmd/root.go", "go"), ("sds.c", "c"), ("db/db_impl.cc", "cpp"), ("x.cpp", "cpp"), ("x.hpp", "cpp"),
    ("Json.cs", "csharp"), ("README.md", None), ("Makefile", None), (None, None), ("A.JAVA", "java"),
])
def test_a_file_s_language_comes_from_its_extension(path, language):
    assert language_of(path) == language


@pytest.mark.parametrize(("text", "language"), [
    ("#ifndef SDS_H\n#define SDS_H\ntypedef char *sds;\nsds sdsnew(const char *init);\n#endif\n", "c"),
    ("#pragma once\nnamespace leveldb {\nclass Slice;\n}\n", "cpp"),
    ("#include <string>\nstruct Options { int n; };\n", "cpp"),
    ("template <typename T>\nT max(T a, T b);\n", "cpp"),
    ("struct a { int b; };\nint f(struct a *x);\n", "c"),
])
def test_a_header_is_cpp_when_its_text_uses_what_c_lacks(text, language):
    """linguist's rule for ``.h`` (worked out by hand on each snippet: namespace, a C++ standard header,
    a template make C++; plain structs and prototypes stay C)."""
    assert language_of("include/x.h", text) == language
    assert language_of("include/x.h") == "c"  # before its text is read


def test_which_files_the_miners_keep():
    assert reads("A.java") and not reads("a.py")  # Java by default, as the 2021 dataset
    assert reads("a.py", ("java", "python")) and not reads("a.go", ("java", "python"))
    assert reads("x.h", ("cpp",)) and reads("x.h", ("c",)) and not reads("x.h", ("java",))


def test_languages_are_checked():
    assert check_languages(["python", "java"]) == ("python", "java")
    with pytest.raises(InputError, match="unknown language 'kotlin'"):
        check_languages(["java", "kotlin"])
    with pytest.raises(InputError, match="named twice"):
        check_languages(["go", "go"])
    assert set(LANGUAGES) == {"java", "python", "javascript", "typescript", "go", "c", "cpp", "csharp", "php", "ruby"}


def _history() -> dict[str, dict]:
    doc = tomllib.loads((POLYGLOT / "history.toml").read_text(encoding="utf-8"))
    return {commit["id"]: commit for commit in doc["commits"]}


def _file_at(history: dict[str, dict], commit: str, path: str) -> str | None:
    """The text of ``path`` at ``commit``, from history.toml's file lists (a commit lists what it changes)."""
    while commit is not None:
        files = history[commit].get("files", {})
        if path in files:
            return (POLYGLOT / files[path]).read_text(encoding="utf-8")
        commit = history[commit].get("parent")
    return None


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> tuple[list[dict], list[dict]]:
    out = tmp_path_factory.mktemp("languages")
    run_job(EXAMPLE / "languages.toml", out / "four", JobOptions(progress=False))
    run_job(EXAMPLE / "job.toml", out / "java", JobOptions(progress=False))
    return (read_table(out / "four" / "rounds.parquet", expect=ROUNDS_SCHEMA).to_pylist(),
            read_table(out / "java" / "rounds.parquet", expect=ROUNDS_SCHEMA).to_pylist())


def test_the_polyglot_example_gives_the_rows_worked_out_by_hand(mined):
    four, _ = mined
    polyglot = [r for r in four if r["project"] == "example/polyglot"]
    assert Counter({(r["change"], r["path_before"].rsplit("/", 1)[-1], r["language"]): len(r["comments"])
                    for r in polyglot}) == Counter(POLYGLOT_ROWS)
    assert {r["file_status"] for r in polyglot} == {"modified"}


def test_every_row_holds_the_file_at_the_base_the_submitted_and_the_next_revision(mined):
    """Texts from history.toml and the released files it names, not from git: base, patch set 1, patch set 2."""
    four, _ = mined
    history = _history()
    checked = 0
    for row in (r for r in four if r["project"] == "example/polyglot"):
        change, path = row["change"], row["path_before"]
        assert row["content_before"] == _file_at(history, f"c{change}ps1", path)
        assert row["content_after"] == _file_at(history, f"c{change}ps2", path)
        assert row["content_base"] == _file_at(history, "base", path)  # None: the change adds the file
        checked += row["content_base"] is not None
    assert checked == 11 - 3  # 403's version7.go and 503's two files are added by their change


def test_java_rows_do_not_depend_on_the_other_languages_mined(mined):
    four, java = mined
    assert [r for r in four if r["language"] == "java"] == java
    assert {r["language"] for r in java} == {"java"}


def test_a_checkpoint_is_not_resumed_with_other_languages(tmp_path):
    run_job(EXAMPLE / "job.toml", tmp_path / "out", JobOptions(progress=False))
    with pytest.raises(InputError, match="checkpoint mined java, job asks for java, python"):
        run_job(EXAMPLE / "job.toml", tmp_path / "out", JobOptions(progress=False, languages=("java", "python")))


def _as_version_1(rounds: Path, old: Path) -> None:
    """``rounds`` rewritten as revmine wrote it before languages: no language nor content_base, tag rounds/1."""
    table = pq.read_table(rounds).drop_columns(["language", "content_base"])
    pq.write_table(table.replace_schema_metadata({SCHEMA_KEY: b"rounds/1"}), old)


def test_rounds_written_before_languages_are_read_as_java(tmp_path):
    run_job(EXAMPLE / "job.toml", tmp_path / "mined", JobOptions(progress=False))
    _as_version_1(tmp_path / "mined" / "rounds.parquet", tmp_path / "old.parquet")
    old = read_table(tmp_path / "old.parquet", expect=ROUNDS_SCHEMA)
    assert old.schema.names == ROUNDS_SCHEMA.names
    assert set(old.column("language").to_pylist()) == {"java"} and old.column("content_base").null_count == len(old)
    new, before = tmp_path / "new", tmp_path / "before"
    preprocess(tmp_path / "mined" / "rounds.parquet", new)
    preprocess(tmp_path / "old.parquet", before)
    for name in ("candidates.parquet", "dropped.parquet"):
        assert pq.read_table(before / name).equals(pq.read_table(new / name))
    with pytest.raises(InputError, match="did not record the change's base"):
        preprocess(tmp_path / "old.parquet", tmp_path / "hunks", levels=("hunk",))


def test_candidates_written_before_languages_are_read_by_the_filter_as_java(tmp_path):
    from revmine.filters.stage import filter_candidates

    run_job(EXAMPLE / "job.toml", tmp_path / "mined", JobOptions(progress=False))
    preprocess(tmp_path / "mined" / "rounds.parquet", tmp_path / "pre")
    table = pq.read_table(tmp_path / "pre" / "candidates.parquet")
    old = table.drop_columns(["language"]).replace_schema_metadata({SCHEMA_KEY: b"candidates/2"})
    pq.write_table(old, tmp_path / "old.parquet")
    now = filter_candidates(tmp_path / "pre" / "candidates.parquet", tmp_path / "f1")
    then = filter_candidates(tmp_path / "old.parquet", tmp_path / "f2")
    assert (now["kept"], now["dropped"]) == (then["kept"], then["dropped"]) and now["kept"] > 0
    assert pq.read_table(tmp_path / "f2" / "kept.parquet").column("language").to_pylist() == ["java"] * then["kept"]


@pytest.fixture(scope="module")
def four_languages(tmp_path_factory) -> Path:
    """``revmine run examples/languages.toml``: the bundled example in Java, Python, Go and C++, method and hunk
    level, through every stage."""
    out = tmp_path_factory.mktemp("run") / "out"
    done = subprocess.run(["revmine", "run", str(EXAMPLE.parent / "languages.toml"), "--out", str(out), "-q"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def test_a_job_in_four_languages_exports_each_at_method_and_hunk_level(four_languages):
    dataset = four_languages / "dataset"
    for config in ("triplets", "pairs"):
        rows = pa.concat_tables([pq.read_table(path) for path in sorted((dataset / "data" / config).glob("*.parquet"))])
        assert set(rows.column("language").to_pylist()) == {"java", "python", "go", "cpp"}, config
    hunks = pq.read_table(four_languages / "splits" / "hunks.parquet")
    for task in ("msg", "cls"):
        lines = [json.loads(line) for path in sorted((dataset / "codereviewer").glob(f"{task}-*.jsonl"))
                 for line in path.read_text(encoding="utf-8").splitlines()]
        assert {line["lang"] for line in lines} == {"java", "python", "go", "cpp"}, task
    assert len(hunks) > 0 and set(hunks.column("split").to_pylist()) <= {"train", "eval", "test"}
    dropped = pq.read_table(four_languages / "preprocessed" / "dropped.parquet").to_pylist()
    hunk_drops = [r for r in dropped if r["kind"] == "hunk_comment"]
    assert hunk_drops and all(r["language"] in ("java", "python", "go", "cpp") for r in hunk_drops)
    card = (dataset / "README.md").read_text(encoding="utf-8")
    assert "## Languages" in card and "## Hunk-level rows (CodeReviewer)" in card
    report = pq.read_table(four_languages / "filtered" / "filter_report.parquet").to_pylist()
    inputs = {r["language"]: r["remaining"] for r in report
              if r["kind"] == "pair" and r["filter"] == "input" and r["source"] == "all"}
    assert inputs["all"] == sum(n for language, n in inputs.items() if language != "all")


def test_unabstract_recovers_every_row_of_every_language(four_languages):
    """Each row's map gives back its code: Java's raw tokens as src2abs printed them, the others' token lines."""
    from revmine.preprocess.abstraction import Inverse, unabstract
    from revmine.preprocess.treeabstraction import raw_tokens

    rows = pa.concat_tables([pq.read_table(path) for path in
                             sorted((four_languages / "dataset" / "data").rglob("*.parquet"))]).to_pylist()
    checked = Counter()
    for row in rows:
        if row["language"] == "java":
            continue  # src2abs-exact: tests/test_abstraction.py recovers the 2021 package's raw files
        ids = Inverse(json.loads(row["abstraction_ids"]))  # id -> original, as stored
        assert unabstract(row["m_s_abstract"], ids) == raw_tokens(row["m_s"], row["language"])
        assert unabstract(row["m_r_abstract"], ids) == raw_tokens(row["m_r"], row["language"])
        checked[row["language"]] += 1
    assert set(checked) == {"python", "go", "cpp"}


def test_the_codereviewer_export_reads_back_to_the_same_rows(four_languages, tmp_path):
    """Each exported file, imported by ``revmine import codereviewer``, gives back the hunk rows it came from."""
    hunks = pq.read_table(four_languages / "splits" / "hunks.parquet").to_pylist()
    theirs = {"train": "train", "eval": "valid", "test": "test"}
    for split, name in theirs.items():
        mine = [h for h in hunks if h["split"] == split]
        for task in ("msg", "ref", "cls"):
            source = four_languages / "dataset" / "codereviewer" / f"{task}-{name}.jsonl"
            out = tmp_path / f"{task}-{name}"
            done = subprocess.run(["revmine", "import", "codereviewer", str(source), "--out", str(out), "-q"],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            back = pq.read_table(out / "candidates.parquet").to_pylist()
            got = Counter((r["m_s"], r["m_r"], r["comment"], r["language"]) for r in back)
            if task == "ref":
                want = Counter((h["old"], h["new"], h["comment"], h["language"]) for h in mine if h["y"])
            elif task == "msg":
                want = Counter((h["patch"], "", h["comment"], h["language"]) for h in mine if h["y"])
            else:
                first = {}
                for h in mine:
                    first.setdefault((h["round_id"], h["path"], h["hunk_index"]), h)
                want = Counter((h["patch"], "", h["comment"] if h["y"] else None, h["language"])
                               for h in first.values())
            assert got == want, (task, split)


def test_other_names_of_a_language_are_read_as_revmine_s(tmp_path):
    """CodeReviewer's files give ``lang`` as short codes (``py``, ``cs``...); CodeBLEU calls C# ``c_sharp``."""
    from revmine.lang.languages import canonical

    assert [canonical(n) for n in ("py", "JS", ".cs", "c_sharp", "c++", "java", "go")] == [
        "python", "javascript", "csharp", "csharp", "cpp", "java", "go"]
    record = {"patch": "@@ -1,1 +1,1 @@\n-a\n+b", "msg": "why b?", "y": 1, "lang": "py"}
    (tmp_path / "msg-test.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "imported"
    done = subprocess.run(["revmine", "import", "codereviewer", str(tmp_path / "msg-test.jsonl"), "--out", str(out),
                           "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out / "candidates.parquet").column("language").to_pylist() == ["python"]


def test_a_job_naming_a_language_without_its_grammar_stops_before_any_stage(tmp_path, monkeypatch):
    """The grammars come with the [languages] extra: a job that needs a missing one is refused at once,
    naming the job file, the key and the package to install, rather than after mining."""
    import importlib

    from revmine.lang import languages
    from revmine.pipeline import load_job

    real = importlib.import_module

    def without_go(name, *args):
        if name == "tree_sitter_go":
            raise ImportError(name)
        return real(name, *args)

    job = tmp_path / "job.toml"
    job.write_text((EXAMPLE / "languages.toml").read_text(encoding="utf-8").replace('recordings = "."',
                   f'recordings = "{EXAMPLE}"'), encoding="utf-8")
    monkeypatch.setattr(languages.importlib, "import_module", without_go)
    languages.grammar.cache_clear()
    try:
        with pytest.raises(InputError, match=r"job.toml \[job.languages\]: .*pip install tree-sitter-go"):
            load_job(job, tmp_path / "out")
    finally:
        languages.grammar.cache_clear()


def test_a_job_of_the_hunk_level_alone_exports_its_rows_and_says_what_each_level_holds(tmp_path):
    """``levels = ["hunk"]``: the export once stopped with "the splits have no rows" though preprocess wrote hunk
    rows. The counts expected are read from the split's ``hunks.parquet`` (distinct hunks, rows with ``y`` = 1)."""
    text = (EXAMPLE.parent / "languages.toml").read_text(encoding="utf-8")
    text = text.replace('levels = ["method", "hunk"]', 'levels = ["hunk"]').replace(
        'recordings = "mining"', f"recordings = {json.dumps(str(EXAMPLE))}")
    assert tomllib.loads(text)["preprocess"]["levels"] == ["hunk"]
    (tmp_path / "hunk.toml").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(["revmine", "run", str(tmp_path / "hunk.toml"), "--out", str(out), "-q"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = pq.read_table(out / "splits" / "hunks.parquet").to_pylist()
    hunks = {(r["round_id"], r["path"], r["hunk_index"]) for r in rows}
    comments = sum(r["y"] for r in rows)
    assert hunks and comments
    dataset = out / "dataset"
    assert sorted(p.name for p in dataset.iterdir()) == ["README.md", "codereviewer"]  # no method-level files
    lines = {task: sum(len(p.read_text(encoding="utf-8").splitlines())
                       for p in (dataset / "codereviewer").glob(f"{task}-*.jsonl")) for task in ("cls", "msg", "ref")}
    assert lines == {"cls": len(hunks), "msg": comments, "ref": comments}
    card = (dataset / "README.md").read_text(encoding="utf-8")
    assert "| method (Tufano et al., ICSE 2021) | a method before and after review | none | - |" in card
    assert f"{len(hunks):,} hunks (`cls`), {comments:,} reviewer comments (`msg`, `ref`)" in card
    assert "## Sizes" not in card and "## Hunk-level rows (CodeReviewer)" in card
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["export"]["result"]["levels"] == {"method": {}, "hunk": {"hunks": len(hunks), "comments": comments}}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert '<span data-level="method">no rows</span>' in report
    assert f'<span data-level="hunk">{len(hunks):,} hunks, {comments:,} reviewer comments on them</span>' in report


def test_the_card_of_a_method_and_hunk_job_says_what_each_level_holds(four_languages):
    """The method level's counts are the splits' rows per kind, the hunk level's the hunks and comments."""
    splits = pa.concat_tables([pq.read_table(four_languages / "splits" / f"{n}.parquet", columns=["kind"])
                               for n in ("train", "eval", "test")])
    kinds = Counter(splits.column("kind").to_pylist())
    rows = pq.read_table(four_languages / "splits" / "hunks.parquet").to_pylist()
    hunks = len({(r["round_id"], r["path"], r["hunk_index"]) for r in rows})
    card = (four_languages / "dataset" / "README.md").read_text(encoding="utf-8")
    assert f"| {kinds['triplet']:,} triplets, {kinds['pair']:,} pairs |" in card
    assert f"| {hunks:,} hunks (`cls`), {sum(r['y'] for r in rows):,} reviewer comments (`msg`, `ref`) |" in card
    report = (four_languages / "report.html").read_text(encoding="utf-8")
    assert f'<span data-level="method">{kinds["triplet"]:,} triplets, {kinds["pair"]:,} pairs</span>' in report


def test_split_hunk_rows_of_the_first_version_export_as_before(four_languages, tmp_path):
    """``hunk_dataset/1`` (before ``task`` and ``record``): every row was mined, and exports as such."""
    import shutil

    from revmine.dataset.export import ExportOptions, export_dataset

    splits = tmp_path / "splits"
    shutil.copytree(four_languages / "splits", splits)
    table = pq.read_table(splits / "hunks.parquet").drop_columns(["task", "record"])
    pq.write_table(table.replace_schema_metadata({SCHEMA_KEY: b"hunk_dataset/1"}), splits / "hunks.parquet")
    export_dataset(splits, tmp_path / "dataset", ExportOptions(formats=("codereviewer",)))
    for path in sorted((four_languages / "dataset" / "codereviewer").iterdir()):
        assert (tmp_path / "dataset" / "codereviewer" / path.name).read_bytes() == path.read_bytes(), path.name
