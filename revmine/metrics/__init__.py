"""Scoring predictions: one small class per metric, each with a signature string that records its settings."""
