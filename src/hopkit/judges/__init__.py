"""The small models and tools the methods call besides the generator.

Each is a protocol with one method (:mod:`hopkit.judges.protocol`), so a test can put
a scripted double in its place (:mod:`hopkit.judges.scripted`): relevance (MIGRES's
reranker and sentence filter), entailment (MIGRES's NLI check), an answer with a
confidence (SearChain's reader) and similarity (SearChain's duplicate-query check),
each with an LLM-as-judge backend and a dedicated one; and the sentence splitter.
:mod:`hopkit.judges.factory` builds a judge from a config option. The dedicated
models' packages (the ``judges`` extra) are imported only when one is loaded.
"""

from hopkit.judges.cross_encoder import CrossEncoderRelevance
from hopkit.judges.embedding import EmbeddingRelevance, EmbeddingSimilarity
from hopkit.judges.extractive import ExtractiveReader
from hopkit.judges.factory import (JudgeSpec, answer_judge, build_judge, entailment_judge, judge_spec,
                                   relevance_judge, similarity_judge)
from hopkit.judges.lexical import LexicalSimilarity
from hopkit.judges.llm_reader import LLMAnswerJudge
from hopkit.judges.llm_yes_no import LLMEntailmentJudge, LLMRelevanceJudge, LLMSimilarityJudge
from hopkit.judges.nli import NLIEntailment
from hopkit.judges.protocol import (AnswerJudge, EntailmentJudge, RelevanceJudge, SimilarityJudge, SpanAnswer)
from hopkit.judges.scripted import ScriptedAnswer, ScriptedEntailment, ScriptedRelevance, ScriptedSimilarity
from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter

__all__ = [
    "AnswerJudge", "CrossEncoderRelevance", "EmbeddingRelevance", "EmbeddingSimilarity", "EntailmentJudge", "ExtractiveReader", "JudgeSpec", "LLMAnswerJudge",
    "LLMEntailmentJudge", "LLMRelevanceJudge", "LLMSimilarityJudge", "LexicalSimilarity", "NLIEntailment",
    "RelevanceJudge", "ScriptedAnswer", "ScriptedEntailment", "ScriptedRelevance", "ScriptedSimilarity",
    "SentenceSplitter", "SimilarityJudge", "SpanAnswer", "SyntokSplitter", "answer_judge", "build_judge",
    "entailment_judge", "judge_spec", "relevance_judge", "similarity_judge",
]
