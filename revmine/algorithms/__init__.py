"""Algorithms two stages share, one per module: the exact near-duplicate join and the external bucket sort
that streams rows to Parquet files in a given order.

Part of the neutral layer: any stage may import it; it imports no stage.
"""
