"""``revmine export``: the splits -> the formats people train with, and a dataset card.

Output directory (written into a staged directory that replaces it whole, :mod:`revmine.io.staging`, so no file of
an earlier export survives; the same splits give byte-identical files)::

    README.md                                      dataset card: YAML header (configs, splits) + documentation
                                                   (+ the contamination check when overlap.json is beside the splits)
    data/triplets/{train,validation,test}-00000-of-00001.parquet   Hugging Face layout, one config per kind
    data/pairs/{train,validation,test}-00000-of-00001.parquet
    opennmt/triplets/{src,src1,src2,tgt}-{train,eval,test}.txt     the 2021 replication package's text files
    opennmt/pairs/{src,tgt}-{train,eval,test}.txt
    jsonl/{triplets,pairs}/{train,eval,test}.jsonl
    representations/{triplets,pairs}/{train,eval,test}.jsonl   with --representations: tokens, SPTs
    codereviewer/{msg,ref,cls}-{train,valid,test}.jsonl  hunk-level rows (the splits' hunks.parquet), CodeReviewer's

Only the formats asked for are written, and the card describes what was written: its ``configs`` header maps
the Parquet files, or the JSON Lines files when no Parquet was written (``datasets`` reads both), and is left
out when neither was. A split of a config with no rows (a small dataset's test split, a kind that only some
splits have) is left out of that config's ``configs`` entry, with a note and a line in the card:
``datasets`` cannot load a split with no rows (checked with 5.2: an empty Parquet file fails with "BatchSize
must be greater than 0", one with no row groups with "corresponds to no data"), and one such split breaks
``load_dataset`` for every split of its config. Its files are still written, empty, in every format, so the
three splits of a format stay side by side. The Hugging Face files are named as the Hub's ``push_to_hub``
names them (``config/split-00000-of-00001``) under ``data/``, so ``datasets.load_dataset(DIR, "pairs")``
works on the directory or on a Hub repository made from it. The Hub calls the eval split ``validation``; the other
formats keep the dataset's names (train/eval/test), as the replication package does.

OpenNMT files follow the replication package of Tufano et al. (ICSE 2021): line i of every file of a split
is example i; ``src`` is the abstracted m_s, ``tgt`` the abstracted m_r and, for triplets, ``src1`` the
cleaned and abstracted comment and ``src2`` the abstracted m_s with ``<START>``/``<END>`` around the
commented code (the 2-encoder model reads ``src1`` and ``src2``). Texts are flattened to one line (any
line break, including U+2028, becomes a space). ``src2`` lines end with one space, as every line of the
package's ``src2`` files does, so the files are byte-identical to the package's (OpenNMT splits on
whitespace, so the space changes nothing for a model).

Representations (``representations=("tokens", "spt")``, :mod:`revmine.lang.representations`) are computed from
the code columns of each row: one JSON line per row, in the rows' order, with the row's ``id`` and, for
``tokens``, ``<column>_tokens`` and ``<column>_token_kinds`` (parallel lists), for ``spt``,
``<column>_spt`` (CodeNet's JSON graph), for the columns m_s, m_r, m_s_abstract and m_r_abstract. The card
then gives the SPT totals per split as Project CodeNet's Table 6 does (methods, SPT nodes, SPT edges).

Memory does not grow with the corpus: the ``kind`` column is read first (which files exist, the card's sizes),
then each split is streamed in batches of :data:`BATCH_ROWS` rows, appended to every file as it comes (each file
atomic, the folder staged) while the card's counters (rows per source and split, per project, SPT totals)
accumulate. The Parquet files are written in row groups of :data:`ROW_GROUP_ROWS` rows (the last one fewer),
whatever the batches: a file of up to that many rows is one row group with the bytes ``pq.write_table`` gave the
whole table, a larger one has several (it held one group of up to 1,048,576 rows when the export read its splits
whole; ``datasets`` and pyarrow read both alike). The per-row work (OpenNMT and JSON Lines lines, token streams,
SPTs) is :func:`format_rows`, mapped over each batch's rows of a kind on ``ExportOptions.engine`` when one is given
(:mod:`revmine.runtime.engine`: in input order, a bounded window in flight); only this process reads and writes files,
so the bytes are the same on every engine and workers need no shared disk.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TextIO

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..io.filter_report import UNKNOWN, report_markdown
from ..io.rows import HF_SPLITS, KINDS, PAIR, SPLIT_NAMES, TRIPLET
from ..io.staging import staged_directory
from ..io.store import ROW_GROUP_ROWS, Parts, RowGroupWriter, atomic_text, read_table, write_text
from ..io.textio import read_lines
from ..lang.representations import SPT_LANGUAGES, simplified_parse_tree, spt_size, spt_tokens, token_stream
from ..runtime.engine import LocalEngine
from ..schema import DATASET_SCHEMA, FILTER_REPORT_SCHEMA, HUNK_DATASET_SCHEMA
from .codereviewer import TASKS, write_codereviewer
from ..io.opt_out import OPT_OUT, read_opt_out
from .licences import ANY, LicenceGate, category
from .secret_scan import SECRET, SecretScanner
from .pseudonyms import EMAIL, MENTION, PERSON, Pseudonymiser, load_key, participants, pseudonymise_batch
from .options import FORMATS, ExportOptions
from .overlap import OVERLAP_FILE, overlap_markdown
from .split import HUNKS_FILE, SPLITS, SUMMARY_FILE

__all__ = ["FORMATS", "HF_SPLITS", "ExportOptions", "export_dataset"]

#: revmine's split -> CodeReviewer's file names
CODEREVIEWER_SPLITS = {"train": "train", "eval": "valid", "test": "test"}
CONFIGS = {TRIPLET: "triplets", PAIR: "pairs"}
CARD_FILE = "README.md"
#: Top-level entries an export writes: the only ones an existing output directory may hold.
OUTPUT_ENTRIES = (CARD_FILE, "data", "opennmt", "jsonl", "representations", "codereviewer")
#: The code columns representations are computed from: (column, abstracted).
CODE_COLUMNS = (("m_s", False), ("m_r", False), ("m_s_abstract", True), ("m_r_abstract", True))
MAX_PROJECTS_LISTED = 50  # the card lists the largest projects; the data has them all
#: rows read at a time, and formatted per call (an engine's task): 500 rows' SPTs are ~2 s of CPU and ~25 MB of JSON
BATCH_ROWS = 500
#: OpenNMT files per kind: file prefix -> column (the replication package's names).
OPENNMT_FILES = {
    TRIPLET: {"src": "m_s_abstract", "src1": "comment_abstract", "src2": "m_s_marked", "tgt": "m_r_abstract"},
    PAIR: {"src": "m_s_abstract", "tgt": "m_r_abstract"},
}


_COLUMN_DOCS = {
    "id": "stable id: a hash of the provenance (kind, round, file, comment, method)",
    "split": "train, eval or test (`eval` is the `validation` split of the configs)",
    "cluster_id": "near-duplicate cluster (id of its smallest member); a cluster never spans splits",
    "kind": "triplet (m_s, comment, m_r) or pair (m_s, m_r)",
    "round_id": "source:host:project:change:round of the review round",
    "source": "gerrit or github",
    "project": "the project on its host",
    "change": "Gerrit change number or GitHub pull-request number",
    "round": "patch set (Gerrit) or commit index (GitHub) that was reviewed",
    "path": "file as submitted",
    "language": "the file's language (java, python, javascript, typescript, go, c, cpp, csharp, php, ruby)",
    "licence": "the project's licence at the revision submitted, an SPDX expression (NOASSERTION: licence files "
               "matching no known licence; empty: none found)",
    "comment_id": "the reviewer comment's id on its host",
    "comment_author": "the comment's author",
    "comment_is_owner": "whether the comment's author owns the change",
    "comment_author_kind": "who wrote the comment as its forge shows it: human, bot or ai_reviewer",
    "comment_author_evidence": "the signs of that kind: type=Bot, login=[bot], tags=SERVICE_USER, robot_comment, "
                               "list=<kind>:<service>",
    "comment_in_reply_to": "the comment this one answers",
    "comment_start_line": "first line of the comment's range in the submitted file",
    "comment_end_line": "last line of the comment's range",
    "path_after": "the file in the revised revision",
    "method_name": "the method's name",
    "signature": "name(parameters) as submitted",
    "signature_after": "name(parameters) as revised",
    "match_rule": "how m_s and m_r were matched: signature, name or rename",
    "start_line_before": "first line of m_s in the submitted file",
    "end_line_before": "last line of m_s",
    "start_line_after": "first line of m_r in the revised file",
    "end_line_after": "last line of m_r",
    "changed": "m_s differs from m_r",
    "m_s": "the method as submitted for review (raw)",
    "m_r": "the method as revised after the review (raw)",
    "comment": "the reviewer's comment (raw; empty for pairs)",
    "m_s_abstract": "m_s abstracted as in the 2021 dataset (space-separated tokens)",
    "m_r_abstract": "m_r abstracted with m_s's map",
    "comment_abstract": "the comment cleaned and abstracted with the pair's map",
    "abstraction_map": "JSON object mapping original tokens to abstract ids",
    "abstraction_ids": "JSON object mapping abstract ids back to original tokens (complete inverse)",
    "m_s_marked": "m_s_abstract with <START> and <END> around the tokens the comment is on (the 2-encoder input; "
                  "empty for pairs)",
}


def export_dataset(splits_dir: str | Path, out_dir: str | Path, options: ExportOptions | None = None,
                   note: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """Export ``splits_dir/{train,eval,test}.parquet`` to ``out_dir``; return the sizes and files written.

    What the user should know but that is no error (empty splits left out of the card) goes to ``note``, one
    line (the command line's notes, silenced by -q; the result's ``empty_splits`` says it too).

    Each split is streamed in batches of :data:`BATCH_ROWS` rows, and every file is appended to as they come, so
    memory holds a few batches, a row group per Parquet file being written and the card's counters, however
    large the splits are.
    """
    options = options or ExportOptions()
    splits_dir, out_dir = Path(splits_dir), Path(out_dir)
    splits = {name: Parts(splits_dir / f"{name}.parquet", expect=DATASET_SCHEMA) for name in SPLITS}
    counts = _kind_counts(splits)
    kinds = [k for k in KINDS if any(counts[(k, name)] for name in SPLITS)]
    hunks = _hunks(splits_dir)
    if not kinds and (hunks is None or not hunks.num_rows):
        raise InputError(splits_dir, "the splits have no rows: nothing to export")
    sizes = {CONFIGS[kind]: {name: counts[(kind, name)] for name in SPLITS} for kind in kinds}
    empty = _empty_splits(sizes)
    report = None if options.filter_report is None else read_table(
        options.filter_report, expect=FILTER_REPORT_SCHEMA)
    how_split = _split_summary(splits_dir / SUMMARY_FILE)
    overlap = _split_summary(splits_dir / OVERLAP_FILE)
    formats = tuple(f for f in FORMATS if f in options.formats)
    if not kinds:  # a hunk-level job: only CodeReviewer's files have rows to hold
        if "codereviewer" not in formats:
            raise InputError(splits_dir, "the splits hold hunk-level rows only, and only the codereviewer format "
                                         "writes them: add it to the export's formats")
        formats = ("codereviewer",)
    card_counts = CardCounts()
    publish = options.publish
    pseudonymiser = Pseudonymiser(load_key()) if publish.pseudonyms else None
    card_counts.withheld = Withheld(LicenceGate(publish.licences), read_opt_out(publish.opt_out))
    card_counts.pseudonyms = None if pseudonymiser is None else pseudonymiser.counts
    scanner = card_counts.secrets = SecretScanner()
    if "codereviewer" not in formats:
        hunks = None
    if hunks is None:  # no hunk-level rows: nothing of CodeReviewer's to write
        formats = tuple(f for f in formats if f != "codereviewer")
    with staged_directory(out_dir, OUTPUT_ENTRIES) as staging:
        for name, parts in splits.items():
            _export_split(staging, name, parts, kinds, formats, options, card_counts, pseudonymiser, scanner)
        if hunks is not None:
            card_counts.hunks = _export_hunks(hunks, staging / "codereviewer", card_counts.withheld, pseudonymiser)
            card_counts.hunk_sources = set(hunks.column("source").to_pylist())
        # the card's sizes are of the rows written (hunk rows are counted by _export_hunks from what it writes)
        for (kind, name), n in (card_counts.withheld.by_split + scanner.dropped).items():
            if kind in CONFIGS:
                sizes[CONFIGS[kind]][name] -= n
        empty = _empty_splits(sizes)
        spt_totals = {(CONFIGS[kind], name): card_counts.spt[(kind, name)] for kind in kinds for name in SPLITS}
        write_text(staging / CARD_FILE, dataset_card(card_counts, kinds, sizes, options, report, how_split, formats,
                                                     spt_totals if "spt" in options.representations else None,
                                                     overlap))
    if empty and any(f in formats for f in ("parquet", "jsonl")):
        note(f"{out_dir / CARD_FILE}: no rows in {_empty_text(empty)}: left out of the card's configs "
             "(datasets cannot load a split with no rows)")
    files = [path for kind in kinds for name in SPLITS
             for path in _part_files(kind, name, formats, options.representations)]
    if hunks is not None:
        files += [f"codereviewer/{task}-{theirs}.jsonl" for theirs in CODEREVIEWER_SPLITS.values()
                  for task in TASKS]
    return {"sizes": sizes, "levels": _levels(sizes, card_counts.hunks), "split_names": SPLIT_NAMES,
            "empty_splits": empty, "files": [*files, CARD_FILE], "card": str(out_dir / CARD_FILE),
            "pseudonyms": None if pseudonymiser is None else dict(pseudonymiser.counts),
            "secrets": {"mode": publish.secrets, **scanner.counts}, **card_counts.withheld.result()}


def _levels(sizes: dict[str, dict[str, int]], hunks: Counter[tuple[str, str, str]] | None) -> dict[str, dict]:
    """What each level of the export holds: method rows per config, hunk rows per CodeReviewer task (``cls``: one
    row per hunk, ``msg`` and ``ref``: one per reviewer comment); a level not exported holds nothing."""
    method = {config: sum(by_split.values()) for config, by_split in sizes.items()}
    hunk = {} if hunks is None else {task: sum(n for (t, _, _), n in hunks.items() if t == task) for task in TASKS}
    return {"method": method, "hunk": {"hunks": hunk["cls"], "comments": max(hunk["msg"], hunk["ref"])}
            if hunk else {}}


def _hunks(splits_dir: Path) -> pa.Table | None:
    """The split's hunk rows (``hunks.parquet``, written when the preprocess stage built hunk-level rows)."""
    path = splits_dir / HUNKS_FILE
    return read_table(path, expect=HUNK_DATASET_SCHEMA) if path.exists() else None


def _export_hunks(hunks: pa.Table, folder: Path, withheld: Withheld, pseudonymiser: Pseudonymiser | None
                  ) -> Counter[tuple[str, str, str]]:
    """CodeReviewer's three files per split (:func:`.codereviewer.write_codereviewer`); rows per (task, language,
    split) for the card. Mined rows pass the licence allowlist and the opt-out list as method rows do, and their
    comments lose e-mails, @mentions and the change's commenters' names (the files hold no author column);
    imported rows are written as published."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for name, theirs in CODEREVIEWER_SPLITS.items():
        rows = [row for row in hunks.filter(pc.equal(hunks.column("split"), name)).to_pylist()
                if row["task"] is not None or withheld.reason("hunk", row["project"], row["licence"],
                                                               row["comment_author"], name) is None]
        if pseudonymiser is not None:
            changes = [(row["round_id"], row["change"]) for row in rows]
            people = participants(changes, [row["comment_author"] for row in rows])
            for row, change in zip(rows, changes):
                if row["task"] is None:
                    row["comment"] = pseudonymiser.redact(row["comment"], people.get(change, ()))
        write_codereviewer(rows, folder, theirs)
        seen = set()
        for row in rows:
            if row["task"] is not None:  # imported: one line in its own task's file
                counts[(row["task"], row["language"] or UNKNOWN, name)] += 1
                continue
            if row["comment"] is not None:
                counts[("msg", row["language"] or UNKNOWN, name)] += 1
            hunk = (row["round_id"], row["path"], row["hunk_index"])
            if hunk not in seen:
                seen.add(hunk)
                counts[("cls", row["language"] or UNKNOWN, name)] += 1
    return counts


def _kind_counts(splits: dict[str, Parts]) -> Counter[tuple[str, str]]:
    """Rows per (kind, split), from the ``kind`` column alone: which files to write and what the card's header
    says are known before the first row is written."""
    counts: Counter[tuple[str, str]] = Counter()
    for name, parts in splits.items():
        for batch in parts.iter_batches(64 * BATCH_ROWS, columns=["kind"]):
            for entry in pc.value_counts(batch.column(0)).to_pylist():
                counts[(entry["values"], name)] += entry["counts"]
    return counts


@dataclass
class CardCounts:
    """What the card says of the rows, counted batch by batch: rows per (kind, source, split) and per (kind, source,
    project), and the SPT totals per (kind, split). Kinds are counted apart: a review round gives both a triplet
    and a pair of the same method, so a sum of the two counts no example."""

    per_source: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    per_project: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    per_language: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (kind, language, split)
    hunks: Counter[tuple[str, str, str]] | None = None  # CodeReviewer rows per (task, language, split)
    hunk_sources: set[str] = field(default_factory=set)  # the hunk rows' sources, for the card's first paragraph
    spt: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    pseudonyms: Counter[str] | None = None  # what the pseudonymiser replaced (None: it did not run)
    secrets: SecretScanner | None = None  # what the secret scan found
    withheld: Withheld | None = None  # rows left out for their licence or the opt-out list, and rows per licence

    def count(self, name: str, batch: pa.RecordBatch) -> None:
        for kind, source, project, language in zip(*(batch.column(n).to_pylist()
                                                      for n in ("kind", "source", "project", "language"))):
            self.per_source[(kind, source, name)] += 1
            self.per_project[(kind, source, project)] += 1
            self.per_language[(kind, language or UNKNOWN, name)] += 1

    @property
    def languages(self) -> list[str]:
        return sorted({language for _, language, _ in self.per_language})


class Withheld:
    """Rows that may not go out: their project's licence is not on ``[publish] licences`` (:mod:`.licences`), or
    their comment's author is on the opt-out list; counted per (kind, split) for the card's sizes and per
    (project, reason) for the card and ``run.json``."""

    def __init__(self, gate: LicenceGate, opted_out: frozenset[str]) -> None:
        self.gate, self.opted_out = gate, opted_out
        self.by_split: Counter[tuple[str, str]] = Counter()
        self.by_project: Counter[tuple[str, str]] = Counter()  # (project, reason)

    def apply(self, batch: pa.RecordBatch, split: str) -> pa.RecordBatch:
        """The batch's rows that may go out."""
        keep = [self.reason(*row, split=split) is None for row in zip(*(batch.column(n).to_pylist() for n in (
            "kind", "project", "licence", "comment_author")))]
        return batch if all(keep) else batch.filter(pa.array(keep, pa.bool_()))

    def reason(self, kind: str, project: str, licence: str | None, author: str | None, split: str) -> str | None:
        """Why one row may not go out (None: it may), counted."""
        why = OPT_OUT if author and author.lower() in self.opted_out else self.gate.reason(licence)
        if why is not None:
            self.by_split[(kind, split)] += 1
            self.by_project[(project, why)] += 1
        return why

    def result(self) -> dict[str, Any]:
        """``run.json``'s part: rows per licence (every row seen but those of people on the opt-out list, which are
        left out before their licence is asked) and rows left out per reason and project."""
        left_out: dict[str, dict[str, int]] = {}
        for (project, why), n in sorted(self.by_project.items()):
            left_out.setdefault(why, {})[project] = n
        return {"licences": {"allowed": list(self.gate.allowed), "rows": dict(self.gate.rows.most_common())},
                "withheld": left_out}


def _part_files(kind: str, name: str, formats: tuple[str, ...], representations: tuple[str, ...]) -> list[str]:
    """The files of one (kind, split), relative to the output: its Parquet file, then its text files in the order
    of :func:`format_rows`' texts."""
    config = CONFIGS[kind]
    return ([_data_file("parquet", config, name)] if "parquet" in formats else []) + [
        *([f"opennmt/{config}/{prefix}-{name}.txt" for prefix in OPENNMT_FILES[kind]] if "opennmt" in formats else []),
        *([_data_file("jsonl", config, name)] if "jsonl" in formats else []),
        *([f"representations/{config}/{name}.jsonl"] if representations else [])]


def _export_split(out: Path, name: str, parts: Parts, kinds: list[str], formats: tuple[str, ...],
                  options: ExportOptions, card_counts: CardCounts, pseudonymiser: Pseudonymiser | None,
                  scanner: SecretScanner) -> None:
    """Stream one split into the files of each kind: Parquet row groups here as batches are read, text from
    :func:`format_rows` (on the engine, in order) as its results come back."""
    representations = options.representations
    with contextlib.ExitStack() as files:
        tables: dict[str, RowGroupWriter] = {}
        texts: dict[str, list[TextIO]] = {}
        for kind in kinds:
            paths = _part_files(kind, name, formats, representations)
            if "parquet" in formats:
                tables[kind] = files.enter_context(RowGroupWriter(out / paths.pop(0), DATASET_SCHEMA, ROW_GROUP_ROWS))
            texts[kind] = [files.enter_context(atomic_text(out / path)) for path in paths]
            card_counts.spt[(kind, name)] = Counter(dict.fromkeys(SPT_TOTALS, 0))
        columns = _task_columns(kinds, formats, representations)

        def chunks() -> Iterator[tuple[str, pa.RecordBatch]]:
            for batch in parts.iter_batches(BATCH_ROWS):
                batch = card_counts.withheld.apply(batch, name)
                card_counts.count(name, batch)
                batch = scanner.apply(batch, options.publish.secrets)  # first: the placeholders could cut a secret
                if pseudonymiser is not None:
                    batch = pseudonymise_batch(batch, pseudonymiser)
                for kind in kinds:
                    rows = batch.filter(pc.equal(batch.column("kind"), kind))
                    if rows.num_rows:
                        if kind in tables:
                            tables[kind].write(rows)
                        yield kind, rows if columns is None else rows.select(columns)

        if not any(texts.values()):  # Parquet alone: nothing to format
            deque(chunks(), maxlen=0)
            return
        runner = options.engine or LocalEngine()
        for kind, chunk_texts, totals in runner.map(format_rows, chunks(), formats, representations):
            for fh, text in zip(texts[kind], chunk_texts, strict=True):
                fh.write(text)
            card_counts.spt[(kind, name)].update(totals)


def _task_columns(kinds: list[str], formats: tuple[str, ...], representations: tuple[str, ...]) -> list[str] | None:
    """The columns :func:`format_rows` reads (None: all, for JSON Lines): what a chunk sent to a worker carries."""
    if "jsonl" in formats:
        return None
    needed = {column for kind in kinds for column in OPENNMT_FILES[kind].values()} if "opennmt" in formats else set()
    if representations:
        needed |= {"id", "language", *(column for column, _ in CODE_COLUMNS)}
    return sorted(needed)


def format_rows(chunk: tuple[str, pa.RecordBatch], formats: tuple[str, ...], representations: tuple[str, ...]
                ) -> tuple[str, list[str], dict[str, int]]:
    """The lines one chunk of one kind's rows adds to each of its text files (in :func:`_part_files`' order), and
    its SPT totals: the export's per-row work, a pure function an engine runs anywhere."""
    kind, rows = chunk
    texts = []
    if "opennmt" in formats:
        for prefix, column in OPENNMT_FILES[kind].items():
            end = OPENNMT_LINE_END.get(prefix, "")
            texts.append(_lines(_one_line(text) + end for text in rows.column(column).to_pylist()))
    if "jsonl" in formats:
        texts.append(_lines(_json_line(row) for row in rows.to_pylist()))
    totals = dict.fromkeys(SPT_TOTALS, 0)
    if representations:
        texts.append(_lines(_representation(row, representations, totals) for row in
                            rows.select(["id", "language", *(c for c, _ in CODE_COLUMNS)]).to_pylist()))
    return kind, texts, totals


def _empty_splits(sizes: dict[str, dict[str, int]]) -> dict[str, list[str]]:
    """{config: its splits with no rows}, for the configs that have some."""
    empty = {config: [name for name in SPLITS if by_split[name] == 0] for config, by_split in sizes.items()}
    return {config: names for config, names in empty.items() if names}


def _empty_text(empty: dict[str, list[str]]) -> str:
    """``triplets: test; pairs: validation, test``: the empty splits by their Hugging Face names."""
    return "; ".join(f"{config}: {', '.join(HF_SPLITS[name] for name in names)}" for config, names in empty.items())


def _split_summary(path: Path) -> dict | None:
    """A JSON summary beside the splits (the split's ``split.json``, the overlap check's ``overlap.json``), or
    None when there is none; a corrupt one is an error naming it."""
    if not path.is_file():
        return None
    try:
        summary = json.loads("\n".join(read_lines(path)))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(summary, dict):
        raise InputError(path, "expected a JSON object (the split stage's summary)")
    return summary


#: the SPT totals the card gives per (config, split) (methods and parse errors count the raw methods only)
SPT_TOTALS = ("methods", "nodes", "edges", "errors", "abstract_nodes", "abstract_edges")


def _representation(row: dict[str, Any], representations: tuple[str, ...], totals: dict[str, int]) -> str:
    """One row's representations line; its SPTs' sizes are added to ``totals``."""
    record: dict[str, Any] = {"id": row["id"]}
    language = row["language"] or "java"  # a row that does not say: Java, as every row was before languages
    spt = "spt" in representations and language in SPT_LANGUAGES  # CodeNet gives no SPT of the others: null
    for column, abstracted in CODE_COLUMNS:
        code = row[column] or ""
        graph = simplified_parse_tree(code, language, abstracted) if spt else None
        if "tokens" in representations:
            reuse = graph is not None and not abstracted  # raw code: the tree's leaves are its tokens
            tokens = spt_tokens(graph) if reuse else token_stream(code, language, abstracted)
            record[f"{column}_tokens"] = [t.text for t in tokens]
            record[f"{column}_token_kinds"] = [t.kind for t in tokens]
        if "spt" in representations:
            record[f"{column}_spt"] = graph
        if graph is not None:
            nodes, edges = spt_size(graph)
            prefix = "abstract_" if abstracted else ""
            totals[prefix + "nodes"] += nodes
            totals[prefix + "edges"] += edges
            if not abstracted:
                totals["methods"] += 1
                totals["errors"] += graph["graph"]["errors"] > 0
    return _json_line(record)


#: what the replication package puts at the end of each line of a file, where it is not nothing
OPENNMT_LINE_END = {"src2": " "}


def _data_file(fmt: str, config: str, split: str) -> str:
    """Where the Parquet (Hugging Face layout) or JSON Lines file of one config and split goes."""
    if fmt == "parquet":
        return f"data/{config}/{HF_SPLITS[split]}-00000-of-00001.parquet"
    return f"jsonl/{config}/{split}.jsonl"


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _json_line(row: dict[str, Any]) -> str:
    """One JSON object; line and paragraph separators escaped so that no reader splits the line."""
    text = json.dumps(row, ensure_ascii=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")


def _lines(lines: Iterable[str]) -> str:
    """The text of a file's lines, each ended by a line feed."""
    return "".join(line + "\n" for line in lines)


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def dataset_card(counts: CardCounts, kinds: list[str], sizes: dict[str, dict[str, int]],
                 options: ExportOptions, report: pa.Table | None, how_split: dict | None,
                 formats: tuple[str, ...], spt_totals: dict[tuple[str, str], dict[str, int]] | None = None,
                 overlap: dict | None = None) -> str:
    """The README.md of the export: Hub YAML header, then sizes, sources, filters, splits, schema, the files
    in ``formats`` (those written), the representations' SPT totals and how to load them."""
    hunk_counts = counts.hunks or Counter()
    total = sum(counts.per_source.values()) + sum(n for (task, _, _), n in hunk_counts.items() if task == "cls")
    languages = sorted({*counts.languages, *(lang for _, lang, _ in hunk_counts)})
    header = ["---", f"pretty_name: {json.dumps(options.name)}", "license: other", "language:", "- en", "- code",
              "tags:", "- code-review", "- code-refinement", *(f"- {lang}" for lang in languages or ["java"]),
              "task_categories:",
              "- text2text-generation", "size_categories:", f"- {_size_category(total)}"]
    loadable = next((f for f in ("parquet", "jsonl") if f in formats), None)  # what `datasets` is pointed at
    if loadable is not None:
        header.append("configs:")
        for k, kind in enumerate(kinds):
            header += [f"- config_name: {CONFIGS[kind]}", *(["  default: true"] if k == 0 else []), "  data_files:"]
            for name in SPLITS:
                if sizes[CONFIGS[kind]][name]:  # an empty split cannot be loaded (module docstring)
                    header += [f"  - split: {HF_SPLITS[name]}", f"    path: {_data_file(loadable, CONFIGS[kind], name)}"]
    header.append("---")
    empty = _empty_splits(sizes)

    sources = {source for _, source, _ in counts.per_source} | counts.hunk_sources
    body = [f"# {markdown_text(options.name)}", "", _what_it_holds(kinds, sources, counts.hunks is not None), "",
            *_levels_section(_levels(sizes, counts.hunks), formats), ""]
    if kinds:  # the method level's sections (a hunk-level export has its own section below)
        body += ["## Sizes", "", "| config | " + " | ".join(HF_SPLITS[s] for s in SPLITS) + " | total |",
                 "|---|" + "---:|" * (len(SPLITS) + 1)]
        for config, by_split in sizes.items():
            body.append(f"| {config} | " + " | ".join(f"{by_split[s]:,}" for s in SPLITS)
                        + f" | {sum(by_split.values()):,} |")
        body += ["", "Split names: `validation` (the Hugging Face name, used in this card's tables and header) is the "
                 "split that the rows' `split` column, the OpenNMT and JSON Lines file names and revmine's own "
                 "outputs (`eval.parquet`, `split.json`, `run.json`) call `eval`."]
        if empty and loadable is not None:
            body += ["", f"**Empty splits** (no rows): {_empty_text(empty)}. They are not in the `configs` header "
                     "(`datasets` cannot load a split with no rows); their files are written, empty."]
        body += ["", *_sources(counts, kinds), ""]
    if len(counts.languages) > 1:
        body += [*_languages(counts, kinds), ""]
    if counts.hunks is not None:
        body += [*_hunk_section(counts.hunks), ""]
    if report is not None:
        body += [report_markdown(report, level=2).rstrip(), ""]
    else:
        body += ["## Filter report", "", "No filter report was given to the export.", ""]
    body += _splits_section(how_split)
    if overlap is not None:  # revmine overlap wrote it beside the splits
        body += ["## Contamination check", "", overlap_markdown(overlap), ""]
    if kinds:
        body += ["## Schema", "", "Each row has these columns (all of them in the Parquet and JSON Lines files):", "",
                 "| column | type | description |", "|---|---|---|"]
        body += [f"| `{f.name}` | {f.type} | {_COLUMN_DOCS.get(f.name, '')} |" for f in DATASET_SCHEMA]
        body.append("")
    body += ["## Files", "", *(_FILE_DOCS[f] for f in formats),
             *([_REPRESENTATIONS_DOC] if options.representations else []), "",
             *_representations_section(spt_totals)]
    if kinds:
        first = CONFIGS[kinds[0]]
        body += _how_to_load(first, next(HF_SPLITS[s] for s in SPLITS if sizes[first][s]), loadable)
    body += [*_personal_section(counts.pseudonyms, formats), *_secrets_section(counts.secrets, options.publish.secrets),
             "## Licence", "", options.licence, "", *_licence_lines(counts.withheld), "## Citation", "",
             "The construction follows Tufano, Masiero Pantiuchina, Watson, Bavota, Poshyvanyk, *Towards Automating "
             "Code Review Activities*, ICSE 2021; near-duplicates follow Allamanis (Onward! 2019) with the "
             "thresholds of Project CodeNet (Puri et al., NeurIPS Datasets and Benchmarks 2021).", ""]
    return "\n".join(header) + "\n\n" + "\n".join(body)


def _personal_section(replaced: Counter[str] | None, formats: tuple[str, ...]) -> list[str]:
    """The card's *Personal and sensitive information*, from what :mod:`.pseudonyms` did (Hugging Face's template)."""
    lines = ["## Personal and sensitive information", ""]
    if replaced is None:
        return [*lines, "The rows hold the identities of comment authors as mined (`comment_author`), and comments and "
                "code as written, e-mail addresses and @mentions included: the export was asked not to "
                "pseudonymise them.", "", _PROVENANCE, ""]
    lines += [f"`comment_author` holds a pseudonym: a keyed hash (HMAC-SHA256, `u-` and 16 hex digits) of the "
              f"identity mined; the same person has the same pseudonym throughout the dataset, and the key stays "
              f"with whoever built it. In the raw columns `comment`, `m_s` and `m_r`, e-mail addresses became "
              f"`{EMAIL}` ({replaced['emails']:,}), @mentions in comments `{MENTION}` ({replaced['mentions']:,}; in "
              f"code an @word is mostly an annotation such as `@Override` and stays) and the names of the change's "
              f"participants (its comment authors) `{PERSON}` ({replaced['names']:,}); {replaced['identities']:,} author "
              f"identities were replaced."]
    if "opennmt" in formats:
        lines += ["", "The abstracted columns and the OpenNMT files written from them are left as the 2021 "
                  "dataset's construction makes them (its rebuild compares them byte for byte): the abstraction "
                  "replaces identifiers and literals in code, but a cleaned comment (`comment_abstract`, `src1`) "
                  "may still hold a name or an address."]
    return [*lines, "", _PROVENANCE, ""]


def _licence_lines(withheld: Withheld | None) -> list[str]:
    """Under the card's *Licence*: rows per licence found (:mod:`revmine.miners.licences`), what those licences
    allow said plainly, and the rows left out for their licence or the opt-out list."""
    if withheld is None or not withheld.gate.rows:
        return []
    per_licence = withheld.gate.rows
    lines = ["Each row's `licence` is its project's at the revision submitted, as an SPDX expression: the forge's "
             "answer where it gives one (GitHub's licence endpoint), else the licence files at the top of the "
             "repository matched to SPDX licences (`NOASSERTION`: files that match none; empty: no licence file).", "",
             "| licence | kind | rows |", "|---|---|---|"]
    lines += [f"| {licence} | {category(licence)} | {n:,} |" for licence, n in per_licence.most_common()]
    by_kind: Counter[str] = Counter()
    for licence, n in per_licence.items():
        by_kind[category(licence)] += n
    lines.append("")
    if by_kind["copyleft"]:
        lines.append(f"- {by_kind['copyleft']:,} rows come from code under a copyleft licence: whoever redistributes "
                     "them takes on its terms (the same licence for derived works, its notices kept).")
    if by_kind["other"]:
        lines.append(f"- {by_kind['other']:,} rows come from code under a licence that is neither permissive nor "
                     "copyleft (source-available, non-commercial, proprietary, or not known to ScanCode's "
                     "LicenseDB): check it before redistributing.")
    if by_kind["none"]:
        lines.append(f"- {by_kind['none']:,} rows come from projects where no licence was found: their code is "
                     "under copyright with no grant to redistribute it.")
    allowed = withheld.gate.allowed
    if ANY not in allowed:
        lines.append(f"- Only rows whose licence is allowed ({', '.join(allowed)}) were kept: "
                     + _left_out(withheld, "licence") + "; " + _left_out(withheld, "unknown_licence") + ".")
    if withheld.opted_out:
        lines.append(f"- The opt-out list named {len(withheld.opted_out):,} people: "
                     + _left_out(withheld, OPT_OUT) + " (their comments; the miners leave out their changes too).")
    return [*lines, ""]


def _left_out(withheld: Withheld, reason: str) -> str:
    """``12 rows left out as licence (a/b: 10, c/d: 2)``."""
    projects = {project: n for (project, why), n in withheld.by_project.items() if why == reason}
    listed = ", ".join(f"{p}: {n:,}" for p, n in sorted(projects.items(), key=lambda kv: -kv[1])[:10])
    return f"{sum(projects.values()):,} rows left out as `{reason}`" + (f" ({listed})" if listed else "")


def _secrets_section(scanner: SecretScanner | None, mode: str) -> list[str]:
    """What the secret scan (:mod:`.secret_scan`) found and did, for the card."""
    lines = ["### Secrets", ""]
    if mode == "off":
        return [*lines, "The rows were not scanned for secrets (`secrets = \"off\"`).", ""]
    found = scanner.counts if scanner is not None else Counter()
    types = ", ".join(f"{kind[5:]}: {n:,}" for kind, n in sorted(found.items()) if kind.startswith("type:"))
    action = "dropped" if mode == "drop" else f"redacted (every copy of the value, in every column, is `{SECRET}`)"
    return [*lines, f"The raw comments and code were scanned with detect-secrets' pattern plugins (API keys, private "
            f"keys, tokens, passwords in URLs; not its entropy heuristics). {found['rows']:,} rows held a secret and "
            f"were {action}" + (f" ({types})." if types else "."), ""]


#: what the provenance columns reveal, said in every card
_PROVENANCE = ("The provenance columns (`round_id`, `project`, `change`, `comment_id`) lead back to the review on "
               "its forge, where the people are named: a pseudonym hides an identity from the file, not from "
               "someone who follows the link.")

#: the top folder of each format's files
_FOLDERS = {"parquet": "data", "opennmt": "opennmt", "jsonl": "jsonl", "codereviewer": "codereviewer"}

_FILE_DOCS = {
    "parquet": "- `data/<config>/<split>-00000-of-00001.parquet`: the Hugging Face layout (splits train, validation, "
               "test).",
    "opennmt": "- `opennmt/triplets/{src,src1,src2,tgt}-<split>.txt`, `opennmt/pairs/{src,tgt}-<split>.txt`: one "
               "example per line, abstracted (src: m_s, src1: comment, src2: m_s with `<START>`/`<END>` around the "
               "commented code, tgt: m_r), as in the 2021 replication package; splits named train, eval (the configs' "
               "validation), test.",
    "jsonl": "- `jsonl/<config>/<split>.jsonl`: one JSON object per line, every column; splits named train, eval "
             "(the configs' validation), test.",
    "codereviewer": "- `codereviewer/{msg,ref,cls}-<split>.jsonl`: the hunk-level rows in CodeReviewer's JSON Lines "
                    "(its field names; splits named train, valid, test).",
}


_REPRESENTATIONS_DOC = (
    "- `representations/<config>/<split>.jsonl`: one JSON object per row, in the order of the other files: `id` "
    "and, for m_s, m_r, m_s_abstract and m_r_abstract, the token stream (`<column>_tokens`, "
    "`<column>_token_kinds`: keyword, identifier, literal kinds, operator, separator) and/or the simplified parse "
    "tree (`<column>_spt`) of Project CodeNet, in its JSON graph format (`revmine.lang.representations` documents "
    "both).")


def _representations_section(spt_totals: dict[tuple[str, str], dict[str, int]] | None) -> list[str]:
    """SPT totals per config and split, as Project CodeNet's Table 6 gives them for its datasets."""
    if not spt_totals:
        return []
    lines = ["## Simplified parse trees", "",
             "Totals over the raw methods (m_s and m_r of every row), and over their abstracted texts; the last "
             "column counts the raw methods tree-sitter-java did not read as Java (their trees hold the tokens it "
             "recovered).", "",
             "| config | split | methods | SPT nodes | SPT edges | abstracted SPT nodes | abstracted SPT edges "
             "| parse errors |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (config, name), t in spt_totals.items():
        lines.append(f"| {config} | {HF_SPLITS[name]} | {t['methods']:,} | {t['nodes']:,} | {t['edges']:,} "
                     f"| {t['abstract_nodes']:,} | {t['abstract_edges']:,} | {t['errors']:,} |")
    return lines + [""]


def _how_to_load(config: str, split: str, loadable: str | None) -> list[str]:
    """The card's code, runnable as written in the export directory (tests run it); ``split`` has rows."""
    if loadable is None:
        return ["## How to load", "", "Line i of every OpenNMT file of a split is example i: read them side by side "
                "(OpenNMT-py's `src`/`tgt` options take them as they are).", ""]
    # datasets (5.2) cannot name a dataset loaded as ".", hence the absolute path of the working directory
    lines = ["## How to load", "", "Run in this directory (for a copy on the Hub, give its repository id instead "
             "of the path):", "", "```python", "import os", "", "from datasets import load_dataset", "",
             f'ds = load_dataset(os.getcwd(), "{config}")',
             f'print(ds["{split}"][0]["m_s_abstract"])', "```", "", "Without `datasets`:", "", "```python"]
    if loadable == "parquet":
        lines += ["import pyarrow.dataset as pads", "",
                  f'train = pads.dataset("{_data_file("parquet", config, "train")}").to_table()']
    else:
        lines += ["import pandas as pd", "",
                  f'train = pd.read_json("{_data_file("jsonl", config, "train")}", lines=True)']
    return lines + ["```", ""]


#: the ``source`` values of mined rows (the miners'), with their forge's name; any other source was imported
MINED_SOURCES = {"gerrit": "Gerrit", "github": "GitHub", "gitlab": "GitLab"}


def _what_it_holds(kinds: list[str], sources: set[str], hunk_level: bool = False) -> str:
    """The card's first paragraph: where the rows come from (the forges mined, the datasets imported) and only
    the kinds (and the hunk level) the export has."""
    forges = [name for source, name in MINED_SOURCES.items() if source in sources]
    imported = sorted(sources - set(MINED_SOURCES))
    origin = " and ".join([*([f"mined from {' and '.join(forges)} reviews"] if forges else []),
                           *([f"imported from the published dataset{'s' if len(imported) > 1 else ''} "
                              f"{', '.join(f'`{s}`' for s in imported)} (`revmine import`: the publisher's texts)"]
                             if imported else [])])
    code = "method" if not imported else "code"  # an import's rows need not be Java methods
    held = {TRIPLET: f"**triplets** (m_s: the {code} submitted for review, a reviewer's comment on it, m_r: the "
                     f"{code} revised after the review)",
            PAIR: f"**pairs** (m_s, m_r) of {'every method' if not imported else 'code'} changed in a review round"}
    forms = [*([f"in the form of the dataset of Tufano et al., *Towards Automating Code Review Activities* (ICSE "
                f"2021): {' and '.join(held[kind] for kind in kinds)}"] if kinds else []),
             *(["as review comments on diff hunks in the form of CodeReviewer (Li et al., ESEC/FSE 2022)"]
               if hunk_level else [])]
    return f"Code-review examples {origin}, {'; and '.join(forms)}. Built with revmine."


def _levels_section(levels: dict[str, dict], formats: tuple[str, ...]) -> list[str]:
    """What each level holds (:func:`_levels`) and in which of the folders written: a level with no rows says so."""
    method = levels["method"]
    hunk = levels["hunk"]
    folders = ", ".join(f"`{_FOLDERS[f]}/`" for f in formats if f != "codereviewer")
    return ["## Levels", "", "| level | unit | rows | files |", "|---|---|---|---|",
            "| method (Tufano et al., ICSE 2021) | a method before and after review | "
            + (", ".join(f"{n:,} {config}" for config, n in method.items()) or "none") + " | "
            + (folders if method and folders else "-") + " |",
            "| hunk (CodeReviewer, Li et al., ESEC/FSE 2022) | a diff hunk of a change | "
            + (f"{hunk['hunks']:,} hunks (`cls`), {hunk['comments']:,} reviewer comments (`msg`, `ref`)" if hunk
               else "none") + " | " + ("`codereviewer/`" if hunk else "-") + " |"]


def _sources(counts: CardCounts, kinds: list[str]) -> list[str]:
    """Rows per source, config and split, and per config the projects with their row counts: triplets and pairs
    apart, never summed (a review round gives both)."""
    lines = ["## Sources", "", "Rows per source and config (triplets and pairs counted apart: a reviewed method "
             "gives a pair and, for each comment on it, a triplet).", "",
             "| source | config | projects | " + " | ".join(HF_SPLITS[s] for s in SPLITS) + " | total |",
             "|---|---|---:|" + "---:|" * (len(SPLITS) + 1)]
    for source in sorted({s for _, s, _ in counts.per_source}):
        for kind in kinds:
            rows = [counts.per_source[(kind, source, n)] for n in SPLITS]
            if any(rows):
                projects = sum(1 for k, s, _ in counts.per_project if (k, s) == (kind, source))
                lines.append(f"| {markdown_text(source)} | {CONFIGS[kind]} | {projects} | "
                             + " | ".join(f"{n:,}" for n in rows)
                             + f" | {sum(rows):,} |")
    for kind in kinds:
        ranked = sorted(((source, project, n) for (k, source, project), n in counts.per_project.items() if k == kind),
                        key=lambda item: (-item[2], item[0], item[1]))
        lines += ["", f"Projects with the most {CONFIGS[kind]} ({min(len(ranked), MAX_PROJECTS_LISTED)} of "
                  f"{len(ranked)}):", ""]
        lines += [f"- {markdown_text(source)}: {markdown_text(project)} ({n:,})"
                  for source, project, n in ranked[:MAX_PROJECTS_LISTED]]
    return lines


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(value: str) -> str:
    """``value`` as literal text in Markdown: every ASCII punctuation backslash-escaped (CommonMark allows it
    for each, so no link, image, HTML tag, emphasis or table cell can be made from a project or job name) and
    line breaks as spaces (one line, one heading)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", " ".join(str(value).splitlines()))


def _languages(counts: CardCounts, kinds: list[str]) -> list[str]:
    """Rows per language, config and split (a dataset of more than one language)."""
    lines = ["## Languages", "", "Rows per language (of the file the method is in) and config.", "",
             "| language | config | " + " | ".join(HF_SPLITS[s] for s in SPLITS) + " | total |",
             "|---|---|" + "---:|" * (len(SPLITS) + 1)]
    for language in counts.languages:
        for kind in kinds:
            rows = [counts.per_language[(kind, language, n)] for n in SPLITS]
            if any(rows):
                lines.append(f"| {language} | {CONFIGS[kind]} | " + " | ".join(f"{n:,}" for n in rows)
                             + f" | {sum(rows):,} |")
    return lines


def _hunk_section(hunks: Counter[tuple[str, str, str]]) -> list[str]:
    """The hunk-level rows written in CodeReviewer's format, per task, language and split."""
    lines = ["## Hunk-level rows (CodeReviewer)", "",
             "`codereviewer/` holds the review comments on diff hunks in the JSON Lines of CodeReviewer (Li et al., "
             "ESEC/FSE 2022): `msg` and `ref` one row per reviewer comment (the hunk, the comment, and for `ref` the "
             "same region after the revision), `cls` one row per hunk (`y` = 1 when commented). `ref` has as many "
             "rows as `msg`. Read back with `revmine import codereviewer`.", "",
             "| task | language | " + " | ".join(CODEREVIEWER_SPLITS.values()) + " | total |",
             "|---|---|" + "---:|" * (len(SPLITS) + 1)]
    for task in TASKS:  # mined rows count msg (ref has as many) and cls; an import, the tasks it read
        for language in sorted({lang for t, lang, _ in hunks if t == task}):
            rows = [hunks[(task, language, name)] for name in SPLITS]
            lines.append(f"| {task} | {language} | " + " | ".join(f"{n:,}" for n in rows) + f" | {sum(rows):,} |")
    return lines


def _splits_section(how_split: dict | None) -> list[str]:
    lines = ["## Splits", ""]
    if how_split is None:
        return lines + ["No split summary (split.json) was found beside the splits.", ""]
    lines.append(f"Strategy `{how_split['strategy']}`, seed {how_split['seed']}, fractions "
                 f"{'/'.join(str(f) for f in how_split['fractions'])}. Whole near-duplicate clusters go to one split; "
                 "within a split one row per cluster and kind is kept.")
    dropped = how_split.get("dropped") or {}
    if dropped:
        lines.append("Removed by the split: " + ", ".join(f"{k} {v:,}" for k, v in dropped.items()) + ".")
    return lines + [""]
