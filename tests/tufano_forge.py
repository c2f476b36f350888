"""A Gerrit project rebuilt from the published test split of Tufano et al. (ICSE 2021), served by the test
forge (:mod:`miners_server`), for the end-to-end test and benchmark of the whole dataset.

One change per published row of ``../shared/fixtures/tufano2021/test.csv``; change number = row index + 1
(Gerrit numbers changes from 1), so a change traces back to its row. Each change has:

* patch set 1: the submitted method (``before``) in a class of its own file, patch set 2: the revised method
  (``after``) in the same file. Both are based on the branch head, as a rebased Gerrit change's patch sets are.
  The class is named after the method when the method is a constructor (so the file is valid Java), else
  ``Row<index>``; its file is ``src/main/java/org/tufano2021/r<index>/<Class>.java``.
* one reviewer comment (an account that does not own the change) on the lines marked ``START ... END`` in
  ``before_marked``, at the marked line numbers of the file (the method's plus the class header's lines).
  As Gerrit gives it: ``line`` is the end line and, unless the mark covers exactly one whole line, a
  ``range`` {start_line, start_character, end_line, end_character}, characters 0-based, cut to the marked
  tokens (the markers sit beside the tokens, sometimes with a space of their own).
* the owner's "Done" reply on patch set 1 (``in_reply_to`` the reviewer's comment, on its end line), and a
  reviewer's patch-set-level "LGTM" on patch set 2: what a real change holds besides the round's comment,
  which the miners and filters must see past (replies by the owner, comments on the last patch set).

Reviewers and owners come from small pools of accounts, so one account owns some changes and reviews others.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import time
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from miners_server import T0, Forge, ForgeServer, RepoBuilder, _gerrit_time

from revmine.cli import main
from revmine.pipeline import STAGES
from revmine.io.store import read_table

TUFANO = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021"
PROJECT = "tufano2021/test"
HEADER_LINES = 3  # "package ...;", "", "public class ... {" above the method
OWNERS = [1000 + k for k in range(7)]  # account ids
REVIEWERS = [2000 + k for k in range(5)]
_ACCESS = frozenset(("public", "protected", "private"))


@dataclass(frozen=True)
class PublishedRow:
    """One row of ``test.csv`` and, at the same index, its lines of the four published text files."""

    index: int
    comment: str
    before: str
    before_marked: str
    after: str

    @property
    def change(self) -> int:
        return self.index + 1


def read_rows(folder: Path = TUFANO) -> list[PublishedRow]:
    csv.field_size_limit(1 << 30)
    with open(folder / "test.csv", newline="", encoding="utf-8") as handle:
        return [PublishedRow(int(r[""]), r["comment"], r["before"], r["before_marked"], r["after"])
                for r in csv.DictReader(handle)]


def read_published(folder: Path = TUFANO) -> dict[str, list[str]]:
    """Lines of ``src``, ``src1``, ``src2`` and ``tgt``-test.txt (line i = row i)."""
    out = {}
    for name in ("src", "src1", "src2", "tgt"):
        lines = (folder / f"{name}-test.txt").read_text(encoding="utf-8").split("\n")
        out[name] = lines[:-1] if lines[-1] == "" else lines
    return out


def marked_range(before: str, marked: str) -> tuple[int, int, int, int]:
    """(start_line, start_character, end_line, end_character) of the ``START ... END`` mark in ``before``'s
    lines (1-based lines, 0-based characters, end exclusive), cut to the marked tokens.

    ``before_marked`` is ``before`` with the words ``START`` and ``END`` inserted, each with a space or two
    around it (sometimes one more than the line had); the first way of taking them out that gives back
    ``before`` says where they were."""
    for p in _occurrences(marked, "START", 0):
        for q in _occurrences(marked, "END", p + 5):
            for a, b in _MARKER_SPACES:
                for c, d in _MARKER_SPACES:
                    taken = (marked[p - a:p], marked[p + 5:p + 5 + b], marked[q - c:q], marked[q + 3:q + 3 + d])
                    if a <= p and all(set(t) <= {" "} for t in taken) \
                            and marked[:p - a] + marked[p + 5 + b:q - c] + marked[q + 3 + d:] == before:
                        return _lines_of(before, p - a, q - c - (a + 5 + b))
    raise ValueError("before_marked is not before with START and END inserted")


def _occurrences(text: str, word: str, start: int) -> list[int]:
    return [m.start() for m in re.compile(re.escape(word)).finditer(text, start)]


#: (spaces taken before, after) a marker word, in the order tried
_MARKER_SPACES = ((0, 1), (1, 1), (0, 2), (1, 2), (0, 0), (1, 0), (2, 1), (2, 2))


def _lines_of(before: str, start: int, end: int) -> tuple[int, int, int, int]:
    """The character offsets ``start``..``end`` of ``before`` as Gerrit's range, trimmed to tokens."""
    line_start = before.rfind("\n", 0, start) + 1
    while start < len(before) and before[start] in " \t":
        start += 1  # a selection starts at its first token
    line_end = before.rfind("\n", 0, end) + 1
    while end > line_end and before[end - 1] in " \t":
        end -= 1  # ... and ends after its last one
    start_line, end_line = before.count("\n", 0, line_start) + 1, before.count("\n", 0, line_end) + 1
    return start_line, start - line_start, end_line, end - line_end


def class_name(row: PublishedRow) -> str:
    """The constructor's name if the method is a constructor (only access modifiers before its name)."""
    words = _outside_angles(_without_annotations(row.before)).split()
    if words and all(w in _ACCESS for w in words[:-1]) and re.fullmatch(r"[A-Za-z_$][\w$]*", words[-1]):
        return words[-1]
    return f"Row{row.index}"


def _without_annotations(text: str) -> str:
    """The declaration up to its parameter list, annotations (with their arguments) left out."""
    out, i = [], 0
    while i < len(text):
        m = re.match(r"@[\w.]+\s*", text[i:])
        if m:
            i += m.end()
            if text[i:i + 1] == "(":
                depth = 0
                while i < len(text):
                    depth += {"(": 1, ")": -1}.get(text[i], 0)
                    i += 1
                    if depth == 0:
                        break
            out.append(" ")
            continue
        if text[i] == "(":
            break
        out.append(text[i])
        i += 1
    return "".join(out)


def _outside_angles(text: str) -> str:
    """``text`` without its ``<...>`` parts (type parameters, nested)."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">" and depth > 0
    return "".join(out)


def java_file(row: PublishedRow, method: str) -> tuple[str, str]:
    """(path, text) of the file holding ``method`` (``row.before`` or ``row.after``)."""
    name = class_name(row)
    package = f"org.tufano2021.r{row.index}"
    text = f"package {package};\n\npublic class {name} {{\n{method}}}\n"
    return f"src/main/java/{package.replace('.', '/')}/{name}.java", text


def _account(aid: int) -> dict:
    user = f"{'owner' if aid < 2000 else 'reviewer'}{aid % 1000}"
    return {"_account_id": aid, "name": user.title(), "email": f"{user}@example.org", "username": user}


def reviewer_comment(row: PublishedRow, at: str) -> dict:
    start_line, start_char, end_line, end_char = marked_range(row.before, row.before_marked)
    start_line, end_line = start_line + HEADER_LINES, end_line + HEADER_LINES
    comment = {"id": f"r{row.index}c1", "patch_set": 1, "line": end_line, "message": row.comment, "updated": at,
               "author": _account(REVIEWERS[row.index % len(REVIEWERS)]), "unresolved": True}
    marked_line = row.before.split("\n")[end_line - HEADER_LINES - 1]
    whole_line = start_line == end_line and start_char == len(marked_line) - len(marked_line.lstrip()) \
        and end_char == len(marked_line.rstrip())
    if not whole_line:  # a line comment has no range; a selection has one
        comment["range"] = {"start_line": start_line, "start_character": start_char,
                            "end_line": end_line, "end_character": end_char}
    return comment


def build_tufano_forge(root: Path, rows: list[PublishedRow]) -> Forge:
    """A forge whose Gerrit project :data:`PROJECT` has one change per row (see the module docstring)."""
    forge = Forge(root)
    root.mkdir(parents=True, exist_ok=True)
    rb = RepoBuilder(forge.gerrit_repo)
    base = rb.commit("refs/heads/master", {"README.md": "Rebuilt from the 2021 test split.\n"})
    patch_sets = {}
    for row in rows:
        ref = f"refs/changes/{row.change % 100:02d}/{row.change}"
        path, first = java_file(row, row.before)
        _, second = java_file(row, row.after)
        patch_sets[row.index] = (path, [(rb.commit(f"{ref}/1", {path: first}, base, f"Row {row.index}"), first),
                                        (rb.commit(f"{ref}/2", {path: second}, base, f"Row {row.index}\n\nReviewed."),
                                         second)])
    shas = rb.finish()
    for row in rows:
        path, files = patch_sets[row.index]
        created = T0 + timedelta(minutes=row.index)
        times = [created + timedelta(minutes=k * 20) for k in range(4)]  # ps1, comment, ps2 (+reply), LGTM
        owner = _account(OWNERS[row.index % len(OWNERS)])
        revisions = {}
        for k, (mark, text) in enumerate(files):  # each patch set adds the file to the branch head
            size = len(text.encode())
            revisions[shas[mark]] = {
                "kind": "REWORK", "_number": k + 1, "created": _gerrit_time(times[2 * k]), "uploader": owner,
                "ref": f"refs/changes/{row.change % 100:02d}/{row.change}/{k + 1}",
                "files": {path: {"status": "A", "lines_inserted": text.count("\n"), "size_delta": size,
                                 "size": size}}}
        forge.gerrit_changes[row.change] = {
            "id": f"{PROJECT.replace('/', '%2F')}~{row.change}",  # as Gerrit 3.10 names a change
            "triplet_id": f"{PROJECT.replace('/', '%2F')}~master~I{row.change:040x}", "project": PROJECT,
            "branch": "master", "change_id": f"I{row.change:040x}", "subject": f"Row {row.index}",
            "status": "MERGED", "created": _gerrit_time(created), "updated": _gerrit_time(times[3]),
            "submitted": _gerrit_time(times[3]), "insertions": files[1][1].count("\n"), "deletions": 0,
            "_number": row.change, "owner": owner, "revisions": revisions,
        }
        comment = reviewer_comment(row, _gerrit_time(times[1]))
        reply = {"id": f"r{row.index}c2", "patch_set": 1, "line": comment["line"], "in_reply_to": comment["id"],
                 "message": "Done", "updated": _gerrit_time(times[2]), "author": owner, "unresolved": False}
        lgtm = {"id": f"r{row.index}c3", "patch_set": 2, "message": "LGTM", "updated": _gerrit_time(times[3]),
                "author": comment["author"], "unresolved": False}
        forge.gerrit_comments[row.change] = {path: [comment, reply], "/PATCHSET_LEVEL": [lgtm]}
    return forge


# --- the end-to-end run and its comparison with the published files -----------------------------------
#: The published triplet files, in the order of a row's 4-tuple; src2 is compared when the export has it.
FILES = ("src", "src1", "src2", "tgt")
#: The export's column behind each file (src2: the 2-encoder input, m_s with <START>/<END>).
COLUMNS = {"src": "m_s_abstract", "src1": "comment_abstract", "src2": "m_s_marked", "tgt": "m_r_abstract"}
SPLIT_NAMES = ("train", "eval", "test")
EXACT = "exact"


@dataclass
class EndToEnd:
    """What one ``revmine run`` over the forge of ``rows`` rebuilt, compared with the published files."""

    rows: list[PublishedRow]
    out: Path
    seconds: float  # the whole ``revmine run``
    stage_seconds: dict[str, float]
    src2_exported: bool
    matched: dict[str, int | None]  # "4 files" (None without src2) and "3 files": published rows rebuilt, as multisets
    fate: dict[int, tuple[str, str]]  # row index -> (stage/reason or "exact", detail), traced by provenance

    def figure(self, files: str) -> float | None:
        n = self.matched.get(files)
        return None if n is None else n / len(self.rows)

    def losses(self) -> dict[str, list[int]]:
        """stage/reason -> the rows it lost, largest first."""
        found: dict[str, list[int]] = {}
        for index, (reason, _) in sorted(self.fate.items()):
            if reason != EXACT:
                found.setdefault(reason, []).append(index)
        return dict(sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def unnamed(self) -> dict[int, tuple[str, str]]:
        """Rows lost without a dropped row naming them (no stage said why)."""
        return {i: fate for i, fate in self.fate.items()
                if fate[0] in ("mine/no round", "preprocess/no candidate", "split/missing")}

    def report(self, details: bool = False) -> str:
        n = len(self.rows)
        lines = []
        for files in ("4 files", "3 files"):
            got = self.matched.get(files)
            lines.append(f"{files}: " + ("src2 missing from the export (opennmt/triplets/src2-<split>.txt)"
                                         if got is None else f"{got}/{n} published rows rebuilt exactly "
                                                             f"({100 * got / n:.2f}%)"))
        exact = sum(reason == EXACT for reason, _ in self.fate.values())
        lines.append(f"traced by provenance (src, src1, tgt{', src2' if self.src2_exported else ''}): "
                     f"{exact}/{n} exact; the others, by stage/reason:")
        for reason, rows in self.losses().items():
            shown = ", ".join(map(str, rows))
            lines.append(f"  {len(rows):5d}  {100 * len(rows) / n:5.2f}%  {reason}: rows {shown}")
            if details:
                lines += [f"           row {i}: {self.fate[i][1]}" for i in rows]
        return "\n".join(lines)


def sample(rows: list[PublishedRow], every: int) -> list[PublishedRow]:
    """Every ``every``-th row from the first: a deterministic sample spread over the whole file."""
    return rows[::every]


def write_job(path: Path, gerrit_url: str, clone_url: Path | None = None,
              window: tuple[str, str] | None = ("2023-01-01", "2024-01-01")) -> Path:
    """The job file: the Gerrit project :data:`PROJECT` at ``gerrit_url``, every stage with its default
    settings but the window (None: the default, every change updated before the run) and where to clone
    from (None: the default, derived from the URL, as for a real server)."""
    where = "".join(f'{key} = "{value}"\n' for key, value in (("since", window and window[0]),
                                                                ("until", window and window[1]),
                                                                ("clone_url", clone_url)) if value)
    path.write_text(f"""# End-to-end run over the published test split (tests/tufano_forge.py)
[job]
batch_size = 200

[[projects]]
source = "gerrit"
url = "{gerrit_url}"
project = "{PROJECT}"
{where}
[split]
strategy = "random"
fractions = [0.8, 0.1, 0.1]
seed = 0

[export]
formats = ["parquet", "opennmt", "jsonl"]
name = "Tufano et al. 2021 test split, rebuilt"
""", encoding="utf-8")
    return path


def serve(forge: Forge) -> ForgeServer:
    """The test forge's server for ``forge``, answering without Nagle's delay. Its handler writes a reply's
    headers and body in two writes; with Nagle's algorithm the body waits for the client's delayed ACK of
    the headers (tens of ms per request), which made mining wait on the server half of the time."""
    server = ForgeServer(forge)
    server.httpd.RequestHandlerClass.disable_nagle_algorithm = True  # this server's own handler class
    return server


@dataclass(frozen=True)
class Provenance:
    """Where each published row is on the forge, from the record of whoever built it (never from a miner):
    row index -> its change number, and -> the id of its reviewer's comment."""

    change: dict[int, str]
    comment: dict[int, str]


def forge_provenance(rows: list[PublishedRow]) -> Provenance:
    """The test forge's names: change = row + 1, reviewer comment ``r<row>c1``."""
    return Provenance({r.index: str(r.change) for r in rows}, {r.index: f"r{r.index}c1" for r in rows})


def run_end_to_end(forge: Forge, rows: list[PublishedRow], work: Path,
                   published: dict[str, list[str]] | None = None) -> EndToEnd:
    """``revmine run`` a job over ``forge`` (built from ``rows``, served here) into ``work``, then compare the
    export with the published files and trace every row."""
    with serve(forge) as server:
        job = write_job(work / "job.toml", server.gerrit_url, forge.gerrit_repo)
        return run_job(job, rows, forge_provenance(rows), work, published)


def run_job(job: Path, rows: list[PublishedRow], provenance: Provenance, work: Path,
            published: dict[str, list[str]] | None = None) -> EndToEnd:
    """``revmine run`` ``job`` (a Gerrit holding ``rows`` where ``provenance`` says) into ``work``/run, then
    compare the export with the published files and trace every row."""
    published = published or read_published()
    out = work / "run"
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # where the outputs are: known here
        code = main(["run", str(job), "--out", str(out)])
    seconds = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"revmine run exited with {code}")
    state = json.loads((out / "run.json").read_text(encoding="utf-8"))
    folder = out / "dataset" / "opennmt" / "triplets"
    exported = exported_rows(folder)
    src2 = all((folder / f"src2-{split}.txt").exists() for split in SPLIT_NAMES)
    wanted = [tuple(published[name][r.index] for name in FILES) for r in rows]
    matched = {"3 files": multiset_matches([without_src2(t) for t in wanted], [without_src2(t) for t in exported or []]),
               "4 files": multiset_matches(wanted, exported) if src2 else None}
    return EndToEnd(rows, out, seconds, {k: state[k]["seconds"] for k in STAGES if k in state}, src2, matched,
                    trace(rows, provenance, out, published))


def without_src2(row: tuple) -> tuple:
    """A (src, src1, src2, tgt) row as the 3-file figure compares it."""
    return row[0], row[1], row[3]


def multiset_matches(wanted: list[tuple], got: list[tuple]) -> int:
    have = Counter(got)
    return sum(min(n, have[t]) for t, n in Counter(wanted).items())


def exported_rows(folder: Path) -> list[tuple] | None:
    """The export's triplets as (src, src1, src2 or None, tgt) over all splits; None if there is no export."""
    rows: list[tuple] = []
    if not folder.is_dir():
        return None
    for split in SPLIT_NAMES:
        columns = []
        for name in FILES:
            path = folder / f"{name}-{split}.txt"
            if not path.exists():
                columns.append(None)
                continue
            lines = path.read_text(encoding="utf-8").split("\n")
            columns.append(lines[:-1] if lines[-1] == "" else lines)
        n = len(columns[0])
        if any(c is not None and len(c) != n for c in columns):
            raise AssertionError(f"the triplet files of split {split} have different numbers of lines")
        rows += [tuple(None if c is None else c[i] for c in columns) for i in range(n)]
    return rows


def trace(rows: list[PublishedRow], provenance: Provenance, out: Path,
          published: dict[str, list[str]]) -> dict[int, tuple[str, str]]:
    """Follow each row's reviewer comment (change and comment id from ``provenance``) through the stages' outputs:
    rounds -> candidates / preprocess drops -> filter drops -> split drops -> splits, where its exported
    columns are compared with the published lines. Returns row -> (stage/reason or ``exact``, detail)."""
    def table(path: Path, columns: list[str] | None = None) -> list[dict]:
        return read_table(path, columns=columns).to_pylist() if path.exists() else []

    def by_comment(records: list[dict]) -> dict[str, dict]:
        return {r["comment_id"]: r for r in records if r.get("comment_id")}

    mined = {r["change"] for r in table(out / "mined" / "rounds.parquet", ["change"])}
    mine_drops = {r["change"]: r for r in table(out / "mined" / "dropped.parquet")}
    candidates = by_comment([r for r in table(out / "preprocessed" / "candidates.parquet",
                                              ["kind", "comment_id"]) if r["kind"] == "triplet"])
    pre_drops = by_comment(table(out / "preprocessed" / "dropped.parquet"))
    filter_drops = by_comment([r for r in table(out / "filtered" / "dropped.parquet") if r["kind"] == "triplet"])
    split_drops = by_comment([r for r in table(out / "splits" / "dropped.parquet") if r["kind"] == "triplet"])
    exported = by_comment([r for s in SPLIT_NAMES for r in table(out / "splits" / f"{s}.parquet")
                           if r["kind"] == "triplet"])
    row_of_change = {change: index for index, change in provenance.change.items()}
    row_of_id = {r["id"]: row_of_change.get(r["change"]) for name in ("kept", "dropped")
                 for r in table(out / "filtered" / f"{name}.parquet", ["id", "change"])}

    def named(detail: str | None) -> str:
        """A detail naming another row's id (the duplicate kept) names that row too."""
        for word in (detail or "").split():
            if word in row_of_id:
                detail = detail.replace(word, f"{word} (row {row_of_id[word]})")
        return detail or ""

    fate: dict[int, tuple[str, str]] = {}
    for row in rows:
        cid, change = provenance.comment[row.index], provenance.change[row.index]
        if change not in mined:
            drop = mine_drops.get(change)
            fate[row.index] = (f"mine/{drop['reason']}", drop["detail"] or "") if drop else ("mine/no round", "")
        elif cid in pre_drops:
            fate[row.index] = (f"preprocess/{pre_drops[cid]['reason']}", pre_drops[cid]["detail"] or "")
        elif cid not in candidates:
            fate[row.index] = ("preprocess/no candidate", "neither a candidate nor a dropped row")
        elif cid in filter_drops:
            fate[row.index] = (f"filter/{filter_drops[cid]['reason']}", named(filter_drops[cid]["detail"]))
        elif cid in split_drops:
            fate[row.index] = (f"split/{split_drops[cid]['reason']}", named(split_drops[cid]["detail"]))
        elif cid not in exported:
            fate[row.index] = ("split/missing", "kept by the filters, in no split and not dropped")
        else:
            got = exported[cid]
            # the columns' tokens (the files themselves are compared byte for byte by the multiset figure)
            differ = [name for name in FILES if COLUMNS[name] in got
                      and (got[COLUMNS[name]] or "").split() != published[name][row.index].split()]
            fate[row.index] = (f"export/{'+'.join(differ)} differ" if differ else EXACT,
                               "; ".join(f"{n}: got {got[COLUMNS[n]]!r}, published {published[n][row.index]!r}"
                                         for n in differ))
    return fate
