"""Prediction readers: every format gives the same examples, and bad input names the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.metrics.predictions import detect_format, read_predictions

PUBLISHED_PERFECT = {  # Tufano et al. 2021, out of 1,719 test cases
    "1-encoder_k1_abstracted.txt": (1, 50),
    "1-encoder_k3_abstracted.txt": (3, 156),
    "1-encoder_k5_abstracted.txt": (5, 200),
    "1-encoder_k10_abstracted.txt": (10, 271),
    "2-encoder_k1_abstracted.txt": (1, 209),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED_PERFECT))
def test_replication_files_read_with_published_sizes(tufano_dir: Path, name: str) -> None:
    preds = read_predictions(tufano_dir / "predictions" / name)
    k, _ = PUBLISHED_PERFECT[name]
    assert preds.format == "tufano"
    assert len(preds) == 1719
    assert preds.k == k
    assert ("INPUT_NL" in preds.inputs) == name.startswith("2-encoder")


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_all_formats_agree(tmp_path: Path) -> None:
    refs = ["a b c", "d e"]
    beams = [["a b c", "a b"], ["d", "d e"]]
    tufano = "".join(f"ORACLE       : {r}\n" + "".join(f"PREDICTION {i + 1} : {h}\n" for i, h in enumerate(b)) + "\n"
                     for r, b in zip(refs, beams))
    _write(tmp_path / "p.txt", tufano)
    _write(tmp_path / "hyp.txt", "".join(h + "\n" for b in beams for h in b))
    _write(tmp_path / "ref.txt", "".join(r + "\n" for r in refs))
    _write(tmp_path / "p.jsonl", "".join(json.dumps({"id": i, "pred": b, "gold": r}) + "\n"
                                         for i, (r, b) in enumerate(zip(refs, beams))))
    pq.write_table(pa.table({"prediction": beams, "reference": refs}), tmp_path / "p.parquet")
    readings = [
        read_predictions(tmp_path / "p.txt"),
        read_predictions(tmp_path / "hyp.txt", references=tmp_path / "ref.txt", beam=2),
        read_predictions(tmp_path / "p.jsonl"),
        read_predictions(tmp_path / "p.parquet"),
    ]
    assert [r.format for r in readings] == ["tufano", "text", "jsonl", "parquet"]
    for r in readings:
        assert r.predictions == beams and r.references == refs
    assert readings[2].ids == ["0", "1"]


def test_jsonl_custom_fields(tmp_path: Path) -> None:
    _write(tmp_path / "p.jsonl", '{"out": "x y", "msg_gold": "x z"}\n')
    preds = read_predictions(tmp_path / "p.jsonl", pred_field="out", ref_field="msg_gold")
    assert preds.predictions == [["x y"]] and preds.references == ["x z"]
    with pytest.raises(InputError, match=r"p\.jsonl.*no prediction field 'nope'"):
        read_predictions(tmp_path / "p.jsonl", pred_field="nope", ref_field="msg_gold")


@pytest.mark.parametrize("text, line, message", [
    ("ORACLE       : a\nPREDICTION 1 : a\n\nPREDICTION 1 : b\n", 4, "no ORACLE"),
    ("ORACLE       : a\nPREDICTION 1 : a\nPREDICTION 2 : b\n\nORACLE       : c\nPREDICTION 1 : c\n", 5,
     "inconsistent k"),
    ("ORACLE       : a\nPREDICTION 2 : a\n", 2, "out of order"),
    ("ORACLE       : a\nPREDICTION 1 : a\nORACLE       : b\n", 3, "second ORACLE"),
    ("ORACLE       : a\nGARBAGE\n", 2, "unexpected line"),
])
def test_bad_tufano_blocks_name_the_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = _write(tmp_path / "bad.txt", text)
    with pytest.raises(InputError, match=rf"bad\.txt:{line}: .*{message}"):
        read_predictions(path, fmt="tufano")


def test_undecodable_bytes_name_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.txt", b"ORACLE       : a\nPREDICTION 1 : caf\xe9\n")
    with pytest.raises(InputError, match=r"bad\.txt:2: undecodable byte 0xe9"):
        read_predictions(path)


def test_mismatched_parallel_counts(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "hyp.txt", "a\nb\nc\n")
    ref = _write(tmp_path / "ref.txt", "a\nb\n")
    with pytest.raises(InputError, match=r"hyp\.txt: 3 hypothesis lines.*expected 4"):
        read_predictions(hyp, references=ref, beam=2)
    with pytest.raises(InputError, match="need a references file"):
        read_predictions(hyp, fmt="text")


def test_jsonl_errors_name_line_and_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", '{"pred": ["a"], "ref": "a"}\n{"pred": ["a", "b"], "ref": "b"}\n')
    with pytest.raises(InputError, match=r"p\.jsonl:2 \[pred\]: .*inconsistent k"):
        read_predictions(path)
    path = _write(tmp_path / "q.jsonl", '{"pred": "a", "ref": "a"}\n{"pred": "a", "ref": 3}\n')
    with pytest.raises(InputError, match=r"q\.jsonl:2 \[ref\]: expected a string"):
        read_predictions(path)
    path = _write(tmp_path / "r.jsonl", '{"pred": "a", "ref": "a"}\n{"pred": "a", "ref"\n')
    with pytest.raises(InputError, match=r"r\.jsonl:2: not valid JSON"):
        read_predictions(path)
    path = _write(tmp_path / "s.jsonl", '{"pred": "a", "ref": "a"}\n\n  \n["a", "a"]\n')
    with pytest.raises(InputError, match=r"s\.jsonl:4: expected a JSON object, not list"):  # blank lines count
        read_predictions(path)


def test_detect_format(tmp_path: Path) -> None:
    assert detect_format(_write(tmp_path / "a.txt", "\nINPUT_CODE   : x\n")) == "tufano"
    assert detect_format(_write(tmp_path / "b.txt", "public void f ( ) { }\n")) == "text"
    assert detect_format(_write(tmp_path / "c.out", '{"pred": "x"}\n')) == "jsonl"
    assert detect_format(_write(tmp_path / "d.txt", "\n\n")) == "text"  # two empty predictions (issue 31)
    with pytest.raises(InputError, match="empty"):
        detect_format(_write(tmp_path / "e.txt", ""))


def test_input_lines_must_be_in_every_block_or_none(tmp_path: Path) -> None:
    late = _write(tmp_path / "late.txt", "ORACLE       : a\nPREDICTION 1 : a\n\n"
                                         "INPUT_CODE   : x\nORACLE       : b\nPREDICTION 1 : b\n")
    with pytest.raises(InputError, match=r"late\.txt:4: block has INPUT_CODE line, unlike the blocks before"):
        read_predictions(late)
    early = _write(tmp_path / "early.txt", "INPUT_CODE   : x\nORACLE       : a\nPREDICTION 1 : a\n\n"
                                           "ORACLE       : b\nPREDICTION 1 : b\n")
    with pytest.raises(InputError, match=r"early\.txt:5: block has no INPUT_CODE line"):
        read_predictions(early)


def test_empty_parallel_files_and_missing_ids_are_errors(tmp_path: Path) -> None:
    hyp, ref = _write(tmp_path / "hyp.txt", ""), _write(tmp_path / "ref.txt", "")
    with pytest.raises(InputError, match=r"ref\.txt: no references"):
        read_predictions(hyp, fmt="text", references=ref)
    path = _write(tmp_path / "p.jsonl", '{"id": 1, "pred": "a", "ref": "a"}\n{"id": null, "pred": "b", "ref": "b"}\n')
    with pytest.raises(InputError, match=r"p\.jsonl:2 \[id\]: missing id"):
        read_predictions(path)


def test_chunks_hold_whole_examples_and_together_make_the_file(tmp_path: Path) -> None:
    from revmine.metrics.predictions import iter_predictions

    beams = [[f"h{i} {j}" for j in range(3)] for i in range(7)]
    refs = [f"r{i}" for i in range(7)]
    _write(tmp_path / "p.jsonl", "".join(json.dumps({"id": f"x{i}", "pred": b, "ref": [r, r + " bis"] if i == 5 else r})
                                         + "\n" for i, (b, r) in enumerate(zip(beams, refs))))
    chunks = list(iter_predictions(tmp_path / "p.jsonl", size=7))  # k = 3: closed at 9 predictions, 3 examples
    assert [len(c) for c in chunks] == [3, 3, 1]
    assert [b for c in chunks for b in c.predictions] == beams
    assert [r for c in chunks for r in c.references] == refs
    assert [i for c in chunks for i in c.ids] == [f"x{i}" for i in range(7)]
    assert [c.extra_references for c in chunks] == [None, [[], [], ["r5 bis"]], None]


@pytest.mark.parametrize("name, text, line", [
    ("late.txt", "ORACLE : a\nPREDICTION 1 : a\n\nORACLE : b\nPREDICTION 1 : b\n\nORACLE : c\nPREDICTION 2 : c\n", 8),
    ("late.jsonl", '{"pred": "a", "ref": "a"}\n{"pred": "b", "ref": "b"}\n{"pred": ["c", "d"], "ref": "c"}\n', 3),
])
def test_an_error_in_a_later_chunk_names_its_line(tmp_path: Path, name: str, text: str, line: int) -> None:
    from revmine.metrics.predictions import iter_predictions

    chunks = iter_predictions(_write(tmp_path / name, text), size=1)
    assert next(chunks).references == ["a"]  # the first chunk is read before the error is reached
    with pytest.raises(InputError, match=rf"{name.replace('.', '[.]')}:{line}\b"):
        list(chunks)


def test_parallel_files_of_different_lengths_are_counted_to_their_ends(tmp_path: Path) -> None:
    from revmine.metrics.predictions import iter_predictions

    _write(tmp_path / "hyp.txt", "".join(f"h{i}\n" for i in range(9)))  # beam 2: one line short of 5 examples
    _write(tmp_path / "ref.txt", "".join(f"r{i}\n" for i in range(5)))
    _write(tmp_path / "ref2.txt", "".join(f"s{i}\n" for i in range(6)))
    with pytest.raises(InputError, match=r"hyp\.txt: 9 hypothesis lines, but .*ref\.txt has 5 references and the "
                                         r"beam is 2: expected 10 lines"):
        list(iter_predictions(tmp_path / "hyp.txt", references=tmp_path / "ref.txt", beam=2, size=2))
    _write(tmp_path / "hyp.txt", "".join(f"h{i}\n" for i in range(10)))
    with pytest.raises(InputError, match=r"ref2\.txt: 6 references, but .*ref\.txt has 5"):
        list(iter_predictions(tmp_path / "hyp.txt", references=[tmp_path / "ref.txt", tmp_path / "ref2.txt"],
                              beam=2, size=2))
