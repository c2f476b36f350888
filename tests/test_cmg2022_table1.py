"""The cmg2022 profile against Table 1 of Dey et al. (ICSE NIER 2022): all ten Spearman correlations.

Data: tests/data/cmg2022/human_annotations.csv, the 100 judged commit messages of their replication
package (see tests/data/cmg2022/README.md). Expected values: the paper's Table 1, 3 decimals.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from revmine.cli import main
from revmine.metrics import wordnet

DATA = Path(__file__).parent / "data" / "cmg2022" / "human_annotations.csv"

#: Table 1 (Spearman's rho with the mean normalised human score), by the profile's column
TABLE_1 = {
    "bleu4_char_nltk0": 0.705,  # BLEU4
    "bleu4_char_nltk2": 0.691,  # BLEUNorm
    "bleu4_char_nltk5": 0.681,  # BLEUCC
    "rouge1_f_cmg2022": 0.723,
    "rouge2_f_cmg2022": 0.443,
    "rougeL_f_cmg2022": 0.728,
    "ter_cmg2022": 0.568,
    "meteor_cmg2022": 0.748,
    "meteor_next_cmg2022": 0.761,
    "log_mnext_cmg2022": 0.831,
}


@pytest.fixture
def judgements(tmp_path: Path) -> Path:
    path = tmp_path / "judged.csv"
    path.write_text("pred,ref,h1,h2,h3\n" + DATA.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def test_cmg2022_profile_reproduces_table_1(judgements, capsys):
    pytest.importorskip("rouge")
    if not wordnet.load_wordnet().available:
        pytest.skip("WordNet not installed; CI installs Debian's wordnet-base")
    import json

    assert main(["agreement", str(judgements), "--pred-col", "pred", "--ref-col", "ref", "--score-cols",
                 "h1,h2,h3", "--profile", "cmg2022", "--bootstrap", "0", "--json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)}
    assert {m: round(r["spearman"], 3) for m, r in rows.items()} == TABLE_1
    assert "align:cmg2022" in rows["meteor_cmg2022"]["signature"]


def test_metrics_with_profile_are_added_not_ignored(judgements, capsys):
    pytest.importorskip("rouge")
    import json

    assert main(["agreement", str(judgements), "--pred-col", "pred", "--ref-col", "ref", "--score-cols",
                 "h1,h2,h3", "--profile", "cmg2022", "--metrics", "chrf", "--bootstrap", "0", "--json"]) == 0
    columns = [r["metric"] for r in json.loads(capsys.readouterr().out)]
    assert columns[:-1] == list(TABLE_1) and columns[-1] == "chrf"
    assert main(["agreement", str(judgements), "--pred-col", "pred", "--ref-col", "ref", "--score-cols",
                 "h1,h2,h3", "--profile", "cmg2022", "--metrics", "bleu(tokenize=char, smooth=nltk0)"]) == 2
    assert "already computed by profile cmg2022" in capsys.readouterr().err
