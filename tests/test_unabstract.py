"""``unabstract_file``: predictions mapped back with their example's map, beams, and errors that name the input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.preprocess.unabstract import UnabstractOptions, unabstract_file


def _maps(path: Path, **columns: list) -> Path:
    pq.write_table(pa.table({name: [v if v is None or isinstance(v, str) else json.dumps(v) for v in values]
                             for name, values in columns.items()}), path)
    return path


def test_beams_use_their_example_map_and_the_inverse_is_preferred(tmp_path: Path) -> None:
    # example 1: `size` is both a method (METHOD_1) and a field (VAR_1); only the inverse restores both
    maps = _maps(tmp_path / "m.parquet",
                 abstraction_map=[{"size": "VAR_1"}, {"n": "VAR_1"}],
                 abstraction_ids=[{"METHOD_1": "size", "VAR_1": "size"}, {"VAR_1": "n"}])
    preds = tmp_path / "p.txt"
    preds.write_text("METHOD_1 ( ) ;\nreturn VAR_1 ;\nVAR_1 ++ ;\nVAR_1 = VAR_2 ;\n")
    result = unabstract_file(preds, tmp_path / "out.txt", UnabstractOptions(maps, beam=2))
    assert (tmp_path / "out.txt").read_text() == "size ( ) ;\nreturn size ;\nn ++ ;\nn = VAR_2 ;\n"
    assert (result.predictions, result.unknown_ids) == (4, 1)  # VAR_2 is in no map
    unabstract_file(preds, tmp_path / "lossy.txt", UnabstractOptions(maps, "abstraction_map", beam=2))
    assert (tmp_path / "lossy.txt").read_text().splitlines()[0] == "METHOD_1 ( ) ;"


def test_errors_name_the_file_and_row(tmp_path: Path) -> None:
    preds = tmp_path / "p.txt"
    preds.write_text("VAR_1\nVAR_1\nVAR_1\n")
    maps = _maps(tmp_path / "m.parquet", abstraction_ids=[{"VAR_1": "a"}, "not json"])
    with pytest.raises(InputError, match=r"m\.parquet \[abstraction_ids\]: row 2: not a JSON map"):
        unabstract_file(preds, tmp_path / "out.txt", UnabstractOptions(maps))
    maps = _maps(tmp_path / "m2.parquet", abstraction_ids=[{"VAR_1": "a"}, {"VAR_1": "b"}])
    with pytest.raises(InputError, match=r"p\.txt: 3 lines, but .* has 2 maps and the beam is 1: expected 2"):
        unabstract_file(preds, tmp_path / "out.txt", UnabstractOptions(maps))
    with pytest.raises(InputError, match=r"m2\.parquet \[abstraction_map\]: no column 'abstraction_map'"):
        unabstract_file(preds, tmp_path / "out.txt", UnabstractOptions(maps, "abstraction_map"))
    with pytest.raises(InputError, match=r"^beam: must be an integer >= 1, not 0$"):
        UnabstractOptions(maps, beam=0)
    assert not (tmp_path / "out.txt").exists()
