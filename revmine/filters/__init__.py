"""Filters between candidates and the dataset: noise-comment rules and classifier, the filter stage."""
