"""What a dataset's rows are, by name: the kinds (triplet, pair), the splits and their Hugging Face names, and the
columns whose tokens near-duplicate detection compares.

Why a module of their own: the stages' settings name them (choices, defaults), and reading settings (a command's
flags, a usage error) must not import pyarrow, which :mod:`.rows` needs for the rows themselves.
"""

from __future__ import annotations

__all__ = ["DUPLICATE_FIELDS", "HF_SPLITS", "KINDS", "PAIR", "SPLITS", "SPLIT_NAMES", "TRIPLET"]

TRIPLET, PAIR = "triplet", "pair"
KINDS = (TRIPLET, PAIR)
#: The dataset's splits, in order (``train.parquet``, ``eval.parquet``, ``test.parquet``): the split writes
#: them, export and the overlap check read them, and an import of a published dataset fills them.
SPLITS = ("train", "eval", "test")
#: The Hugging Face names of the splits (the dataset card's ``configs``, ``load_dataset``): ``eval`` is
#: ``validation`` there. Every output that names a split says which name it uses (``split_names``).
HF_SPLITS = {"train": "train", "eval": "validation", "test": "test"}
#: The one name that differs, as outputs state it: revmine's name -> the Hugging Face name.
SPLIT_NAMES = {name: hub for name, hub in HF_SPLITS.items() if name != hub}
#: Whitespace-tokenised columns whose tokens make a row's bag for near-duplicate detection.
DUPLICATE_FIELDS: tuple[str, ...] = ("m_s_abstract", "m_r_abstract")
