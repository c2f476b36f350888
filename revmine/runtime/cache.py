"""Where revmine keeps what it derives once per machine (a trained default model, nltk-readable WordNet).

``REVMINE_CACHE_DIR`` wins, then the platform's user cache directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def cache_dir() -> Path:
    if os.environ.get("REVMINE_CACHE_DIR"):
        return Path(os.environ["REVMINE_CACHE_DIR"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "revmine" / "cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "revmine"
