"""The paper's dataset filters: candidates -> ``kept.parquet``, ``dropped.parquet`` and the filter report.

The filters of Tufano et al. (ICSE 2021) run in this order, each on what the previous ones kept, so every
removed row is counted once, under the first filter that removed it (as in the paper's "Filters" table):

==================== ======== ===========================================================================
filter               applies  removes
==================== ======== ===========================================================================
``author_comment``   triplets comments written by the change's owner (answers, not requests)
``bot``              triplets comments written by a bot: the miners' ``comment_author_kind`` (GitHub ``type: Bot``
                              and ``[bot]`` logins, Gerrit service users and robot comments, listed accounts)
                              or an account whose comments in the project are templates (:mod:`.authors`)
``ai_reviewer``      triplets comments written by an AI reviewer (``ai_reviewers``: ``drop``, the default;
                              ``keep``; ``separate``: dropped and written to ``ai_reviewers/candidates.parquet``)
``not_linked``       triplets comments whose lines are not inside the method's lines
``unprocessable``    triplets (report only) comments the preprocess stage could not process
``unchanged``        both     m_s and m_r equal after abstraction (token for token)
``too_long``         both     m_s or m_r longer than ``max_tokens`` abstracted tokens (100, as in 2021)
``new_identifiers``  both     m_r uses abstract ids (``VAR_7``, ``STRING_3`` ...) absent from m_s: no model
                              can guess an identifier or literal it has never seen
``multiple_comments`` triplets every triplet of an m_s commented more than once (singleton rule)
``noise``            triplets comments that ask for no code change (the profile's rules, see below)
``exact_duplicate``  both     same abstracted m_s, m_r (and comment) as a row with a smaller id
``near_duplicate``   both     a near-duplicate of a row with a smaller id (code; for triplets code and
                              comment, see below)
==================== ======== ===========================================================================

The ``noise`` step depends on the *profile* (:data:`PROFILES`, ``revmine filter --profile``, ``[filter]
profile`` in a job file): ``revmine`` (default) flags a comment when revmine's keyword rules
(:mod:`.rules`) or its classifier (:mod:`.classifier`, or ``noise_model``) say so; ``tufano2021`` runs the
keyword logic of the 2021 replication package exactly (:mod:`.tufano2021`) and, as the authors' trained
classifier was not published, no classifier unless ``noise_model`` is given. The profile changes one thing
more: ``tufano2021`` runs neither ``bot`` nor ``ai_reviewer`` (the 2021 filters had no such step; the report
shows them skipped); every other filter is the same in both. It is recorded in ``filter_report.parquet``'s metadata and
in the Markdown report, and each dropped comment's ``detail`` names the rule that removed it.

The report (:mod:`revmine.io.filter_report`) also counts the comments the preprocess stage dropped, when its
``dropped.parquet`` is given or found beside the candidates; they are not copied to this stage's
``dropped.parquet``: the preprocess one already lists them.

Near-duplicates (:mod:`revmine.algorithms.near_duplicates`, an exact join) are clustered over both kinds at once, on the
abstracted m_s and m_r by default (CodeNet's criterion, transitively). The cluster is the unit of leakage: its
id goes with every row to the split, so near-duplicate code (a pair and a triplet of one change, two triplets
with the same code) always lands in one split. Which rows of a cluster are *duplicates* depends on the kind
(:func:`revmine.io.rows.duplicate_key`): a pair duplicates the other pairs of its cluster; a triplet duplicates
the triplets of its cluster whose cleaned comment (``comment_abstract``) is identical token for token. Two
triplets with near-identical code but different comments are two examples (the 2021 dataset keeps both) and
both stay. One row per duplicate group is kept (the smallest id).

Who commented is counted per source, project and author kind (:func:`comment_authors`: distinct comments,
triplets, and those ``bot`` and ``ai_reviewer`` dropped; a template account's as a bot's) into the report's
metadata and Markdown ("Who commented"), with the template accounts found, so the card and the run report show it.

Each row gets a stable ``id`` (:func:`revmine.io.rows.stable_id`, a hash of its provenance) so that the
dataset can be traced back to the review, and so that every choice made here (which duplicate is kept) does
not depend on row order. The filters decide on the columns they read (held in memory, tokenised once); the
code, maps and marked m_s are never held whole, only streamed from the input to the outputs a batch at a
time. The four output files are written into a staged directory that replaces ``out_dir`` whole
(:mod:`revmine.io.staging`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from ..algorithms.near_duplicates import near_duplicate_clusters
from ..algorithms.reorder import Reorder
from ..errors import InputError
from ..io.filter_report import (AUTHORS_KEY, PREPROCESS_KEY, PREPROCESS_REASONS_KEY, PROFILE_KEY, TEMPLATES_KEY,
                                UNKNOWN, UNRECORDED, build_report, preprocess_comments, preprocess_steps, report_funnel,
                                report_markdown)
from ..io.rows import (
    KINDS, TRIPLET, CandidateFile, CandidateRows, cluster_names, dropped_rows, keep_one_per_cluster,
)
from ..io.staging import staged_directory
from ..io.store import ROW_GROUP_ROWS, RowGroupWriter, write_table, write_text
from ..runtime.engine import chunks
from ..runtime.progress import progress_bar
from ..schema import CANDIDATES_SCHEMA, FILTER_DROPPED_SCHEMA, FILTER_REPORT_SCHEMA, FILTERED_SCHEMA, AuthorKind
from . import tufano2021
from .authors import template_accounts
from .options import (AI_REVIEWER_MODES, AI_REVIEWERS_DIR, AUTHOR_FILTERS, FILTER_NAMES, PROFILES, FilterOptions,
                      IsNoise)

__all__ = [
    "AI_REVIEWER_MODES", "FILTERS", "PROFILES", "FilterOptions", "Removal", "ai_reviewer", "author_comment",
    "author_kind", "bot", "comment_authors", "exact_duplicate", "filter_candidates",
    "multiple_comments", "near_duplicate", "new_identifiers", "noise", "noise_filter_description", "noise_reasons",
    "not_linked", "report_markdown", "too_long", "unchanged",
]

KEPT_FILE = "kept.parquet"
DROPPED_FILE = "dropped.parquet"
REPORT_FILE = "filter_report.parquet"
REPORT_MARKDOWN = "filter_report.md"

#: The abstract ids of :mod:`revmine.preprocess.abstraction` (identifiers and literals, numbered per pair).
ABSTRACT_ID = re.compile(r"(?:TYPE|METHOD|VAR|ANNOTATION|STRING|CHAR|INT|FLOAT)_\d+")

#: comments per task when the noise step runs on an engine (the classifier's work: ~0.1 s)
NOISE_CHUNK = 2000

assert tufano2021.NAME in PROFILES


@dataclass
class Removal:
    """What one filter decided for the rows still in: ``drop`` per row, a ``detail`` for each dropped row,
    and (near-duplicate step) the cluster id of every row."""

    drop: np.ndarray
    detail: list[str | None]
    cluster_id: list[str] | None = None


FilterFn = Callable[[CandidateRows, np.ndarray, "FilterOptions"], Removal]


def _removal(alive: np.ndarray, decide: Callable[[int], str | None]) -> Removal:
    """Removal from a per-row function returning the reason to drop row i (None: keep)."""
    detail = [decide(int(i)) for i in alive]
    return Removal(np.array([d is not None for d in detail], dtype=bool), detail)


def author_comment(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Triplets whose comment was written by the change's owner: replies and notes, not review requests."""
    kind, owner, author = rows.col("kind"), rows.col("comment_is_owner"), rows.col("comment_author")
    return _removal(alive, lambda i: f"comment by the change owner {author[i]!r}"
                    if kind[i] == TRIPLET and owner[i] else None)


def _templates(rows: CandidateRows) -> dict[tuple[str, str], str]:
    """The template accounts of the candidates (:mod:`.authors`), found once per run over every triplet."""
    if "templates" not in rows.memo:
        kind = rows.col("kind")
        cols = [rows.col(n) for n in ("project", "comment_author", "change", "comment_id", "comment")]
        rows.memo["templates"] = template_accounts(
            [tuple(c[i] for c in cols) for i in range(len(kind)) if kind[i] == TRIPLET])
    return rows.memo["templates"]


def author_kind(rows: CandidateRows, i: int) -> tuple[str | None, str | None]:
    """Who wrote row i's comment, as the filters see it: the miners' kind and evidence, or ``bot`` with the
    template evidence when the account's comments in the project are templates (an AI reviewer stays one)."""
    kind, evidence = rows.col("comment_author_kind")[i], rows.col("comment_author_evidence")[i]
    if kind != AuthorKind.AI_REVIEWER:
        template = _templates(rows).get((rows.col("project")[i], rows.col("comment_author")[i]))
        if template is not None:
            return AuthorKind.BOT, ";".join(e for e in (evidence, template) if e)
    return kind, evidence


def bot(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Triplets whose comment a bot wrote: the miners' ``comment_author_kind`` (``type: Bot``, ``[bot]``,
    ``SERVICE_USER``, robot comments, the known accounts) or an account of template comments (:mod:`.authors`)."""
    kind, author = rows.col("kind"), rows.col("comment_author")

    def decide(i: int) -> str | None:
        if kind[i] != TRIPLET:
            return None
        who, evidence = author_kind(rows, i)
        return f"comment by a bot {author[i]!r} ({evidence})" if who == AuthorKind.BOT else None
    return _removal(alive, decide)


def ai_reviewer(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Triplets whose comment an AI reviewer wrote (``ai_reviewers = "drop"`` or ``"separate"``; kept with
    ``"keep"``)."""
    kind, author, who = rows.col("kind"), rows.col("comment_author"), rows.col("comment_author_kind")
    if options.ai_reviewers == "keep":
        return _removal(alive, lambda i: None)
    evidence = rows.col("comment_author_evidence")
    return _removal(alive, lambda i: f"comment by an AI reviewer {author[i]!r} ({evidence[i]})"
                    if kind[i] == TRIPLET and who[i] == AuthorKind.AI_REVIEWER else None)


def not_linked(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Triplets with no comment, or whose comment lines are not all inside m_s's lines."""
    kind, comment_id = rows.col("kind"), rows.col("comment_id")
    start, end = rows.col("comment_start_line"), rows.col("comment_end_line")
    m_start, m_end = rows.col("start_line_before"), rows.col("end_line_before")

    def decide(i: int) -> str | None:
        if kind[i] != TRIPLET:
            return None
        if comment_id[i] is None:
            return "triplet without a comment id"
        if start[i] is None or end[i] is None:
            return "comment has no line range"
        if not m_start[i] <= start[i] <= end[i] <= m_end[i]:
            return f"comment lines {start[i]}-{end[i]} not inside method lines {m_start[i]}-{m_end[i]}"
        return None
    return _removal(alive, decide)


def unchanged(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """m_s and m_r identical after abstraction: nothing for a model to learn (formatting or comment edits)."""
    m_s, m_r = rows.tokens("m_s_abstract"), rows.tokens("m_r_abstract")
    return _removal(alive, lambda i: "m_s and m_r equal after abstraction" if m_s[i] == m_r[i] else None)


def too_long(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """m_s or m_r over ``max_tokens`` abstracted tokens (the 2021 dataset kept at most 100)."""
    m_s, m_r, limit = rows.tokens("m_s_abstract"), rows.tokens("m_r_abstract"), options.max_tokens

    def decide(i: int) -> str | None:
        over = [f"{side} {len(tokens)} tokens" for side, tokens in (("m_s", m_s[i]), ("m_r", m_r[i]))
                if len(tokens) > limit]
        return f"{', '.join(over)} > {limit}" if over else None
    return _removal(alive, decide)


def new_identifiers(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """m_r uses identifiers or literals that m_s does not have (abstract ids of m_r absent from m_s)."""
    m_s, m_r = rows.tokens("m_s_abstract"), rows.tokens("m_r_abstract")

    def decide(i: int) -> str | None:
        known = set(m_s[i])
        new = sorted({t for t in m_r[i] if t not in known and ABSTRACT_ID.fullmatch(t)})
        return f"m_r introduces {' '.join(new)}" if new else None
    return _removal(alive, decide)


def _method_key(rows: CandidateRows, i: int) -> tuple:
    return (rows.col("round_id")[i], rows.col("path")[i], rows.col("signature")[i], rows.col("start_line_before")[i])


def multiple_comments(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Every triplet of an m_s that still has more than one comment: which comment caused m_r is unknown."""
    kind, comment_id = rows.col("kind"), rows.col("comment_id")
    comments: dict[tuple, set] = defaultdict(set)
    for i in alive:
        if kind[i] == TRIPLET:
            comments[_method_key(rows, int(i))].add(comment_id[i])

    def decide(i: int) -> str | None:
        if kind[i] != TRIPLET:
            return None
        n = len(comments[_method_key(rows, i)])
        return f"{n} comments on this m_s" if n > 1 else None
    return _removal(alive, decide)


def noise(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Triplets whose comment asks for no code change ("Thanks!", "+1", "why?", a link ...)."""
    kind, comment = rows.col("kind"), rows.col("comment")
    triplets = [int(i) for i in alive if kind[i] == TRIPLET]
    texts = [comment[i] or "" for i in triplets]
    codes = rows.passenger("m_s", triplets) if texts and _model_reads_code(options) else None
    engine = options.engine
    if engine is not None and engine.name != "local" and options.is_noise is None and texts:
        # comment by comment, so chunks on workers say what the whole list says here
        shipped = dataclasses.replace(options, engine=None)
        parts = chunks(list(zip(texts, codes or [None] * len(texts))), NOISE_CHUNK)
        found = [r for part in engine.map(_noise_reasons_of_pairs, parts, shipped) for r in part]
    else:
        found = noise_reasons(texts, options, codes) if texts else []
    reasons = dict(zip(triplets, found))
    return _removal(alive, lambda i: reasons.get(i))


def _model_reads_code(options: FilterOptions) -> bool:
    """Whether the noise step's classifier reads the code a comment sits on (a model trained with a
    ``code`` column): only then does the step read the triplets' m_s, which the working table leaves out."""
    if options.is_noise is not None or (options.profile == tufano2021.NAME and options.noise_model is None):
        return False
    from . import classifier

    return (classifier.load(options.noise_model) if options.noise_model is not None
            else classifier.default_model()).uses_code


def _noise_reasons_of_pairs(pairs: Sequence[tuple[str, str | None]], options: FilterOptions) -> list[str | None]:
    texts, codes = [t for t, _ in pairs], [c for _, c in pairs]
    return noise_reasons(texts, options, codes if any(c is not None for c in codes) else None)


def noise_reasons(texts: Sequence[str], options: FilterOptions,
                  codes: Sequence[str | None] | None = None) -> list[str | None]:
    """Why each comment is noise (None: it is kept), by ``is_noise`` when given, else by the profile;
    ``codes`` (each comment's m_s) go to a classifier that reads code."""
    if options.is_noise is None and options.profile == tufano2021.NAME:
        reasons = [None if rule is None else f"noise comment (tufano2021 rule {rule})"
                   for rule in map(tufano2021.decide, texts)]
        if options.noise_model is None:
            return reasons
        from . import classifier

        relevant = classifier.predict(classifier.load(options.noise_model), list(texts), codes)
        return [reason or (None if keep else "noise comment (classifier)") for reason, keep in zip(reasons, relevant)]
    flags = np.asarray(options.is_noise(texts) if options.is_noise is not None
                       else default_noise_detector(options.noise_model)(texts, codes), dtype=bool)
    if flags.shape != (len(texts),):
        raise ValueError(f"is_noise returned shape {flags.shape} for {len(texts)} comments")
    return ["noise comment" if flag else None for flag in flags.tolist()]


def default_noise_detector(model_path: str | Path | None = None) -> IsNoise:
    """Noise = a dropping keyword rule (:data:`.rules.DROPPING_RULES`) says so or the classifier does not
    find the comment relevant (the other rules weigh in as the classifier's features)."""
    try:
        from . import classifier, rules
        model = classifier.load(model_path) if model_path is not None else classifier.default_model()
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"the noise filter needs revmine.filters.rules and .classifier ({exc}); "
                           "give FilterOptions(is_noise=...) or skip the 'noise' filter") from exc

    def is_noise(texts: Sequence[str], codes: Sequence[str | None] | None = None) -> np.ndarray:
        by_rules = np.fromiter((rules.drops(t) for t in texts), dtype=bool, count=len(texts))
        relevant = np.asarray(classifier.predict(model, list(texts), codes if model.uses_code else None), dtype=bool)
        return by_rules | ~relevant
    return is_noise


def noise_filter_description(options: FilterOptions) -> str:
    """What the noise step runs, for the report: the profile and, when given, the model file."""
    if options.is_noise is not None:
        return "a detector given by the caller"
    model = f", classifier {Path(options.noise_model).name}" if options.noise_model is not None else ""
    if options.profile == tufano2021.NAME and not model:
        model = ", no classifier"
    return f"profile {options.profile} ({PROFILES[options.profile]}{model})"


def exact_duplicate(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Rows of one kind with the same abstracted m_s, m_r (and comment, for triplets); the smallest id stays."""
    kind, ids = rows.col("kind"), rows.col("id")
    m_s, m_r, comment = rows.tokens("m_s_abstract"), rows.tokens("m_r_abstract"), rows.tokens("comment_abstract")

    def key(i: int) -> tuple:
        return (kind[i], tuple(m_s[i]), tuple(m_r[i]), tuple(comment[i]) if kind[i] == TRIPLET else ())
    keeper: dict[tuple, int] = {}
    for i in sorted((int(i) for i in alive), key=ids.__getitem__):
        keeper.setdefault(key(i), i)
    return _removal(alive, lambda i: None if keeper[key(i)] == i else f"duplicate of {ids[keeper[key(i)]]}")


def near_duplicate(rows: CandidateRows, alive: np.ndarray, options: FilterOptions) -> Removal:
    """Cluster near-duplicate code over both kinds; keep the smallest id of each duplicate group (pairs
    of a cluster; triplets of a cluster with an identical cleaned comment)."""
    ids, positions = rows.col("id"), alive.tolist()
    labels = near_duplicate_clusters(rows.bags(positions, options.duplicate_fields), options.near_duplicates,
                                     options.engine).labels
    cluster = dict(zip(positions, cluster_names(labels.tolist(), [ids[i] for i in positions])))
    keeper = keep_one_per_cluster(positions, cluster, rows.col("kind"), ids, rows.tokens("comment_abstract"))
    removal = _removal(alive, lambda i: None if keeper[i] == i else f"near-duplicate of {ids[keeper[i]]}")
    removal.cluster_id = [cluster[i] for i in positions]
    return removal


#: The filters in the order they run, with the kinds they apply to.
FILTERS: tuple[tuple[str, FilterFn, tuple[str, ...]], ...] = (
    ("author_comment", author_comment, (TRIPLET,)),
    ("bot", bot, (TRIPLET,)),
    ("ai_reviewer", ai_reviewer, (TRIPLET,)),
    ("not_linked", not_linked, (TRIPLET,)),
    ("unchanged", unchanged, KINDS),
    ("too_long", too_long, KINDS),
    ("new_identifiers", new_identifiers, KINDS),
    ("multiple_comments", multiple_comments, (TRIPLET,)),
    ("noise", noise, (TRIPLET,)),
    ("exact_duplicate", exact_duplicate, KINDS),
    ("near_duplicate", near_duplicate, KINDS),
)
assert tuple(name for name, _, _ in FILTERS) == FILTER_NAMES  # the settings name them (options.py)


def filter_candidates(candidates: str | Path | pa.Table, out_dir: str | Path,
                      options: FilterOptions | None = None, progress: bool = False) -> dict[str, Any]:
    """Run the filters; write ``kept.parquet``, ``dropped.parquet``, ``filter_report.parquet`` and ``.md``
    in ``out_dir``; return the counts and paths.

    Two passes over the candidates (:class:`revmine.io.rows.CandidateFile`): the filters decide on every row's
    light columns, then whole rows stream to ``kept.parquet`` (in input order) and ``dropped.parquet`` (by
    filter, then input order, through :class:`revmine.algorithms.reorder.Reorder`)."""
    options = options or FilterOptions()
    source = CandidateFile(candidates, given_clusters=False)  # clusters are this stage's to find
    out_dir = Path(out_dir)
    if source.path is not None and out_dir.resolve() == source.path.resolve().parent:
        raise InputError(out_dir, "the filter step would overwrite the preprocess stage's dropped.parquet: "
                                  "give another output directory")
    table = source.working()
    rows = CandidateRows(table, source)
    alive = np.arange(len(rows))
    removed: Counter[tuple[str, str, str, str]] = Counter()  # (kind, filter, source, language)
    ran = {"input"}
    cluster_ids = list(rows.col("id"))  # a row is its own cluster until the near-duplicate step
    dropped_by: list[tuple | None] = [None] * len(rows)  # each dropped row's filter, detail and cluster
    dropped_at = np.full(len(rows), -1, np.int64)  # and its row in dropped.parquet
    n_dropped = 0
    for name, function, _ in progress_bar(FILTERS, desc="filter", unit="filter", enabled=progress):
        if name in options.skip or not alive.size or (name in AUTHOR_FILTERS and options.profile == tufano2021.NAME):
            continue
        removal = function(rows, alive, options)
        ran.add(name)
        if removal.cluster_id is not None:
            for i, cluster in zip(alive.tolist(), removal.cluster_id):
                cluster_ids[i] = cluster
        gone = alive[removal.drop]
        removed.update((rows.col("kind")[i], name, rows.col("source")[i], rows.col("language")[i] or UNKNOWN)
                       for i in gone.tolist())
        details = [d for d, out in zip(removal.detail, removal.drop) if out]
        for i, detail in zip(gone.tolist(), details):
            dropped_by[i] = (name, detail, cluster_ids[i] if removal.cluster_id is not None else None)
        dropped_at[gone] = np.arange(n_dropped, n_dropped + gone.size)
        n_dropped += gone.size
        alive = alive[~removal.drop]

    preprocess = preprocess_comments(options.preprocess_dropped, source.path)
    report = build_report(table, removed, ran, [(name, kinds) for name, _, kinds in FILTERS], preprocess)
    # the report counts them under its filters, this stage's result and dropped.parquet do not: say how many
    from_preprocess: dict[str, int] = dict(sorted(Counter(
        step for step, _, _ in preprocess_steps(preprocess)).items())) if preprocess is not None else {}
    # and the preprocess stage's own reasons under each step: the same drop, named as its dropped.parquet names it
    reasons: dict[str, dict[str, int]] = defaultdict(dict)
    if preprocess is not None:
        for (step, reason), n in sorted(Counter(zip((s for s, _, _ in preprocess_steps(preprocess)),
                                                    preprocess.column("reason").to_pylist())).items()):
            reasons[step][reason] = n
    authors = comment_authors(rows, dropped_by)
    # the accounts the template check made bots (not those the forge or the list already named)
    named = {(p, a) for p, a, k in zip(rows.col("project"), rows.col("comment_author"), rows.col("comment_author_kind"))
             if k in (AuthorKind.BOT, AuthorKind.AI_REVIEWER)}
    templates = [{"project": project, "author": author, "evidence": evidence}
                 for (project, author), evidence in sorted(_templates(rows).items()) if (project, author) not in named]
    report_metadata = {PROFILE_KEY: noise_filter_description(options),
                       **({PREPROCESS_KEY: json.dumps(from_preprocess),
                           PREPROCESS_REASONS_KEY: json.dumps(reasons)} if from_preprocess else {}),
                       AUTHORS_KEY: json.dumps(authors), TEMPLATES_KEY: json.dumps(templates)}
    report = report.replace_schema_metadata({**(report.schema.metadata or {}), **report_metadata})
    candidates = len(rows)
    del rows, table
    separate = options.ai_reviewers == "separate"
    owned = (KEPT_FILE, DROPPED_FILE, REPORT_FILE, REPORT_MARKDOWN, *((AI_REVIEWERS_DIR,) if separate else ()))
    with staged_directory(out_dir, owned) as staging:
        if separate:
            (staging / AI_REVIEWERS_DIR).mkdir()
        with RowGroupWriter(staging / KEPT_FILE, FILTERED_SCHEMA, ROW_GROUP_ROWS) as kept, \
                RowGroupWriter(staging / DROPPED_FILE, FILTER_DROPPED_SCHEMA, ROW_GROUP_ROWS) as dropped, \
                _optional_writer(staging / AI_REVIEWERS_DIR / "candidates.parquet" if separate else None) as by_ai, \
                Reorder([dropped], spill_dir=staging) as reorder:
            for start, batch in source.batches():
                end = start + batch.num_rows
                here = np.flatnonzero(dropped_at[start:end] < 0)  # a row not dropped is kept
                kept.write(batch.take(pa.array(here)).append_column(
                    "cluster_id", pa.array([cluster_ids[start + i] for i in here.tolist()], pa.string())))
                out = np.flatnonzero(dropped_at[start:end] >= 0)
                if out.size:
                    names, details, clusters = zip(*(dropped_by[start + i] for i in out.tolist()))
                    reorder.add(0, dropped_rows(batch, out.tolist(), list(names), list(details), list(clusters)),
                                dropped_at[start + out])
                if by_ai is not None:
                    ai = [i for i in out.tolist() if dropped_by[start + i][0] == "ai_reviewer"]
                    if ai:
                        by_ai.write(batch.take(pa.array(ai, pa.int64())).select(CANDIDATES_SCHEMA.names))
        write_table(report, staging / REPORT_FILE, FILTER_REPORT_SCHEMA, metadata=report_metadata)
        write_text(staging / REPORT_MARKDOWN, report_markdown(report))
    by_filter: dict[str, dict[str, int]] = defaultdict(dict)
    for (kind, name, _, _), n in sorted(removed.items()):
        by_filter[kind][name] = by_filter[kind].get(name, 0) + n
    return {
        "profile": options.profile,
        "candidates": candidates,
        "kept": int(alive.size),
        "dropped": n_dropped,
        "removed_by_filter": dict(by_filter),
        # comments the preprocess stage dropped, which the report adds to these steps (author_comment, not_linked)
        "report_adds_from_preprocess": from_preprocess,
        # the report's table over all sources: what the card and the run report show
        "report": report_funnel(report),
        "kept_path": str(out_dir / KEPT_FILE),
        "dropped_path": str(out_dir / DROPPED_FILE),
        "report_path": str(out_dir / REPORT_FILE),
        "report_markdown_path": str(out_dir / REPORT_MARKDOWN),
        # who wrote the triplets' comments, per project, and how many of them the author filters dropped
        "comment_authors": authors,
        "template_accounts": templates,
        **({"ai_reviewers_path": str(out_dir / AI_REVIEWERS_DIR / "candidates.parquet")} if separate else {}),
    }


@contextlib.contextmanager
def _optional_writer(path: Path | None) -> Iterator[RowGroupWriter | None]:
    if path is None:
        yield None
        return
    with RowGroupWriter(path, CANDIDATES_SCHEMA, ROW_GROUP_ROWS) as writer:
        yield writer


def comment_authors(rows: CandidateRows, dropped_by: list[tuple | None]) -> list[dict[str, Any]]:
    """Who wrote the triplets' comments, per source, project and kind: distinct comments, their triplets and
    the triplets the ``bot`` and ``ai_reviewer`` steps dropped (the filter report's "Who commented")."""
    kind = rows.col("kind")
    counts: dict[tuple[str, str, str], list] = {}
    for i in range(len(kind)):
        if kind[i] != TRIPLET:
            continue
        who = author_kind(rows, i)[0] or UNRECORDED
        entry = counts.setdefault((rows.col("source")[i], rows.col("project")[i], who), [set(), 0, 0])
        entry[0].add(rows.col("comment_id")[i])
        entry[1] += 1
        entry[2] += dropped_by[i] is not None and dropped_by[i][0] in AUTHOR_FILTERS
    return [{"source": source, "project": project, "author_kind": who, "comments": len(ids), "triplets": n,
             "dropped": gone} for (source, project, who), (ids, n, gone) in sorted(counts.items())]
