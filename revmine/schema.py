"""The Parquet schemas through which stages talk: defined once here, versioned.

Each schema carries its name and version in the Parquet key-value metadata (``revmine.schema``), so a
stage can refuse a file written by another stage or by an incompatible version with a clear message
instead of failing deep inside. Column order is part of the schema.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

SCHEMA_KEY = b"revmine.schema"


def _versioned(name: str, version: int, fields: list[pa.Field]) -> pa.Schema:
    return pa.schema(fields, metadata={SCHEMA_KEY: f"{name}/{version}".encode()})


# --- miners stage: rounds.parquet ---------------------------------------------------------------------
#: One reviewer inline comment, anchored on the revision that was submitted (m_s's revision).
COMMENT_TYPE = pa.struct([
    pa.field("id", pa.string()),
    pa.field("author", pa.string()),
    pa.field("is_owner", pa.bool_()),  # written by the change / pull-request owner
    pa.field("path", pa.string()),
    pa.field("side", pa.string()),  # "REVISION"/"PARENT" (Gerrit) or "RIGHT"/"LEFT" (GitHub, GitLab)
    pa.field("line", pa.int32()),  # the line the comment is shown on (None: file-level comment)
    pa.field("start_line", pa.int32()),
    pa.field("end_line", pa.int32()),
    pa.field("start_character", pa.int32()),  # Gerrit ranges only
    pa.field("end_character", pa.int32()),
    pa.field("message", pa.string()),
    pa.field("in_reply_to", pa.string()),
    pa.field("created", pa.timestamp("us", tz="UTC")),
    pa.field("unresolved", pa.bool_()),
    pa.field("outdated", pa.bool_()),  # GitHub: anchored by original_* fields only
    # rounds/3: who wrote it (revmine.miners.authors): "human" | "bot" | "ai_reviewer", and the signs found
    pa.field("author_kind", pa.string()),
    pa.field("author_evidence", pa.string()),  # e.g. "type=Bot;login=[bot]", "tags=SERVICE_USER"
])

ROUNDS_NAME, ROUNDS_VERSION = "rounds", 4  # 2: language, content_base; 3: comments' author_kind, author_evidence; 4: licence

#: One row per (review round, file in a language mined): the file at the change's base, as submitted, as
#: revised, and the comments on it.
ROUNDS_SCHEMA = _versioned(ROUNDS_NAME, ROUNDS_VERSION, [
    pa.field("round_id", pa.string(), nullable=False),  # "{source}:{host}:{project}:{change}:{round}"
    pa.field("source", pa.string(), nullable=False),  # "gerrit" | "github" | "gitlab"
    pa.field("host", pa.string(), nullable=False),
    pa.field("project", pa.string(), nullable=False),
    pa.field("change", pa.string(), nullable=False),  # Gerrit change number / GitHub PR number
    pa.field("change_key", pa.string()),  # Gerrit Change-Id, GitHub node id
    pa.field("round", pa.int32(), nullable=False),  # patch set N / index of the commit in the PR
    pa.field("revision_before", pa.string()),  # commit sha of the revision submitted
    pa.field("revision_after", pa.string()),  # commit sha of the next revision
    pa.field("owner", pa.string()),
    pa.field("created", pa.timestamp("us", tz="UTC")),
    pa.field("updated", pa.timestamp("us", tz="UTC")),
    pa.field("path_before", pa.string()),
    pa.field("path_after", pa.string()),  # differs from path_before on a rename; None when deleted
    pa.field("file_status", pa.string()),  # "modified" | "added" | "deleted" | "renamed"
    pa.field("language", pa.string()),  # revmine.lang.languages.language_of the file ("java", "python"...)
    # rounds/4: the project's licence at the revision submitted, an SPDX expression (revmine.miners.licences):
    # "NOASSERTION" when licence files are there but none is recognised, None when there is none
    pa.field("licence", pa.string()),
    # the file at the parent of the revision submitted (Gerrit: the patch set's parent; GitHub: the parent of
    # the pull request's first commit): the side CodeReviewer's diff hunks start from; None when absent there
    pa.field("content_base", pa.large_string()),
    pa.field("content_before", pa.large_string()),
    pa.field("content_after", pa.large_string()),
    pa.field("comments", pa.list_(COMMENT_TYPE)),
])



# --- preprocess stage: candidates.parquet and dropped.parquet ------------------------------------------
class DropReason:
    """Values of ``dropped.parquet``'s ``reason``: why an input (file, comment, method) made no candidate.

    One vocabulary for the whole stage, so a run can be audited by counting rows per reason.
    """

    BAD_ENCODING = "bad_encoding"  # a field or file content is not valid UTF-8
    FILE_TOO_LARGE = "file_too_large"  # content over the stage's byte limit (generated code)
    TOO_DEEP = "too_deep"  # brackets nested deeper than the limit (parsers would recurse too deep)
    TIMEOUT = "timeout"  # the file took longer than the per-file time budget
    UNPARSEABLE = "unparseable"  # unbalanced brackets: no reliable method boundaries
    NO_CONTENT_BEFORE = "no_content_before"  # comments on a file absent from the revision submitted
    FILE_COMMENT = "file_comment"  # comment on the file, not on lines
    WRONG_SIDE = "wrong_side"  # comment on the base (PARENT/LEFT), not on the revision submitted
    LINE_OUT_OF_RANGE = "line_out_of_range"  # comment lines outside the file, or an inverted range
    OUTSIDE_METHOD = "outside_method"  # comment on lines of no method (fields, imports, Javadoc)
    PARTLY_OUTSIDE_METHOD = "partly_outside_method"  # range starts or ends outside its one method
    SPANS_METHODS = "spans_methods"  # range touches more than one method
    METHOD_DELETED = "method_deleted"  # the method has no counterpart in the next revision
    ABSTRACTION_FAILED = "abstraction_failed"  # the abstraction raised on this method
    # hunk-level rows (CodeReviewer's): which comments make none
    OUTSIDE_HUNK = "outside_hunk"  # the comment's line is in no hunk of the base -> submitted diff
    # named as the filter stage names the same drop of a triplet (revmine.filters.options.FILTER_NAMES); files
    # written before said owner_comment, bot_comment and ai_reviewer_comment
    AUTHOR_COMMENT = "author_comment"  # written by the change's owner, not a reviewer
    BOT = "bot"  # written by a bot (the comment's author_kind)
    AI_REVIEWER = "ai_reviewer"  # written by an AI reviewer (the comment's author_kind)
    REPLY = "reply"  # an answer in a thread, not the reviewer's first comment
    NO_BASE = "no_base"  # the base revision's file could not be read (the hunks need it)


class AuthorKind:
    """Values of a comment's ``author_kind`` (``comment_author_kind`` in the rows): who wrote it, as the miners
    read it from the forge (:mod:`revmine.miners.authors`); None in files mined before it was recorded."""

    HUMAN = "human"
    BOT = "bot"  # CI, linters, dependency and coverage bots, Gerrit service users, robot comments
    AI_REVIEWER = "ai_reviewer"  # an AI code-review service (listed in revmine/data/review_bots.csv)
    ALL = (HUMAN, BOT, AI_REVIEWER)


CANDIDATES_NAME, CANDIDATES_VERSION = "candidates", 5  # 3: language; 4: comment_author_kind, _evidence; 5: licence

#: Provenance shared by candidate and dropped rows: back to the round, the file and the comment.
_PROVENANCE_FIELDS: list[pa.Field] = [
    pa.field("round_id", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("project", pa.string(), nullable=False),
    pa.field("change", pa.string(), nullable=False),
    pa.field("round", pa.int32(), nullable=False),
    pa.field("path", pa.string()),  # the file as submitted (path_before; path_after when there is none)
    pa.field("language", pa.string()),  # the file's language (rounds' language)
    pa.field("licence", pa.string()),  # the project's licence at the revision submitted (rounds' licence)
    pa.field("comment_id", pa.string()),
    pa.field("comment_author", pa.string()),
    pa.field("comment_is_owner", pa.bool_()),
    pa.field("comment_author_kind", pa.string()),  # the comment's author_kind (human, bot, ai_reviewer)
    pa.field("comment_author_evidence", pa.string()),  # and its author_evidence
    pa.field("comment_in_reply_to", pa.string()),
    pa.field("comment_start_line", pa.int32()),  # the comment's line range on the revision submitted
    pa.field("comment_end_line", pa.int32()),
]

#: One row per linked (comment, method) ("triplet") and per method changed in the round ("pair").
#: Lines are 1-based and inclusive, those of the method text (m_s in the submitted file, m_r in the next).
CANDIDATES_SCHEMA = _versioned(CANDIDATES_NAME, CANDIDATES_VERSION, [
    pa.field("kind", pa.string(), nullable=False),  # "triplet" | "pair"
    *_PROVENANCE_FIELDS,
    pa.field("path_after", pa.string()),
    pa.field("method_name", pa.string(), nullable=False),
    pa.field("signature", pa.string(), nullable=False),  # name(parameters) in the submitted revision
    pa.field("signature_after", pa.string(), nullable=False),
    pa.field("match_rule", pa.string(), nullable=False),  # "signature" | "name" | "rename"
    pa.field("start_line_before", pa.int32(), nullable=False),
    pa.field("end_line_before", pa.int32(), nullable=False),
    pa.field("start_line_after", pa.int32(), nullable=False),
    pa.field("end_line_after", pa.int32(), nullable=False),
    pa.field("changed", pa.bool_(), nullable=False),  # m_s != m_r (always true for pairs)
    pa.field("m_s", pa.large_string(), nullable=False),
    pa.field("m_r", pa.large_string(), nullable=False),
    pa.field("comment", pa.string()),  # raw reviewer comment (None for pairs)
    pa.field("m_s_abstract", pa.large_string(), nullable=False),
    pa.field("m_r_abstract", pa.large_string(), nullable=False),
    pa.field("comment_abstract", pa.string()),
    pa.field("abstraction_map", pa.large_string(), nullable=False),  # JSON object: original -> id
    # JSON object: id -> original, the complete inverse (a name with two ids, a method and a field called
    # alike, has one entry in abstraction_map but both here), which is what unabstracting needs
    pa.field("abstraction_ids", pa.large_string()),
    # the 2-encoder input (src2 of the 2021 package): m_s_abstract with <START>/<END> around the tokens of
    # the comment's range; required for triplets, None for pairs
    pa.field("m_s_marked", pa.large_string()),
])

DROPPED_NAME, DROPPED_VERSION = "preprocess_dropped", 4  # 2: language; 3: comment_author_kind, _evidence; 4: licence

#: Every input of the preprocess stage that made no candidate, with the reason (``DropReason``).
DROPPED_SCHEMA = _versioned(DROPPED_NAME, DROPPED_VERSION, [
    # what was dropped: "file" | "comment" | "method", and at the hunk level "hunk_file" | "hunk_comment"
    pa.field("kind", pa.string(), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("detail", pa.string()),  # human-readable: which side, which field, the limit hit
    *_PROVENANCE_FIELDS,
    pa.field("method_name", pa.string()),  # for comments linked to a dropped method, and methods
    pa.field("signature", pa.string()),
    pa.field("start_line_before", pa.int32()),
    pa.field("end_line_before", pa.int32()),
])

HUNKS_NAME, HUNKS_VERSION = "hunks", 2  # 2: licence

#: Hunk-level rows as CodeReviewer builds them (:mod:`revmine.preprocess.hunks`): every hunk of the change's
#: base -> submitted diff of a file, once per reviewer comment on it (``y`` = 1) or once without one (``y`` = 0).
#: Lines are 1-based and inclusive; a side without lines has end = start - 1.
HUNKS_SCHEMA = _versioned(HUNKS_NAME, HUNKS_VERSION, [
    pa.field("round_id", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("project", pa.string(), nullable=False),
    pa.field("change", pa.string(), nullable=False),
    pa.field("round", pa.int32(), nullable=False),
    pa.field("path", pa.string()),
    pa.field("language", pa.string()),
    pa.field("licence", pa.string()),  # hunks/2: the project's licence (rounds' licence)
    pa.field("oldf", pa.large_string(), nullable=False),  # the whole base file (CodeReviewer's ``oldf``)
    pa.field("hunk_index", pa.int32(), nullable=False),  # 0-based, in the file's diff
    pa.field("old_start", pa.int32()),
    pa.field("old_end", pa.int32()),
    pa.field("new_start", pa.int32()),
    pa.field("new_end", pa.int32()),
    pa.field("patch", pa.large_string(), nullable=False),  # the hunk under review, ``@@`` header included
    pa.field("old", pa.large_string(), nullable=False),  # its lines without the header (``ref``'s old)
    pa.field("new_hunk", pa.large_string(), nullable=False),  # the same base lines after the revision, header
    pa.field("new", pa.large_string(), nullable=False),  # its lines without the header (``ref``'s new)
    pa.field("y", pa.int8(), nullable=False),  # 1: a reviewer commented on the hunk (``cls``)
    pa.field("comment_id", pa.string()),
    pa.field("comment_author", pa.string()),
    pa.field("comment_start_line", pa.int32()),
    pa.field("comment_end_line", pa.int32()),
    pa.field("comment", pa.string()),
])

HUNK_DATASET_NAME, HUNK_DATASET_VERSION = "hunk_dataset", 3  # 2: task, record; 3: licence

#: The hunk rows with their split (``splits/hunks.parquet``; CodeReviewer's JSON Lines are exported from it).
#: A row imported from CodeReviewer's files (``revmine import codereviewer``) keeps its record: the export writes
#: it back to its task's file as it was published; a mined row has neither (its three tasks' lines are built).
HUNK_DATASET_SCHEMA = _versioned(HUNK_DATASET_NAME, HUNK_DATASET_VERSION, [
    pa.field("split", pa.string(), nullable=False),  # "train" | "eval" | "test"
    *HUNKS_SCHEMA,
    pa.field("task", pa.string()),  # an imported row's CodeReviewer task (msg, ref, cls); None when mined
    pa.field("record", pa.large_string()),  # its JSON object, in its fields' order (json.dumps); None when mined
])

# --- filters and dataset stages: kept.parquet, dropped.parquet, filter_report.parquet, splits ------------
#: The stable id (a hash of the provenance, :func:`revmine.io.rows.stable_id`) and the near-duplicate
#: cluster (the id of the cluster's smallest member) lead every row of these stages, then the candidate.
_DATASET_KEY_FIELDS: list[pa.Field] = [
    pa.field("id", pa.string(), nullable=False),
    pa.field("cluster_id", pa.string(), nullable=False),
]

FILTERED_NAME, FILTERED_VERSION = "filtered", 5  # 3: language; 4: comment_author_kind, _evidence; 5: licence

#: The candidates that passed every dataset filter (``kept.parquet`` of the filter step).
FILTERED_SCHEMA = _versioned(FILTERED_NAME, FILTERED_VERSION, [*_DATASET_KEY_FIELDS, *CANDIDATES_SCHEMA])

#: 3: language; 4: comment_author_kind, _evidence; 5: ``filter`` named ``reason``, as every stage's dropped rows;
#: 6: licence
FILTER_DROPPED_NAME, FILTER_DROPPED_VERSION = "filter_dropped", 6

#: A candidate removed by a dataset filter or by the split: ``reason`` is the filter's name (the column every
#: stage's dropped.parquet names its reason in), ``detail`` says why.
FILTER_DROPPED_SCHEMA = _versioned(FILTER_DROPPED_NAME, FILTER_DROPPED_VERSION, [
    pa.field("reason", pa.string(), nullable=False),
    pa.field("detail", pa.string()),  # e.g. the ids introduced, the length, the id of the duplicate kept
    pa.field("id", pa.string(), nullable=False),
    pa.field("cluster_id", pa.string()),  # known for the near-duplicate filters only
    *CANDIDATES_SCHEMA,
])

FILTER_REPORT_NAME, FILTER_REPORT_VERSION = "filter_report", 2  # 2: language

#: The "Filters" table in long form: one row per (kind, filter step, source) with language "all", and per
#: (kind, filter step, language) with source "all"; source and language "all" is the total.
#: Step 0 is the ``input``; ``remaining`` is what is left after the step, in the order filters run.
FILTER_REPORT_SCHEMA = _versioned(FILTER_REPORT_NAME, FILTER_REPORT_VERSION, [
    pa.field("kind", pa.string(), nullable=False),  # "triplet" | "pair"
    pa.field("step", pa.int32(), nullable=False),
    pa.field("filter", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("language", pa.string(), nullable=False),
    pa.field("removed", pa.int64(), nullable=False),
    pa.field("remaining", pa.int64(), nullable=False),
    pa.field("ran", pa.bool_(), nullable=False),  # False: the filter was skipped (or had no row to look at)
])

DATASET_NAME, DATASET_VERSION = "dataset", 5  # 3: language; 4: comment_author_kind, _evidence; 5: licence

#: One example of a split (``train.parquet``, ``eval.parquet``, ``test.parquet``, and the export).
DATASET_SCHEMA = _versioned(DATASET_NAME, DATASET_VERSION, [
    pa.field("id", pa.string(), nullable=False),
    pa.field("split", pa.string(), nullable=False),  # "train" | "eval" | "test"
    pa.field("cluster_id", pa.string(), nullable=False),
    *CANDIDATES_SCHEMA,
])

OVERLAP_NAME, OVERLAP_VERSION = "overlap", 1

#: A row of a new dataset that duplicates a benchmark's row (``revmine overlap``): where it is, how it matches,
#: and the benchmark row it matches best (exact: same tokens; near: both Jaccard thresholds of the split).
OVERLAP_SCHEMA = _versioned(OVERLAP_NAME, OVERLAP_VERSION, [
    pa.field("split", pa.string(), nullable=False),  # the new dataset's split (or file) the row is in
    pa.field("row", pa.int64(), nullable=False),  # 0-based row in that split's file
    pa.field("id", pa.string()),
    pa.field("match", pa.string(), nullable=False),  # "exact" | "near"
    pa.field("benchmark_split", pa.string(), nullable=False),
    pa.field("benchmark_row", pa.int64(), nullable=False),
    pa.field("benchmark_id", pa.string()),
    pa.field("set_jaccard", pa.float64(), nullable=False),
    pa.field("multiset_jaccard", pa.float64(), nullable=False),
])

#: Rounds (or files of a round) the miners could not produce, with the reason (``OUT/dropped.parquet``).
MINE_DROPPED_NAME, MINE_DROPPED_VERSION = "mine_dropped", 2  # 2: reason the code (was the message), detail

#: A reviewed file, change or project of the mining stage that made no row: ``reason`` is the miners' code
#: (``revmine.miners.base.DropReason``: last_revision, unreachable, stalled...), as every stage's dropped.parquet
#: names its reason, ``detail`` the sentence a person reads (the revision, the error).
MINE_DROPPED_SCHEMA = _versioned(MINE_DROPPED_NAME, MINE_DROPPED_VERSION, [
    pa.field("source", pa.string(), nullable=False),
    pa.field("project", pa.string(), nullable=False),
    pa.field("change", pa.string()),
    pa.field("round_id", pa.string()),
    pa.field("path", pa.string()),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("detail", pa.string()),
])

#: the reason of a dropped row from a file that named none (its sentence is its ``detail``)
UNRECORDED_REASON = "not_recorded"


# --- metrics stage -------------------------------------------------------------------------------------
#: Base columns of a score row; every metric then adds one float64 column named after the metric.
SCORE_BASE_FIELDS: list[pa.Field] = [
    pa.field("example", pa.int64(), nullable=False),  # 0-based index of the test example
    pa.field("id", pa.string()),  # the example's id when the input format has one
    pa.field("k", pa.int32(), nullable=False),  # 1-based rank of the prediction in the beam
    pa.field("prediction", pa.string(), nullable=False),
    pa.field("reference", pa.string(), nullable=False),
    pa.field("exact_match", pa.bool_(), nullable=False),
    pa.field("perfect_at_k", pa.bool_(), nullable=False),  # some prediction of rank <= k matches
    # version 2: added after version 1's base columns, whose names, meanings and positions are unchanged
    pa.field("extra_references", pa.list_(pa.string())),  # the example's references after the first (None: one)
    pa.field("exact_match_ignoring_whitespace", pa.bool_(), nullable=False),  # equal once whitespace is removed
]

SCORES_NAME, SCORES_VERSION = "scores", 2


def scores_schema(metric_columns: list[str]) -> pa.Schema:
    """Schema of ``scores.parquet``: the base fields, then one float64 column per metric, in order."""
    clash = set(metric_columns) & {f.name for f in SCORE_BASE_FIELDS}
    if clash:
        raise ValueError(f"metric columns clash with base columns: {sorted(clash)}")
    fields = SCORE_BASE_FIELDS + [pa.field(c, pa.float64()) for c in metric_columns]
    return _versioned(SCORES_NAME, SCORES_VERSION, fields)


#: Human judgements read by ``revmine agreement`` after column mapping.
AGREEMENT_SCHEMA = _versioned(
    "agreement",
    1,
    [
        pa.field("metric", pa.string(), nullable=False),
        pa.field("signature", pa.string(), nullable=False),
        pa.field("n", pa.int64(), nullable=False),
        pa.field("spearman", pa.float64()),
        pa.field("spearman_lo", pa.float64()),
        pa.field("spearman_hi", pa.float64()),
        pa.field("kendall", pa.float64()),
        pa.field("kendall_lo", pa.float64()),
        pa.field("kendall_hi", pa.float64()),
        pa.field("pearson", pa.float64()),
        pa.field("pearson_lo", pa.float64()),
        pa.field("pearson_hi", pa.float64()),
    ],
)


#: Files of an earlier version that readers still take: the columns each lacks and what they meant there
#: (before ``language`` every row was Java; a round mined before ``content_base`` has no base text; a comment
#: mined before ``author_kind`` has no recorded kind: None, which the filters take as not known, i.e. kept,
#: the template check aside). A reader adds them with these values (:func:`revmine.io.store.upgraded`), so no
#: stage needs to know. ``rounds/2`` lacks two fields inside its comments' structs, not columns: a dotted name
#: (``comments.author_kind``) is a field of a list of structs, added as null.
@dataclass(frozen=True)
class Renamed:
    """In :data:`UPGRADES`: the column was there under this name (a reader reads it and gives it the new one)."""

    old: str


_NO_AUTHOR_KIND: dict[str, str | None] = {"comment_author_kind": None, "comment_author_evidence": None}
_NO_LICENCE: dict[str, str | None] = {"licence": None}  # mined before licences were detected: not known
_ROW_SCHEMAS = ((CANDIDATES_NAME, CANDIDATES_VERSION), (DROPPED_NAME, DROPPED_VERSION),
                (FILTERED_NAME, FILTERED_VERSION), (DATASET_NAME, DATASET_VERSION))
_FILTER_REASON = {"reason": Renamed("filter")}
UPGRADES: dict[str, dict[str, str | Renamed | None]] = {
    f"{ROUNDS_NAME}/1": {"language": "java", "content_base": None, **_NO_LICENCE},
    f"{ROUNDS_NAME}/2": {"comments.author_kind": None, "comments.author_evidence": None, **_NO_LICENCE},
    f"{ROUNDS_NAME}/3": dict(_NO_LICENCE),
    **{f"{name}/{version - 3}": {"language": "java", **_NO_AUTHOR_KIND, **_NO_LICENCE} for name, version in _ROW_SCHEMAS},
    **{f"{name}/{version - 2}": {**_NO_AUTHOR_KIND, **_NO_LICENCE} for name, version in _ROW_SCHEMAS},
    **{f"{name}/{version - 1}": dict(_NO_LICENCE) for name, version in _ROW_SCHEMAS},
    f"{FILTER_DROPPED_NAME}/2": {"language": "java", **_NO_AUTHOR_KIND, **_FILTER_REASON, **_NO_LICENCE},
    f"{FILTER_DROPPED_NAME}/3": {**_NO_AUTHOR_KIND, **_FILTER_REASON, **_NO_LICENCE},
    f"{FILTER_DROPPED_NAME}/4": {**_FILTER_REASON, **_NO_LICENCE},
    f"{FILTER_DROPPED_NAME}/5": dict(_NO_LICENCE),
    # mine_dropped/1 had the sentence in ``reason`` and no code
    f"{MINE_DROPPED_NAME}/{MINE_DROPPED_VERSION - 1}": {"detail": Renamed("reason"), "reason": UNRECORDED_REASON},
    f"{FILTER_REPORT_NAME}/1": {"language": "all"},  # its rows were per source, over every (Java) row
    f"{HUNKS_NAME}/1": dict(_NO_LICENCE),
    f"{HUNK_DATASET_NAME}/1": {"task": None, "record": None, **_NO_LICENCE},  # every row was mined
    f"{HUNK_DATASET_NAME}/2": dict(_NO_LICENCE),
}


def schema_id(schema: pa.Schema) -> str | None:
    """The ``name/version`` a schema (or a file's schema) was tagged with, if any."""
    meta = schema.metadata or {}
    value = meta.get(SCHEMA_KEY)
    return value.decode() if value else None
