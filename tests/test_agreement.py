"""Agreement with human scores: correlations against scipy and hand-worked values, bootstrap, reading."""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats

from revmine.errors import InputError
from revmine.metrics.agreement import (
    _mean_human,
    _postprocess,
    agreement,
    bootstrap_coefficients,
    correlations,
    read_judgements,
)
from revmine.metrics.base import Metric
from revmine.metrics.cmg2022 import CMG2022_AGREEMENT
from revmine.schema import AGREEMENT_SCHEMA


class Lookup(Metric):
    """A metric whose score is a number written in the hypothesis: correlations then have known inputs."""

    name = "lookup"

    def __init__(self, higher_is_better: bool = True):
        self.higher_is_better = higher_is_better

    def settings(self) -> dict[str, object]:
        return {}

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return np.array([float(h) for h in hypotheses])


def _run(scores, human, **kw):
    preds = [repr(float(s)) for s in scores]
    return agreement(preds, ["ref"] * len(preds), human, [Lookup()], **kw).to_pylist()[0]


def test_hand_worked_spearman_and_kendall():
    # x = 1..5, y = 2 1 4 3 5: rank differences -1 1 -1 1 0, sum d^2 = 4, rho = 1 - 6*4/(5*(25-1)) = 0.8
    # pairs: 10, discordant (1,2) and (3,4): tau = (8 - 2)/10 = 0.6
    row = _run([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_boot=0)
    assert row["spearman"] == pytest.approx(0.8) and row["kendall"] == pytest.approx(0.6)
    assert row["n"] == 5 and np.isnan(row["spearman_lo"])


def test_correlations_equal_scipy_with_ties():
    rng = np.random.default_rng(7)
    x = np.round(rng.random(60), 1)
    y = x + rng.integers(0, 3, 60)
    row = correlations(x, y, n_boot=10)
    assert row["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert row["kendall"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert row["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)


def test_vectorised_bootstrap_equals_scipy_per_resample():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, 25).astype(float)
    y = x + rng.integers(0, 3, 25)
    idx = rng.integers(0, 25, size=(100, 25))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.array(
            [[f(x[i], y[i]).statistic for f in (stats.spearmanr, stats.kendalltau, stats.pearsonr)] for i in idx]
        )
    np.testing.assert_allclose(bootstrap_coefficients(x, y, idx), expected, rtol=0, atol=1e-12)


def test_bootstrap_interval_contains_estimate_and_is_seeded():
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, 80).astype(float)
    metric = human + rng.normal(0, 1.5, 80)
    a = _run(metric, human, n_boot=1000, seed=0)
    for name in ("spearman", "kendall", "pearson"):
        assert a[f"{name}_lo"] < a[name] < a[f"{name}_hi"]
    assert a == _run(metric, human, n_boot=1000, seed=0)
    assert a["spearman_lo"] != _run(metric, human, n_boot=1000, seed=1)["spearman_lo"]


def test_table_schema_several_judges_and_signature():
    preds, refs = ["1", "2", "3", "4"], ["r"] * 4
    table = agreement(preds, refs, {"judge1": [1, 2, 2, 4], "judge2": [2, 2, 3, 5]}, [Lookup()], n_boot=50)
    assert table.schema.equals(AGREEMENT_SCHEMA, check_metadata=True)
    row = table.to_pylist()[0]
    assert row["metric"] == "lookup" and row["signature"].startswith("lookup|version:")
    assert row["spearman"] == pytest.approx(stats.spearmanr([1, 2, 3, 4], [1.5, 2, 2.5, 4.5]).statistic)
    post = agreement(preds, refs, [1, 2, 3, 4], [Lookup()], n_boot=0, **CMG2022_AGREEMENT).to_pylist()[0]
    assert post["signature"].endswith("|round:2|maxnorm:yes")  # a similarity is not flipped
    post = agreement(preds, refs, [1, 2, 3, 4], [Lookup(higher_is_better=False)], n_boot=0,
                     **CMG2022_AGREEMENT).to_pylist()[0]
    assert post["signature"].endswith("|round:2|maxnorm:yes|dist:1-x")


def test_pairs_without_a_score_are_left_out_with_a_warning():
    preds = ["1", "nan", "3", "4", "2"]
    with pytest.warns(UserWarning, match="1 pair"):
        row = agreement(preds, ["r"] * 5, [1, 5, 3, 4, 2], [Lookup()], n_boot=0).to_pylist()[0]
    assert row["n"] == 4 and row["spearman"] == pytest.approx(1.0)


def test_cmg2022_postprocessing_hand_worked():
    # round to 2: .123 -> .12, .456 -> .46, .5; divide by max .5: .24 .92 1.0
    np.testing.assert_allclose(_postprocess(np.array([0.123, 0.456, 0.5]), 2, True, False), [0.24, 0.92, 1.0])
    # a distance: same, then 1 - x: .76 .08 0
    np.testing.assert_allclose(_postprocess(np.array([0.123, 0.456, 0.5]), 2, True, True), [0.76, 0.08, 0.0])
    # Python's round, as their scripts: 0.285 is stored as 0.28499..., so it rounds down
    assert _postprocess(np.array([0.285]), 2, False, False)[0] == 0.28
    # judges [2, 4] and [1, 3] divided by their maxima: [.5, 1] and [1/3, 1]; mean .41666 -> .42, 1
    np.testing.assert_allclose(_mean_human({"a": [2, 4], "b": [1, 3]}, 2, 2, True), [0.42, 1.0])
    np.testing.assert_allclose(_mean_human(np.array([[2, 1], [4, 3]]), 2, None, False), [1.5, 3.5])


def test_distances_as_similarity_flips_the_sign():
    kw = dict(n_boot=0)
    human = [1, 2, 3, 4, 5]
    preds = ["5", "3", "4", "2", "1"]
    plain = agreement(preds, ["r"] * 5, human, [Lookup(higher_is_better=False)], **kw).to_pylist()[0]
    flipped = agreement(
        preds, ["r"] * 5, human, [Lookup(higher_is_better=False)], distances_as_similarity=True, **kw
    ).to_pylist()[0]
    assert flipped["spearman"] == pytest.approx(-plain["spearman"])


def test_read_judgements_csv_and_parquet(tmp_path):
    csv = tmp_path / "j.csv"
    csv.write_text('pred,ref,s1,s2\n"fix bug",fix the bug,3,4\n123,add test,1,2\n')
    j = read_judgements(csv, "pred", "ref", ["s1", "s2"])
    assert j.predictions == ["fix bug", "123"] and j.references == ["fix the bug", "add test"]
    np.testing.assert_array_equal(j.scores["s2"], [4.0, 2.0])
    pq.write_table(pa.table({"p": ["a"], "r": ["b"], "h": [2]}), tmp_path / "j.parquet")
    assert read_judgements(tmp_path / "j.parquet", "p", "r", ["h"]).scores["h"].tolist() == [2.0]


def test_read_judgements_errors_name_file_and_columns(tmp_path):
    csv = tmp_path / "j.csv"
    csv.write_text("pred,ref,s1\na,b,3\nc,d,\n")
    with pytest.raises(InputError, match=r"j\.csv: missing column\(s\) prediction, human2"):
        read_judgements(csv, "prediction", "ref", ["s1", "human2"])
    with pytest.raises(InputError, match=r"j\.csv:3 \[s1\]: missing human score"):
        read_judgements(csv, "pred", "ref", ["s1"])
    with pytest.raises(InputError, match="unsupported file type"):
        read_judgements(tmp_path / "j.xlsx", "pred", "ref", ["s1"])
    with pytest.raises(InputError, match="no such file"):
        read_judgements(tmp_path / "absent.csv", "pred", "ref", ["s1"])
