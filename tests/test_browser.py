"""``revmine browse``: the row browser's JSON endpoints against the run's Parquet files read here whole, and its
page in Debian's Chromium (the report tests' browser fixture: REVMINE_SKIP_BROWSER=1 alone skips it). The run is
the four-language example, which has triplets, pairs and hunks in every split."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq
import pytest
import requests

from revmine.cli import main
from revmine.report.browser import DEFAULT_PORT, PAGE_SIZE, make_server
from revmine.report.row_views import LEVELS, MAX_LIMIT

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import browser  # noqa: E402,F401 (the report tests' Chromium, one per module)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browse") / "run"
    assert main(["run", str(EXAMPLES / "languages.toml"), "--out", str(out), "-q"]) == 0
    return out


@pytest.fixture(scope="module")
def url(run: Path) -> Iterator[str]:
    server = make_server(run, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def expected(run: Path, level: str, split: str, text: str = "", **filters: Any) -> list[dict[str, Any]]:
    """The rows a view should show, in file order, found in plain Python over the whole file."""
    spec = LEVELS[level]
    rows = pq.read_table(spec.file(run, split)).to_pylist()
    column, value = spec.selects(split)
    return [dict(r, _row=i) for i, r in enumerate(rows)
            if r[column] == value and all(str(r[k]).lower() == str(v).lower() for k, v in filters.items())
            and (not text or any(text.lower() in (r[c] or "").lower() for c in spec.searched))]


def get(url: str, path: str, **params: Any) -> requests.Response:
    return requests.get(url + path, params=params, timeout=30)


def test_every_page_of_every_level_and_split(run: Path, url: str) -> None:
    levels = get(url, "/api/levels").json()["levels"]
    assert [level["name"] for level in levels] == ["triplets", "pairs", "hunks"]
    for level in levels:
        for split in level["splits"]:
            rows = expected(run, level["name"], split["name"])
            assert split["rows"] == len(rows) > 0, (level["name"], split)
            paged = []
            for offset in range(0, len(rows) + 7, 7):
                page = get(url, "/api/rows", level=level["name"], split=split["name"], offset=offset, limit=7).json()
                assert page["total"] == len(rows)
                paged += page["rows"]
            assert [r["_row"] for r in paged] == [r["_row"] for r in rows]
            shown = LEVELS[level["name"]].shown
            assert [{c: r[c] for c in shown} for r in paged] == [
                {c: v[:160] + "…" if isinstance(v, str) and len(v) > 160 else v for c, v in r.items() if c in shown}
                for r in rows]


def test_paging_boundaries_search_filters_and_rows(run: Path, url: str) -> None:
    rows = expected(run, "pairs", "train")
    last = get(url, "/api/rows", level="pairs", split="train", offset=len(rows) - 1).json()
    assert [r["_row"] for r in last["rows"]] == [rows[-1]["_row"]]
    assert get(url, "/api/rows", level="pairs", split="train", offset=len(rows)).json()["rows"] == []
    assert get(url, "/api/rows", level="pairs", split="train", offset=10**9).json() == {
        "total": len(rows), "offset": 10**9, "limit": PAGE_SIZE, "rows": []}
    assert get(url, "/api/rows", level="pairs", split="train", limit=MAX_LIMIT).status_code == 200
    found = get(url, "/api/rows", level="triplets", split="train", q="NULL", limit=MAX_LIMIT).json()
    assert [r["_row"] for r in found["rows"]] == [r["_row"] for r in expected(run, "triplets", "train", "null")]
    assert found["total"] > 0
    assert get(url, "/api/rows", level="triplets", split="train", q="no row says this").json()["total"] == 0
    literal = get(url, "/api/rows", level="pairs", split="train", q="(S", limit=MAX_LIMIT).json()  # not a pattern
    assert [r["_row"] for r in literal["rows"]] == [r["_row"] for r in expected(run, "pairs", "train", "(s")]
    assert literal["total"] > 0
    hunks = get(url, "/api/rows", level="hunks", split="test", **{"f.y": "1", "f.language": "java"}).json()
    assert hunks["total"] == len(expected(run, "hunks", "test", y=1, language="java")) > 0
    only_comment = get(url, "/api/rows", level="triplets", split="train", q="null", **{"in": "comment"}).json()
    assert only_comment["total"] == sum("null" in r["comment"].lower() for r in expected(run, "triplets", "train"))
    values = get(url, "/api/values", level="pairs", split="eval").json()
    pairs = expected(run, "pairs", "eval")
    assert values == {c: sorted({r[c] for r in pairs if r[c] is not None}, key=str) for c in LEVELS["pairs"].filters}
    row = get(url, "/api/row", level="triplets", split="test", row=expected(run, "triplets", "test")[0]["_row"]).json()
    whole = expected(run, "triplets", "test")[0]
    assert row == {k: v for k, v in whole.items() if k != "_row"}


@pytest.mark.parametrize(("path", "params", "error"), [
    ("/api/rows", {"level": "../../etc", "split": "train"}, "level '../../etc' is not one of triplets, pairs, hunks"),
    ("/api/rows", {"level": "pairs", "split": "validation"}, "split 'validation' is not one of train, eval, test"),
    ("/api/rows", {"level": "pairs"}, "parameter 'split' is missing"),
    ("/api/rows", {"level": "pairs", "split": "train", "offset": "ten"}, "parameter offset='ten' is not a whole number"),
    ("/api/rows", {"level": "pairs", "split": "train", "offset": "-1"}, "offset -1 is negative"),
    ("/api/rows", {"level": "pairs", "split": "train", "limit": "0"}, f"limit 0 is not between 1 and {MAX_LIMIT}"),
    ("/api/rows", {"level": "pairs", "split": "train", "limit": str(MAX_LIMIT + 1)},
     f"limit {MAX_LIMIT + 1} is not between 1 and {MAX_LIMIT}"),
    ("/api/rows", {"level": "pairs", "split": "train", "sort": "id"},
     "sort 'id' is not one of source, project, language, match_rule, changed, tokens:m_s_abstract, tokens:m_r_abstract"),
    ("/api/rows", {"level": "pairs", "split": "train", "len": "comment", "min": "3"},
     "length column 'comment' is not one of m_s_abstract, m_r_abstract"),
    ("/api/rows", {"level": "pairs", "split": "train", "max": "3"}, "a length range needs the column it measures"),
    ("/api/rows", {"level": "pairs", "split": "train", "order": "up"}, "unknown parameter 'order'"),
    ("/api/rows", {"level": "pairs", "split": "train", "f.m_s": "x"},
     "filter column 'm_s' is not one of source, project, language, match_rule, changed"),
    ("/api/rows", {"level": "hunks", "split": "train", "f.y": "yes"},
     "filter y='yes': not a value of the column's type int8"),
    ("/api/rows", {"level": "hunks", "split": "train", "q": "x", "in": "oldf"},
     "search column 'oldf' is not one of comment, patch, new_hunk, path"),
    ("/api/row", {"level": "pairs", "split": "train", "row": "100000"}, "row 100000 is not a row of train.parquet"),
])
def test_bad_parameters_are_one_clear_line(url: str, path: str, params: dict[str, str], error: str) -> None:
    response = get(url, path, **params)
    assert response.status_code == 400
    assert response.json()["error"].startswith(error)


def test_sorts_and_length_ranges(run: Path, url: str) -> None:
    """Issue 30's follow-ups: a sort by a column or by a text's length in tokens (stable: ties in file order), and
    a range of lengths, against the rows found here in plain Python."""
    rows = expected(run, "triplets", "train")
    tokens = {r["_row"]: len((r["m_s_abstract"] or "").split()) for r in rows}
    longest = get(url, "/api/rows", level="triplets", split="train", sort="tokens:m_s_abstract", desc="1",
                  limit=MAX_LIMIT).json()
    assert [r["_row"] for r in longest["rows"]] == [r["_row"] for r in sorted(rows, key=lambda r: -tokens[r["_row"]])]
    by_project = get(url, "/api/rows", level="triplets", split="train", sort="project", limit=MAX_LIMIT).json()
    assert [r["_row"] for r in by_project["rows"]] == [r["_row"] for r in sorted(rows, key=lambda r: r["project"])]
    ranged = get(url, "/api/rows", level="triplets", split="train", len="m_s_abstract", min="20", max="60",
                 limit=MAX_LIMIT).json()
    inside = [r["_row"] for r in rows if 20 <= tokens[r["_row"]] <= 60]
    assert [r["_row"] for r in ranged["rows"]] == inside and 0 < len(inside) < len(rows)


def test_a_row_of_another_level_is_refused(run: Path, url: str) -> None:
    triplet = expected(run, "triplets", "train")[0]["_row"]
    response = get(url, "/api/row", level="pairs", split="train", row=triplet)
    assert response.status_code == 400
    assert response.json() == {"error": f"row {triplet} of train.parquet is not one of the pairs of train"}


def test_no_file_is_served(run: Path, url: str) -> None:
    assert (run / "run.json").is_file()
    for path in ("/run.json", "/../run.json", "/%2e%2e/run.json", "/splits/train.parquet", "/api/../run.json",
                 "/..%2f..%2fetc%2fpasswd"):
        response = requests.get(url + path, timeout=30)
        assert response.status_code == 404, path
        assert "error" in response.json()
    assert requests.get(url + "/api/levels", headers={"Host": "attacker.example:80"}, timeout=30).status_code == 403


def test_the_page_in_chromium(run: Path, url: str, browser: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: errors.append(f"request to {request.url}")
            if not request.url.startswith(url) else None)
    page.goto(url + "/")
    triplets = expected(run, "triplets", "train")
    assert len(triplets) > PAGE_SIZE  # so that there is a second page
    total = page.locator("#range")
    expect(total).to_have_text(f"rows 1–{PAGE_SIZE} of {len(triplets)}")
    cells = page.locator("#rows tbody tr td:nth-child(4)")  # method_name
    assert cells.all_text_contents() == [r["method_name"] for r in triplets[:PAGE_SIZE]]
    page.click("#next")
    expect(total).to_have_text(f"rows {PAGE_SIZE + 1}–{len(triplets)} of {len(triplets)}")
    assert cells.all_text_contents() == [r["method_name"] for r in triplets[PAGE_SIZE:2 * PAGE_SIZE]]
    assert page.is_disabled("#next") and page.is_disabled("#last") and not page.is_disabled("#prev")

    found = expected(run, "triplets", "train", "Null")
    page.fill("#q", "Null")
    page.click("#search button[type=submit]")
    expect(total).to_have_attribute("data-total", str(len(found)))
    expect(page.locator("#rows tbody tr")).to_have_count(len(found))
    assert found

    project = "example/textkit"
    narrowed = expected(run, "triplets", "train", "Null", project=project)
    page.select_option("select[data-column=project]", project)
    expect(total).to_have_attribute("data-total", str(len(narrowed)))
    assert page.locator("#rows tbody tr td:nth-child(2)").all_text_contents() == [project] * len(narrowed)

    page.click("#rows tbody tr:first-child")
    expect(page.locator("#detail pre[data-column=m_s]")).to_be_visible()
    first = narrowed[0] if narrowed else found[0]
    assert page.text_content("#detail pre[data-column=m_s]") == first["m_s"]
    assert page.text_content("#detail pre[data-column=comment]") == first["comment"]

    page.click("#levels button[data-name=hunks]")
    page.click("#splits button[data-name=test]")
    hunks = expected(run, "hunks", "test")
    expect(total).to_have_attribute("data-total", str(len(hunks)))
    expect(page.locator("#splits button[data-name=test]")).to_have_text(f"test ({len(hunks)})")
    page.select_option("select[data-column=y]", "1")
    commented = expected(run, "hunks", "test", y=1)
    expect(total).to_have_attribute("data-total", str(len(commented)))
    expect(page.locator("#rows tbody tr")).to_have_count(len(commented))

    # a length range and a sort, kept in the address: a reload (or a shared link) shows the same rows
    page.click("#levels button[data-name=triplets]")
    page.click("#splits button[data-name=train]")
    page.select_option("#len", "m_s_abstract")
    page.fill("#min", "20")
    page.select_option("#sort", "-tokens:m_s_abstract")
    rows = expected(run, "triplets", "train")
    longest = sorted((r for r in rows if len(r["m_s_abstract"].split()) >= 20), key=lambda r: -len(r["m_s_abstract"].split()))
    expect(total).to_have_attribute("data-total", str(len(longest)))
    shown = page.eval_on_selector_all("#rows tbody tr", "rows => rows.map(r => +r.dataset.row)")
    assert shown == [r["_row"] for r in longest[:PAGE_SIZE]]
    assert "sort=-tokens%3Am_s_abstract" in page.url and "min=20" in page.url
    page.reload()
    expect(total).to_have_attribute("data-total", str(len(longest)))
    assert page.eval_on_selector_all("#rows tbody tr", "rows => rows.map(r => +r.dataset.row)") == shown
    assert page.input_value("#min") == "20" and page.input_value("#sort") == "-tokens:m_s_abstract"
    assert errors == []
    page.close()


def test_the_run_report_says_how_to_browse(run: Path) -> None:
    html = (run / "report.html").read_text(encoding="utf-8")
    assert f"<code>revmine browse {run.resolve()}</code>" in html
    assert f'<a href="http://127.0.0.1:{DEFAULT_PORT}/">' in html


def test_the_command_serves_until_interrupted(run: Path, tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "revmine.cli", "browse", str(run), "--port", "0"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith(f"browsing {run} at http://127.0.0.1:"), (line, process.stderr.read())
        address = line.split(" at ")[1].split("/ ")[0]
        levels = requests.get(address + "/api/levels", timeout=30).json()
        assert levels["run"] == "run" and len(levels["levels"]) == 3
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    process = subprocess.Popen([sys.executable, "-m", "revmine.cli", "browse", str(run), "--port", "0", "--json"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = json.loads(process.stdout.readline())
        assert said["run"] == str(run)
        assert requests.get(said["url"] + "api/levels", timeout=30).json() == levels
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    done = subprocess.run([sys.executable, "-m", "revmine.cli", "browse", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (f"revmine: error: {tmp_path}: no splits/ folder: not the output folder of revmine run, "
                           "or its split stage has not run\n")
