"""The run report: the funnel from forge to dataset, drop reasons with examples linked to their forge, a
seeded sample of each level's rows (triplets, pairs, hunks; every project in turn) as the reviewer saw them, token lengths, splits and near-duplicate clusters, time
per stage, versions and settings. Every count is read from the stages' files (only the columns it needs);
those that run.json also records carry its key (``data-check``), so a test can hold them equal.

When the run has files in more than one language, the funnel is also shown per language, from the files in
review rounds on (changes and rounds are not one language's: a round may touch several); each step counts the
same rows per their ``language`` column. Files dropped while mining record no language: theirs is read from the
path as the miners read it (:func:`revmine.lang.languages.language_of`, a ``.h`` is then C). Rows a stage did
not give a language are counted under "unknown", so that each row of the per-language table adds up to "all".
When the run has hunk-level rows (CodeReviewer's, ``splits/hunks.parquet``), the hunks and the reviewer comments
on them (rows with ``y`` = 1; a hunk is a distinct (round_id, path, hunk_index)) are shown per language and split.
"Who commented" shows, per project and author kind (human, bot, AI reviewer, as the miners recorded them and the
filter's template check found), the reviewer comments mined and the triplets the author filters dropped."""

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
from ..io.filter_report import AUTHORS_KEY, TEMPLATES_KEY, UNRECORDED, preprocess_step
from ..io.filter_report import UNKNOWN as UNKNOWN_LANGUAGE  # the per-language column of rows with no language
from ..io.rows import KINDS, SPLITS, TRIPLET
from ..io.store import Parts
from ..lang.languages import LANGUAGES, language_of
from .diffs import hunk_sample_view, sample_view
from .links import Hosts, change_url, hosts as read_hosts
from .render import histogram, write_report

#: the run record revmine.pipeline writes (its STATE_FILE: the pipeline imports this package, not the reverse)
STATE_FILE = "run.json"
EXAMPLES_PER_REASON = 3
SAMPLE_SIZE = 6
_BATCH = 1 << 16
_SHA = re.compile(r"\b[0-9a-f]{40}\b")
#: provenance columns every example of a drop reason shows
_WHERE = ["source", "project", "change"]
#: each stage's dropped rows: (stage, file, the columns its examples show); each names its reason in ``reason``
_DROPPED = [("mining", Path("mined", "dropped.parquet"), ["path"]),
            ("preprocess", Path("preprocessed", "dropped.parquet"),
             ["kind", "round", "path", "detail", "language", "comment_is_owner"]),
            ("filter", Path("filtered", "dropped.parquet"),
             ["kind", "round", "path", "method_name", "detail", "comment", "language"]),
            ("split", Path("splits", "dropped.parquet"),
             ["kind", "round", "path", "method_name", "detail", "comment", "language"])]


def write_run_report(out: str | Path, sample: int = SAMPLE_SIZE) -> Path:
    """Write ``out/report.html`` for the run folder ``out`` (a ``revmine run`` output) and return its path."""
    out = Path(out)
    return write_report(out, "run.html", **run_report_data(out, sample))


def run_report_data(out: Path, sample: int = SAMPLE_SIZE) -> dict[str, Any]:
    """What the run report shows, as the template reads it (kept apart from the HTML so that its figures can be
    checked against the stages' files)."""
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
    rounds = _read(out / "mined" / "rounds.parquet", ["round_id", "source", "host", "project", "comments", "language"])
    dropped = {stage: _read(out / path, ["reason", *_WHERE, *extra]) for stage, path, extra in _DROPPED}
    hosts = read_hosts(rounds)
    splits = _splits(out)
    seed = int(state.get("split", {}).get("result", {}).get("seed", 0))
    hunks = _hunks(out)
    return dict(folder=str(out.resolve()), **_funnel(out, manifest, rounds, dropped, splits), hunks=hunks,
                levels=_levels(splits, hunks),
                authors=_authors(out, rounds),
                reasons=_reasons(dropped, hosts),
                samples={kind: sample_view(splits, hosts, sample, seed, kind) for kind in KINDS}
                if splits is not None else {},
                hunk_samples=_hunk_samples(out, hosts, sample, seed),
                seed=seed, lengths=_lengths(splits), clusters=_clusters(splits),
                stages=[{"name": name, **{k: state[name].get(k) for k in ("seconds", "fingerprint")}}
                        for name in ("mine", "preprocess", "filter", "split", "export", "score") if name in state],
                settings=_settings(out, manifest, state), manifest_versions=manifest.get("versions", {}),
                publishing=_publishing(state),
                score_report=(out / "scores" / "report.html").is_file())


def _publishing(state: dict) -> list[tuple[str, str]]:
    """What export did to people and secrets, from run.json's export result (the card says it at length); empty
    before export ran, or for a run from before it recorded it."""
    result = state.get("export", {}).get("result", {})
    names, secrets = result.get("pseudonyms"), result.get("secrets")
    rows: list[tuple[str, str]] = []
    if names is not None:  # a count is absent when nothing was replaced (a job of hunk rows only has no author)
        rows.append(("pseudonyms", f"{names.get('identities', 0):,} author identities replaced by keyed hashes; "
                                   f"{names.get('emails', 0):,} e-mail addresses, {names.get('mentions', 0):,} "
                                   f"@mentions and {names.get('names', 0):,} participants' names replaced by "
                                   "placeholders"))
    elif "pseudonyms" in result:
        rows.append(("pseudonyms", "off: authors as mined"))
    if secrets is not None:
        found = {k: v for k, v in secrets.items() if k != "mode"}
        rows.append(("secrets", f"mode {secrets['mode']}: " + (", ".join(f"{k} {v:,}" for k, v in sorted(found.items()))
                                                              if found else "none found")))
    licences = result.get("licences")
    if licences is not None:
        rows.append(("licences", f"allowed: {', '.join(licences['allowed'])}; rows per licence: "
                                 + (", ".join(f"{k} {v:,}" for k, v in licences["rows"].items()) or "none")))
    for reason, projects in result.get("withheld", {}).items():
        rows.append((f"left out: {reason}", f"{sum(projects.values()):,} rows ("
                     + ", ".join(f"{p} {n:,}" for p, n in sorted(projects.items(), key=lambda kv: -kv[1])[:10]) + ")"))
    return rows


def _hunk_samples(out: Path, hosts: Hosts, size: int, seed: int) -> list[dict[str, Any]]:
    """A sample of the hunk-level rows with a comment, as :func:`.diffs.hunk_sample_view` shows them."""
    hunks = _read(out / "splits" / "hunks.parquet", ["split", *_WHERE, "round", "path", "language", "patch", "y",
                                                     "comment"])
    return hunk_sample_view(hunks, hosts, size, seed) if hunks is not None else []


def _authors(out: Path, rounds: pa.Table | None) -> dict[str, Any] | None:
    """Who commented, per project and author kind: the reviewer comments mined (not the change owner's; a
    comment once however many rounds' files repeat it; an account the filter found to post templates as a bot), and from the filter report the triplets' comments,
    triplets and those the ``bot`` and ``ai_reviewer`` filters dropped; None before the filter stage ran."""
    path = out / "filtered" / "filter_report.parquet"
    if not path.is_file():
        return None
    metadata = pq.read_schema(path).metadata or {}
    found = json.loads(metadata.get(AUTHORS_KEY.encode(), b"[]"))
    templates = {(t["project"], t["author"]) for t in json.loads(metadata.get(TEMPLATES_KEY.encode(), b"[]"))}
    mined: dict[tuple[str, str, str], set] = {}
    if rounds is not None:
        for source, project, comments in zip(*(rounds.column(n).to_pylist() for n in ("source", "project", "comments"))):
            for c in comments or ():
                if not c.get("is_owner"):
                    kind = c.get("author_kind") or UNRECORDED
                    if (project, c.get("author")) in templates and kind != "ai_reviewer":
                        kind = "bot"  # as the filter counts it
                    mined.setdefault((source, project, kind), set()).add(c["id"])
    rows: dict[tuple[str, str, str], dict[str, Any]] = {
        key: {"source": key[0], "project": key[1], "author_kind": key[2], "mined": len(ids), "comments": 0,
              "triplets": 0, "dropped": 0} for key, ids in mined.items()}
    for a in found:
        row = rows.setdefault((a["source"], a["project"], a["author_kind"]), {
            "source": a["source"], "project": a["project"], "author_kind": a["author_kind"], "mined": 0})
        row.update(comments=a["comments"], triplets=a["triplets"], dropped=a["dropped"])
    return {"rows": [rows[k] for k in sorted(rows)]} if rows else None


def _read(path: Path, columns: list[str]) -> pa.Table | None:
    """The ``columns`` of a stage's Parquet file (or directory of parts), or None when the stage has not written
    it; a file of an earlier version gets the columns it lacks as they were then (every row Java before
    ``language``: :data:`revmine.schema.UPGRADES`)."""
    if not path.exists():
        return None
    parts = Parts(path)
    batches = list(parts.iter_batches(_BATCH, columns))
    return pa.Table.from_batches(batches) if batches else parts.schema.empty_table().select(columns)


def _splits(out: Path) -> pa.Table | None:
    """The split rows (the columns the report needs, not the abstraction maps), or None before the split."""
    paths = [out / "splits" / f"{name}.parquet" for name in SPLITS]
    if not all(p.exists() for p in paths):
        return None
    columns = ["id", "split", "cluster_id", "kind", "source", "project", "change", "round", "path", "method_name",
               "comment_start_line", "comment_end_line", "start_line_before", "start_line_after",
               "m_s", "m_r", "comment", "m_s_abstract", "m_r_abstract", "comment_abstract", "language"]
    return pa.concat_tables(_read(p, columns) for p in paths)


def _counts(table: pa.Table | None, keys: Iterable[str] = (), distinct: str | None = None,
            languages: bool = True) -> Counter:
    """Rows (or distinct values of ``distinct``) per (*keys, language, source, project); the language is None
    where ``table`` has none, or with ``languages`` false (distinct values per language do not add up)."""
    if table is None or table.num_rows == 0:
        return Counter()
    keys = [*keys, "language", "source", "project"]
    by = keys if languages and "language" in table.column_names else [k for k in keys if k != "language"]
    agg = [(distinct, "count_distinct")] if distinct else [([], "count_all")]
    grouped = table.group_by(by).aggregate(agg)
    values = grouped[f"{distinct}_count_distinct" if distinct else "count_all"].to_pylist()
    return Counter({tuple(r.get(k) for k in keys): n for r, n in zip(grouped.select(by).to_pylist(), values)})


def _roll(counts: Counter, prefix: tuple = ()) -> tuple[dict[str, int], dict[str, int]]:
    """Counts of (*prefix, language, source, project) as columns: all, each source, each project; and as
    columns all and each language (None: :data:`UNKNOWN_LANGUAGE`)."""
    rolled: Counter = Counter()
    languages: Counter = Counter()
    for key, n in counts.items():
        if tuple(key[:len(prefix)]) != prefix:
            continue
        language, source, project = key[-3:]
        for column in ("all", source, f"{source} {project}"):
            rolled[column] += n
        for column in ("all", language or UNKNOWN_LANGUAGE):
            languages[column] += n
    return dict(rolled), dict(languages)


def _step(label: str, counts: Counter, prefix: tuple = (), check: str | None = None, kind: str | None = None,
          removed: bool = False, languages: bool = True, skipped: bool = False) -> dict[str, Any]:
    """A funnel step: its ``counts`` under ``prefix`` per column, and per language unless it has none;
    ``skipped``: a filter that did not run (shown so, not as 0 removed)."""
    per_column, per_language = _roll(counts, prefix)
    return {"label": label, "counts": per_column, "languages": per_language if languages else None,
            "check": None if skipped else check, "kind": kind, "removed": removed, "skipped": skipped}


def _funnel(out: Path, manifest: dict, rounds: pa.Table | None, dropped: dict[str, pa.Table | None],
            splits: pa.Table | None) -> dict[str, Any]:
    """The funnel's columns (all, sources, projects) and steps, each step's counts per column (``rounds``
    and each stage's ``dropped`` rows as :func:`write_run_report` read them).

    Each level's section starts where the filter report's table does and counts each dropped row under the same
    step (:func:`revmine.io.filter_report.preprocess_step` for the comments the preprocess stage dropped), so the
    page, ``filter_report.md`` and the dataset card show the same numbers and each section adds up: triplets from
    every reviewer comment, pairs from every method changed or deleted, hunk-level rows from every reviewer
    comment again (a comment may make a triplet and a hunk row both)."""
    changes = Counter({(None, p["asked"]["source"], p["asked"]["project"]): p.get("changes_done", 0)
                       for p in manifest.get("projects", [])})
    mining = dropped["mining"]
    if mining is not None and "language" not in mining.column_names:
        mining = mining.append_column("language", pa.array([language_of(path) for path in mining["path"].to_pylist()],
                                                            pa.string()))
    pre = _by_kind(dropped["preprocess"])
    steps = [_step("changes mined", changes, (), "mine.changes_done", languages=False),
             _step("review rounds", _counts(rounds, distinct="round_id", languages=False), (), "mine.review_rounds",
                   languages=False),
             _step("files in review rounds", _counts(rounds), (), "mine.rows"),
             _step("files dropped while mining", _counts(mining), (), "mine.dropped", removed=True)]
    files = _counts(pre.get("file"), ["reason"])
    steps += [_step(f"files dropped by preprocess: {reason}", files, (reason,), removed=True)
              for reason in sorted({key[0] for key in files})]
    comments = Counter()
    if rounds is not None:
        per_file = pa.table({"language": rounds["language"], "source": rounds["source"], "project": rounds["project"],
                             "n": pc.fill_null(pc.list_value_length(rounds["comments"]), 0)})
        grouped = per_file.group_by(["language", "source", "project"]).aggregate([("n", "sum")]).to_pylist()
        comments = Counter({(r["language"], r["source"], r["project"]): r["n_sum"] for r in grouped})
        steps.append(_step("reviewer comments", comments, (), "preprocess.comments"))
    candidates = _counts(_read(out / "preprocessed" / "candidates.parquet", ["kind", *_WHERE, "language"]), ["kind"])
    removed = _counts(dropped["filter"], ["kind", "reason"])
    comment_drops = pre.get("comment")
    if comment_drops is not None:  # counted under the filter step the filter report counts them under
        comment_drops = comment_drops.append_column("step", pa.array(
            [preprocess_step(reason, owner) for reason, owner in zip(
                comment_drops["reason"].to_pylist(), comment_drops["comment_is_owner"].to_pylist())], pa.string()))
    from_preprocess = _counts(comment_drops, ["step"])
    named: dict[str, Counter] = {}  # per step, the preprocess stage's reasons counted under it (its vocabulary)
    if comment_drops is not None:
        for step, reason in zip(comment_drops["step"].to_pylist(), comment_drops["reason"].to_pylist()):
            named.setdefault(step, Counter())[reason] += 1
    methods = _counts(pre.get("method"), ["reason"])
    kept = _counts(_read(out / "filtered" / "kept.parquet", ["kind", *_WHERE, "language"]), ["kind"])
    split_removed = _counts(dropped["split"], ["kind", "reason"])
    in_splits = _counts(splits, ["split", "kind"])
    report = _read(out / "filtered" / "filter_report.parquet", ["kind", "step", "filter", "ran"])
    for kind in KINDS:
        if kind == TRIPLET:
            steps.append(_step("reviewer comments", _under(candidates, (kind,)) + _under(from_preprocess),
                               check=f"filter.report.{kind}.input", kind=kind))
        else:
            steps.append(_step("methods changed or deleted", _under(candidates, (kind,)) + _under(methods), kind=kind))
            steps += [_step(f"dropped by preprocess: {reason}", methods, (reason,), kind=kind, removed=True)
                      for reason in sorted({key[0] for key in methods})]
            steps.append(_step(f"{kind} candidates", candidates, (kind,), f"filter.report.{kind}.input", kind))
        skipped = _skipped(report, kind)
        for name in _filter_order(report, kind, removed):
            counts = _under(removed, (kind, name)) + (_under(from_preprocess, (name,)) if kind == TRIPLET else Counter())
            note = ", ".join(f"{reason} {n:,}" for reason, n in sorted(named.get(name, {}).items()))
            steps.append({**_step(f"filter: {name}", counts, (), f"filter.report.{kind}.{name}", kind, removed=True,
                                  skipped=name in skipped),
                          "note": f"with the preprocess stage's {note}" if note and kind == TRIPLET else None})
        steps.append(_step(f"{kind}s kept", kept, (kind,), f"filter.report.{kind}.kept", kind))
        for name in sorted({key[1] for key in split_removed if key[0] == kind}):
            steps.append(_step(f"split: {name}", split_removed, (kind, name), None, kind, removed=True))
        for split in SPLITS:
            steps.append(_step(f"{split} {kind}s", in_splits, (split, kind), f"split.sizes.{split}.{kind}", kind))
    steps += _hunk_funnel(out, comments, pre.get("hunk_comment"))
    sources = sorted({p["asked"]["source"] for p in manifest.get("projects", [])} | {k[-2] for k in candidates})
    projects = sorted({(p["asked"]["source"], p["asked"]["project"]) for p in manifest.get("projects", [])}
                      | {k[-2:] for k in candidates})
    columns = [{"id": "all", "label": "all", "source": None}, *({"id": s, "label": s, "source": None} for s in sources),
               *({"id": f"{s} {p}", "label": p, "source": s} for s, p in projects)]
    found = {language for step in steps for language in step["languages"] or ()} - {"all"}
    languages = [*(name for name in LANGUAGES if name in found), *sorted(found - set(LANGUAGES))]
    shown = ["all", *languages] if len(set(languages) - {UNKNOWN_LANGUAGE}) > 1 else []
    return {"columns": columns, "funnel": steps,
            "language_columns": [{"id": name, "label": name, "source": None} for name in shown]}


#: the funnel's name for the hunk-level rows' section (the template heads it with the plural)
HUNK_COMMENT = "hunk-level comment"


def _hunk_funnel(out: Path, comments: Counter, drops: pa.Table | None) -> list[dict[str, Any]]:
    """The hunk-level section (CodeReviewer's rows): every reviewer comment, those the preprocess stage made no hunk
    row of, the comments on hunks (rows with ``y`` = 1) and how the split dealt them; none without hunk rows."""
    hunks = _read(out / "preprocessed" / "hunks.parquet", ["y", *_WHERE, "language"])
    if hunks is None:
        return []
    on_hunks = _counts(hunks.filter(pc.equal(hunks["y"], 1)))
    reasons = _counts(drops, ["reason"])
    steps = [_step("reviewer comments", comments, (), "preprocess.comments", HUNK_COMMENT)]
    steps += [_step(f"dropped by preprocess: {reason}", reasons, (reason,), None, HUNK_COMMENT, removed=True)
              for reason in sorted({key[0] for key in reasons})]
    steps.append(_step("comments on hunks", on_hunks, (), "preprocess.hunk_comments", HUNK_COMMENT))
    in_splits = _read(out / "splits" / "hunks.parquet", ["split", "y", *_WHERE, "language"])
    if in_splits is not None:
        per_split = _counts(in_splits.filter(pc.equal(in_splits["y"], 1)), ["split"])
        steps += [_step(f"{split} comments on hunks", per_split, (split,), None, HUNK_COMMENT) for split in SPLITS]
    return steps


def _by_kind(table: pa.Table | None) -> dict[str, pa.Table]:
    """The preprocess stage's dropped rows by their ``kind`` (file, comment, method, hunk_comment)."""
    if table is None:
        return {}
    return {kind: table.filter(pc.equal(table["kind"], kind)) for kind in pc.unique(table["kind"]).to_pylist()}


def _under(counts: Counter, prefix: tuple = ()) -> Counter:
    """The (language, source, project) counts of ``counts`` under ``prefix``, to add two steps' rows together."""
    return Counter({key[len(prefix):]: n for key, n in counts.items() if tuple(key[:len(prefix)]) == prefix})


def _skipped(report: pa.Table | None, kind: str) -> set[str]:
    """The filters of ``kind`` that did not run (the filter report says ``ran`` false): shown as skipped, not 0."""
    if report is None:
        return set()
    rows = report.filter(pc.and_(pc.equal(report["kind"], kind), pc.invert(report["ran"])))
    return set(rows["filter"].to_pylist())


def _filter_order(report: pa.Table | None, kind: str, removed: Counter) -> list[str]:
    """The filters of ``kind`` in the order they ran (the filter ``report``'s steps), then any other found."""
    ordered = [] if report is None else [
        r["filter"] for r in sorted(report.filter(pc.equal(report["kind"], kind)).to_pylist(), key=lambda r: r["step"])]
    names = [n for n in dict.fromkeys(ordered) if n != "input"]
    return names + sorted({key[1] for key in removed if key[0] == kind} - set(names))


def _hunks(out: Path) -> dict[str, Any]:
    """Hunks (distinct (round_id, path, hunk_index)) and reviewer comments on them (rows with ``y`` = 1) per
    language and split of CodeReviewer's hunk-level rows, with totals ("all"); empty when the run has none."""
    table = _read(out / "splits" / "hunks.parquet", ["split", "language", "round_id", "path", "hunk_index", "y"])
    if table is None:
        return {}
    table = table.append_column("comment", pc.cast(pc.equal(table["y"], 1), pa.int64()))
    per_hunk = table.group_by(["language", "split", "round_id", "path", "hunk_index"]).aggregate([("comment", "sum")])
    hunks: Counter = Counter()
    comments: Counter = Counter()
    for row in per_hunk.select(["language", "split", "comment_sum"]).to_pylist():
        for language in (row["language"] or UNKNOWN_LANGUAGE, "all"):
            for split in (row["split"], "all"):
                hunks[language, split] += 1
                comments[language, split] += row["comment_sum"]
    found = {language for language, _ in hunks} - {"all"}
    splits = {split for _, split in hunks} - {"all"}
    return {"languages": [*(n for n in LANGUAGES if n in found), *sorted(found - set(LANGUAGES)), "all"],
            "splits": [*(n for n in SPLITS if n in splits), *sorted(splits - set(SPLITS)), "all"],
            "hunks": {f"{language} {split}": n for (language, split), n in hunks.items()},
            "comments": {f"{language} {split}": n for (language, split), n in comments.items()}}


def _levels(splits: pa.Table | None, hunks: dict[str, Any]) -> dict[str, str]:
    """What each level of the run's splits holds, in words: a job of one level shows the other as empty."""
    kinds = Counter(splits.column("kind").to_pylist()) if splits is not None else Counter()
    method = ", ".join(f"{kinds[kind]:,} {kind}s" for kind in ("triplet", "pair") if kinds[kind])
    hunk = (f"{hunks['hunks']['all all']:,} hunks, {hunks['comments']['all all']:,} reviewer comments on them"
            if hunks else "")
    return {"method (Tufano et al., ICSE 2021)": method or "no rows",
            "hunk (CodeReviewer, Li et al., ESEC/FSE 2022)": hunk or "no rows"}


def _reasons(dropped: dict[str, pa.Table | None], hosts: Hosts) -> list[dict[str, Any]]:
    """Each drop reason of each stage, with its count and the first few rows as examples."""
    reasons = []
    for stage, _, _ in _DROPPED:
        table = dropped[stage]
        if table is None or table.num_rows == 0:
            continue
        if stage == "mining":  # the same reason names a different commit on every row
            table = table.set_column(0, "reason", pc.replace_substring_regex(table["reason"], _SHA.pattern, "<sha>"))
        for entry in pc.value_counts(table["reason"]).to_pylist():
            rows = table.filter(pc.equal(table["reason"], entry["values"])).slice(0, EXAMPLES_PER_REASON).to_pylist()
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
    """Near-duplicate clusters of the split: their sizes, the largest ones, how many hold more than one method
    (a method's triplet and pair are one cluster by design, not a duplicate) and any that cross splits."""
    if splits is None or splits.num_rows == 0:
        return {}
    methods = pa.table({"cluster_id": splits["cluster_id"], "method": pc.binary_join_element_wise(
        *(pc.cast(splits[c], pa.string()) for c in ("source", "project", "change", "round", "path", "method_name")),
        "\x1f")})
    per_cluster = methods.group_by("cluster_id").aggregate([("method", "count_distinct")])
    grouped = splits.group_by("cluster_id").aggregate([([], "count_all"), ("split", "count_distinct"),
                                                       ("method_name", "min"), ("split", "min")])
    sizes = grouped["count_all"].to_numpy()
    # group_by's order varies between calls (threads): ties in size go by cluster id, so the page is byte-identical
    largest = grouped.sort_by([("count_all", "descending"), ("cluster_id", "ascending")]).slice(0, 5).to_pylist()
    multi = int(pc.sum(pc.greater(per_cluster["method_count_distinct"], 1)).as_py() or 0)
    return {"count": grouped.num_rows, "multi": multi, "largest": largest,
            "crossing": int(pc.sum(pc.greater(grouped["split_count_distinct"], 1)).as_py() or 0),
            "sizes": histogram(sizes.astype(np.int64), bins=min(20, int(sizes.max())))}


def _settings(out: Path, manifest: dict, state: dict) -> dict[str, Any]:
    """Every stage's settings as run.json records them (``stage.key``: its job-file table's keys with the values
    the stage ran with, defaults included); for a run folder written before run.json held them, what the mining
    manifest, split.json and the filter's result say."""
    recorded = {f"{stage}.{key}": value for stage in ("mine", "preprocess", "filter", "split", "export", "score")
                for key, value in state.get(stage, {}).get("settings", {}).items()}
    if recorded:
        return recorded
    split_path = out / "splits" / "split.json"
    split = json.loads(split_path.read_text(encoding="utf-8")) if split_path.is_file() else {}
    settings = {f"mine.{k}": v for k, v in manifest.get("options", {}).items() if k not in ("cache", "repos")}
    settings |= {f"split.{k}": split[k] for k in ("seed", "fractions", "strategy") if k in split}
    settings |= {f"filter.{k}": v for k, v in state.get("filter", {}).get("result", {}).items() if k == "profile"}
    return settings
