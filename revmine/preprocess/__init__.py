"""Preprocessing: Java methods (Lizard), src2abs-exact abstraction, comment-to-method links, the candidates stage."""
