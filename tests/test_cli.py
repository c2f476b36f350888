"""The command line as users call it: `revmine score`, profiles, metric specs, agreement, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sacrebleu

from revmine.errors import InputError
from revmine.cli import main
from revmine.metrics.registry import make_metric, split_specs

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "predictions_k3.txt"


def test_score_example_writes_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--out", str(tmp_path), "--plot", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [e["perfect"] for e in summary["per_k"]] == [2, 4, 4]
    assert set(summary["signatures"]) == {"bleu4", "levenshtein_tok", "levenshtein_sim_tok", "sed_ref", "sed_max", "treed"}
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {f"{c}.png" for c in summary["signatures"]}
    # rank-1 BLEU of case 1, recomputed with sacrebleu (sentence_bleu, tokenize none, exp smoothing)
    hyp = "public int size ( ) { return items . size ( ) ; }"
    ref = "public int size ( ) { return items == null ? 0 : items . size ( ) ; }"
    import pyarrow.parquet as pq
    first = pq.read_table(tmp_path / "scores.parquet").slice(0, 1).to_pylist()[0]
    assert first["bleu4"] == pytest.approx(sacrebleu.sentence_bleu(hyp, [ref], tokenize="none").score / 100, abs=1e-9)


def test_profile_reproduces_the_published_median(tufano_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tufano_dir / "predictions" / "1-encoder_k3_abstracted.txt"
    assert main(["score", str(path), "--profile", "tufano2021", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["profile"]["name"] == "tufano2021"
    last = summary["per_k"][-1]
    assert last["perfect"] == 156
    # the paper's box plot for k=3 has its median at about 0.89; nltk on raw strings gives 0.8860
    assert round(last["metrics"]["bleu4_char_nltk0"]["best"]["median"], 4) == 0.8860


def test_profile_is_named_in_the_markdown_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--profile", "tufano2021"]) == 0
    assert "Profile `tufano2021` in use" in capsys.readouterr().out


def test_metric_specs() -> None:
    assert split_specs("bleu(tokenize=char, smooth=nltk0),sed(normalize=max), treed") == [
        "bleu(tokenize=char, smooth=nltk0)", "sed(normalize=max)", "treed"]
    metric = make_metric("bleu(tokenize=char, smooth=nltk0)")
    assert "tok:char" in metric.signature() and "smooth:nltk0" in metric.signature()
    with pytest.raises(InputError, match="unknown metric 'blue'"):
        make_metric("blue")
    with pytest.raises(InputError, match="not key=value"):
        make_metric("bleu(char)")
    with pytest.raises(InputError, match="metric 'sed\\(colour=red\\)'"):
        make_metric("sed(colour=red)")


def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("ORACLE       : a\nPREDICTION 1 : a\n\nPREDICTION 1 : b\n")
    assert main(["score", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert f"{bad}:4: block has no ORACLE line" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_agreement_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [("fix the null check", "fix the null check", 5, 4), ("add a test", "add a unit test", 4, 4),
            ("rename variable", "use a constant here", 1, 2), ("use isEmpty", "use isEmpty instead", 4, 5),
            ("thanks", "remove this import", 1, 1), ("make it final", "make this field final", 4, 3)]
    csv = tmp_path / "judged.csv"
    csv.write_text("pred,ref,h1,h2\n" + "".join(f"{p},{r},{a},{b}\n" for p, r, a, b in rows))
    assert main(["agreement", str(csv), "--pred-col", "pred", "--ref-col", "ref", "--score-cols", "h1,h2",
                 "--metrics", "chrf,bleu(smooth=floor)", "--bootstrap", "200", "--json",
                 "--out", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["metric"] for r in result] == ["chrf", "bleu4_floor"]
    for r in result:
        assert r["n"] == 6 and r["spearman_lo"] <= r["spearman"] <= r["spearman_hi"]
    assert (tmp_path / "agreement.parquet").exists()
    assert main(["agreement", str(csv), "--score-cols", "h1"]) == 2
    assert "missing column(s) prediction, reference" in capsys.readouterr().err


def test_bad_options_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--metrics", "foo"]) == 2
    assert capsys.readouterr().err.startswith("revmine: error: metrics: unknown metric 'foo'")
    assert main(["score", str(EXAMPLE), "--metrics", "ter, ter(normalized=true)", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["signatures"]) == {"ter", "ter_norm"}
