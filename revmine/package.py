"""revmine's version for the modules that record it, taken from the installed package, or one clear error.

Python started in the folder that holds a clone named ``revmine`` takes the clone (a folder without
``__init__.py``) for a namespace package ``revmine``, while an editable install still finds the modules
inside it; the first of them that needs a name of ``revmine/__init__.py`` would then fail with "cannot import
name '__version__' from 'revmine' (unknown location)", which says neither why nor what to do.
"""

from __future__ import annotations

import sys

__all__ = ["__version__"]

_package = sys.modules[__name__.rpartition(".")[0]]
if not hasattr(_package, "__version__"):
    raise ImportError(f"'revmine' is the folder {', '.join(getattr(_package, '__path__', []))}, not the installed "
                      "package: Python was started in the folder that holds a clone named revmine; start it in "
                      "another folder (or rename the clone)")
__version__: str = _package.__version__
