"""Tolerant parsers for untrusted model output; they read text, never evaluate it.

A response that cannot be read raises :class:`~hopkit.errors.ParseError`, which keeps
the raw text so the caller can ask once more and then record a failed step.
"""

from hopkit.errors import ParseError
from hopkit.parsing.answers import ANSWER_PATTERN, clean_direct_answer, extract_answer
from hopkit.parsing.chain import Chain, ChainNode, parse_chain
from hopkit.parsing.dicts import parse_dict
from hopkit.parsing.lists import parse_list
from hopkit.parsing.records import parse_record
from hopkit.parsing.titles import parse_titles
from hopkit.parsing.values import FieldKind, Value
from hopkit.parsing.verdicts import parse_yes_no

__all__ = ["ANSWER_PATTERN", "Chain", "ChainNode", "FieldKind", "ParseError", "Value", "clean_direct_answer",
           "extract_answer", "parse_chain", "parse_dict", "parse_list", "parse_record", "parse_titles",
           "parse_yes_no"]
