"""``revmine score --lang-field`` with ``lang=auto``: every example scored in its own language, in one run.

Real code: the functions Lizard finds changed between the ``before`` and ``after`` of commits of
``code_revisions`` (``test_metrics_languages.functions``), hypothesis the version before, reference the
version after, in three languages interleaved row by row. The expected value of every row is computed by the
independent path users had before: each language's rows scored alone with the explicit ``lang=<language>``.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_metrics_languages import functions

from revmine.cli import main
from revmine.errors import InputError
from revmine.metrics import compute, corpus_score
from revmine.metrics.codebleu import CodeBLEU
from revmine.metrics.score import ScoreOptions
from revmine.package import __version__

#: three languages both TREED and CodeBLEU read (CodeBLEU has no TypeScript)
LANGS = ("python", "go", "javascript")
PER_LANGUAGE = 6
METRICS = "treed(lang=auto), codebleu(lang=auto)"
GRAMMARS = {"python": "tree-sitter-python", "go": "tree-sitter-go", "javascript": "tree-sitter-javascript"}


def rows() -> list[dict]:
    """Per language its first ``PER_LANGUAGE`` changed functions of at most 1,500 characters, interleaved
    (python, go, javascript, python...), so that every language's rows are scattered through the file; k=2,
    the second prediction the reference itself."""
    chosen = {lang: [pair for pair in functions()[lang] if max(map(len, pair)) <= 1500][:PER_LANGUAGE]
              for lang in LANGS}
    assert all(len(pairs) == PER_LANGUAGE for pairs in chosen.values())  # the fixture has them: never empty
    return [{"id": f"{lang}-{i}", "prediction": [before, after], "reference": after, "language": lang}
            for i in range(PER_LANGUAGE) for lang in LANGS for before, after in [chosen[lang][i]]]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def score(path: Path, out: Path, *extra: str) -> dict:
    assert main(["score", str(path), "--lang-field", "language", "--metrics", METRICS, "--out", str(out),
                 *extra]) == 0
    return json.loads((out / "summary.json").read_text())


def expected(records: list[dict], spec: str) -> np.ndarray:
    """Each row's value with its language's explicit metric, every language's rows scored alone."""
    values = np.full((len(records), 2), np.nan)
    for lang in LANGS:
        rows_of = [i for i, r in enumerate(records) if r["language"] == lang]
        hyps = [h for i in rows_of for h in records[i]["prediction"]]
        refs = [records[i]["reference"] for i in rows_of for _ in range(2)]
        values[rows_of] = np.reshape(compute(spec.format(lang=lang), hyps, refs), (-1, 2))
    return values.ravel()


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], Path, dict]:
    tmp = tmp_path_factory.mktemp("mixed")
    records = rows()
    path = write_jsonl(tmp / "mixed.jsonl", records)
    return records, tmp, score(path, tmp / "out")


def test_every_row_equals_its_language_scored_alone(scored) -> None:
    records, tmp, summary = scored
    table = pq.read_table(tmp / "out" / "scores.parquet")
    assert table.column("id").to_pylist() == [r["id"] for r in records for _ in range(2)]
    for column, spec in (("treed", "treed(lang={lang})"), ("codebleu", "codebleu(lang={lang})")):
        values = table.column(column).to_numpy()
        np.testing.assert_array_equal(values, expected(records, spec))
        assert np.isfinite(values).sum() > len(records)  # real values: most functions parse
    # the second prediction is the reference: TREED 0 where the function parses, every example perfect at k=2
    identical = table.column("treed").to_numpy()[1::2]
    assert (identical[np.isfinite(identical)] == 0).all()
    assert summary["per_k"][1]["perfect"] == len(records)
    # the Python API takes the languages per hypothesis
    rank1 = [r["prediction"][0] for r in records]
    np.testing.assert_array_equal(compute("treed(lang=auto)", rank1, [r["reference"] for r in records],
                                          languages=[r["language"] for r in records]),
                                  table.column("treed").to_numpy()[::2])
    with pytest.raises(TypeError, match="languages="):
        compute("treed(lang=auto)", rank1, [r["reference"] for r in records])


def test_chunks_workers_and_parquet_give_the_same_scores(scored, monkeypatch: pytest.MonkeyPatch) -> None:
    records, tmp, _ = scored
    whole = pq.read_table(tmp / "out" / "scores.parquet")
    # chunks of 5 predictions: most hold two or three languages, some one; worker processes score pieces
    monkeypatch.setattr("revmine.metrics.score.STREAM_CHUNK", 5)
    score(tmp / "mixed.jsonl", tmp / "chunked", "--workers", "2")
    pq.write_table(pa.Table.from_pylist(records), tmp / "mixed.parquet")
    score(tmp / "mixed.parquet", tmp / "parquet")
    for out in ("chunked", "parquet"):
        table = pq.read_table(tmp / out / "scores.parquet")
        for column in ("treed", "codebleu"):
            np.testing.assert_array_equal(table.column(column).to_numpy(), whole.column(column).to_numpy())
        assert table.schema.metadata[b"revmine.signatures"] == whole.schema.metadata[b"revmine.signatures"]


def test_signature_records_auto_and_the_grammars_met(scored) -> None:
    _, tmp, summary = scored
    parsers = ",".join(f"{lang}={GRAMMARS[lang]}-{version(GRAMMARS[lang])}" for lang in sorted(LANGS))
    assert summary["signatures"]["treed"] == (f"treed|lang:auto|parser:{parsers}|labels:type+leaf|cost:unit|norm:sum|"
                                              f"repair:none|wrap:stmt+expr|fallback:nan|version:{__version__}")
    assert summary["signatures"]["codebleu"] == (f"codebleu|lang:auto|parser:{parsers}|keywords:codexglue|alpha:0.25|"
                                                 f"beta:0.25|gamma:0.25|theta:0.25|version:{__version__}")
    stored = json.loads(pq.read_table(tmp / "out" / "scores.parquet").schema.metadata[b"revmine.signatures"])
    assert stored == summary["signatures"]


def test_corpus_codebleu_sums_every_languages_statistics(scored) -> None:
    records, tmp, summary = scored
    # the evaluator's corpus form: statistics summed over the rank-1 rows, each its language's, formula once
    total = sum(CodeBLEU(lang=lang).segment_statistics([r["prediction"][0] for r in records if r["language"] == lang],
                                                       [[r["reference"]] for r in records if r["language"] == lang])
                .sum(axis=0) for lang in LANGS)
    assert summary["corpus_rank1"]["codebleu"] == pytest.approx(CodeBLEU().corpus_from_statistics(total[None, :]),
                                                                abs=1e-12)
    assert "treed" not in summary["corpus_rank1"]  # TREED has no corpus form, auto or not
    # one language only: the corpus value is that language's (what corpus_score gives with lang=python)
    python = [r for r in records if r["language"] == "python"]
    only = score(write_jsonl(tmp / "python.jsonl", python), tmp / "python-out")
    assert only["corpus_rank1"]["codebleu"] == pytest.approx(
        corpus_score("codebleu(lang=python)", [r["prediction"][0] for r in python], [r["reference"] for r in python])
        .score, abs=1e-12)


def errors(tmp: Path, capsys, records: list[dict], *argv: str) -> str:
    path = write_jsonl(tmp / "bad.jsonl", records)
    assert main(["score", str(path), *argv, "--out", str(tmp / "bad")]) == 2
    assert not (tmp / "bad" / "scores.parquet").exists()
    return capsys.readouterr().err


def test_errors_name_the_setting_or_the_row(tmp_path: Path, capsys) -> None:
    records = rows()[:4]
    auto = ["--metrics", METRICS]
    err = errors(tmp_path, capsys, records, *auto)
    assert "lang_field" in err and "--lang-field" in err and "treed(lang=auto)" in err
    with pytest.raises(InputError, match="lang_field"):
        ScoreOptions(predictions=tmp_path / "bad.jsonl", metrics=("codebleu(lang=auto)",))
    unknown = [*records[:2], {**records[2], "language": "cobol"}, records[3]]
    err = errors(tmp_path, capsys, unknown, "--lang-field", "language", *auto)
    assert "bad.jsonl:3 [language]: unknown language 'cobol'" in err
    # TypeScript is TREED's but not CodeBLEU's: with both, the row is refused before any scoring
    typescript = [*records[:3], {**records[3], "language": "typescript"}]
    assert "bad.jsonl:4 [language]: unknown language 'typescript'" in errors(tmp_path, capsys, typescript,
                                                                             "--lang-field", "language", *auto)
    missing = [records[0], {k: v for k, v in records[1].items() if k != "language"}]
    assert "bad.jsonl:2 [language]: missing language" in errors(tmp_path, capsys, missing, "--lang-field",
                                                                "language", *auto)
    assert "no language field 'lang'" in errors(tmp_path, capsys, records, "--lang-field", "lang", *auto)
    assert "ruby takes none" in errors(tmp_path, capsys, records, "--lang-field", "language", "--metrics",
                                       "ruby(lang=auto)")
