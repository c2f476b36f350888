"""The Parquet schemas through which stages talk: defined once here, versioned.

Each schema carries its name and version in the Parquet key-value metadata (``revmine.schema``), so a
stage can refuse a file written by another stage or by an incompatible version with a clear message
instead of failing deep inside. Column order is part of the schema.
"""

from __future__ import annotations

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
    pa.field("side", pa.string()),  # "REVISION"/"PARENT" (Gerrit) or "RIGHT"/"LEFT" (GitHub)
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
])

ROUNDS_NAME, ROUNDS_VERSION = "rounds", 1

#: One row per (review round, Java file): the file as submitted, as revised, and the comments on it.
ROUNDS_SCHEMA = _versioned(ROUNDS_NAME, ROUNDS_VERSION, [
    pa.field("round_id", pa.string(), nullable=False),  # "{source}:{host}:{project}:{change}:{round}"
    pa.field("source", pa.string(), nullable=False),  # "gerrit" | "github"
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
    pa.field("content_before", pa.large_string()),
    pa.field("content_after", pa.large_string()),
    pa.field("comments", pa.list_(COMMENT_TYPE)),
])


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
]

SCORES_NAME, SCORES_VERSION = "scores", 1


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


def schema_id(schema: pa.Schema) -> str | None:
    """The ``name/version`` a schema (or a file's schema) was tagged with, if any."""
    meta = schema.metadata or {}
    value = meta.get(SCHEMA_KEY)
    return value.decode() if value else None
