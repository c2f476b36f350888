"""The score stage: perfect predictions at k reproduce the published figures; outputs are written atomically."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.metrics.base import Metric
from revmine.metrics.predictions import read_predictions
from revmine.metrics.score import best_of_k, score_predictions, write_run
from revmine.schema import schema_id

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "predictions_k3.txt"

# Tufano et al. 2021, "Towards Automating Code Review Activities": perfect predictions out of 1,719.
# Each file is its own beam search, so only its own k is published (the k=3 beam's top-1 is not k=1's).
PUBLISHED = [
    ("1-encoder_k1_abstracted.txt", {1: 50}),
    ("1-encoder_k3_abstracted.txt", {3: 156}),
    ("1-encoder_k5_abstracted.txt", {5: 200}),
    ("1-encoder_k10_abstracted.txt", {10: 271}),
    ("2-encoder_k1_abstracted.txt", {1: 209}),
]


@pytest.mark.parametrize("name, expected", PUBLISHED)
def test_perfect_predictions_match_the_paper(tufano_dir: Path, name: str, expected: dict[int, int]) -> None:
    run = score_predictions(read_predictions(tufano_dir / "predictions" / name), [])
    per_k = {e["k"]: e for e in run.summary["per_k"]}
    for k, count in expected.items():
        assert per_k[k]["perfect"] == count
        assert per_k[k]["perfect_pct"] == round(100 * count / 1719, 2)


class _Length(Metric):
    """A toy metric (token count difference) whose values are easy to work out by hand."""

    name = "lendiff"
    higher_is_better = False

    def settings(self) -> dict[str, object]:
        return {"tok": "space"}

    def sentence_scores(self, hypotheses, references):
        return np.array([abs(len(h.split()) - len(r.split())) for h, r in zip(hypotheses, references)], float)


def test_hand_counted_example_and_outputs(tmp_path: Path) -> None:
    run = score_predictions(read_predictions(EXAMPLE), [_Length()])
    assert [e["perfect"] for e in run.summary["per_k"]] == [2, 4, 4]  # see examples/quickstart/README.md
    paths = write_run(run, tmp_path / "out")
    table = pq.read_table(paths["scores"])
    assert schema_id(table.schema) == "scores/2"
    assert table.num_rows == 18 and table.column_names[-1] == "lendiff"
    assert json.loads(table.schema.metadata[b"revmine.signatures"])["lendiff"].startswith("lendiff|tok:space|")
    assert table.column("perfect_at_k").to_pylist()[:3] == [False, True, True]
    summary = json.loads(paths["summary_json"].read_text())
    assert summary["per_k"][0]["perfect"] == 2
    assert "| 2 | 4 | 66.67 |" in paths["summary_md"].read_text()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["scores.parquet", "summary.json", "summary.md"]


def test_best_of_k_prefers_lower_distances_and_skips_nan() -> None:
    values = np.array([3.0, 1.0, np.nan, np.nan, np.nan, 2.0])  # 2 examples, k=3
    assert best_of_k(values, 2, 3, 2, higher_is_better=False).tolist()[0] == 1.0
    assert np.isnan(best_of_k(values, 2, 3, 2, higher_is_better=False)[1])
    assert best_of_k(values, 2, 3, 3, higher_is_better=True).tolist() == [3.0, 2.0]


def test_failed_write_leaves_previous_output(tmp_path: Path) -> None:
    run = score_predictions(read_predictions(EXAMPLE), [_Length()])
    paths = write_run(run, tmp_path)
    before = paths["scores"].read_bytes()

    class Broken(_Length):
        name = "broken"

        def sentence_scores(self, hypotheses, references):
            return np.zeros(3)

    with pytest.raises(RuntimeError, match="returned"):
        score_predictions(read_predictions(EXAMPLE), [Broken()])
    run.table = run.table.drop_columns(["prediction"])  # no longer fits the schema: writing must fail
    with pytest.raises(Exception):
        write_run(run, tmp_path)
    assert paths["scores"].read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.parquet", "summary.json", "summary.md"]


def test_infinite_scores_are_counted_not_averaged_and_json_stays_valid(tmp_path: Path) -> None:
    from revmine.metrics.edit import SED
    from revmine.metrics.predictions import Predictions

    # SED by reference length is d/|ref|: infinite for an empty reference, 1/2 for "a b" -> "a c"
    preds = Predictions([["x"], ["a c"], ["a b"]], ["", "a b", "a b"])
    run = score_predictions(preds, [SED(normalize="ref")])
    stats = run.summary["per_k"][0]["metrics"]["sed_ref"]["all"]
    assert stats["infinite"] == 1 and stats["missing"] == 0
    assert stats["mean"] == pytest.approx(0.25) and stats["median"] == pytest.approx(0.25)
    paths = write_run(run, tmp_path)
    json.loads(paths["summary_json"].read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


def test_corpus_bleu_of_rank_one_predictions_is_reported() -> None:
    import sacrebleu

    from revmine.metrics.bleu import BLEU

    preds = read_predictions(EXAMPLE)
    run = score_predictions(preds, [BLEU(), _Length()])
    top = [beam[0] for beam in preds.predictions]
    expected = sacrebleu.corpus_bleu(top, [preds.references], tokenize="none").score / 100
    assert run.summary["corpus_rank1"] == {"bleu4": pytest.approx(expected, abs=1e-9)}  # no corpus level: lendiff


def test_outputs_get_ordinary_permissions(tmp_path: Path) -> None:
    import os

    umask = os.umask(0o022)
    try:
        paths = write_run(score_predictions(read_predictions(EXAMPLE), [_Length()]), tmp_path)
    finally:
        os.umask(umask)
    assert {oct(p.stat().st_mode & 0o777) for p in paths.values()} == {"0o644"}


class _Sequential(_Length):
    """Not parallel-safe: must be scored in the calling process, on the whole list."""

    name = "sequential"
    parallel_safe = False

    def sentence_scores(self, hypotheses, references):
        return np.arange(len(hypotheses), dtype=float)  # depends on the position in the batch


def test_workers_give_byte_identical_scores(tufano_dir: Path) -> None:
    from revmine.metrics.cmg2022 import WordEditRate
    from revmine.metrics.predictions import Predictions
    from revmine.metrics.registry import default_metrics

    full = read_predictions(tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt")
    beams = [list(b) for b in full.predictions[:30]] + [["", "same", "same"] + [""] * 7, ["x"] * 10]
    preds = Predictions(beams, full.references[:30] + ["same", ""])
    metrics = default_metrics("nl") + [WordEditRate(), _Length(), _Sequential()]
    one = score_predictions(preds, metrics)
    two = score_predictions(preds, metrics, workers=2)
    assert one.table.schema == two.table.schema  # NaNs (WordEditRate on empty text) defeat Table.equals
    for name in one.table.column_names:
        a, b = one.table.column(name), two.table.column(name)
        if a.type == "double":
            assert a.to_numpy().tobytes() == b.to_numpy().tobytes(), name
        else:
            assert a.to_pylist() == b.to_pylist(), name
    assert json.dumps(one.summary) == json.dumps(two.summary)
    assert np.isnan(two.table.column("ter_cmg2022").to_numpy()).any()
    assert two.table.column("sequential").to_numpy().tolist() == list(range(preds.k * len(beams)))
    with pytest.raises(InputError, match="workers"):
        score_predictions(preds, metrics, workers=0)


def test_unpicklable_metric_is_scored_here_with_a_warning() -> None:
    class Local(_Length):  # defined in a function: cannot be pickled
        name = "local"

    run = score_predictions(read_predictions(EXAMPLE), [Local()], workers=1)
    with pytest.warns(RuntimeWarning, match="cannot be sent"):
        two = score_predictions(read_predictions(EXAMPLE), [Local()], workers=2)
    assert run.table.equals(two.table)


def test_chunk_bounds_cover_in_order_on_beam_boundaries() -> None:
    from revmine.metrics.score import chunk_bounds

    for n, workers, k in [(17190, 2, 10), (5, 2, 10), (7, 3, 1), (1, 4, 1), (0, 2, 3), (100, 2, 3)]:
        bounds = chunk_bounds(n, workers, k)
        assert [i for lo, hi in bounds for i in range(lo, hi)] == list(range(n))
        assert all(lo % k == 0 for lo, _ in bounds) and len(bounds) <= 4 * workers


def _same_rows(a: Path, b: Path) -> None:
    """Two scores.parquet files hold the same rows, NaN for NaN (which defeats Table.equals)."""
    ta, tb = pq.read_table(a), pq.read_table(b)
    assert ta.schema.equals(tb.schema, check_metadata=True) and ta.num_rows == tb.num_rows
    for name, x, y in zip(ta.column_names, ta.columns, tb.columns):
        same = x.to_numpy().tobytes() == y.to_numpy().tobytes() if x.type == "double" else x.equals(y)
        assert same, name


def test_chunk_boundaries_do_not_change_the_outputs(tufano_dir: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from revmine.metrics import score

    path = tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt"
    specs = "bleu, chrf, sed, treed"  # corpus statistics (BLEU, chrF), shared ones (SED), NaN (TREED)
    whole = score.score_file(path, metrics=specs, out=tmp_path / "whole", ci=50)
    monkeypatch.setattr(score, "STREAM_CHUNK", 1000)  # 100 examples of k = 10 a chunk, scored by 2 processes
    parts = score.score_file(path, metrics=specs, out=tmp_path / "parts", ci=50, workers=2)
    assert pq.ParquetFile(whole.path).num_row_groups == 2 and pq.ParquetFile(parts.path).num_row_groups == 18
    _same_rows(whole.path, parts.path)
    assert json.dumps(whole.summary) == json.dumps(parts.summary)
    assert whole.summary["corpus_rank1"]["bleu4"] > 0 and np.isnan(parts.values("treed")).any()
    a, b = write_run(whole, tmp_path / "whole"), write_run(parts, tmp_path / "parts")
    assert a["summary_json"].read_bytes() == b["summary_json"].read_bytes()
    assert a["summary_md"].read_bytes() == b["summary_md"].read_bytes()
    with pytest.raises(ValueError, match="not in"):
        write_run(parts, tmp_path / "elsewhere")  # the rows were streamed to parts/, not kept


def test_several_references_in_some_chunks_only_score_as_one_reading(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from revmine.metrics import score

    rows = [{"id": i, "pred": [h, h + " x"], "ref": [r, h] if i == 3 else r}
            for i, (h, r) in enumerate([("a b", "a b c"), ("d e f", "d e"), ("g", "h i"), ("j k", "j l"), ("m", "m")])]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    specs = "bleu, chrf, ter, sed, rougeL"
    whole = score.score_file(tmp_path / "p.jsonl", metrics=specs, out=tmp_path / "whole")
    monkeypatch.setattr(score, "STREAM_CHUNK", 1)  # one example a chunk: only example 3 has two references
    parts = score.score_file(tmp_path / "p.jsonl", metrics=specs, out=tmp_path / "parts")
    _same_rows(whole.path, parts.path)
    assert json.dumps(whole.summary) == json.dumps(parts.summary)
    assert parts.exact.tolist() == [False, False, False, False, False, False, True, False, True, False]


class _FailsLater(_Length):
    """Scores its first batch, fails on the second: a scoring interrupted half-way."""

    name = "fails_later"

    def __init__(self) -> None:
        self.batches = 0

    def sentence_scores(self, hypotheses, references):
        self.batches += 1
        if self.batches == 2:
            raise KeyboardInterrupt
        return super().sentence_scores(hypotheses, references)


def test_interrupted_scoring_leaves_no_partial_scores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from revmine.metrics import score

    before = write_run(score_predictions(read_predictions(EXAMPLE), [_Length()]), tmp_path)["scores"].read_bytes()
    metric = _FailsLater()
    monkeypatch.setattr(score, "select_metrics", lambda *args: ([metric], None))
    monkeypatch.setattr(score, "STREAM_CHUNK", 3)  # one example of k = 3 a chunk
    with pytest.raises(KeyboardInterrupt):
        score.score_file(EXAMPLE, out=tmp_path)
    assert metric.batches == 2  # the first chunk was scored and written to the temporary file
    assert (tmp_path / "scores.parquet").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.parquet", "summary.json", "summary.md"]


@pytest.mark.parametrize("name, text, line", [
    ("late.txt", "ORACLE : a\nPREDICTION 1 : a\n\nORACLE : b\nPREDICTION 1 : b\n\nORACLE : c\nPREDICTIO 1 : c\n", 8),
    ("late.jsonl", '{"pred": "a", "ref": "a"}\n{"pred": "b", "ref": "b"}\n{"pred": "c"}\n', 3),
])
def test_an_error_in_a_later_chunk_is_named_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               name: str, text: str, line: int) -> None:
    from revmine.metrics import score

    (tmp_path / name).write_text(text)
    metric = _Length()
    calls = []
    monkeypatch.setattr(metric, "sentence_scores", lambda h, r: calls.append(len(h)) or np.zeros(len(h)))
    monkeypatch.setattr(score, "select_metrics", lambda *args: ([metric], None))
    monkeypatch.setattr(score, "STREAM_CHUNK", 1)
    with pytest.raises(InputError, match=rf"{name.replace('.', '[.]')}:{line}\b"):
        score.score_file(tmp_path / name, out=tmp_path / "out")
    assert calls == [1, 1]  # the chunks before the bad line were scored
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_every_reference_round_trips_through_scores_parquet(tmp_path: Path) -> None:
    from revmine.metrics import score

    sets = [["a b c"], ["d e", "d e f", "g"], ["h i"], ["j k", "j l"]]
    rows = [{"pred": [refs[-1], "x"], "ref": refs if len(refs) > 1 else refs[0]} for refs in sets]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = score.score_file(tmp_path / "p.jsonl", metrics="bleu", out=tmp_path / "out")
    table = pq.read_table(run.path)
    assert schema_id(table.schema) == "scores/2"
    assert table.column_names[:9] == ["example", "id", "k", "prediction", "reference", "exact_match", "perfect_at_k",
                                      "extra_references", "exact_match_ignoring_whitespace"]  # version 1's first
    back = [[first, *(more or [])] for first, more in zip(table.column("reference").to_pylist(),
                                                           table.column("extra_references").to_pylist())]
    assert back == [refs for refs in sets for _ in range(2)]
    assert table.column("extra_references").to_pylist()[:2] == [None, None]  # one reference: null
    assert table.column("exact_match").to_pylist() == [True, False] * 4  # the last reference of each, at rank 1


def test_code_fences_and_perfect_ignoring_whitespace_in_revmine_score(tmp_path: Path, capsys) -> None:
    from revmine.cli import main

    # references are tokenised (Tufano et al.'s abstraction); a chat model answers in formatted Markdown
    rows = [
        {"pred": ["Sure:\n```java\nfoo(a, b);\n```\nDone.", "foo ( a , b ) ;"], "ref": "foo ( a , b ) ;"},
        {"pred": ["```\nint x = 1 ;\n```", "int y = 1;"], "ref": "int x = 1 ;"},
        {"pred": ["return x;", "I cannot help with that."], "ref": "return y ;"},
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["score", str(tmp_path / "p.jsonl"), "--metrics", "bleu", "--json"]
    assert main([*argv, "--normalize", "code-fence", "--out", str(tmp_path / "out")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["normalize"], summary["normalized"]) == ("code-fence", 2)
    # k=1: "foo(a, b);" is no token match but equal ignoring whitespace; "int x = 1 ;" is both
    # k=2: example 0 gets its token match at rank 2; "int y = 1;" and example 2 match nothing
    assert [(e["perfect"], e["perfect_ignoring_whitespace"]) for e in summary["per_k"]] == [(1, 2), (2, 2)]
    assert summary["per_k"][0]["perfect_ignoring_whitespace_pct"] == 66.67
    table = pq.read_table(tmp_path / "out" / "scores.parquet")
    assert table.column("prediction").to_pylist()[:3] == ["foo(a, b);", "foo ( a , b ) ;", "int x = 1 ;"]
    assert table.column("exact_match_ignoring_whitespace").to_pylist() == [True, True, True, False, False, False]
    markdown = (tmp_path / "out" / "summary.md").read_text()
    assert "Predictions normalised (code-fence): 2." in markdown and "| 1 | 1 | 33.33 | 2 | 66.67 |" in markdown
    assert main(argv) == 0  # not asked: the answers are scored as given, and nothing is counted
    plain = json.loads(capsys.readouterr().out)
    assert (plain["normalize"], plain["normalized"]) == (None, None)
    assert [(e["perfect"], e["perfect_ignoring_whitespace"]) for e in plain["per_k"]] == [(0, 0), (1, 1)]


def test_box_plot_is_titled_by_the_metric_with_its_signature_as_a_caption_and_n() -> None:
    """The figure itself: a readable title (the metric's name), a labelled x axis saying n, and the whole
    signature in a smaller caption broken only at ``|``, never inside a setting (matplotlib is in the [test]
    extra: a missing one fails here)."""
    import matplotlib.pyplot as plt

    from revmine.metrics.codebleu import CodeBLEU
    from revmine.metrics.score import box_figure

    examples = sum(line.startswith("ORACLE") for line in EXAMPLE.read_text(encoding="utf-8").splitlines())
    metric = CodeBLEU()
    fig = box_figure(score_predictions(read_predictions(EXAMPLE), [metric]), metric)
    try:
        ax = fig.axes[0]
        assert ax.get_title() == "codebleu" and ax.title.get_fontsize() >= 10
        assert ax.get_xlabel() == f"best of the first k predictions (n = {examples} examples)"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["k=1", "k=2", "k=3"]
        (caption,) = fig.texts
        lines = caption.get_text().split("\n")
        assert len(lines) > 1 and "".join(lines) == metric.signature()
        assert all(line.endswith("|") for line in lines[:-1]) and caption.get_fontsize() < ax.title.get_fontsize()
        fields = set(metric.signature().split("|"))
        assert all(set(line.rstrip("|").split("|")) <= fields for line in lines)  # no field cut in two
    finally:
        plt.close(fig)
