"""One loader per benchmark file format; each returns ``list[hopkit.records.Example]``."""

from hopkit.data.formats.flashrag import load_flashrag
from hopkit.data.formats.hotpotqa import load_hotpotqa
from hopkit.data.formats.iirc import load_iirc
from hopkit.data.formats.ircot import load_ircot
from hopkit.data.formats.jsonl import load_jsonl
from hopkit.data.formats.musique import load_musique
from hopkit.data.formats.strategyqa import load_strategyqa
from hopkit.data.formats.two_wiki import load_2wikimultihopqa

__all__ = [
    "load_2wikimultihopqa",
    "load_flashrag",
    "load_hotpotqa",
    "load_iirc",
    "load_ircot",
    "load_jsonl",
    "load_musique",
    "load_strategyqa",
]
