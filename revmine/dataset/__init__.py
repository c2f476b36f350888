"""From filtered candidates to a published dataset: leak-free splits and exports (Parquet, OpenNMT, JSON Lines)."""
