"""The published results a method can be set beside, each with its whole setting, declared beside the method.

Each method package may keep a ``published`` module whose ``PUBLISHED`` is a tuple of
:class:`PublishedResult`: one number of one published table (FlashRAG's benchmark sheet, a paper's
table), with where it was read (:class:`Source`) and the setting it was measured in (:class:`Setting`:
model, corpus, retriever, top-k, questions). Every number is read from the source it cites; a row
with no source or no setting is refused when the module is imported.

The leaderboard shows them as reference rows beside hopkit's runs, saying how each setting differs
(:mod:`hopkit.report.published_rows`), and ``hopkit reproduce TABLE`` runs a table's cells in its
setting (:mod:`hopkit.reproduction`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from hopkit.errors import ConfigError, UnknownNameError
from hopkit.evaluation.scoring import METRIC_NAMES

#: The answer metrics a published number can be, as hopkit scores them (the same normalisation as
#: FlashRAG's and SQuAD's for EM and F1: docs/data-formats.md).
PUBLISHED_METRICS = ("em", "f1")


@dataclass(frozen=True)
class Source:
    """Where a number was read.

    Attributes:
        table: the table's name, as ``hopkit reproduce`` takes it (``flashrag``).
        title: the table, as cited (``FlashRAG benchmark sheet, tab 'Base'``).
        repository: the repository holding the file, as ``owner/name`` (empty for a paper).
        commit: the commit read (hex, at least 7 digits; empty for a paper).
        file: the file read at that commit, or the paper's table (``Table 2``).
        url: where a reader finds it.
    """

    table: str
    title: str
    file: str
    url: str
    repository: str = ""
    commit: str = ""

    def __post_init__(self) -> None:
        if not (self.table and self.title and self.file and self.url):
            raise ConfigError(f"published source {self.title or self.table!r}: table, title, file and url are all "
                              "needed (where the number was read)")
        if bool(self.repository) != bool(self.commit):
            raise ConfigError(f"published source {self.title!r}: name a repository and its commit together")
        if self.commit and not (len(self.commit) >= 7 and all(c in "0123456789abcdef" for c in self.commit)):
            raise ConfigError(f"published source {self.title!r}: commit {self.commit!r} is not a hex hash of at least "
                              "7 digits")

    def cite(self) -> str:
        """``owner/name@commit:file`` for a file, else the title and file."""
        return f"{self.repository}@{self.commit[:7]}:{self.file}" if self.repository else f"{self.title}, {self.file}"


@dataclass(frozen=True)
class Model:
    """The model a number was measured with: its name as published and its Hugging Face id."""

    name: str
    hub_id: str

    def matches(self, name: str) -> bool:
        """Whether hopkit's model ``name`` (an LLM config name, a model id or a path) is this model."""
        wanted = {self.name.lower(), self.hub_id.lower(), self.hub_id.rsplit("/", 1)[-1].lower()}
        given = name.lower().rstrip("/")
        return given in wanted or given.rsplit("/", 1)[-1] in wanted


@dataclass(frozen=True)
class Questions:
    """Which questions a number was measured on.

    Attributes:
        split: the split (``dev``, ``test``).
        first: the file's first N questions, in order (None: all of the split).
        count: how many were scored, where the source says (None: it does not).
    """

    split: str
    first: int | None = None
    count: int | None = None

    def __post_init__(self) -> None:
        if not self.split:
            raise ConfigError("published questions: name the split")
        if self.first is not None and self.first < 1 or self.count is not None and self.count < 1:
            raise ConfigError(f"published questions of {self.split}: first and count are positive when given")

    def describe(self) -> str:
        if self.first is not None:
            return f"first {self.first:,} of {self.split}" + (f" ({self.count:,})" if self.count is not None else "")
        return f"{self.count:,} of {self.split}" if self.count is not None else f"all of {self.split}"


@dataclass(frozen=True)
class Setting:
    """What a number was measured in.

    Attributes:
        model: the model that answered.
        corpus: the corpus retrieved from, by the name hopkit stores it under (``wiki18``).
        corpus_title: that corpus in words (``DPR's December 2018 Wikipedia, 21M 100-word passages``).
        retriever: the retriever in words (``e5-base-v2, Faiss Flat``).
        retrieval: the hopkit retrieval config that is that retriever over that corpus (``e5-wiki18-flat``).
        top_k: passages per retrieval (None: the source does not say).
        questions: which questions.
        notes: the rest of the setting the source states (input length, decoding), each read from it.
        ingest: how to store the questions in this setting, a command with ``{stored}`` for the stored dataset's
            name (empty: the benchmark's published split, ``hopkit ingest flashrag/NAME``).
    """

    model: Model
    corpus: str
    corpus_title: str
    retriever: str
    retrieval: str
    top_k: int | None
    questions: Questions
    notes: tuple[str, ...] = ()
    ingest: str = ""

    def __post_init__(self) -> None:
        if not (self.corpus and self.corpus_title and self.retriever and self.retrieval):
            raise ConfigError(f"published setting of {self.model.name!r}: corpus, corpus_title, retriever and "
                              "retrieval are all needed")
        if self.top_k is not None and self.top_k < 1:
            raise ConfigError(f"published setting of {self.model.name!r}: top_k must be positive")
        if self.ingest and "{stored}" not in self.ingest:
            raise ConfigError(f"published setting of {self.model.name!r}: its ingest command names no {{stored}}")


@dataclass(frozen=True)
class PublishedResult:
    """One published number.

    Attributes:
        method: the registered method it is set beside (``oner``).
        run: the hopkit pipeline config that runs it (``oner``, ``search-r1``): what ``hopkit reproduce`` runs.
        row: the row's name in the source (``Standard RAG``).
        dataset: the benchmark, by hopkit's name (``hotpotqa``, ``2wikimultihopqa``, ``nq``...).
        metric: one of :data:`PUBLISHED_METRICS`.
        value: the number as published, in percent.
        source: where it was read.
        setting: what it was measured in.
        note: what else the source says about this row (its method's own settings).
    """

    method: str
    run: str
    row: str
    dataset: str
    metric: str
    value: float
    source: Source
    setting: Setting
    note: str = ""

    def __post_init__(self) -> None:
        what = f"published {self.row!r} on {self.dataset!r}"
        if not isinstance(self.source, Source):
            raise ConfigError(f"{what}: no source; say where the number was read")
        if not isinstance(self.setting, Setting):
            raise ConfigError(f"{what}: no setting; say the model, corpus, retriever, top-k and questions")
        if self.metric not in PUBLISHED_METRICS or self.metric not in METRIC_NAMES:
            raise ConfigError(f"{what}: metric {self.metric!r} is not one of {', '.join(PUBLISHED_METRICS)}")
        if not 0.0 <= self.value <= 100.0:
            raise ConfigError(f"{what}: value {self.value} is not a percentage")
        if not (self.method and self.run and self.row and self.dataset):
            raise ConfigError(f"{what}: method, run, row and dataset are all needed")


def published_of(package: str) -> tuple[PublishedResult, ...]:
    """The results a method package declares in its ``published`` module (none where it has none)."""
    try:
        module = importlib.import_module(f"{package}.published")
    except ModuleNotFoundError as error:
        if error.name == f"{package}.published":
            return ()
        raise
    declared = getattr(module, "PUBLISHED", None)
    if not isinstance(declared, tuple) or not all(isinstance(row, PublishedResult) for row in declared):
        raise ConfigError(f"{package}.published: PUBLISHED is not a tuple of hopkit PublishedResult")
    return declared


def all_published() -> tuple[PublishedResult, ...]:
    """Every published result hopkit's method packages declare, in the registry's order."""
    from hopkit.methods.registry import BUILT_IN

    return tuple(row for package in BUILT_IN for row in published_of(package))


def published_table(table: str) -> tuple[PublishedResult, ...]:
    """The rows of one published table (``flashrag``).

    Raises:
        UnknownNameError: no declared row cites that table (the message lists the tables).
    """
    rows = tuple(row for row in all_published() if row.source.table == table)
    if not rows:
        raise UnknownNameError("published table", table, table_names())
    return rows


def table_names() -> list[str]:
    """The published tables hopkit declares rows of, in the order first declared."""
    return list(dict.fromkeys(row.source.table for row in all_published()))
