"""Pseudonyms and secrets in exports (revmine.dataset.pseudonyms, .secret_scan): keyed hashes for authors, placeholders for people in texts,
the key kept out of every output, the OpenNMT files as they were."""

from __future__ import annotations

import hashlib
import hmac
import json
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from revmine.dataset.export import ExportOptions, export_dataset
from revmine.dataset.options import PublishOptions
from revmine.dataset.pseudonyms import Pseudonymiser, load_key
from revmine.dataset.split import SPLITS
from revmine.io.store import write_table
from revmine.schema import DATASET_SCHEMA
from test_dataset_filters import candidate, table_of


def test_key_is_made_once_with_mode_0600_and_reused(tmp_path, monkeypatch):
    path = tmp_path / "cfg" / "pseudonym.key"
    monkeypatch.setenv("REVMINE_PSEUDONYM_KEY_FILE", str(path))
    key = load_key()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(key) == 64  # 32 random bytes, hex
    assert load_key() == key
    monkeypatch.setenv("REVMINE_PSEUDONYM_KEY", "from-the-environment")
    assert load_key() == b"from-the-environment"


def test_pseudonym_is_hmac_sha256_of_the_identity():
    # RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?") starts 5bdcc146bf60754e
    assert Pseudonymiser(b"Jefe").pseudonym("what do ya want for nothing?") == "u-5bdcc146bf60754e"
    assert Pseudonymiser(b"Jefe").pseudonym(None) is None


def test_redact_replaces_emails_mentions_and_participants_with_counts():
    p = Pseudonymiser(b"k")
    text = "Ask @alice-b or mail bob.smith@example.org; Carol Jones agreed, cc @dave."
    assert p.redact(text, {"Carol Jones", "al"}) == \
        "Ask @<user> or mail <email>; <person> agreed, cc @<user>."
    assert (p.counts["emails"], p.counts["mentions"], p.counts["names"]) == (1, 2, 1)
    code = "@Override\nvoid m() { // @carol, @dave: see carol@corp.com\n}"
    assert p.redact(code, {"carol"}, code=True) == "@Override\nvoid m() { // @<person>, @dave: see <email>\n}"


def _splits(tmp_path: Path, rows: list[dict]) -> Path:
    table = table_of(rows)
    table = table.add_column(0, "id", pa.array([f"r{i}" for i in range(len(rows))]))
    table = table.add_column(1, "split", pa.array(["train"] * len(rows)))
    table = table.add_column(2, "cluster_id", pa.array([f"r{i}" for i in range(len(rows))]))
    splits = tmp_path / "splits"
    for name in SPLITS:
        write_table(table if name == "train" else table.slice(0, 0), splits / f"{name}.parquet", DATASET_SCHEMA)
    return splits


def test_export_pseudonymises_every_format_but_leaves_opennmt_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("REVMINE_PSEUDONYM_KEY", "secret-key-of-the-user")
    rows = [candidate(comment_author="Alice Smith", comment="Alice Smith, see @bob and alice@corp.example"),
            candidate(comment_author="Alice Smith", change="7", round_id="gerrit:h:p:7:1"),
            candidate(comment_author="bob", change="7", round_id="gerrit:h:p:7:1",
                      comment="ping @Alice Smith", m_s="void m() { /* bob wrote this */ }")]
    splits = _splits(tmp_path, rows)
    clear = export_dataset(splits, tmp_path / "clear", ExportOptions(publish=PublishOptions(pseudonyms=False)))
    hidden = export_dataset(splits, tmp_path / "hidden")
    for name in (f for f in clear["files"] if f.startswith("opennmt/")):
        assert (tmp_path / "hidden" / name).read_bytes() == (tmp_path / "clear" / name).read_bytes(), name
    out = pq.read_table(tmp_path / "hidden/data/triplets/train-00000-of-00001.parquet").to_pylist()
    expected = ["u-" + hmac.new(b"secret-key-of-the-user", a.encode(), hashlib.sha256).hexdigest()[:16]
                for a in ("Alice Smith", "Alice Smith", "bob")]
    assert [r["comment_author"] for r in out] == expected
    assert out[0]["comment"] == "<person>, see @<user> and <email>"
    assert out[2]["comment"] == "ping @<person>"  # the whole name, not its first word
    assert out[2]["m_s"] == "void m() { /* <person> wrote this */ }"
    jsonl = [json.loads(line) for line in (tmp_path / "hidden/jsonl/triplets/train.jsonl").read_text().splitlines()]
    assert [r["comment_author"] for r in jsonl] == expected
    assert hidden["pseudonyms"]["identities"] == 3 and hidden["pseudonyms"]["emails"] == 1
    for path in (tmp_path / "hidden").rglob("*"):
        if path.is_file() and not path.name.startswith(("src", "tgt")):
            data = path.read_bytes()
            assert b"secret-key-of-the-user" not in data and b"alice@corp.example" not in data, path
            assert b"Alice Smith" not in data, path
    card = (tmp_path / "hidden/README.md").read_text()
    assert "## Personal and sensitive information" in card and "HMAC-SHA256" in card


# secrets of the documented shapes: AWS's example key id, a GitHub token, a password in a URL, a PEM private key
AWS, GITHUB = "AKIAIOSFODNN7EXAMPLE", "ghp_" + "x7Kp2" * 7 + "a"
PLANTED = {"m_s": f'void m() {{ String k = "{AWS}"; }}', "comment": f"use {GITHUB} here",
           "m_r": 'void m() { get("https://deploy:s3cretPass@ci.example.org/x"); }'}


def test_export_redacts_or_drops_rows_holding_secrets(tmp_path, monkeypatch):
    rows = [candidate(**PLANTED, abstraction_map=json.dumps({f'"{AWS}"': "STRING_0"})), candidate(), candidate()]
    splits = _splits(tmp_path, rows)
    redacted = export_dataset(splits, tmp_path / "redacted")
    out = pq.read_table(tmp_path / "redacted/data/triplets/train-00000-of-00001.parquet").to_pylist()
    assert redacted["secrets"] == {"mode": "redact", "rows": 1, "type:AWS Access Key": 1, "type:GitHub Token": 1,
                                   "type:Basic Auth Credentials": 1}
    assert out[0]["m_s"] == 'void m() { String k = "<secret>"; }' and out[0]["comment"] == "use <secret> here"
    assert out[0]["abstraction_map"] == json.dumps({'"<secret>"': "STRING_0"})
    dropped = export_dataset(splits, tmp_path / "dropped", ExportOptions(publish=PublishOptions(secrets="drop")))
    assert dropped["sizes"]["triplets"]["train"] == 2
    for out_dir in ("redacted", "dropped"):
        for path in (tmp_path / out_dir).rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert AWS.encode() not in data and GITHUB.encode() not in data and b"s3cretPass" not in data, path
    assert "1 rows held a secret and were dropped" in (tmp_path / "dropped/README.md").read_text()
