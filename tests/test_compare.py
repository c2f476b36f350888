"""`revmine compare`: paired bootstrap and approximate randomisation, against sacrebleu's own tests."""

from __future__ import annotations

import json
import random

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF, TER
from sacrebleu.significance import PairedTest

from revmine.cli import main
from revmine.metrics.bleu import BLEU
from revmine.metrics.significance import approximate_randomization, paired_bootstrap
from revmine.metrics.text import Chrf, Ter


def _systems(n: int = 120, seed: int = 0):
    rng = random.Random(seed)
    vocab = "the a cat dog sat ran on mat fast slow big red".split()
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(3, 12))) for _ in range(n)]
    noisy = lambda s, p: " ".join(w if rng.random() > p else rng.choice(vocab) for w in s.split())
    return [noisy(r, 0.5) for r in refs], [noisy(r, 0.42) for r in refs], refs


@pytest.mark.parametrize("test_type,ours", [("bs", paired_bootstrap), ("ar", approximate_randomization)])
def test_p_values_equal_sacrebleus_with_its_seed(test_type, ours, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # sacrebleu's default seed, 12345, as ours
    a, b, refs = _systems()
    n = 1000 if test_type == "bs" else 2000
    _, theirs = PairedTest([("A", a), ("B", b)], {"BLEU": SacreBLEU(), "chrF": CHRF(), "TER": TER()}, [refs],
                           test_type=test_type, n_samples=n)()
    sets = [[r] for r in refs]
    for name, metric in (("BLEU", BLEU(tokenize="13a")), ("chrF2", Chrf()), ("TER", Ter())):
        result = ours(metric, a, b, sets, n_samples=n)
        expected = theirs[name][1]
        assert result.p_value == expected.p_value, name
        assert result.system == pytest.approx(expected.score / 100, abs=1e-12)
        if test_type == "bs":
            assert result.system_mean == pytest.approx(expected.mean / 100, abs=1e-6)
            assert result.system_ci == pytest.approx(expected.ci / 100, abs=1e-6)


def test_compare_cli_several_references_and_json(tmp_path, capsys):
    a, b, refs = _systems(60, seed=4)
    _, _, refs2 = _systems(60, seed=5)
    for name, lines in (("a.txt", a), ("b.txt", b), ("r1.txt", refs), ("r2.txt", refs2)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--refs", str(tmp_path / "r1.txt"),
            "--refs", str(tmp_path / "r2.txt"), "--metrics", "bleu(tokenize=13a), meteor(synonyms=false)",
            "--test", "both", "--samples", "300", "--json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["metric"], r["test"]) for r in rows] == [
        ("bleu4_13a", "bootstrap"), ("bleu4_13a", "randomization"),
        ("meteor_nosyn", "bootstrap"), ("meteor_nosyn", "randomization")]
    _, theirs = PairedTest([("A", a), ("B", b)], {"BLEU": SacreBLEU()}, [refs, refs2], test_type="bs",
                           n_samples=300)()
    assert rows[0]["p_value"] == theirs["BLEU"][1].p_value
    assert all(0 < r["p_value"] <= 1 and r["seed"] == 12345 for r in rows)
    assert main(argv[:-1]) == 0 and "| bleu4_13a | bootstrap (300) |" in capsys.readouterr().out


def test_compare_cli_refuses_files_of_different_lengths(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("x\ny\n")
    (tmp_path / "b.txt").write_text("x\n")
    (tmp_path / "r.txt").write_text("x\ny\n")
    assert main(["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--refs", str(tmp_path / "r.txt")]) == 2
    assert "b.txt: 1 lines but the baseline" in capsys.readouterr().err
    (tmp_path / "b.txt").write_text("x\ny\n")
    (tmp_path / "r.txt").write_text("x\n")
    assert main(["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--refs", str(tmp_path / "r.txt")]) == 2
    assert "r.txt: 1 references for 2 hypotheses" in capsys.readouterr().err


def test_compare_shows_progress_off_a_terminal_unless_quiet(tmp_path, capsys):
    """A line per 10 s in a log and one at the end, counting every resample of every metric and test."""
    a, b, refs = _systems(40, seed=6)
    for name, lines in (("a.txt", a), ("b.txt", b), ("r.txt", refs)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--refs", str(tmp_path / "r.txt"),
            "--metrics", "bleu, chrf", "--test", "both", "--samples", "50", "--json"]
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("compare: ") for line in err)
    assert err[-1].startswith("compare: 200/200 resamples (100%), ")  # 2 metrics x (50 + 50)
    assert main(["-q", *argv]) == 0 and capsys.readouterr().err == ""
    assert main(argv[:-4] + ["bs", "--json"]) == 0  # default samples: 1000 per metric
    assert capsys.readouterr().err.splitlines()[-1].startswith("compare: 2000/2000 resamples (100%), ")
