"""Language support: the programming languages revmine reads (extensions, grammars), the idiom lists kept
out of the abstraction, token streams and CodeNet's parse trees, and the natural language of reviewer
comments (stop words, cleaning as the 2021 dataset did it).

Part of the neutral layer: any stage may import it; it imports no stage.
"""
