"""Filters between candidates and the dataset: noise-comment rules and classifier, dataset filters, near-duplicates."""
