"""How each method differs from its authors' code, point by point, declared beside the method.

Each method package keeps a ``fidelity`` module whose ``FIDELITY`` is a :class:`FidelityTable`
(or a tuple of them, where one package runs several authors' methods: the search agent's
templates): the reference it was compared with (a repository at a named commit, or the paper where no code is
public) and one :class:`Difference` per point compared. Every point of :data:`ASPECTS` is
compared at least once, so a table says what was checked as well as what differs. The docs render
every table into ``docs/fidelity.md`` and each method's page (:mod:`hopkit.report.fidelity_pages`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Literal

from hopkit.errors import ConfigError

#: What a difference is:
#: ``faithful`` — hopkit does what the authors' code does (the row says where both do it);
#: ``changes-algorithm`` — a departure that changes what the method computes, still to be fixed;
#: ``disclosed`` — a departure kept on purpose, with its reason;
#: ``cosmetic`` — a difference that changes no prompt, no decision and no answer.
Kind = Literal["faithful", "changes-algorithm", "disclosed", "cosmetic"]
KINDS: tuple[Kind, ...] = ("faithful", "changes-algorithm", "disclosed", "cosmetic")

#: The points every review compares, in the order tables list them.
ASPECTS: tuple[str, ...] = (
    "prompt",      # instruction and exemplar text, their order and layout
    "documents",   # how retrieved paragraphs enter the prompt (format, order, how many, truncation)
    "retrieval",   # when and with which query the method retrieves, top-k, deduplication
    "loop",        # the steps of the algorithm and when it stops
    "stops",       # stop sequences and what ends one generation
    "limits",      # token budgets, step caps, context overflow
    "decoding",    # temperature, sampling, max new tokens
    "answer",      # how the final answer is read from the text
    "defaults",    # default hyper-parameters (k, thresholds, shots)
)


@dataclass(frozen=True)
class Reference:
    """What the method was compared with.

    Attributes:
        paper: the paper, as cited (``Trivedi et al., ACL 2023``).
        repository: the authors' code as ``owner/name`` (None where no code is public).
        commit: the commit compared with (hex, at least 7 digits; None where no code is public).
        files: the files of that commit the rows cite.
        note: anything a reader needs about the reference (why the paper stands in for code).
    """

    paper: str
    repository: str | None = None
    commit: str | None = None
    files: tuple[str, ...] = ()
    note: str = ""

    def __post_init__(self) -> None:
        if (self.repository is None) != (self.commit is None):
            raise ConfigError(f"fidelity reference {self.paper!r}: name a repository and its commit together")
        if self.commit is not None and not (len(self.commit) >= 7 and all(c in "0123456789abcdef"
                                                                         for c in self.commit)):
            raise ConfigError(f"fidelity reference {self.paper!r}: commit {self.commit!r} is not a hex hash "
                              f"of at least 7 digits")
        if self.repository is None and not self.note:
            raise ConfigError(f"fidelity reference {self.paper!r}: with no public code, say so in note")

    @property
    def has_code(self) -> bool:
        return self.repository is not None


@dataclass(frozen=True)
class Difference:
    """One point compared.

    Attributes:
        aspect: one of :data:`ASPECTS`.
        point: what was compared, in a few words (``the answer's stop``).
        authors: what the authors' code (or paper) does, citing file and function or line.
        hopkit: what hopkit does, citing its module.
        kind: one of :data:`KINDS`.
        reason: why hopkit departs (required for ``disclosed`` and ``changes-algorithm``).
    """

    aspect: str
    point: str
    authors: str
    hopkit: str
    kind: Kind
    reason: str = ""

    def __post_init__(self) -> None:
        if self.aspect not in ASPECTS:
            raise ConfigError(f"fidelity row {self.point!r}: aspect {self.aspect!r} is not one of {', '.join(ASPECTS)}")
        if self.kind not in KINDS:
            raise ConfigError(f"fidelity row {self.point!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind in ("disclosed", "changes-algorithm") and not self.reason:
            raise ConfigError(f"fidelity row {self.point!r}: a {self.kind} row says why in reason")
        if not (self.point and self.authors and self.hopkit):
            raise ConfigError(f"fidelity row {self.point!r}: point, authors and hopkit are all needed")


@dataclass(frozen=True)
class FidelityTable:
    """One method's comparison with its authors' code.

    Attributes:
        method: the registered method name (``ircot``), or the name of the template or mode the
            table is about where a package keeps several (``search-r1``).
        reference: what it was compared with.
        rows: the points compared, each once.
        variants: the registered variants or modes the table also covers (``alce-rerank``).
    """

    method: str
    reference: Reference
    rows: tuple[Difference, ...]
    variants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        missing = [aspect for aspect in ASPECTS if not any(row.aspect == aspect for row in self.rows)]
        if missing:
            raise ConfigError(f"fidelity table of {self.method!r}: no row compares {', '.join(missing)}")

    def of_kind(self, kind: Kind) -> tuple[Difference, ...]:
        return tuple(row for row in self.rows if row.kind == kind)


def fidelity_of(package: str) -> tuple[FidelityTable, ...]:
    """The tables a method package declares in its ``fidelity`` module (none where it has none)."""
    try:
        module = importlib.import_module(f"{package}.fidelity")
    except ModuleNotFoundError as error:
        if error.name == f"{package}.fidelity":
            return ()
        raise
    declared = getattr(module, "FIDELITY", None)
    tables = declared if isinstance(declared, tuple) else (declared,)
    if not tables or not all(isinstance(table, FidelityTable) for table in tables):
        raise ConfigError(f"{package}.fidelity: FIDELITY is not a hopkit FidelityTable or a tuple of them")
    return tables
