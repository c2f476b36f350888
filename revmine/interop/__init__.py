"""``revmine import``: published code-review datasets into revmine's Parquet schemas.

Users already hold datasets: the 2021 replication package (Tufano et al., ICSE 2021) and CodeReviewer's
JSON Lines (Li et al., 2022). Imported once, they go through filter, split, export, overlap and score
like a mined dataset. Each format's module says which of its fields fill which column
(:mod:`.tufano2021`, :mod:`.codereviewer`); :mod:`.importer` writes the stage's output.
"""
