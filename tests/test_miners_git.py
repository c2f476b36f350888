"""The miners' bare clones: shared by concurrent runs, and a full disk during ``git fetch`` said as such."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from revmine.cli import main
from revmine.miners import git
from revmine.miners.git import GitRepo, GitStalled

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stalling_servers import SilentServer, UnreachableServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JOB = ROOT / "examples" / "job.toml"
REFSPECS = ["+refs/changes/*:refs/changes/*", "+refs/heads/*:refs/heads/*"]


def source_repo(path: Path, changes: int = 20) -> dict[str, str]:
    """A repository with a branch and ``changes`` patch-set refs; ref -> commit."""
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    refs = {}
    for k in range(changes):
        (path / f"F{k}.java").write_text(f"class F{k} {{}}\n")
        subprocess.run(["git", "-C", str(path), "add", "."], check=True)
        subprocess.run(["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm",
                        f"c{k}"], check=True)
        sha = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        ref = f"refs/changes/{k:02d}/{k}/1"
        subprocess.run(["git", "-C", str(path), "update-ref", ref, sha], check=True)
        refs[ref] = sha
    return refs


def test_runs_sharing_a_clone_folder_sync_it_together(tmp_path):
    """Two runs' syncs of one clone at once (a ``--repos`` folder shared by two outputs), 10 times: both
    succeed and the clone holds every ref (without the clone's lock: "git init failed: ... File exists")."""
    refs = source_repo(tmp_path / "src")
    for trial in range(10):
        clone = tmp_path / "repos" / f"p{trial}.git"
        errors: list[Exception] = []

        def sync() -> None:
            try:
                GitRepo(clone, str(tmp_path / "src"), REFSPECS).sync()
            except Exception as exc:  # noqa: BLE001 - collected and reported by the test
                errors.append(exc)
        threads = [threading.Thread(target=sync) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        listed = subprocess.run(["git", "-C", str(clone), "for-each-ref", "--format=%(refname) %(objectname)",
                                 "refs/changes"], capture_output=True, text=True, check=True).stdout.split("\n")
        assert dict(line.split() for line in listed if line) == refs


def test_a_full_disk_during_git_fetch_is_the_disk_full_error(tmp_path, monkeypatch, capsys):
    """git failing with ENOSPC (a ``git`` on PATH that says what a full disk makes it say during fetch)
    stops the job with the disk-full line naming where it writes, exit 1: not a project's git_error."""
    real = shutil.which("git")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nfor a in "$@"; do [ "$a" = fetch ] && {{ echo "error: unable to write file '
                    f'.git/objects/pack/tmp_pack_x: No space left on device" >&2; echo "fatal: unpack-objects '
                    f'failed" >&2; exit 128; }}; done\nexec {real} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setitem(git._ENV, "PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")  # git's environment
    out = tmp_path / "mined"
    assert main(["-q", "mine", "--job", str(JOB), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"revmine: error: cannot write {out / 'repos'}")
    assert "the disk is full" in err[0] and "git_error" not in err[0]


def test_files_that_are_not_utf8_text_are_dropped_as_bad_encoding_not_replaced(tmp_path):
    """Issue 31: invalid UTF-8 and binary files with a source extension were decoded with U+FFFD and reached the
    dataset. They are dropped (``bad_encoding``, counted with the other drops); the round's good file is a row."""
    from revmine.miners.base import DropReason
    from revmine.miners.rounds import ContentReader, Round, round_rows

    src = tmp_path / "src"
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    shas = []
    for k, (latin1, binary) in enumerate([(b"class A { String s = \"caf\xe9\"; }\n", b"\x00\x01class B {}\n"),
                                          (b"class A { String s = \"th\xe9\"; }\n", b"\x00\x02class B {}\n")]):
        (src / "A.java").write_bytes(latin1)
        (src / "B.java").write_bytes(binary)
        (src / "C.java").write_text(f"class C {{ int v = {k}; /* caf\u00e9 */ }}\n", encoding="utf-8")
        subprocess.run(["git", "-C", str(src), "add", "."], check=True)
        subprocess.run(["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", f"c{k}"],
                       check=True)
        shas.append(subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True,
                                   check=True).stdout.strip())
    repo = GitRepo(tmp_path / "clone.git", str(src), ["+refs/heads/*:refs/heads/*"])
    repo.sync()
    rnd = Round("github", "example.org", "o/r", "1", None, 1, shas[0], shas[1], "owner", None, None, f"{shas[0]}^")
    comment = {"id": "c", "created": None}
    try:
        mined = round_rows(rnd, {p: [comment] for p in ("A.java", "B.java", "C.java")}, ContentReader(repo))
    finally:
        repo.close()
    first_bad = b"class A { String s = \"caf\xe9".index(b"\xe9")
    assert [(d.reason, d.path, d.message) for d in mined.drops] == [
        (DropReason.BAD_ENCODING, "A.java", f"A.java at {shas[0]}: invalid UTF-8 at byte {first_bad}"),
        (DropReason.BAD_ENCODING, "B.java", f"B.java at {shas[0]}: binary (a NUL byte at byte 0)")]
    assert [(r["path_before"], r["content_before"], r["content_after"]) for r in mined.rows] == [
        ("C.java", "class C { int v = 0; /* caf\u00e9 */ }\n", "class C { int v = 1; /* caf\u00e9 */ }\n")]


def _processes_naming(text: str) -> list[str]:
    """Command lines of the running processes that contain ``text`` (a stopped fetch must leave none)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline and proc.name.isdigit() and int(proc.name) != os.getpid():
            found.append(cmdline)
    return found


@pytest.mark.parametrize("kind,said,retries,bound", [
    ("unreachable", "no connection within 1 s", 1, 6),  # git has no connect timeout: revmine stops it
    ("silent", "no data for 1 s", 1, 6),  # curl's low-speed limit
    # curl averages the speed over its last ~6 s, so after some bytes a stall is seen ~6 s later: one try
    ("headers", "no data for 1 s", 0, 11),
])
def test_a_git_host_that_stalls_is_stopped_retried_and_counted(tmp_path, kind, said, retries, bound):
    """A clone URL whose handshake never completes, that accepts and never answers, or that sends the headers of
    its ref advertisement and then nothing: each try of ``git fetch`` ends near the stall timeout, the stalls and
    retries are counted, the sync fails as stalled, and no git process is left behind."""
    stall = (UnreachableServer() if kind == "unreachable" else
             SilentServer(headers=b"HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\n"
                          b"Content-Length: 5000\r\n\r\n001e# service=git-upload-pack\n" if kind == "headers" else None))
    repo = GitRepo(tmp_path / "clone.git", stall.url, REFSPECS, stall_timeout=1, retries=retries)
    started = time.monotonic()
    try:
        with pytest.raises(GitStalled, match=rf"git fetch from {re.escape(stall.url)} stalled: {said}, {retries + 1} tries"):
            repo.sync()
        took = time.monotonic() - started
        assert not _processes_naming(stall.url)
    finally:
        stall.close()
    # tries of about 1 s (curl checks its limit each second; SIGTERM lets git clean up) and a 1 s wait between
    assert took < bound, took
    assert (repo.stats["git_stalls"], repo.stats["retries"]) == (retries + 1, retries)


def test_a_fetch_over_http_is_not_cut_by_the_connect_bound(tmp_path):
    """A real fetch over HTTP (git's dumb protocol from a static server) with a stall timeout of 1 s: the connect
    phase ends when curl says it is connected, so the fetch succeeds with every ref, and stderr holds no trace."""
    import functools
    import http.server

    refs = source_repo(tmp_path / "src")
    served = tmp_path / "served.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--mirror", str(tmp_path / "src"), str(served)], check=True)
    subprocess.run(["git", "-C", str(served), "update-server-info"], check=True)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        clone = tmp_path / "clone.git"
        repo = GitRepo(clone, f"http://127.0.0.1:{httpd.server_address[1]}/served.git", REFSPECS, stall_timeout=1)
        repo.sync()
    finally:
        httpd.shutdown()
    listed = subprocess.run(["git", "-C", str(clone), "for-each-ref", "--format=%(refname) %(objectname)",
                             "refs/changes"], capture_output=True, text=True, check=True).stdout.split("\n")
    assert dict(line.split() for line in listed if line) == refs
    assert repo.stats["git_stalls"] == 0
