"""Preprocessing: Java methods, src2abs-exact abstraction, and reviewer comments."""
