"""report.html of a run and of a score folder, checked in a real browser: Debian's Chromium driven by
Playwright (never `playwright install`). A missing browser fails the test, saying how to get one; only
REVMINE_SKIP_BROWSER=1 skips it, and says so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq
import pytest

from revmine import pipeline
from revmine.cli import main
from revmine.report import run as report_run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example job, with the quickstart's predictions scored at its end (the scores get a report too)."""
    folder = tmp_path_factory.mktemp("report")
    job = folder / "job.toml"
    job.write_text((EXAMPLES / "job.toml").read_text().replace(
        'recordings = "mining"', f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
        + f'\n[score]\npredictions = "{(EXAMPLES / "quickstart" / "predictions_k3.txt").as_posix()}"\n')
    assert main(["run", str(job), "--out", str(folder / "run"), "-q"]) == 0
    return folder / "run"


@pytest.fixture(scope="module")
def example_scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "scores"
    assert main(["score", str(EXAMPLES / "quickstart" / "predictions_k3.txt"), "--out", str(out), "--plot", "--report",
                 "-q"]) == 0
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if os.environ.get("REVMINE_SKIP_BROWSER") == "1":
        pytest.skip("REVMINE_SKIP_BROWSER=1: the report is not checked in a browser")
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (or bash .ci/run); "
                    "REVMINE_SKIP_BROWSER=1 skips the browser test")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def _open(browser: Any, html: Path) -> tuple[Any, list[str]]:
    """The page loaded from the file, and every console error and uncaught exception it had."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: errors.append(f"request to {request.url}")
            if not request.url.startswith(("file:", "data:")) else None)
    page.goto(html.as_uri(), wait_until="load")
    return page, errors


def _number(text: str) -> int:
    return -int(text[1:].replace(",", "")) if text.startswith("−") else int(text.replace(",", ""))


def _lookup(state: dict, key: str) -> int:
    """A figure of run.json by its dotted key under the stages' results (absent counts are 0)."""
    stage, *rest = key.split(".")
    value: Any = state[stage]["result"]
    for part in rest:
        value = value.get(part, 0) if isinstance(value, dict) else 0
    return value


def test_run_report_in_a_browser(example_run: Path, browser: Any, tmp_path: Path) -> None:
    state = json.loads((example_run / "run.json").read_text())
    page, errors = _open(browser, example_run / "report.html")
    rows = page.eval_on_selector_all("tr[data-check]", """rows => rows.map(r => ({check: r.dataset.check,
        cells: Object.fromEntries([...r.querySelectorAll('td[data-column]')].map(c => [c.dataset.column, c.textContent]))}))""")
    assert len(rows) >= 20
    columns = page.eval_on_selector_all("#funnel-table th[title]", "ths => ths.length")
    assert columns == 3  # the example's three projects
    for row in rows:
        figure = _lookup(state, row["check"])
        shown = _number(row["cells"]["all"])
        assert abs(shown) == figure, (row["check"], shown, figure)
        by_source = sum(_number(v) for k, v in row["cells"].items() if k in ("gerrit", "github"))
        by_project = sum(_number(v) for k, v in row["cells"].items() if " " in k)
        assert by_source == by_project == shown, row
    assert _lookup(state, "preprocess.comments") == 46  # the page checked against the figures the README gives
    ids = {i for split in ("train", "eval", "test")
           for i in pq.read_table(example_run / "splits" / f"{split}.parquet", columns=["id"])["id"].to_pylist()}
    samples = page.eval_on_selector_all(".sample[data-kind=triplet]", "s => s.map(e => e.dataset.id)")
    assert len(samples) == 6 and set(samples) <= ids
    assert page.locator(".sample td.commented").count() > 0  # the commented lines of m_s are marked
    assert page.locator(".reason a[href*='/c/example/calc/+/']").count() > 0  # Gerrit changes linked
    assert page.locator(".reason a[href*='/example/inventory/pull/']").count() > 0  # GitHub pull requests
    assert page.locator("svg rect.bar").count() > 0
    assert (example_run / "scores" / "report.html").is_file() and page.locator("a[href='scores/report.html']").count() == 1
    shot = tmp_path / "run-report.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert errors == []


def _check_funnel(out: Path) -> None:
    """Each level's section of the run report adds up, and its filter steps are the filter report's rows (the
    table filter_report.md and the dataset card show), source by source; both read here from the files."""
    data = report_run.run_report_data(out)
    report = pq.read_table(out / "filtered" / "filter_report.parquet").to_pylist()
    sections: dict[str, list[dict]] = {}
    for step in data["funnel"]:
        sections.setdefault(step["kind"], []).append(step)
    columns = [c["id"] for c in data["columns"]]
    for kind in ("triplet", "pair"):
        steps = {s["label"]: s for s in sections[kind]}
        filters = [s for s in sections[kind] if s["label"].startswith("filter: ")]
        for column in columns:
            n = {label: s["counts"].get(column, 0) for label, s in steps.items()}
            start = n["reviewer comments"] if kind == "triplet" else n["pair candidates"]
            assert start - sum(n[s["label"]] for s in filters) == n[f"{kind}s kept"], (kind, column)
            split_drops = sum(v for label, v in n.items() if label.startswith("split: "))
            assert sum(n[f"{split} {kind}s"] for split in ("train", "eval", "test")) == n[f"{kind}s kept"] - split_drops
            if kind == "pair":
                preprocess = sum(v for label, v in n.items() if label.startswith("dropped by preprocess: "))
                assert n["methods changed or deleted"] - preprocess == n["pair candidates"], column
        for row in report:
            if row["kind"] != kind or row["language"] != "all" or row["source"] not in columns:
                continue
            label = "reviewer comments" if kind == "triplet" else "pair candidates"
            step = steps[label] if row["filter"] == "input" else steps[f"filter: {row['filter']}"]
            shown = step["counts"].get(row["source"], 0)
            assert step["skipped"] == (not row["ran"]), row
            assert shown == (row["remaining"] if row["filter"] == "input" else row["removed"]), row
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    for line in (out / "filtered" / "filter_report.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| "):
            assert line in card  # the card shows the filter report's tables as they are
    hunk_steps = {s["label"]: s["counts"]["all"] for s in sections.get(report_run.HUNK_COMMENT, [])}
    if hunk_steps:
        dropped = sum(v for label, v in hunk_steps.items() if label.startswith("dropped by preprocess: "))
        on_hunks = pq.read_table(out / "preprocessed" / "hunks.parquet", columns=["y"])["y"].to_pylist().count(1)
        assert hunk_steps["reviewer comments"] - dropped == hunk_steps["comments on hunks"] == on_hunks
        assert sum(hunk_steps[f"{s} comments on hunks"] for s in ("train", "eval", "test")) == on_hunks


def test_the_funnel_adds_up_and_agrees_with_the_filter_report(example_run: Path) -> None:
    """Issue 30: the report showed author_comment -8, not_linked 0 where the card said -9 and -2."""
    _check_funnel(example_run)
    steps = {s["label"]: s for s in report_run.run_report_data(example_run)["funnel"] if s["kind"] == "triplet"}
    owner_dropped_by_preprocess = [r for r in pq.read_table(example_run / "preprocessed" / "dropped.parquet").to_pylist()
                                   if r["kind"] == "comment" and r["comment_is_owner"]]
    filter_dropped = [r for r in pq.read_table(example_run / "filtered" / "dropped.parquet").to_pylist()
                      if r["kind"] == "triplet" and r["reason"] == "author_comment"]
    assert steps["filter: author_comment"]["counts"]["all"] == len(owner_dropped_by_preprocess) + len(filter_dropped)


def test_run_json_and_the_report_hold_every_stage_setting(example_run: Path) -> None:
    """Issue 30: run.json recorded no settings and the report showed only mine.*, split.* and filter.profile, so
    max_tokens appeared nowhere. Every key of every stage's table is there now, with the job file's value or the
    default, read here from the job file and the stages' Options classes."""
    import tomllib

    from revmine.runtime import options

    state = json.loads((example_run / "run.json").read_text())
    given = tomllib.loads((example_run.parent / "job.toml").read_text())
    html = (example_run / "report.html").read_text(encoding="utf-8")
    for stage, table in (("mine", "job"), ("preprocess", "preprocess"), ("filter", "filter"), ("split", "split"),
                         ("export", "export"), ("export", "publish"), ("score", "score")):
        prefix = "publish." if table == "publish" else ""  # [publish] is recorded with the export that applies it
        recorded = {k[len(prefix):]: v for k, v in state[stage]["settings"].items()
                    if k.startswith("publish.") == bool(prefix)}
        keys = [k for k, spec in options.specs(pipeline.sections()[table]).items() if spec.job]
        assert sorted(recorded) == sorted(keys), stage
        for key in keys:
            expected = given.get(table, {}).get(key, pipeline.sections()[table].__dataclass_fields__[key].default)
            if key not in ("recordings", "predictions", "out"):  # paths: made absolute against the job file
                assert recorded[key] == (list(expected) if isinstance(expected, tuple) else expected), (stage, key)
            assert f"<td><code>{stage}.{prefix}{key}</code></td>" in html
    assert state["filter"]["settings"]["max_tokens"] == 100


#: words of the code and abstracted cells that the page broke across two lines (a word: letters, digits, _)
_BROKEN_WORDS = """() => { const broken = [];
  for (const cell of document.querySelectorAll('.diff td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/\\w+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) broken.push(m[0]);
      } } }
  return broken; }"""


def test_run_report_at_800_pixels(example_run: Path, browser: Any) -> None:
    """Issue 30: at 800 px the funnel scrolled sideways and code wrapped mid-word ("Integ er", "VA R_3")."""
    page = browser.new_page(viewport={"width": 800, "height": 900})
    page.goto((example_run / "report.html").as_uri(), wait_until="load")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert page.evaluate("[...document.querySelectorAll('.wide')].every(w => w.scrollWidth <= w.clientWidth)")
    assert page.locator(".tok span").count() > 0
    assert page.evaluate(_BROKEN_WORDS) == []


def test_the_sample_shows_every_level_and_project(example_run: Path) -> None:
    """Issue 30: the sample was 6 triplets of one project. Now each level's rows, every project in turn."""
    data = report_run.run_report_data(example_run)
    rows = [r for split in ("train", "eval", "test")
            for r in pq.read_table(example_run / "splits" / f"{split}.parquet", columns=["kind", "project"]).to_pylist()]
    for kind, sample in data["samples"].items():
        assert len(sample) == 6 and {r["kind"] for r in sample} == {kind}
        assert {r["project"] for r in sample} == {r["project"] for r in rows if r["kind"] == kind}  # each of the 3


def test_plots_have_a_y_axis_and_clusters_count_methods(example_run: Path, browser: Any) -> None:
    """Issue 30: token-length plots were sparklines without a y axis, and "27 clusters, 26 with more than one
    row" read as a duplicate alarm though each cluster was one method's triplet and pair."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((example_run / "report.html").as_uri(), wait_until="load")
    for figure in page.locator("#lengths ~ .figs figure").all()[:3]:
        heights = figure.locator("rect.bar").evaluate_all("bars => bars.map(b => +b.getAttribute('height'))")
        ticks = figure.locator("text.y").all_text_contents()
        bars = [int(t.split(": ")[1].replace(",", "")) for t in figure.locator("rect.bar title").all_text_contents()]
        assert ticks[0] == "0" and int(ticks[-1].replace(",", "")) == max(bars)  # the top tick is the highest bar
        assert max(heights) > 0
    rows = [r for split in ("train", "eval", "test") for r in pq.read_table(
        example_run / "splits" / f"{split}.parquet",
        columns=["cluster_id", "source", "project", "change", "round", "path", "method_name"]).to_pylist()]
    methods: dict[str, set] = {}
    for r in rows:
        methods.setdefault(r.pop("cluster_id"), set()).add(tuple(r.values()))
    clusters = report_run.run_report_data(example_run)["clusters"]
    assert clusters["multi"] == sum(len(m) > 1 for m in methods.values())
    assert clusters["count"] == len(methods) > clusters["multi"]


def test_dropped_rows_of_every_stage_name_their_reason_in_reason(example_run: Path, tmp_path: Path) -> None:
    """Issue 30: mining and preprocess named a dropped row's reason in ``reason``, filter and split in ``filter``.
    Every stage's dropped.parquet has ``reason`` now; a filter or split file written before (``filter_dropped/4``,
    its column ``filter``) is read with it under the new name, and the report counts it the same."""
    from revmine.io.store import Parts, read_table
    from revmine.schema import FILTER_DROPPED_SCHEMA, SCHEMA_KEY

    for stage in ("mined", "preprocessed", "filtered", "splits"):
        assert "reason" in pq.read_schema(example_run / stage / "dropped.parquet").names, stage
    copy = tmp_path / "run"
    shutil.copytree(example_run, copy)
    now = pq.read_table(example_run / "filtered" / "dropped.parquet")
    names = ["filter" if n == "reason" else n for n in now.column_names]
    pq.write_table(now.rename_columns(names).replace_schema_metadata({SCHEMA_KEY: b"filter_dropped/4"}),
                   copy / "filtered" / "dropped.parquet")
    old = read_table(copy / "filtered" / "dropped.parquet", expect=FILTER_DROPPED_SCHEMA, columns=["reason", "id"])
    assert old.column("reason").to_pylist() == now.column("reason").to_pylist() and len(now) > 0
    batches = Parts(copy / "filtered" / "dropped.parquet").iter_batches(2, ["id", "reason"])
    assert [r["reason"] for b in batches for r in b.to_pylist()] == now.column("reason").to_pylist()
    assert report_run.run_report_data(copy)["funnel"] == report_run.run_report_data(example_run)["funnel"]


def _exported(run: Path) -> list[str]:
    """The licence of every exported row (triplets and pairs)."""
    return [licence for part in (run / "dataset" / "data").glob("*/*.parquet")
            for licence in pq.read_table(part, columns=["licence"])["licence"].to_pylist()]


def test_the_report_says_what_export_did_to_people_and_secrets(example_run: Path) -> None:
    """Issue 26: the run report's publishing section, counted here from the exported rows."""
    authors = [a for part in (example_run / "dataset" / "data").glob("*/*.parquet")
               for a in pq.read_table(part, columns=["comment_author"])["comment_author"].to_pylist() if a]
    assert authors and all(a.startswith("u-") and len(a) == 18 for a in authors)
    rows = dict(report_run.run_report_data(example_run)["publishing"])
    assert rows["pseudonyms"].startswith(f"{len(authors)} author identities replaced by keyed hashes")
    assert rows["secrets"] == "mode redact: none found"
    # the example's repositories hold no licence file: every row is counted as having none
    assert rows["licences"] == f"allowed: any; rows per licence: none {sum(1 for _ in _exported(example_run)):,}"
    assert 'id="publishing-table"' in (example_run / "report.html").read_text(encoding="utf-8")


def test_the_report_reads_the_record_the_pipeline_writes() -> None:
    assert report_run.STATE_FILE == pipeline.STATE_FILE


def test_comments_and_code_are_escaped(example_run: Path) -> None:
    html = (example_run / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html
    assert "List&lt;String&gt;" in html and "List<String>" not in html


def test_report_command_rewrites_and_refuses_other_folders(example_run: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "run"
    shutil.copytree(example_run, copy)
    (copy / "report.html").unlink()
    assert main(["report", str(copy)]) == 0
    assert capsys.readouterr().out.strip() == str(copy / "report.html")
    assert main(["report", str(copy / "mined")]) == 2
    assert "not the output folder of revmine run" in capsys.readouterr().err


def test_score_report_in_a_browser(example_scores: Path, browser: Any, tmp_path: Path) -> None:
    summary = json.loads((example_scores / "summary.json").read_text())
    page, errors = _open(browser, example_scores / "report.html")
    shown = page.eval_on_selector_all("#per-k td[data-check=perfect]", "cells => cells.map(c => c.textContent)")
    assert [int(n) for n in shown] == [e["perfect"] for e in summary["per_k"]]
    assert page.locator("svg rect.bar").count() > 0
    assert page.locator("img[src^='data:image/png;base64,']").count() == len(summary["signatures"])  # --plot's
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    # which way each metric is better (distances lower), what it could not score, the packages that scored it
    better = dict(zip(page.eval_on_selector_all("#metrics-table tr[data-metric]", "rs => rs.map(r => r.dataset.metric)"),
                      page.locator("#metrics-table td[data-better]").all_text_contents()))
    assert better == {"bleu4": "↑ higher", "levenshtein_tok": "↓ lower", "levenshtein_sim_tok": "↑ higher",
                      "sed_ref": "↓ lower", "sed_max": "↓ lower", "treed": "↓ lower"}
    rank1 = pq.read_table(example_scores / "scores.parquet").to_pylist()
    rank1 = {r["example"]: r for r in rank1 if r["k"] == 1}
    missing = page.locator("#metrics-table td[data-missing]").all_text_contents()
    assert [int(n) for n in missing] == [sum(r[m] is None for r in rank1.values()) for m in better]
    shown = page.eval_on_selector_all(".sample[data-example]", "s => s.map(e => [+e.dataset.example, "
                                      "e.querySelector('.tok.before').textContent, e.querySelector('.tok.after').textContent])")
    assert len(shown) == min(6, len(rank1))
    for example, reference, prediction in shown:
        assert reference.split() == rank1[example]["reference"].split()
        assert prediction.split() == rank1[example]["prediction"].split()
    from importlib import metadata

    assert page.locator("tr[data-package=sacrebleu] td").nth(1).text_content() == metadata.version("sacrebleu")
    page.screenshot(path=str(tmp_path / "score-report.png"), full_page=True)
    print(f"screenshot: {tmp_path / 'score-report.png'}")
    assert errors == []


def test_run_report_per_language_and_hunks(tmp_path: Path) -> None:
    """The four-language example: the funnel per language and the hunk-level section, against counts taken here
    from the exported dataset and the hunk rows."""
    out = tmp_path / "run"
    assert main(["run", str(EXAMPLES / "languages.toml"), "--out", str(out), "-q"]) == 0
    data = report_run.run_report_data(out)
    steps = {step["label"]: step["languages"] for step in data["funnel"]}
    hub = {"train": "train", "validation": "eval", "test": "test"}  # the dataset's file names, the report's splits
    expected: dict[str, dict[str, int]] = {}
    for part in (out / "dataset" / "data").glob("*/*.parquet"):
        label = f"{hub[part.name.split('-')[0]]} {part.parent.name}"  # "train triplets"
        for language in pq.read_table(part, columns=["language"])["language"].to_pylist():
            counts = expected.setdefault(label, {})
            counts[language] = counts.get(language, 0) + 1
    assert len(expected) == 6
    for label, counts in expected.items():
        assert {k: v for k, v in steps[label].items() if k != "all" and v} == counts, label
        assert steps[label]["all"] == sum(counts.values())
    files = pq.read_table(out / "mined" / "rounds.parquet", columns=["language"])["language"].to_pylist()
    assert steps["files in review rounds"] == {"all": len(files), **{n: files.count(n) for n in set(files)}}
    assert {"java", "python", "go", "cpp"} <= set(files)
    assert steps["review rounds"] is None  # a round is not one language's

    rows = pq.read_table(out / "splits" / "hunks.parquet", columns=["language", "split", "round_id", "path", "project",
                                                                      "hunk_index", "y"]).to_pylist()
    for language in ("java", "python", "go", "cpp", "all"):
        for split in ("train", "eval", "test", "all"):
            mine = [r for r in rows if language in (r["language"], "all") and split in (r["split"], "all")]
            hunks = {(r["round_id"], r["path"], r["hunk_index"]) for r in mine}
            assert data["hunks"]["hunks"].get(f"{language} {split}", 0) == len(hunks), (language, split)
            assert data["hunks"]["comments"].get(f"{language} {split}", 0) == sum(r["y"] == 1 for r in mine)
    assert data["hunks"]["hunks"]["all all"] < len(rows)  # a hunk with two comments is one hunk
    _check_funnel(out)
    commented = {r["project"] for r in rows if r["y"] == 1}
    assert len(commented) <= 6 and {h["project"] for h in data["hunk_samples"]} == commented
    assert all(h["comment"] and h["lines"][0]["tag"] == "hunk" for h in data["hunk_samples"])

    html = (out / "report.html").read_text(encoding="utf-8")
    for language in ("java", "python", "go", "cpp"):
        assert f'<td class="n" data-language="{language}">' in html  # a column of the per-language funnel
        assert f'<tr data-language="{language}"><td>{language}</td>' in html  # a row of the hunks table
    assert 'id="languages-table"' in html and 'id="hunks-table"' in html
    # the sample of each level takes every (project, language) in turn: example/polyglot's three languages too
    for kind, sample in data["samples"].items():
        assert {r["language"] for r in sample} == {"java", "python", "go", "cpp"}, kind
    assert {r["language"] for r in data["hunk_samples"]} == {"java", "python", "go", "cpp"}
    assert html.count('<td class="n skipped" data-column="all">skipped</td>') == 2  # new_identifiers, both kinds


def test_largest_clusters_tying_in_size_come_in_cluster_order() -> None:
    """Issue 31: report.html differed between calls when near-duplicate clusters tied in size (group_by's order
    depends on its threads). The largest clusters are by size, then cluster id: the same page every time."""
    import random

    import pyarrow as pa

    ids = [f"c{n:05d}" for n in range(20_000) for _ in range(2)] + ["c19999"]  # c19999 the one of size 3
    random.Random(7).shuffle(ids)
    splits = pa.table({"cluster_id": ids, "split": ["train"] * len(ids), "method_name": ["m"] * len(ids),
                       **{c: ["x"] * len(ids) for c in ("source", "project", "change", "path")}, "round": [1] * len(ids)})
    answers = {tuple(c["cluster_id"] for c in report_run._clusters(splits)["largest"]) for _ in range(5)}
    assert answers == {("c19999", "c00000", "c00001", "c00002", "c00003")}
