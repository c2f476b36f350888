"""The run report: the funnel from forge to dataset, drop reasons with examples linked to their forge, a
seeded sample of triplets as the reviewer saw them, token lengths, splits and near-duplicate clusters, time
per stage, versions and settings. Every count is read from the stages' files (only the columns it needs);
those that run.json also records carry its key (``data-check``), so a test can hold them equal."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError
from ..io.rows import KINDS, SPLITS
from .diffs import sample_view
from .links import Hosts, change_url, hosts as read_hosts
from .render import histogram, write_report

#: the run record revmine.pipeline writes (its STATE_FILE: the pipeline imports this package, not the reverse)
STATE_FILE = "run.json"
EXAMPLES_PER_REASON = 3
SAMPLE_SIZE = 6
_SHA = re.compile(r"\b[0-9a-f]{40}\b")
#: provenance columns every example of a drop reason shows
_WHERE = ["source", "project", "change"]
#: each stage's dropped rows: (stage, file, the column naming the reason, the columns its examples show)
_DROPPED = [("mining", Path("mined", "dropped.parquet"), "reason", ["path"]),
            ("preprocess", Path("preprocessed", "dropped.parquet"), "reason", ["kind", "round", "path", "detail"]),
            ("filter", Path("filtered", "dropped.parquet"), "filter",
             ["kind", "round", "path", "method_name", "detail", "comment"]),
            ("split", Path("splits", "dropped.parquet"), "filter",
             ["kind", "round", "path", "method_name", "detail", "comment"])]


def write_run_report(out: str | Path, sample: int = SAMPLE_SIZE) -> Path:
    """Write ``out/report.html`` for the run folder ``out`` (a ``revmine run`` output) and return its path."""
    out = Path(out)
    state_path = out / STATE_FILE
    if not state_path.is_file():
        raise InputError(out, f"no {STATE_FILE} (nor summary.json): not the output folder of revmine run (or score)")
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(state_path, f"unreadable: {exc}") from exc
    manifest_path = out / "mined" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    # each file read once, with every column the report needs of it
    rounds = _read(out / "mined" / "rounds.parquet", ["round_id", "source", "host", "project", "comments"])
    dropped = {stage: _read(out / path, [column, *_WHERE, *extra]) for stage, path, column, extra in _DROPPED}
    hosts = read_hosts(rounds)
    splits = _splits(out)
    seed = int(state.get("split", {}).get("result", {}).get("seed", 0))
    return write_report(out, "run.html", folder=str(out.resolve()),
                        **_funnel(out, manifest, rounds, dropped, splits),
                        reasons=_reasons(dropped, hosts),
                        samples=sample_view(splits, hosts, sample, seed) if splits is not None else [],
                        seed=seed, lengths=_lengths(splits), clusters=_clusters(splits),
                        stages=[{"name": name, **{k: state[name].get(k) for k in ("seconds", "fingerprint")}}
                                for name in ("mine", "preprocess", "filter", "split", "export", "score")
                                if name in state],
                        settings=_settings(out, manifest, state), manifest_versions=manifest.get("versions", {}),
                        score_report=(out / "scores" / "report.html").is_file())


def _read(path: Path, columns: list[str]) -> pa.Table | None:
    """The ``columns`` of a stage's Parquet file, or None when the stage has not written it."""
    return pq.read_table(path, columns=columns) if path.exists() else None


def _splits(out: Path) -> pa.Table | None:
    """The split rows (the columns the report needs, not the abstraction maps), or None before the split."""
    paths = [out / "splits" / f"{name}.parquet" for name in SPLITS]
    if not all(p.exists() for p in paths):
        return None
    columns = ["id", "split", "cluster_id", "kind", "source", "project", "change", "round", "path", "method_name",
               "comment_start_line", "comment_end_line", "start_line_before", "start_line_after",
               "m_s", "m_r", "comment", "m_s_abstract", "m_r_abstract", "comment_abstract"]
    return pa.concat_tables(pq.read_table(p, columns=columns) for p in paths)


def _counts(table: pa.Table | None, keys: Iterable[str] = (), distinct: str | None = None) -> Counter:
    """Rows (or distinct values of ``distinct``) per (*keys, source, project)."""
    if table is None or table.num_rows == 0:
        return Counter()
    keys = [*keys, "source", "project"]
    agg = [(distinct, "count_distinct")] if distinct else [([], "count_all")]
    grouped = table.group_by(keys).aggregate(agg)
    values = grouped[f"{distinct}_count_distinct" if distinct else "count_all"].to_pylist()
    return Counter({tuple(r[k] for k in keys): n for r, n in zip(grouped.select(keys).to_pylist(), values)})


def _roll(counts: Counter, prefix: tuple = ()) -> dict[str, int]:
    """Counts of (*prefix, source, project) as columns: all, each source, each project."""
    rolled: Counter = Counter()
    for key, n in counts.items():
        if tuple(key[:len(prefix)]) != prefix:
            continue
        source, project = key[-2:]
        for column in ("all", source, f"{source} {project}"):
            rolled[column] += n
    return dict(rolled)


def _step(label: str, counts: dict[str, int], check: str | None = None, kind: str | None = None,
          removed: bool = False) -> dict[str, Any]:
    return {"label": label, "counts": counts, "check": check, "kind": kind, "removed": removed}


def _funnel(out: Path, manifest: dict, rounds: pa.Table | None, dropped: dict[str, pa.Table | None],
            splits: pa.Table | None) -> dict[str, Any]:
    """The funnel's columns (all, sources, projects) and steps, each step's counts per column (``rounds``
    and each stage's ``dropped`` rows as :func:`write_run_report` read them)."""
    changes = Counter({(p["asked"]["source"], p["asked"]["project"]): p.get("changes_done", 0)
                       for p in manifest.get("projects", [])})
    steps = [_step("changes mined", _roll(changes), "mine.changes_done"),
             _step("review rounds", _roll(_counts(rounds, distinct="round_id")), "mine.review_rounds"),
             _step("files in review rounds", _roll(_counts(rounds)), "mine.rows"),
             _step("files dropped while mining", _roll(_counts(dropped["mining"])),
                   "mine.dropped", removed=True)]
    if rounds is not None:
        per_file = pa.table({"source": rounds["source"], "project": rounds["project"],
                             "n": pc.fill_null(pc.list_value_length(rounds["comments"]), 0)})
        comments = per_file.group_by(["source", "project"]).aggregate([("n", "sum")]).to_pylist()
        steps.append(_step("reviewer comments", _roll(Counter({(r["source"], r["project"]): r["n_sum"]
                                                              for r in comments})), "preprocess.comments"))
    preprocessed = _counts(dropped["preprocess"], ["reason"])
    for reason in sorted({key[0] for key in preprocessed}):
        steps.append(_step(f"dropped by preprocess: {reason}", _roll(preprocessed, (reason,)),
                           f"preprocess.dropped_by_reason.{reason}", removed=True))
    candidates = _counts(_read(out / "preprocessed" / "candidates.parquet", ["kind", *_WHERE]), ["kind"])
    removed = _counts(dropped["filter"], ["kind", "filter"])
    kept = _counts(_read(out / "filtered" / "kept.parquet", ["kind", *_WHERE]), ["kind"])
    split_removed = _counts(dropped["split"], ["kind", "filter"])
    in_splits = _counts(splits, ["split", "kind"])
    report = _read(out / "filtered" / "filter_report.parquet", ["kind", "step", "filter"])
    for kind in KINDS:
        steps.append(_step(f"{kind} candidates", _roll(candidates, (kind,)), f"preprocess.{kind}s", kind))
        for name in _filter_order(report, kind, removed):
            steps.append(_step(f"filter: {name}", _roll(removed, (kind, name)),
                               f"filter.removed_by_filter.{kind}.{name}", kind, removed=True))
        steps.append(_step(f"{kind}s kept", _roll(kept, (kind,)), None, kind))
        for name in sorted({key[1] for key in split_removed if key[0] == kind}):
            steps.append(_step(f"split: {name}", _roll(split_removed, (kind, name)), None, kind, removed=True))
        for split in SPLITS:
            steps.append(_step(f"{split} {kind}s", _roll(in_splits, (split, kind)), f"split.sizes.{split}.{kind}", kind))
    sources = sorted({p["asked"]["source"] for p in manifest.get("projects", [])} | {k[-2] for k in candidates})
    projects = sorted({(p["asked"]["source"], p["asked"]["project"]) for p in manifest.get("projects", [])}
                      | {k[-2:] for k in candidates})
    columns = [{"id": "all", "label": "all", "source": None}, *({"id": s, "label": s, "source": None} for s in sources),
               *({"id": f"{s} {p}", "label": p, "source": s} for s, p in projects)]
    return {"columns": columns, "funnel": steps}


def _filter_order(report: pa.Table | None, kind: str, removed: Counter) -> list[str]:
    """The filters of ``kind`` in the order they ran (the filter ``report``'s steps), then any other found."""
    ordered = [] if report is None else [
        r["filter"] for r in sorted(report.filter(pc.equal(report["kind"], kind)).to_pylist(), key=lambda r: r["step"])]
    names = [n for n in dict.fromkeys(ordered) if n not in ("input", "unprocessable")]
    return names + sorted({key[1] for key in removed if key[0] == kind} - set(names))


def _reasons(dropped: dict[str, pa.Table | None], hosts: Hosts) -> list[dict[str, Any]]:
    """Each drop reason of each stage, with its count and the first few rows as examples."""
    reasons = []
    for stage, _, column, _ in _DROPPED:
        table = dropped[stage]
        if table is None or table.num_rows == 0:
            continue
        if stage == "mining":  # the same reason names a different commit on every row
            table = table.set_column(0, column, pc.replace_substring_regex(table[column], _SHA.pattern, "<sha>"))
        for entry in pc.value_counts(table[column]).to_pylist():
            rows = table.filter(pc.equal(table[column], entry["values"])).slice(0, EXAMPLES_PER_REASON).to_pylist()
            for row in rows:
                row["url"] = change_url(hosts, row["source"], row["project"], row["change"])
            reasons.append({"stage": stage, "reason": entry["values"], "count": entry["counts"], "examples": rows})
    return sorted(reasons, key=lambda r: ([s[0] for s in _DROPPED].index(r["stage"]), -r["count"], r["reason"]))


def _lengths(splits: pa.Table | None) -> list[dict[str, Any]]:
    """Token-length distributions of the dataset's texts (whitespace tokens of the abstracted code, words of
    the comment)."""
    if splits is None or splits.num_rows == 0:
        return []
    triplets = splits.filter(pc.equal(splits["kind"], "triplet"))
    texts = [("m_s (abstracted)", splits["m_s_abstract"]), ("m_r (abstracted)", splits["m_r_abstract"]),
             ("comment (triplets)", triplets["comment"])]
    return [{"name": name, **histogram(pc.fill_null(pc.list_value_length(pc.utf8_split_whitespace(column)), 0)
                                       .to_numpy().astype(np.int64))}
            for name, column in texts]


def _clusters(splits: pa.Table | None) -> dict[str, Any]:
    """Near-duplicate clusters of the split: their sizes, the largest ones, and any that cross splits."""
    if splits is None or splits.num_rows == 0:
        return {}
    grouped = splits.group_by("cluster_id").aggregate([([], "count_all"), ("split", "count_distinct"),
                                                       ("method_name", "min"), ("split", "min")])
    sizes = grouped["count_all"].to_numpy()
    largest = grouped.take(np.argsort(-sizes, kind="stable")[:5]).to_pylist()
    return {"count": grouped.num_rows, "multi": int((sizes > 1).sum()), "largest": largest,
            "crossing": int(pc.sum(pc.greater(grouped["split_count_distinct"], 1)).as_py() or 0),
            "sizes": histogram(sizes.astype(np.int64), bins=min(20, int(sizes.max())))}


def _settings(out: Path, manifest: dict, state: dict) -> dict[str, Any]:
    """The settings a run folder records: mining options, the split's and the filter's, stage results."""
    split_path = out / "splits" / "split.json"
    split = json.loads(split_path.read_text(encoding="utf-8")) if split_path.is_file() else {}
    settings = {f"mine.{k}": v for k, v in manifest.get("options", {}).items() if k not in ("cache", "repos")}
    settings |= {f"split.{k}": split[k] for k in ("seed", "fractions", "strategy") if k in split}
    settings |= {f"filter.{k}": v for k, v in state.get("filter", {}).get("result", {}).items() if k == "profile"}
    return settings
