"""The filter report: rows removed per filter, kind and source (and language), as a long table and as the
paper's "Filters" table in Markdown (a second table per language when the dataset has several). The filter stage
builds it and the export nests its Markdown in the dataset card, so it lives beside the stages rather than in either.

Comments that never became candidates are in the preprocess stage's ``dropped.parquet``; when it is given
(or found beside the candidates) they are counted too, under ``author_comment``, ``not_linked`` or
``unprocessable``, so the report starts from every reviewer comment, like the paper's table.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from ..schema import DROPPED_SCHEMA, FILTER_REPORT_SCHEMA, DropReason
from .rows import KINDS, PAIR, TRIPLET
from .store import read_table

__all__ = ["AUTHORS_KEY", "PREPROCESS_KEY", "PREPROCESS_REASONS_KEY", "PROFILE_KEY", "TEMPLATES_KEY", "UNRECORDED",
           "authors_markdown", "build_report", "preprocess_comments", "preprocess_step", "preprocess_steps", "report_funnel",
           "report_markdown"]

#: filter_report.parquet's metadata key naming the noise filter that ran (profile and what it did).
PROFILE_KEY = "revmine.noise_filter"
#: its metadata key for the comments the preprocess stage dropped, per step they are counted under (JSON)
PREPROCESS_KEY = "revmine.preprocess_comments"
#: and for the preprocess stage's own reasons of those comments, per step (JSON: {step: {reason: count}})
PREPROCESS_REASONS_KEY = "revmine.preprocess_reasons"

#: Preprocess reasons that mean "the comment could not be linked to a method" (the rest: unprocessable).
_NOT_LINKED_REASONS = frozenset({
    DropReason.FILE_COMMENT, DropReason.WRONG_SIDE, DropReason.LINE_OUT_OF_RANGE, DropReason.OUTSIDE_METHOD,
    DropReason.PARTLY_OUTSIDE_METHOD, DropReason.SPANS_METHODS, DropReason.METHOD_DELETED,
    DropReason.NO_CONTENT_BEFORE,
})
_PREPROCESS_STEPS = ("author_comment", "not_linked", "unprocessable")
#: the language of a row that has none (an imported dataset that does not say)
UNKNOWN = "unknown"
#: filter_report.parquet's metadata key for who wrote the triplets' comments, per project (JSON, a list of
#: {source, project, author_kind, comments, triplets, dropped}: see ``filters.stage.comment_authors``)
AUTHORS_KEY = "revmine.comment_authors"
#: its metadata key for the accounts that only the filter's template check found to be bots (JSON: [{project,
#: author, evidence}]; accounts the forge or the list already names are not repeated)
TEMPLATES_KEY = "revmine.template_accounts"
#: the author kind of a comment mined before revmine recorded it
UNRECORDED = "not recorded"

_DESCRIPTIONS: dict[str, str | dict[str, str]] = {
    "input": {TRIPLET: "reviewer comments (candidates and comments the preprocess stage dropped)",
              PAIR: "methods changed in a review round"},
    "author_comment": "comment written by the change's author",
    "bot": "comment written by a bot (forge's account type, service user, robot comment, known or template account)",
    "ai_reviewer": "comment written by an AI reviewer (known accounts)",
    "not_linked": "comment not linked to a method",
    "unprocessable": "file or method the preprocess stage could not process",
    "unchanged": "m_s equal to m_r after abstraction",
    "too_long": "m_s or m_r longer than the token limit",
    "new_identifiers": "m_r introduces identifiers or literals absent from m_s",
    "multiple_comments": "more than one comment on m_s",
    "noise": "comment asks for no code change",
    "exact_duplicate": "exact duplicate",
    "near_duplicate": "near-duplicate (CodeNet criterion)",
}


def preprocess_comments(given: str | Path | None, candidates_path: Path | None) -> pa.Table | None:
    """The comments the preprocess stage dropped (``given``, or the dropped.parquet beside the candidates),
    or None when there is no such file."""
    path = given
    if path is None:
        if candidates_path is None or not (candidates_path.parent / "dropped.parquet").is_file():
            return None
        path = candidates_path.parent / "dropped.parquet"
    table = read_table(path, expect=DROPPED_SCHEMA,
                       columns=["kind", "reason", "source", "language", "comment_is_owner"])
    return table.filter(pc.equal(table.column("kind"), "comment"))


def preprocess_step(reason: str, is_owner: bool | None) -> str:
    """The filter step under which the report counts a comment the preprocess stage dropped for ``reason`` (the
    run report counts it there too, so the two agree)."""
    return "author_comment" if is_owner else "not_linked" if reason in _NOT_LINKED_REASONS else "unprocessable"


def preprocess_steps(preprocess: pa.Table) -> list[tuple[str, str, str]]:
    """(step, source, language) of each comment the preprocess stage dropped: the step the report counts it
    under."""
    return [(preprocess_step(reason, owner), source, language) for reason, source, language, owner in zip(*(
        preprocess.column(n).to_pylist() for n in ("reason", "source", "language", "comment_is_owner")))]


def report_funnel(report: pa.Table) -> dict[str, dict[str, Any]]:
    """Per kind, the report's steps over all sources and languages: ``input``, what each filter removed (in
    running order), ``kept``, and the filters that did not run (``skipped``): what run.json records of it, so
    the run report can be checked against the table the card shows."""
    funnel: dict[str, dict[str, Any]] = {}
    for row in sorted(report.to_pylist(), key=lambda r: r["step"]):
        if row["source"] != "all" or row["language"] != "all":
            continue
        steps = funnel.setdefault(row["kind"], {"skipped": []})
        steps[row["filter"]] = row["remaining"] if row["filter"] == "input" else row["removed"]
        steps["kept"] = row["remaining"]
        if not row["ran"]:
            steps["skipped"].append(row["filter"])
    return funnel


def build_report(table: pa.Table, removed: Counter[tuple[str, str, str, str]], ran: set[str],
                 filters: Sequence[tuple[str, tuple[str, ...]]], preprocess: pa.Table | None) -> pa.Table:
    """The long-form Filters table: per kind, step and source (language "all"), per kind, step and language
    (source "all"), and over all, removed and remaining.

    ``removed`` counts (kind, filter, source, language); ``filters`` are (name, kinds it applies to) in running
    order; ``unprocessable`` (known only from the preprocess stage) follows ``not_linked``."""
    steps = ["input"]
    for name, _ in filters:
        steps += [name, "unprocessable"] if name == "not_linked" else [name]
    triplet_only = {name for name, kinds in filters if kinds == (TRIPLET,)} | {"unprocessable"}
    counts: Counter[tuple[str, str, str, str]] = Counter(removed)
    inputs: Counter[tuple[str, str, str]] = Counter(
        (kind, source, language or UNKNOWN) for kind, source, language in zip(
            *(table.column(n).to_pylist() for n in ("kind", "source", "language"))))
    if preprocess is not None:
        for step, source, language in preprocess_steps(preprocess):
            language = language or UNKNOWN
            counts[(TRIPLET, step, source, language)] += 1
            inputs[(TRIPLET, source, language)] += 1
        ran = ran | set(_PREPROCESS_STEPS)  # counted from the preprocess file
    sources = sorted({source for _, source, _ in inputs})
    languages = sorted({language for _, _, language in inputs})
    groups = [*((source, "all") for source in sources), ("all", "all"), *(("all", language) for language in languages)]
    records = []
    for kind in KINDS:
        for source, language in groups:
            def within(s: str, lang: str) -> bool:
                return source in (s, "all") and language in (lang, "all")
            remaining = sum(n for (k, s, lang), n in inputs.items() if k == kind and within(s, lang))
            for step, name in enumerate(steps):
                if kind == PAIR and name in triplet_only:
                    continue
                n = 0 if name == "input" else sum(c for (k, f, s, lang), c in counts.items()
                                                  if k == kind and f == name and within(s, lang))
                remaining -= n
                records.append({"kind": kind, "step": step, "filter": name, "source": source, "language": language,
                                "removed": n, "remaining": remaining, "ran": name in ran})
    return pa.Table.from_pylist(records, schema=FILTER_REPORT_SCHEMA)


def _cell(row: dict[str, Any]) -> str:
    if row["filter"] == "input":
        return f"{row['remaining']:,}"
    if not row["ran"]:  # unprocessable: counted only from the preprocess stage's file, when given
        return "n/a" if row["filter"] == "unprocessable" else "skipped"
    return f"-{row['removed']:,}" if row["removed"] else "0"


def report_markdown(report: pa.Table, level: int = 1) -> str:
    """The report as the paper's "Filters" table: one Markdown table per kind, a column per source, under
    a heading of ``level`` (the dataset card nests it); with more than one language, a second table per kind
    with a column per language."""
    rows = report.to_pylist()
    languages = sorted({r["language"] for r in rows} - {"all"})
    noise_filter = (report.schema.metadata or {}).get(PROFILE_KEY.encode(), b"").decode()
    lines = [f"{'#' * level} Filter report", "",
             "Rows removed by each filter, in the order the filters run (each row is counted once, under the",
             "first filter that removed it), per source.", ""]
    if noise_filter:
        lines += [f"Noise filter: {noise_filter}.", ""]
    from_preprocess = json.loads((report.schema.metadata or {}).get(PREPROCESS_KEY.encode(), b"{}"))
    reasons = json.loads((report.schema.metadata or {}).get(PREPROCESS_REASONS_KEY.encode(), b"{}"))
    if from_preprocess:
        def under(step: str, n: int) -> str:
            named = ", ".join(f"`{reason}` {k:,}" for reason, k in reasons.get(step, {}).items())
            return f"{step} ({n:,}" + (f"; preprocess reasons {named}" if named else "") + ")"
        lines += [f"Triplets start from every reviewer comment, as the paper's table does: "
                  f"{sum(from_preprocess.values()):,} comments the preprocess stage dropped (its dropped.parquet) are "
                  "counted here, under " + ", ".join(under(step, n) for step, n in from_preprocess.items())
                  + "; the filter stage's own dropped.parquet and `removed_by_filter` count only the candidates it "
                  "removed.", ""]
    authors = json.loads((report.schema.metadata or {}).get(AUTHORS_KEY.encode(), b"[]"))
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        if not any(r["filter"] == "input" and r["source"] == r["language"] == "all" and r["remaining"] for r in mine):
            continue
        lines += [f"{'#' * (level + 1)} {kind.capitalize()}s", ""]
        lines += _table(kind, [r for r in mine if r["language"] == "all"], "source")
        if len(languages) > 1:
            lines += ["Per language:", ""]
            lines += _table(kind, [r for r in mine if r["source"] == "all"], "language")
    if authors:
        lines += authors_markdown(authors, level + 1)
    templates = json.loads((report.schema.metadata or {}).get(TEMPLATES_KEY.encode(), b"[]"))
    if templates:
        lines += ["Accounts the forge does not mark as bots but found to post templates (their comments count as a "
                  "bot's):", "",
                  *(f"- {t['project']}: `{t['author']}` ({t['evidence']})" for t in templates), ""]
    return "\n".join(lines)


def authors_markdown(authors: list[dict[str, Any]], level: int) -> list[str]:
    """The "Who commented" table: per project, the triplets' comments by author kind and the triplets the
    ``bot`` and ``ai_reviewer`` filters dropped."""
    kinds = ["human", "bot", "ai_reviewer", UNRECORDED]
    kinds = [k for k in kinds if any(a["author_kind"] == k for a in authors)]
    projects = list(dict.fromkeys((a["source"], a["project"]) for a in authors))
    cell = {(a["source"], a["project"], a["author_kind"]): a for a in authors}
    lines = [f"{'#' * level} Who commented", "",
             "Reviewer comments of the triplets per project and author kind (comments; triplets), and the triplets the",
             "`bot` and `ai_reviewer` filters dropped.", "",
             "| source | project | " + " | ".join(kinds) + " | dropped |", "|---|---|" + "---:|" * (len(kinds) + 1)]
    for source, project in projects:
        here = [cell.get((source, project, k)) for k in kinds]
        lines.append(f"| {source} | {project} | " + " | ".join(
            f"{a['comments']:,}; {a['triplets']:,}" if a else "0" for a in here)
            + f" | {sum(a['dropped'] for a in here if a):,} |")
    return lines + [""]


def _table(kind: str, rows: list[dict[str, Any]], column: str) -> list[str]:
    """One kind's Filters table with a column per value of ``column`` (source or language), "all" last."""
    values = list(dict.fromkeys(r[column] for r in rows if r[column] != "all")) + ["all"]
    cell = {(r["filter"], r[column]): r for r in rows}
    steps = list(dict.fromkeys(r["filter"] for r in rows))
    lines = ["| filter | what it removes | " + " | ".join(values) + " |", "|---|---|" + "---:|" * len(values)]
    for step in steps:
        what = _DESCRIPTIONS[step]
        lines.append(f"| {step} | {what[kind] if isinstance(what, dict) else what} | "
                     + " | ".join(_cell(cell[(step, v)]) for v in values) + " |")
    last = steps[-1]
    lines.append("| **kept** | rows in the dataset | "
                 + " | ".join(f"**{cell[(last, v)]['remaining']:,}**" for v in values) + " |")
    return lines + [""]
