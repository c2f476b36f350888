"""The shared HTTP client against the local forge: cache safety, rate limits, retries, bad bodies."""

from __future__ import annotations

import base64
import socket
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import Fault, ForgeServer, build_forge  # noqa: E402
from stalling_servers import SilentServer  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.miners.http import (Client, Credentials, MalformedResponse, NotCached, RateLimited, Stalled,  # noqa: E402
                                 RemoteError, credentials_from_env, redact_url)

TOKEN_A, TOKEN_B = "ghp_SECRETaaaaaaaaaaaaaaaaaaaaaaaaaa", "ghp_SECRETbbbbbbbbbbbbbbbbbbbbbbbbbb"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    forge = build_forge(tmp_path_factory.mktemp("forge"), n_changes=6, n_pulls=3)
    with ForgeServer(forge) as srv:
        yield srv


@pytest.fixture(autouse=True)
def clean_faults(server):
    server.forge.faults.clear()
    server.forge.log.clear()
    yield
    server.forge.faults.clear()


class FakeTime:
    """Injectable clock and sleep: tests never really wait for a rate limit."""

    def __init__(self):
        self.now, self.slept = time.time(), []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def client(tmp_path, dialect="github", tokens=(TOKEN_A,), fake=None, **kw) -> Client:
    fake = fake or FakeTime()
    return Client(dialect, Credentials(tokens=list(tokens)), cache_path=tmp_path / "cache.sqlite",
                  clock=fake.clock, sleep=fake.sleep, timeout=kw.pop("timeout", 2.0), **kw)


def test_token_sent_but_never_cached_and_replay_offline(server, tmp_path):
    c = client(tmp_path)
    url = f"{server.github_api}/repos/octo/demo/pulls/1/comments"
    body, _ = c.get(url, expect=list)
    assert server.forge.log[-1][1]["Authorization"] == f"Bearer {TOKEN_A}"
    c.close()
    raw = b"".join(f.read_bytes() for f in tmp_path.glob("cache.sqlite*"))  # with any WAL left over
    for secret in (TOKEN_A, TOKEN_A[8:], base64.b64encode(TOKEN_A.encode()).decode()[:20]):
        assert secret.encode() not in raw
    assert b"Bearer" not in raw
    # replay offline with another token: the server's "Vary: Authorization" must not defeat the cache
    n = len(server.forge.log)
    replay = client(tmp_path, tokens=(TOKEN_B,), cache_mode="offline")
    assert replay.get(url, expect=list)[0] == body
    assert len(server.forge.log) == n and replay.stats["requests"] == 0
    with pytest.raises(NotCached, match="pulls/2/comments"):
        replay.get(f"{server.github_api}/repos/octo/demo/pulls/2/comments")


def test_gerrit_basic_auth_not_cached(server, tmp_path):
    c = Client("gerrit", Credentials(user="bob", password="s3cretPassw0rd"), cache_path=tmp_path / "g.sqlite")
    c.get(f"{server.gerrit_url}/a/changes/demo%2Fapp~1/comments", expect=dict)
    assert server.forge.log[-1][1]["Authorization"].startswith("Basic ")
    c.close()
    raw = b"".join(f.read_bytes() for f in tmp_path.glob("g.sqlite*"))
    assert b"s3cretPassw0rd" not in raw and base64.b64encode(b"bob:s3cretPassw0rd") not in raw


def test_etag_conditional_request_gives_304(server, tmp_path):
    c = client(tmp_path)
    url = f"{server.github_api}/repos/octo/demo/pulls"
    first, _ = c.get(url, expect=list, revalidate=True)
    again, _ = c.get(url, expect=list, revalidate=True)
    assert again == first
    assert c.stats["requests"] == 2 and c.stats["not_modified"] == 1
    assert "If-None-Match" in server.forge.log[-1][1]


def test_fresh_after_reuses_a_newer_stored_answer_and_revalidates_an_older_one(server, tmp_path):
    c = client(tmp_path)
    url = f"{server.github_api}/repos/octo/demo/pulls/1/comments"
    first, _ = c.get(url, expect=list)
    stored_at = datetime.now(timezone.utc)
    n = len(server.forge.log)
    again, response = c.get(url, expect=list, fresh_after=stored_at - timedelta(hours=1))
    assert again == first and response.from_cache and len(server.forge.log) == n  # not asked again
    assert c.stats["cache_hits"] == 1
    again, _ = c.get(url, expect=list, fresh_after=stored_at + timedelta(hours=1))  # updated since: asked again
    assert again == first and len(server.forge.log) == n + 1
    assert "If-None-Match" in server.forge.log[-1][1] and c.stats["not_modified"] == 1


@pytest.mark.parametrize("no_proxy,reaches", [("", False), ("127.0.0.1", True)])
def test_proxies_from_the_environment_still_apply(server, tmp_path, monkeypatch, no_proxy, reaches):
    with socket.socket() as closed:  # a port nothing listens on: a proxy that refuses every connection
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}"
    monkeypatch.setenv("HTTP_PROXY", dead)
    monkeypatch.setenv("NO_PROXY", no_proxy)
    c = client(tmp_path, max_retries=0)
    url = f"{server.github_api}/repos/octo/demo/pulls/1/comments"
    for _ in range(2):  # the second request as the first, whatever the client kept of the environment
        if reaches:
            assert c.get(url, expect=list)[0]
        else:
            with pytest.raises(RemoteError, match="ProxyError"):
                c.get(url, expect=list)


@pytest.mark.parametrize("kind,value,low,high", [
    ("429", 7, 7.0, 7.0),  # Retry-After in seconds
    ("429", 0, 1.0, 1.0),  # Retry-After: 0 must not make us hammer
    ("429-date", 120, 118.0, 121.0),  # Retry-After as an HTTP date (second precision, server's clock)
    ("429-reset", 7, 7.0, 8.5),  # no Retry-After: until X-RateLimit-Reset, plus a second
    ("403-secondary", 7, 60.0, 60.0),  # secondary limit: no header, only the body says so
    ("500", 7, 1.0, 1.0),  # backoff
])
def test_rate_limit_and_5xx_sleep_then_succeed(server, tmp_path, kind, value, low, high):
    fake = FakeTime()
    c = client(tmp_path, fake=fake)
    server.forge.faults.append(Fault("pulls/2/commits", kind, value=value))
    body, _ = c.get(f"{server.github_api}/repos/octo/demo/pulls/2/commits", expect=list)
    assert len(body) == 3 and len(fake.slept) == 1 and low <= fake.slept[0] <= high, fake.slept


def test_rate_limit_retries_are_bounded(server, tmp_path):
    fake = FakeTime()
    c = client(tmp_path, fake=fake, max_rate_limit_retries=3)
    server.forge.faults.append(Fault("pulls/2/commits", "429", times=100, value=0))
    with pytest.raises(RateLimited, match=r"pulls/2/commits.*still rate limited after 4 .*slow down"):
        c.get(f"{server.github_api}/repos/octo/demo/pulls/2/commits")
    assert fake.slept == [1.0, 1.0, 1.0] and server.forge.faults[0].times == 96


def test_client_errors_quote_the_message_without_secrets(server, tmp_path):
    fake = FakeTime()
    c = client(tmp_path, fake=fake)
    server.forge.faults.append(Fault("pulls/2/commits", "401-echo"))
    with pytest.raises(RemoteError, match=r"pulls/2/commits.*: HTTP 401 Unauthorized: Bad credentials") as err:
        c.get(f"{server.github_api}/repos/octo/demo/pulls/2/commits")
    assert not isinstance(err.value, RateLimited) and fake.slept == []
    assert TOKEN_A not in str(err.value) and "Bearer REDACTED" in str(err.value)
    with pytest.raises(RemoteError, match=r"pulls/99/commits.*HTTP 404 Not Found: Not Found"):
        c.get(f"{server.github_api}/repos/octo/demo/pulls/99/commits")


def test_rate_limit_fails_clearly_when_asked(server, tmp_path):
    c = client(tmp_path, wait_on_rate_limit=False)
    server.forge.faults.append(Fault("pulls/3/commits", "403-ratelimit", value=100))
    with pytest.raises(RateLimited) as err:
        c.get(f"{server.github_api}/repos/octo/demo/pulls/3/commits")
    assert "pulls/3/commits" in str(err.value) and TOKEN_A not in str(err.value)


def test_tokens_rotate_instead_of_sleeping(server, tmp_path):
    fake = FakeTime()
    c = client(tmp_path, tokens=(TOKEN_A, TOKEN_B), fake=fake)
    server.forge.faults.append(Fault("pulls/1/commits", "403-ratelimit", value=500))
    c.get(f"{server.github_api}/repos/octo/demo/pulls/1/commits", expect=list)
    auths = [h.get("Authorization") for p, h in server.forge.log if "pulls/1/commits" in p]
    assert auths == [f"Bearer {TOKEN_A}", f"Bearer {TOKEN_B}"] and fake.slept == []


@pytest.mark.parametrize("kind", ["timeout", "reset"])
def test_transport_errors_are_retried(server, tmp_path, kind):
    fake = FakeTime()
    c = client(tmp_path, fake=fake, timeout=0.3)
    server.forge.faults.append(Fault("pulls/3/comments", kind, value=0.8))
    assert c.get(f"{server.github_api}/repos/octo/demo/pulls/3/comments", expect=list)[0]
    assert c.stats["retries"] == 1


@pytest.mark.parametrize("dialect,path,kind,message", [
    ("github", "/repos/octo/demo/pulls/1/comments", "truncated", "truncated JSON"),
    ("github", "/repos/octo/demo/pulls/1/comments", "html", "HTML page"),
    ("gerrit", "/changes/demo%2Fapp~1/comments", "noprefix", "prefix"),
])
def test_undecodable_bodies_are_retried_like_5xx(server, tmp_path, dialect, path, kind, message):
    """A 200 whose body cannot be decoded (what a failing gateway sends) is asked again with backoff."""
    fake = FakeTime()
    c = client(tmp_path, dialect=dialect, tokens=(), fake=fake, max_retries=2)
    base = server.github_api if dialect == "github" else server.gerrit_url
    good, _ = Client(dialect, cache_mode="off").get(base + path, expect=list if dialect == "github" else dict)
    server.forge.faults.append(Fault(path.split("/", 2)[2][:20], kind, times=2))
    body, _ = c.get(base + path)
    assert body == good and fake.slept == [1.0, 2.0] and c.stats["requests"] == 3
    server.forge.faults.append(Fault(path.split("/", 2)[2][:20], kind, times=3))
    with pytest.raises(MalformedResponse, match=message) as err:
        c.get(base + path + "?again=1")
    text = str(err.value)
    assert "\n" not in text and text.endswith("3 times; giving up") and fake.slept == [1.0, 2.0, 1.0, 2.0]
    assert path.split("?")[0].replace("%2F", "/") in text.replace("%2F", "/")
    before = c.stats["requests"]
    assert c.get(base + path + "?again=1")[0] == good  # the bad answers were not cached: asked again
    assert c.stats["requests"] == before + 1


@pytest.mark.parametrize("dialect,path", [
    ("github", "/repos/octo/demo/pulls/1/comments"),
    ("gerrit", "/changes/demo%2Fapp~1/comments"),
])
def test_wrong_shaped_bodies_raise_with_url_and_are_not_cached(server, tmp_path, dialect, path):
    """A body that decodes but is not what the API documents is not retried (the forge would say the
    same), and is not cached (a re-run asks again)."""
    fake = FakeTime()
    c = client(tmp_path, dialect=dialect, tokens=(), fake=fake)
    base = server.github_api if dialect == "github" else server.gerrit_url
    server.forge.faults.append(Fault(path.split("/", 2)[2][:20], "wrongtype"))
    with pytest.raises(MalformedResponse, match="expected a JSON list") as err:
        c.get(base + path, expect=list)
    assert path.split("?")[0].replace("%2F", "/") in str(err.value).replace("%2F", "/")
    assert c.stats["requests"] == 1 and fake.slept == []
    body, _ = c.get(base + path)
    assert c.stats["requests"] == 2 and body


@pytest.mark.parametrize("header", [True, False])
def test_gerrit_file_content_is_base64_with_or_without_its_header(server, tmp_path, header):
    """Gerrit's file-content endpoint answers base64 text; X-FYI-Content-Encoding only says so, and a proxy
    may drop it. Both decode to the file (the UTF-8 text, as git would give it), and replay offline."""
    text = "package demo;\n\nclass Caf\u00e9 { String s = \"\u00fcber\"; }\n"
    sha, path = "ab" * 20, "src/Caf\u00e9.java"
    server.forge.contents[(sha, path)] = text
    if not header:
        server.forge.faults.append(Fault("/content", "nofyi"))
    url = f"{server.gerrit_url}/changes/demo%2Fapp~1/revisions/{sha}/files/src%2FCaf%C3%A9.java/content"
    c = Client("gerrit", cache_path=tmp_path / "g.sqlite")
    assert c.get(url, expect=str)[0] == text
    assert ("X-FYI-Content-Encoding" in server.forge.sent[-1]) == header
    c.close()
    assert Client("gerrit", cache_path=tmp_path / "g.sqlite", cache_mode="offline").get(url, expect=str)[0] == text


def test_5xx_gives_up_after_max_retries(server, tmp_path):
    c = client(tmp_path, max_retries=2)
    server.forge.faults.append(Fault("pulls/2/comments", "500", times=5))
    with pytest.raises(Exception, match=r"pulls/2/comments: HTTP 500 after 3 attempts"):
        c.get(f"{server.github_api}/repos/octo/demo/pulls/2/comments")


def test_credentials_from_env_and_file(tmp_path):
    creds = credentials_from_env("github", env={"GITHUB_TOKENS": f"{TOKEN_A}, {TOKEN_B}"})
    assert creds.tokens == [TOKEN_A, TOKEN_B] and TOKEN_A not in repr(creds)
    g = credentials_from_env("gerrit", env={"GERRIT_USER": "u", "GERRIT_PASSWORD": "pw123456"})
    assert g.user == "u" and "pw123456" not in repr(g)
    f = tmp_path / "creds.toml"
    f.write_text(f'[github."ghe.example.org"]\ntokens = ["{TOKEN_B}"]\n')
    f.chmod(0o644)  # what a new file gets: readable by every account, which ssh refuses for a key
    with pytest.raises(InputError) as err:
        credentials_from_env("github", "ghe.example.org", env={"REVMINE_CREDENTIALS": str(f)})
    assert str(err.value) == (f"{f} [REVMINE_CREDENTIALS]: mode 644: other accounts can read this credentials "
                              f"file; chmod 600 {f} (ssh refuses such keys too)")
    f.chmod(0o600)
    assert credentials_from_env("github", "ghe.example.org", env={"REVMINE_CREDENTIALS": str(f)}).tokens == [TOKEN_B]
    f.write_text(f'[github]\ntokens = "{TOKEN_A}"\n')
    with pytest.raises(InputError, match="github.tokens") as err:
        credentials_from_env("github", env={"REVMINE_CREDENTIALS": str(f)})
    assert TOKEN_A not in str(err.value)


@pytest.mark.parametrize("content", [b'[github]\ntokens = ["' + TOKEN_A.encode() + b'"\n',   # unclosed list
                                     b"[github]\ntokens = [\"\xff\xfe\"]\n"])                # not UTF-8
def test_bad_credentials_file_is_named_without_its_content(tmp_path, content):
    f = tmp_path / "creds.toml"
    f.write_bytes(content)
    f.chmod(0o600)
    with pytest.raises(InputError, match=r"creds\.toml: not valid TOML") as err:
        credentials_from_env("github", env={"REVMINE_CREDENTIALS": str(f)})
    assert TOKEN_A not in str(err.value) and "\n" not in str(err.value)


def test_redact_url():
    assert redact_url("https://u:p@h.org/x?access_token=abc&q=1") == "https://h.org/x?access_token=REDACTED&q=1"


def test_clients_sharing_a_new_cache_file_never_stall_on_it(server, tmp_path):
    """Projects start together and write one cache file from many threads (jobs.py). With a connection per
    client, a reader holding the interpreter, a writer waiting for SQLite's write lock and the lock's owner
    waiting for the interpreter stalled the whole process for SQLite's 5 s busy timeout, in nearly every
    run of this size. Every request is quick, and each client keeps its own dialect's filter (a Gerrit
    body is stored by a Gerrit client, a GitHub one by a GitHub client): all replay offline."""
    from concurrent.futures import ThreadPoolExecutor

    def url(k: int, j: int) -> str:
        if k % 2:
            return f"{server.github_api}/repos/octo/demo/pulls/{1 + j % 3}/comments?client={k}&j={j}"
        return f"{server.gerrit_url}/changes/demo%2Fapp~{1 + j % 6}/comments?client={k}&j={j}"

    def project(cache: Path, k: int, mode: str = "use") -> float:
        c = Client("github" if k % 2 else "gerrit", cache_path=cache, cache_mode=mode, timeout=10.0)
        try:
            def get(j: int) -> float:
                start = time.perf_counter()
                c.get(url(k, j))
                return time.perf_counter() - start
            with ThreadPoolExecutor(4) as pool:
                return max(pool.map(get, range(20)))
        finally:
            c.close()

    for trial in range(5):  # before the fix, the first stalled in 10 of 10 runs of this test
        cache = tmp_path / f"run{trial}" / "http_cache.sqlite"
        with ThreadPoolExecutor(8) as projects:
            slowest = max(projects.map(lambda k: project(cache, k), range(8)))
        assert slowest < 4.0, f"a request waited {slowest:.1f}s (a stall on the cache is 5 s)"
        n = len(server.forge.log)
        assert all(project(cache, k, "offline") < 4.0 for k in range(8)) and len(server.forge.log) == n


def test_new_cache_file_switched_to_wal_while_another_process_writes_it(tmp_path):
    """SQLite refuses to switch a new file to WAL at once (no busy wait) while another connection writes
    it, as another process opening the same new cache does: the switch waits for it instead of failing
    with ``database is locked``."""
    import sqlite3
    import threading

    cache = tmp_path / "http_cache.sqlite"
    other = sqlite3.connect(cache, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE other (x)")
    commit = threading.Timer(0.3, other.execute, ["COMMIT"])
    commit.start()
    try:
        c = Client("github", cache_path=cache)
        c.close()
    finally:
        commit.join()
        other.close()
    con = sqlite3.connect(cache)
    assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    con.close()


@pytest.mark.parametrize("env, where", [
    ({"GITHUB_TOKEN": "ghp_SECRET\rX"}, "GITHUB_TOKEN"),
    ({"GITHUB_TOKENS": f"{TOKEN_A},ghp_SECRET\x1bb"}, "GITHUB_TOKENS, token 2"),
    ({"GITHUB_TOKEN": "ghp_SECRET\u00e9"}, "GITHUB_TOKEN"),
])
def test_a_malformed_token_is_one_line_naming_its_variable_never_its_value(tmp_path, monkeypatch, capsys, env, where):
    """Issue 31: a token copied with a carriage return crashed in requests (InvalidHeader) with the token on
    stderr, and `revmine run` died without a manifest. Now: one line before any request, from mine and run."""
    from revmine.cli import main

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    job = tmp_path / "job.toml"
    job.write_text('[job]\nout = "built"\n\n[[projects]]\nsource = "github"\napi_url = "http://127.0.0.1:9/api/v3"\n'
                   'repo = "octo/demo"\n')
    for argv in (["mine", "github", "--repo", "octo/demo", "--api-url", "http://127.0.0.1:9/api/v3",
                  "--out", str(tmp_path / "mined")], ["run", str(job)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        line = err.splitlines()[-1]  # run prints its stage first
        assert line.startswith(f"revmine: error: environment [{where}]: holds a character a token cannot have")
        assert err.count("revmine: error") == 1
        assert "SECRET" not in err and "Traceback" not in err
    assert not (tmp_path / "mined").exists() and not (tmp_path / "built").exists()


def test_a_malformed_credential_in_the_file_names_the_file_and_key(tmp_path):
    f = tmp_path / "creds.toml"
    f.write_text(f'[github]\ntokens = ["{TOKEN_A}", "{TOKEN_B}\\r"]\n[gerrit]\nuser = "u"\npassword = "pw\\u0007x"\n')
    f.chmod(0o600)
    with pytest.raises(InputError) as err:
        credentials_from_env("github", env={"REVMINE_CREDENTIALS": str(f)})
    assert str(err.value).startswith(f"{f} [github.tokens[1]]: holds a character a token cannot have")
    with pytest.raises(InputError) as err:
        credentials_from_env("gerrit", env={"REVMINE_CREDENTIALS": str(f)})
    assert str(err.value).startswith(f"{f} [gerrit.password]: holds a character a user name or password cannot")
    assert "SECRET" not in str(err.value) and "pw" not in str(err.value).split("]: ", 1)[1]
    ok = credentials_from_env("gerrit", env={"GERRIT_USER": "jo", "GERRIT_PASSWORD": "p ss\u00e9w\u20ac0rd"})
    assert ok.password == "p ss\u00e9w\u20ac0rd"  # spaces and any letter are a password's right (sent as UTF-8)


@pytest.mark.parametrize("headers", [None, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                            b"Content-Length: 1000\r\n\r\n[{\"id\": 1"])
def test_a_server_that_stops_answering_is_stalled_after_its_retries(tmp_path, headers):
    """Accepting and never answering, or sending the headers and part of the body then nothing: each try ends after
    the timeout, is counted and retried, then the request is :class:`Stalled` (requests says ``ConnectionError`` of a
    body that stalls: before, that was a transport error like a reset one, not a stall)."""
    silent = SilentServer("/repos/octo/demo/pulls", headers)
    c = client(tmp_path, timeout=0.5, max_retries=2, cache_mode="off")
    started = time.monotonic()
    try:
        with pytest.raises(Stalled, match=r"/repos/octo/demo/pulls: no answer within 0\.5 s, 3 attempts"):
            c.get(silent.url, expect=list)
    finally:
        silent.close()
    assert time.monotonic() - started < 3 * 0.5 + 1.5  # three waits of 0.5 s (the backoff sleeps are fake)
    assert (silent.accepted, c.stats["timeouts"], c.stats["retries"]) == (3, 3, 2)
