"""Every dataset filter on hand-built candidates made to trip it, and the filter report."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.filters.stage import FilterOptions, filter_candidates
from revmine.io.rows import stable_id
from revmine.schema import CANDIDATES_SCHEMA, DROPPED_SCHEMA, schema_id
from revmine.io.store import write_table

_counter = itertools.count()


def candidate(**overrides: Any) -> dict[str, Any]:
    """A candidate row that passes every filter unless ``overrides`` make it trip one.

    Each call makes a distinct method (its own round and tokens), so rows are neither duplicates nor
    near-duplicates of each other by accident.
    """
    n = next(_counter)
    body = " ".join(f"VAR_{k} = METHOD_1 ( {n} , {k} ) ;" for k in range(1, 4))
    m_s = f"public void METHOD_1 ( ) {{ {body} token{n} }}"
    row = {
        "kind": "triplet", "round_id": f"gerrit:h:p:{n}:1", "source": "gerrit", "project": "p",
        "change": str(n), "round": 1, "path": "A.java", "comment_id": f"c{n}", "comment_author": "reviewer",
        "comment_is_owner": False, "comment_in_reply_to": None, "comment_start_line": 11,
        "comment_end_line": 12, "path_after": "A.java", "method_name": "m", "signature": "m()",
        "signature_after": "m()", "match_rule": "signature", "start_line_before": 10, "end_line_before": 20,
        "start_line_after": 10, "end_line_after": 19, "changed": True, "m_s": "void m() {...}",
        "m_r": "void m() {..}", "comment": "please rename this variable", "m_s_abstract": m_s,
        "m_r_abstract": m_s.replace(f"token{n}", ""), "comment_abstract": "please rename VAR_1",
        "abstraction_map": "{}", "m_s_marked": m_s.replace("{ VAR_1", "{ <START> VAR_1", 1) + " <END>",
    }
    if overrides.get("kind") == "pair":
        row.update(comment_id=None, comment_author=None, comment_is_owner=None, comment_start_line=None,
                   comment_end_line=None, comment=None, comment_abstract=None, m_s_marked=None)
    row.update(overrides)
    return row


def table_of(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=CANDIDATES_SCHEMA)


def never_noise(texts):
    return np.zeros(len(texts), dtype=bool)


def run(tmp_path: Path, rows: list[dict[str, Any]], **options: Any) -> tuple[dict, pa.Table, pa.Table]:
    options.setdefault("is_noise", never_noise)
    summary = filter_candidates(table_of(rows), tmp_path / "filtered", FilterOptions(**options))
    return summary, pq.read_table(summary["kept_path"]), pq.read_table(summary["dropped_path"])


def dropped_by(dropped: pa.Table) -> dict[str, str]:
    """comment_id or change -> filter name."""
    return {(r["comment_id"] or r["change"]): r["reason"] for r in dropped.to_pylist()}


def test_clean_rows_pass_and_files_are_tagged(tmp_path):
    rows = [candidate(), candidate(kind="pair")]
    summary, kept, dropped = run(tmp_path, rows)
    assert (summary["kept"], summary["dropped"]) == (2, 0)
    assert schema_id(kept.schema) == "filtered/5" and schema_id(dropped.schema) == "filter_dropped/6"
    assert kept.column("cluster_id").to_pylist() == kept.column("id").to_pylist()


@pytest.mark.parametrize("overrides, expected", [
    ({"comment_is_owner": True}, "author_comment"),
    ({"comment_start_line": 5}, "not_linked"),
    ({"comment_start_line": None, "comment_end_line": None}, "not_linked"),
    ({"m_s_abstract": " ".join(["VAR_1"] * 101)}, "too_long"),
    ({"m_r_abstract": " ".join(["VAR_1"] * 101)}, "too_long"),
    ({"m_r_abstract": "public void METHOD_1 ( ) { VAR_9 = STRING_3 ; }"}, "new_identifiers"),
])
def test_each_filter_trips(tmp_path, overrides, expected):
    summary, kept, dropped = run(tmp_path, [candidate(**overrides), candidate()])
    assert dropped.column("reason").to_pylist() == [expected]
    assert kept.num_rows == 1
    assert dropped.column("detail")[0].as_py()


def test_unchanged_compares_tokens_not_whitespace(tmp_path):
    row = candidate()
    row["m_r_abstract"] = "  " + row["m_s_abstract"].replace(" ", "\n")
    summary, kept, dropped = run(tmp_path, [row, candidate()])
    assert dropped.column("reason").to_pylist() == ["unchanged"]


def test_new_idioms_are_allowed_but_new_ids_are_not(tmp_path):
    row = candidate()
    row["m_r_abstract"] = row["m_s_abstract"].replace("token", "size ( ) null 0 token")
    summary, kept, dropped = run(tmp_path, [row])
    assert kept.num_rows == 1


def test_pairs_ignore_triplet_only_filters(tmp_path):
    pair = candidate(kind="pair")
    pair.update(comment_is_owner=True)  # meaningless on a pair: must not trip author_comment
    summary, kept, _ = run(tmp_path, [pair], is_noise=lambda texts: np.ones(len(texts), dtype=bool))
    assert kept.num_rows == 1


def test_singleton_rule_drops_every_comment_on_the_method(tmp_path):
    first = candidate()
    method = {k: first[k] for k in ("round_id", "change", "path", "signature", "start_line_before",
                                     "m_s_abstract", "m_r_abstract")}
    second = candidate(**method, comment="and this", comment_abstract="and this too")
    by_owner = candidate(**method, comment_is_owner=True)  # removed first: does not count
    summary, kept, dropped = run(tmp_path, [first, second, by_owner, candidate()])
    assert dropped_by(dropped) == {first["comment_id"]: "multiple_comments",
                                   second["comment_id"]: "multiple_comments",
                                   by_owner["comment_id"]: "author_comment"}
    assert kept.num_rows == 1


def test_noise_filter_uses_the_injected_detector(tmp_path):
    seen = []

    def is_noise(texts):
        seen.extend(texts)
        return np.array(["thanks" in t.lower() for t in texts])
    noisy = candidate(comment="Thanks!")
    summary, kept, dropped = run(tmp_path, [noisy, candidate(), candidate(kind="pair")], is_noise=is_noise)
    assert dropped_by(dropped) == {noisy["comment_id"]: "noise"}
    assert sorted(seen) == sorted(["Thanks!", "please rename this variable"])  # triplets only


def test_noise_detector_of_wrong_length_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="shape"):
        run(tmp_path, [candidate()], is_noise=lambda texts: np.zeros(len(texts) + 1, dtype=bool))


def test_exact_duplicates_keep_the_smallest_id(tmp_path):
    a = candidate()
    b = candidate(m_s_abstract=a["m_s_abstract"], m_r_abstract=a["m_r_abstract"])
    other_comment = candidate(m_s_abstract=a["m_s_abstract"], m_r_abstract=a["m_r_abstract"],
                              comment_abstract="a different request")
    summary, kept, dropped = run(tmp_path, [a, b, other_comment], skip=frozenset({"near_duplicate"}))
    ids = {r["comment_id"]: stable_id(r["kind"], r["round_id"], r["path"], r["comment_id"], r["signature"],
                                      r["start_line_before"]) for r in (a, b)}
    loser = max(ids, key=ids.get)
    assert dropped_by(dropped) == {loser: "exact_duplicate"}
    assert dropped.column("detail")[0].as_py() == f"duplicate of {min(ids.values())}"


def test_near_duplicates_cluster_across_kinds_and_keep_one_per_kind(tmp_path):
    base = candidate()
    tokens = base["m_s_abstract"].split()
    near = " ".join(tokens[:-2] + ["VAR_2", "}"])  # one token of ~25 changed
    twin = candidate(m_s_abstract=near, m_r_abstract=base["m_r_abstract"])
    pair = candidate(kind="pair", m_s_abstract=base["m_s_abstract"], m_r_abstract=base["m_r_abstract"],
                     round_id=base["round_id"], change=base["change"])
    summary, kept, dropped = run(tmp_path, [base, twin, pair, candidate()])
    assert dropped.column("reason").to_pylist() == ["near_duplicate"]
    clusters = dict(zip(kept.column("change").to_pylist(), kept.column("cluster_id").to_pylist()))
    assert clusters[base["change"]] == dropped.column("cluster_id")[0].as_py()
    assert kept.filter(pa.compute.equal(kept.column("kind"), "pair")).column("cluster_id")[0].as_py() == \
        clusters[base["change"]]


def test_triplets_are_near_duplicates_only_when_their_comments_are_too(tmp_path):
    """Same code (exact or near) with another comment is another example; with the same cleaned comment it
    is a duplicate; pairs of near-identical code stay duplicates whatever their rounds' comments."""
    base = candidate()
    near = " ".join(base["m_s_abstract"].split()[:-2] + ["VAR_2", "}"])  # one token of ~25 changed
    same_code_other_comment = candidate(m_s_abstract=base["m_s_abstract"], m_r_abstract=base["m_r_abstract"],
                                        comment_abstract="make VAR_1 final")
    near_code_other_comment = candidate(m_s_abstract=near, m_r_abstract=base["m_r_abstract"],
                                        comment_abstract="extract a method")
    near_code_same_comment = candidate(m_s_abstract=near, m_r_abstract=base["m_r_abstract"])
    pairs = [candidate(kind="pair", m_s_abstract=m_s, m_r_abstract=base["m_r_abstract"])
             for m_s in (base["m_s_abstract"], near)]
    rows = [base, same_code_other_comment, near_code_other_comment, near_code_same_comment, *pairs]
    summary, kept, dropped = run(tmp_path, rows)
    ids = {r["change"]: stable_id(r["kind"], r["round_id"], r["path"], r["comment_id"], r["signature"],
                                  r["start_line_before"]) for r in rows}
    triplet_loser = max((base, near_code_same_comment), key=lambda r: ids[r["change"]])
    pair_loser = max(pairs, key=lambda r: ids[r["change"]])
    assert sorted(zip(dropped.column("change").to_pylist(), dropped.column("reason").to_pylist())) == sorted(
        [(triplet_loser["change"], "near_duplicate"), (pair_loser["change"], "near_duplicate")])
    assert kept.num_rows == 4
    # all of them are one cluster: the split keeps them together
    assert len(set(kept.column("cluster_id").to_pylist() + dropped.column("cluster_id").to_pylist())) == 1


def _published_triplets(tufano_dir: Path) -> list[dict[str, Any]]:
    """test.csv's triplets as candidates: m_s, m_r and the comment as the published files have them."""
    lines = {name: (tufano_dir / f"{name}-test.txt").read_text(encoding="utf-8").splitlines()
             for name in ("src", "tgt", "src1")}
    return [candidate(m_s_abstract=m_s, m_r_abstract=m_r, comment_abstract=comment)
            for m_s, m_r, comment in zip(lines["src"], lines["tgt"], lines["src1"])]


def test_published_triplets_with_other_comments_are_all_kept(tmp_path, tufano_dir):
    """The 1,719 published test triplets are all in the published dataset. Some share near-identical code
    and carry different comments: those must all stay. The few the filter merges carry the same comment."""
    rows = _published_triplets(tufano_dir)
    summary, kept, dropped = run(tmp_path, rows, max_tokens=10_000, skip=frozenset({"new_identifiers"}))
    assert set(dropped.column("reason").to_pylist()) <= {"near_duplicate"}
    by_cluster: dict[str, set[str]] = {}
    for cluster, comment in zip(kept.column("cluster_id").to_pylist(), kept.column("comment_abstract").to_pylist()):
        by_cluster.setdefault(cluster, set()).add(comment)
    assert any(len(comments) > 1 for comments in by_cluster.values())  # same code, other comments: kept
    for row in dropped.to_pylist():  # a merged triplet has a kept twin with its very comment
        assert row["comment_abstract"] in by_cluster[row["cluster_id"]], row["detail"]


def test_report_counts_per_filter_and_source_with_preprocess_comments(tmp_path):
    rows = [candidate(comment_is_owner=True), candidate(source="github", round_id="github:h:p:9:1"),
            candidate(kind="pair", source="github", m_r_abstract="x"), candidate()]
    work = tmp_path / "pre"
    write_table(table_of(rows), work / "candidates.parquet", CANDIDATES_SCHEMA)
    pre = [{"kind": "comment", "reason": reason, "round_id": "gerrit:h:p:1:1", "source": "gerrit", "project": "p",
            "change": "1", "round": 1, "comment_is_owner": owner}
           for reason, owner in [("outside_method", False), ("timeout", False), ("outside_method", True)]]
    pre.append({"kind": "method", "reason": "method_deleted", "round_id": "r", "source": "gerrit",
                "project": "p", "change": "1", "round": 1})
    write_table(pa.Table.from_pylist(pre, schema=DROPPED_SCHEMA), work / "dropped.parquet", DROPPED_SCHEMA)
    summary = filter_candidates(work / "candidates.parquet", tmp_path / "out", FilterOptions(is_noise=never_noise))
    report = pq.read_table(summary["report_path"]).to_pylist()
    cell = {(r["kind"], r["filter"], r["source"]): (r["removed"], r["remaining"]) for r in report}
    assert cell[("triplet", "input", "gerrit")] == (0, 5)  # 2 candidates + 3 preprocess comments
    assert cell[("triplet", "author_comment", "gerrit")] == (2, 3)
    assert cell[("triplet", "not_linked", "gerrit")] == (1, 2)
    assert cell[("triplet", "unprocessable", "all")] == (1, 2)
    assert cell[("triplet", "near_duplicate", "all")] == (0, 2)
    assert cell[("pair", "input", "github")] == (0, 1) and cell[("pair", "near_duplicate", "all")] == (0, 1)
    assert ("pair", "noise", "all") not in cell
    markdown = Path(summary["report_markdown_path"]).read_text()
    assert "| author_comment |" in markdown and "| gerrit | github | all |" in markdown
    assert summary["removed_by_filter"]["triplet"] == {"author_comment": 1}


def test_output_beside_the_preprocess_files_is_refused(tmp_path):
    write_table(table_of([candidate()]), tmp_path / "candidates.parquet", CANDIDATES_SCHEMA)
    with pytest.raises(InputError, match="overwrite"):
        filter_candidates(tmp_path / "candidates.parquet", tmp_path, FilterOptions(is_noise=never_noise))


def test_bad_input_names_the_row_and_field(tmp_path):
    bad = table_of([candidate(), candidate(kind="quad")])
    with pytest.raises(InputError, match=r":2 \[kind\]: row 2:"):  # 1-based, like the prediction readers
        filter_candidates(bad, tmp_path, FilterOptions(is_noise=never_noise))
    with pytest.raises(InputError, match=r"\[m_s_abstract\]"):
        filter_candidates(table_of([candidate()]).drop_columns(["m_s_abstract"]), tmp_path)
    twice = table_of([candidate()] * 2)
    with pytest.raises(InputError, match=r":2 \[id\]: rows 1 and 2 have the same provenance"):
        filter_candidates(twice, tmp_path, FilterOptions(is_noise=never_noise))


def test_triplets_need_their_marked_code_and_old_candidate_files_are_refused(tmp_path):
    unmarked = table_of([candidate(), candidate(kind="pair"), candidate(m_s_marked=None)])
    with pytest.raises(InputError, match=r":3 \[m_s_marked\]: row 3: a triplet without m_s_marked"):
        filter_candidates(unmarked, tmp_path, FilterOptions(is_noise=never_noise))
    old = table_of([candidate()]).drop_columns(["m_s_marked"])  # written before the 2-encoder input existed
    pq.write_table(old.replace_schema_metadata({"revmine.schema": "candidates/1"}), tmp_path / "old.parquet")
    with pytest.raises(InputError, match="expected a candidates/5 file, found candidates/1"):
        filter_candidates(tmp_path / "old.parquet", tmp_path / "out", FilterOptions(is_noise=never_noise))


def test_skipped_filters_are_reported_as_skipped(tmp_path):
    noisy = candidate(comment="Thanks!")
    summary = filter_candidates(table_of([noisy]), tmp_path, FilterOptions(skip=frozenset({"noise"})))
    assert summary["kept"] == 1  # no detector was needed: the filter did not run
    assert "| noise | comment asks for no code change | skipped | skipped |" in \
        Path(summary["report_markdown_path"]).read_text()
    report = pq.read_table(summary["report_path"]).to_pylist()
    assert not next(r for r in report if r["filter"] == "noise")["ran"]
    with pytest.raises(InputError, match='skip: must be a list of strings from .*, not "spelling"'):
        FilterOptions(skip=frozenset({"spelling"}))


def test_batches_and_buckets_do_not_change_what_filter_and_split_write(tmp_path, tufano_dir, monkeypatch):
    """Filter and split read their input a batch at a time and spill rows to buckets; tiny batches and
    buckets (hundreds of each over the 1,719 published rows, several filters dropping) write the same rows in
    the same order as one batch and one bucket do."""
    from revmine.algorithms import reorder
    from revmine.io import rows as rows_module
    from revmine.dataset.split import split_dataset

    published = _published_triplets(tufano_dir)
    for row in published[::9]:
        row["comment_is_owner"] = True
    for row in published[4::13]:
        row["m_r_abstract"] = " ".join(["VAR_1"] * 101)
    data = table_of(published + [candidate(kind="pair") for _ in range(40)])
    outputs = {}
    for label, batch, bucket in (("whole", 10_000, 10_000), ("tiny", 7, 5)):
        monkeypatch.setattr(rows_module, "BATCH_ROWS", batch)
        monkeypatch.setattr(reorder, "BUCKET_ROWS", bucket)
        summary = filter_candidates(data, tmp_path / label / "filtered", FilterOptions(is_noise=never_noise))
        split_dataset(summary["kept_path"], tmp_path / label / "splits")
        outputs[label] = {path.relative_to(tmp_path / label).as_posix(): pq.read_table(path)
                          for path in sorted((tmp_path / label).rglob("*.parquet"))}
    assert len(outputs["whole"]["filtered/dropped.parquet"].column("reason").unique()) >= 2
    assert outputs["whole"]["splits/train.parquet"].num_rows > 0
    assert outputs["whole"].keys() == outputs["tiny"].keys()
    for path, table in outputs["whole"].items():
        assert table.equals(outputs["tiny"][path]), path


def test_a_bad_row_past_the_first_batch_is_named_by_its_row_in_the_file(tmp_path, monkeypatch):
    from revmine.io import rows as rows_module

    monkeypatch.setattr(rows_module, "BATCH_ROWS", 2)
    bad = table_of([candidate(), candidate(), candidate(), candidate(), candidate(m_s_marked=None)])
    with pytest.raises(InputError, match=r":5 \[m_s_marked\]: row 5: a triplet without m_s_marked"):
        filter_candidates(bad, tmp_path, FilterOptions(is_noise=never_noise))
    twice = table_of([candidate(), *[candidate()] * 2])
    with pytest.raises(InputError, match=r":3 \[id\]: rows 2 and 3 have the same provenance"):
        filter_candidates(twice, tmp_path, FilterOptions(is_noise=never_noise))


def test_an_empty_required_code_column_is_named_and_nothing_is_written(tmp_path):
    good = table_of([candidate(), candidate()])
    bad = good.set_column(good.schema.get_field_index("m_s"), pa.field("m_s", pa.string()),
                          pa.array(["void m() {}", None], pa.string()))
    with pytest.raises(InputError, match=r":2 \[m_s\]: row 2: empty value in a required column"):
        filter_candidates(bad, tmp_path / "out", FilterOptions(is_noise=never_noise))
    assert not (tmp_path / "out").exists()


def test_an_empty_code_cell_of_a_file_is_refused_before_any_filter_runs(tmp_path):
    """Issue 30: revmine filter ran all 9 filters, then reported the bad cell. The cell is found first, by its
    row over row groups (the Parquet statistics rule the others out), and no filter is called."""
    import pyarrow.parquet as pq

    rows = table_of([candidate() for _ in range(9)])
    m_r = [f"void m{i}() {{}}" for i in range(9)]
    m_r[6] = None
    rows = rows.set_column(rows.schema.get_field_index("m_r"), pa.field("m_r", pa.string()), pa.array(m_r))
    path = tmp_path / "candidates.parquet"
    pq.write_table(rows, path, row_group_size=3)
    asked = []

    def noise(comments):
        asked.append(len(comments))
        return np.zeros(len(comments), dtype=bool)
    with pytest.raises(InputError, match=r":7 \[m_r\]: row 7: empty value in a required column"):
        filter_candidates(path, tmp_path / "out", FilterOptions(is_noise=noise))
    assert asked == [] and not (tmp_path / "out").exists()


def test_a_noise_model_that_reads_code_is_given_each_triplets_m_s(tmp_path):
    from revmine.filters import classifier

    # Comments with the same words, told apart only by whether the code they sit on holds the identifier they
    # name: a model trained with codes learns it from the code-vocabulary features alone.
    names = [f"counter{n}" for n in range(40)]
    texts = [f"check {name} here" for name in names] * 2
    codes = [f"int {name} = 0;" for name in names] + ["int unrelated = 0;"] * len(names)
    labels = [True] * len(names) + [False] * len(names)
    model_path = classifier.save(classifier.train(texts, labels, seed=0, codes=codes, n_estimators=30),
                                 tmp_path / "code.npz")
    assert classifier.load(model_path).uses_code
    kept_row = candidate(comment="check retries here", m_s="void m() { int retries = 0; }")
    dropped_row = candidate(comment="check retries here", m_s="void m() { int other = 0; }")
    summary, kept, dropped = run(tmp_path, [kept_row, dropped_row], is_noise=None, noise_model=model_path,
                                 skip=("near_duplicate",))
    assert dropped_by(dropped) == {dropped_row["comment_id"]: "noise"}
    assert kept.column("comment_id").to_pylist() == [kept_row["comment_id"]]
