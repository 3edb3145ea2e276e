"""A dedicated extractive reader: any transformers question-answering model (start/end logits).

SearChain's authors read each node's top-1 passage with a DPR reader: the answer is
the span between the best start and end tokens, and the confidence compared with the
threshold θ = 1.5 is the reader's relevance logit, a logit that the passage holds the
answer. A plain question-answering model has no relevance head; its counterpart is the
SQuAD 2.0 no-answer margin: the best span's score (start logit + end logit) minus the
score of the null span at the first token ([CLS]), the log-odds-like margin by which
the model prefers an answer in this passage over none. A model trained with
unanswerable questions (SQuAD 2.0, e.g. ``deepset/roberta-base-squad2``) gives it a
meaning; calibrate θ on a few questions for a given model.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from hopkit.errors import ConfigError
from hopkit.judges.optional import batches, import_optional, load_transformers
from hopkit.judges.protocol import ANSWER, SpanAnswer
from hopkit.judges.timing import timed
from hopkit.options import NonEmptyStr, PositiveInt, check_arguments


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, max_tokens: int) -> tuple[int, int, float]:
    """The span (i, j) of allowed tokens, i <= j < i + max_tokens, maximising start[i] + end[j].

    Args:
        start: the start logits of one sequence.
        end: the end logits.
        allowed: which tokens may begin or end a span (the passage's tokens).
        max_tokens: the longest span, in tokens.

    Returns:
        (i, j, start[i] + end[j]); (-1, -1, -inf) when no token is allowed.
    """
    if not allowed.any():
        return -1, -1, -math.inf
    scores = start[:, None].astype(np.float64) + end[None, :].astype(np.float64)
    offsets = np.arange(len(start))[None, :] - np.arange(len(start))[:, None]  # j - i
    valid = allowed[:, None] & allowed[None, :] & (offsets >= 0) & (offsets < max_tokens)
    scores = np.where(valid, scores, -np.inf)
    i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(i), int(j), float(scores[i, j])


class ExtractiveReader:
    """SearChain's reader on a question-answering model: the best span and its no-answer margin.

    Each ``(question, passage)`` is encoded as one pair, question first; a passage
    longer than ``max_length`` tokens is cut (as the authors' reader cut at 510).

    Args:
        model: a loaded ``AutoModelForQuestionAnswering``, in evaluation mode.
        tokenizer: its tokenizer (a fast one: spans are mapped back to characters).
        model_name: its name or folder, for ``judge_id``.
        device: where ``model`` is.
        batch_size: pairs per forward pass.
        max_length: tokens per pair.
        max_answer_tokens: the longest answer span, in tokens.

    Raises:
        ConfigError: a slow tokenizer (no character offsets), or a bad option.
    """

    def __init__(self, model: Any, tokenizer: Any, model_name: str, *, device: str = "cpu",
                 batch_size: PositiveInt = 8, max_length: PositiveInt = 384,
                 max_answer_tokens: PositiveInt = 30) -> None:
        check_arguments(ExtractiveReader.__init__, "extractive reader option", batch_size=batch_size,
                        max_length=max_length, max_answer_tokens=max_answer_tokens)
        if not getattr(tokenizer, "is_fast", False):
            raise ConfigError(f"extractive reader {model_name!r}: its tokenizer gives no character offsets (not a "
                              "fast tokenizer); save the model with a tokenizer.json")
        self.model = model
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.max_answer_tokens = max_answer_tokens
        self.judge_id = f"extractive:{model_name}"

    @classmethod
    def load(cls, model: NonEmptyStr, *, device: str | None = None, batch_size: PositiveInt = 8,
             max_length: PositiveInt = 384, max_answer_tokens: PositiveInt = 30) -> ExtractiveReader:
        """Load a question-answering model by Hugging Face name or from a local folder.

        Args:
            model: e.g. ``"deepset/roberta-base-squad2"`` or a folder it was saved to.
            device: ``"cpu"``, ``"cuda"``...; None: a GPU when torch sees one, else the CPU.
            batch_size: pairs per forward pass.
            max_length: tokens per pair.
            max_answer_tokens: the longest answer span, in tokens.

        Raises:
            ConfigError: transformers or torch is missing, or the model cannot be loaded.
        """
        check_arguments(cls.load, "extractive reader option", model=model, batch_size=batch_size,
                        max_length=max_length, max_answer_tokens=max_answer_tokens)
        tokenizer, network, chosen = load_transformers("AutoModelForQuestionAnswering", model, device=device,
                                                       needed_by="the extractive reader")
        return cls(network, tokenizer, model, device=chosen, batch_size=batch_size, max_length=max_length,
                   max_answer_tokens=max_answer_tokens)

    @timed(ANSWER)
    def answer(self, pairs: Sequence[tuple[str, str]]) -> list[SpanAnswer]:
        """The best span of each ``(question, passage)`` and its no-answer margin, in batches."""
        torch = import_optional("torch", needed_by="the extractive reader")
        answers: list[SpanAnswer] = []
        for batch in batches(pairs, self.batch_size):
            passages = [passage for _, passage in batch]
            encoded = self.tokenizer([question for question, _ in batch], passages, padding=True,
                                     truncation="only_second", max_length=self.max_length,
                                     return_offsets_mapping=True, return_tensors="pt")
            offsets = encoded.pop("offset_mapping").tolist()
            with torch.inference_mode():
                output = self.model(**encoded.to(self.device))
            starts = output.start_logits.float().cpu().numpy()
            ends = output.end_logits.float().cpu().numpy()
            for row, passage in enumerate(passages):
                allowed = np.array([sequence == 1 for sequence in encoded.sequence_ids(row)])
                answers.append(self._span(passage, starts[row], ends[row], allowed, offsets[row]))
        return answers

    def _span(self, passage: str, start: np.ndarray, end: np.ndarray, allowed: np.ndarray,
              offsets: list[list[int]]) -> SpanAnswer:
        i, j, score = best_span(start, end, allowed, self.max_answer_tokens)
        if i < 0:
            return SpanAnswer(text="", confidence=-math.inf)
        first, last = offsets[i][0], offsets[j][1]
        null = float(start[0]) + float(end[0])
        return SpanAnswer(text=passage[first:last], confidence=score - null, start=first)
