"""revmine: build code-review datasets from Gerrit and GitHub and score the models trained on them."""

__version__ = "0.1.0"
