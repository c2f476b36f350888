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
    samples = page.eval_on_selector_all(".sample", "s => s.map(e => e.dataset.id)")
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

    rows = pq.read_table(out / "splits" / "hunks.parquet", columns=["language", "split", "round_id", "path",
                                                                      "hunk_index", "y"]).to_pylist()
    for language in ("java", "python", "go", "cpp", "all"):
        for split in ("train", "eval", "test", "all"):
            mine = [r for r in rows if language in (r["language"], "all") and split in (r["split"], "all")]
            hunks = {(r["round_id"], r["path"], r["hunk_index"]) for r in mine}
            assert data["hunks"]["hunks"].get(f"{language} {split}", 0) == len(hunks), (language, split)
            assert data["hunks"]["comments"].get(f"{language} {split}", 0) == sum(r["y"] == 1 for r in mine)
    assert data["hunks"]["hunks"]["all all"] < len(rows)  # a hunk with two comments is one hunk

    html = (out / "report.html").read_text(encoding="utf-8")
    for language in ("java", "python", "go", "cpp"):
        assert f'<td class="n" data-language="{language}">' in html  # a column of the per-language funnel
        assert f'<tr data-language="{language}"><td>{language}</td>' in html  # a row of the hunks table
    assert 'id="languages-table"' in html and 'id="hunks-table"' in html


def test_largest_clusters_tying_in_size_come_in_cluster_order() -> None:
    """Issue 31: report.html differed between calls when near-duplicate clusters tied in size (group_by's order
    depends on its threads). The largest clusters are by size, then cluster id: the same page every time."""
    import random

    import pyarrow as pa

    ids = [f"c{n:05d}" for n in range(20_000) for _ in range(2)] + ["c19999"]  # c19999 the one of size 3
    random.Random(7).shuffle(ids)
    splits = pa.table({"cluster_id": ids, "split": ["train"] * len(ids), "method_name": ["m"] * len(ids)})
    answers = {tuple(c["cluster_id"] for c in report_run._clusters(splits)["largest"]) for _ in range(5)}
    assert answers == {("c19999", "c00000", "c00001", "c00002", "c00003")}
