"""Links from a row back to its change on the forge, from the rows' source, project and change and the
host the miners recorded."""

from __future__ import annotations

import pyarrow as pa

Hosts = dict[tuple[str, str], str]


def hosts(rounds: pa.Table | None) -> Hosts:
    """(source, project) -> the forge's host, from the mined rounds (empty when there are none)."""
    if rounds is None:
        return {}
    return {(r["source"], r["project"]): r["host"]
            for r in rounds.group_by(["source", "host", "project"]).aggregate([]).to_pylist()}


def change_url(known: Hosts, source: str, project: str, change: str | None) -> str | None:
    """The change's page on its forge (Gerrit: /c/PROJECT/+/N; GitHub: /OWNER/REPO/pull/N)."""
    host = known.get((source, project))
    if host is None or change is None:
        return None
    return f"https://{host}/c/{project}/+/{change}" if source == "gerrit" else f"https://{host}/{project}/pull/{change}"
