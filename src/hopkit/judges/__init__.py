"""The small models and tools the methods call besides the generator.

Each is a protocol with one or two methods, so a test can put a scripted double
in its place: for now the sentence splitter.
"""

from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter

__all__ = ["SentenceSplitter", "SyntokSplitter"]
