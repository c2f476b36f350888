"""Run infrastructure shared by every stage: batches in-process or on Dask, the cache directory, progress
lines, and the Options classes from which flags, job-file tables and fingerprints are derived.

Part of the neutral layer: any stage may import it; it imports no stage.
"""
