"""DRAGIN compared with its authors' code (oneal2000/DRAGIN ``main``: ``src/generate.py`` class
``AttnWeightRAG``, ``src/eval.py``, ``src/data.py``, ``src/retriever.py`` and the Llama2-7b-chat configs).

Not compared with ``src/algorithm/*``: those files exist only in an unmerged pull request from a fork.
"""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_MAIN = "4d71efcf6712bf82c4a5c7c81455af4efee20dcc"

FIDELITY = FidelityTable(
    method="dragin",
    reference=Reference(
        paper="Su et al., DRAGIN: Dynamic Retrieval Augmented Generation based on the Real-time Information "
              "Needs of Large Language Models, ACL 2024",
        repository="oneal2000/DRAGIN",
        commit=_MAIN,
        files=("src/generate.py", "src/eval.py", "src/data.py", "src/retriever.py",
               "config/Llama2-7b-chat/HotpotQA/DRAGIN.json", "config/Llama2-7b-chat/2WikiMultihopQA/DRAGIN.json",
               "config/Llama2-7b-chat/StrategyQA/DRAGIN.json"),
        note="Line numbers are those of src/generate.py at this commit. Config values also traced through "
             "the history of config/Llama2-7b-chat/*/DRAGIN.json: first commit 168f3ab (2024-02-13), "
             "c206034 (2024-02-15), 47c4cdc (2024-05-23), 58dca59 (2025-10-10). src/algorithm/* (cited by "
             "earlier docs) is only in refs/pull/23 and was not used. The authors' evaluation, beside the "
             "method: the first 1000 questions of each set (sample 1000, shuffle false), StrategyQA's from "
             "strategyqa_train.json, and on 2Wiki an answer also matches the gold entity's id_aliases "
             "(data.py); hopkit's benchmarks score the samples' first 30 questions against their gold "
             "answers, so their numbers are not the paper's setting."),
    rows=(
        # prompt
        Difference(
            "prompt", "exemplars and templates",
            "data.py HotpotQA/WikiMultiHopQA/StrategyQA: examplars, demo_input_template, test_input_template, "
            "output_template; BaseDataset.format joins StrategyQA's cot tuple and keeps the first `fewshot`.",
            "dragin/exemplars.yaml via prompts.PromptSet.demonstrations and .case: the same strings (checked by "
            "running data.py's templates and comparing: 8 HotpotQA, 6 2Wiki, 6 StrategyQA shots and the "
            "three test cases are equal).",
            "faithful"),
        Difference(
            "prompt", "generation prompt layout",
            "generate.py AttnWeightRAG.inference (l. 614-616): each demo's case + '\\n', then the non-empty "
            "of [case, text] joined by a space.",
            "prompts.generation_prompt: demonstrations + joined(case, text).",
            "faithful"),
        Difference(
            "prompt", "prompt after a retrieval",
            "inference (l. 675-681): demos, 'Context:\\n', '[i] doc\\n' per document, 'Answer in the same "
            "format as before.\\n', then the non-empty of [case, text, ptext.strip()] joined by spaces.",
            "prompts.retrieval_prompt: the same parts in the same order.",
            "faithful"),
        Difference(
            "prompt", "spacing of the text so far",
            "inference l. 633: text = text.strip() + ' ' + new_text.strip(), so after a first generation "
            "without retrieval the text starts with a space and the next prompt holds case + two spaces; "
            "keep_real_words's input is question + ' ' + text + ' ' + ptext with empty parts kept (l. 667).",
            "DRAGIN.generate: text.strip() + ' ' + generation.strip() without a trigger, the non-empty stripped "
            "parts joined after one; qfs.attended_text joins its four parts by spaces, empty ones kept: the "
            "authors' spaces (tests/methods/dragin/test_qfs.py, test_dragin_loop.py).",
            "faithful"),
        Difference(
            "prompt", "the test case layout option",
            "Always the dataset's test_input_template (data.py).",
            "DRAGINConfig.case: 'authors' (default) is theirs; 'plain' lays the case out as the exemplars' "
            "questions (the benchmark lever dragin-plain-case).",
            "disclosed",
            reason="An option, off by default, for small models that answer the step-by-step instruction "
                   "with numbered plans (docs/methods/dragin.md)."),
        # documents
        Difference(
            "documents", "what a document shows",
            "retriever.py ElasticSearch search (l. 163): the hit's `txt` body only, although the query is "
            "matched against title and text; shown as '[i] <body>'.",
            "prompts._one_line: '[i] <text>', the title left out; whitespace runs collapsed to one space, so a "
            "paragraph stays on its numbered line (DPR's passages have no line breaks).",
            "faithful"),
        Difference(
            "documents", "fewer hits than k",
            "retriever.py BM25.retrieve pads to topk with empty documents (l. 84-86), so the prompt gets "
            "'[n] ' lines with no text.",
            "DRAGIN._retrieve lists only the hits returned.",
            "disclosed",
            reason="The padding fills the authors' fixed (batch, topk) array; it only arises when the index "
                   "returns fewer than k hits, and an empty numbered line carries no information."),
        # retrieval
        Difference(
            "retrieval", "which sentences RIND checks",
            "generate.py AttnWeightRAG.modifier (l. 485-525) scores every sentence of the generation in turn, "
            "the one saying 'the answer is' included; there is no check for the phrase.",
            "rind.detect scores every sentence in turn, the answer's too "
            "(tests/methods/dragin/test_rind.py::test_an_uncertain_answer_sentence_triggers_retrieval).",
            "faithful"),
        Difference(
            "retrieval", "RIND's score",
            "generate_attn (l. 93-150): last layer's attention of the model reading the generated tokens "
            "alone, max over query positions, mean over heads, summed per word; entropy averaged per word; "
            "modifier: attention normalised within the sentence x entropy x words in the sentence.",
            "rind.attention_received and rind.detect, with the transformers backend's complete_attended: "
            "the same quantities.",
            "faithful"),
        Difference(
            "retrieval", "words from tokens (SentencePiece)",
            "generate_attn (l. 82-91) and keep_real_words (l. 537-546) group tokenizer pieces "
            "(convert_ids_to_tokens): a word starts at a piece beginning with '▁' (Llama) or the "
            "tokenizer's space piece, at the newline token (id 13 in Llama-2's vocabulary; a piece after it "
            "without '▁' continues it) and after '</s>'; a newline word ('<0x0A>') is kept and counted.",
            "llm/token_pieces.piece_texts gives each token its lone decoding with the space its piece's '▁' "
            "stands for put back (byte-level BPE pieces decode with theirs), and rind.words_of starts a word at "
            "a token beginning with whitespace or after a newline: the authors' grouping, on a Llama-2-style "
            "SentencePiece tokenizer, a byte-level one and Qwen's (tests/llm/test_token_pieces.py). A word "
            "after '</s>' is not started (generations end at it). Two edges differ: a word also starts at the "
            "token after a newline, and whitespace-only words are dropped (rind.detect, qfs.query_of). On a "
            "byte-level tokenizer the authors' id-13 test would name another token than the newline.",
            "faithful"),
        Difference(
            "retrieval", "content words",
            "modifier (l. 507-518) and keep_real_words (l. 579-595): spaCy en_core_web_sm part of speech in "
            "NOUN, ADJ, VERB, PROPN, NUM; a word counts when it contains one of those words (substring test).",
            "rind.is_real_word: a word is a content word unless it is in FUNCTION_WORDS (Lucene's English "
            "stopwords plus pronouns, auxiliaries, prepositions, conjunctions, common adverbs).",
            "disclosed",
            reason="No spaCy model to download (docs/methods/dragin.md, 'content words'); the paper states "
                   "the filter as a stopword indicator."),
        Difference(
            "retrieval", "a sentence whose only words above θ are not content words",
            "modifier tests `1 in thres` before the real-word filter (l. 505-518), so it triggers with no hit "
            "left; keep_real_words then divides a zero tensor by zero hits (l. 575), which gives NaN weights, "
            "not an error: Python's sort keeps the words' order, so the query is the first "
            "retrieve_keep_top_k content words of question, text and sentence. The first generated word takes "
            "the attention sink (max attention 1.0 from its own position), so a sentence opening with 'The' can "
            "trigger this way.",
            "rind.detect requires a hit that is a content word; no trigger, and a later sentence may trigger.",
            "disclosed",
            reason="The paper's score is zero for a stopword (s_i, Section 3.1), so such a sentence cannot "
                   "trigger; the code's query there is an accident of NaN ordering, not QFS. How often the "
                   "authors' code takes this path on hopkit's runs is not counted (a trace records only the "
                   "sentence that triggered)."),
        Difference(
            "retrieval", "sentence splitter",
            "spaCy en_core_web_sm `nlp(text).sents` in modifier, get_top_sentence and get_last_sentence.",
            "hopkit.judges.sentences.SyntokSplitter (syntok) in rind.detect and DRAGIN._kept.",
            "disclosed",
            reason="No spaCy model to download here (syntok is a rule-based splitter on PyPI); sentence "
                   "boundaries can differ on abbreviations and numbers (docs/methods/dragin.md says so)."),
        Difference(
            "retrieval", "words assigned to sentences",
            "modifier (l. 489-499): a sentence ends at the first prefix of words whose space-joined text "
            "contains the sentence string; the last sentence takes all remaining words; a sentence never "
            "found gets no words.",
            "rind.detect: by character offsets of each word's first character within each sentence's span.",
            "disclosed",
            reason="The string match fails where the splitter cuts inside a word or punctuation is spaced "
                   "differently; offsets put every word in its sentence. Same result where theirs succeeds."),
        Difference(
            "retrieval", "QFS query",
            "keep_real_words (l. 527-605): mean over heads of the last layer; per triggering word, each "
            "token's predicting position's attention to what precedes the word, renormalised, averaged over "
            "the word's tokens, summed per word, averaged over the hits; the top retrieve_keep_top_k content "
            "words, not hits, in text order.",
            "qfs.word_attention and qfs.query_of over LLM.attend(attended_text(...)): the same. The "
            "tokenizer's special tokens (a Llama-2 tokenizer's '<s>', which takes the attention sink) are never "
            "query words (Attention.special), as the authors' part-of-speech match never accepts '<s>' "
            "(tests/methods/dragin/test_qfs.py).",
            "faithful"),
        Difference(
            "retrieval", "the query's 64-token cut",
            "BasicRAG.retrieve(max_query_length=64) (l. 204) -> retriever.py BM25.retrieve (l. 51-66): the "
            "query is tokenized with truncation_side 'left', so only its last 64 tokens are searched.",
            "DRAGIN._last_tokens: the query's last max_query_tokens (64) tokens of the model's tokenizer "
            "(token_texts), joined and stripped, the fallback query too.",
            "faithful"),
        Difference(
            "retrieval", "QFS finds no word",
            "The query is '' (an empty join), sent to Elasticsearch.",
            "DRAGIN._query: the triggering sentence without its hits (else the question); the retrieve step "
            "says fallback.",
            "disclosed",
            reason="An empty query retrieves nothing useful (docs/methods/dragin.md)."),
        Difference(
            "retrieval", "top-k",
            "config retrieve_topk 3.",
            "DRAGINConfig.k 3 (experiments.yaml).",
            "faithful"),
        Difference(
            "retrieval", "retriever and corpus",
            "retriever.py BM25: Elasticsearch multi_match over separate title and txt fields (best_fields, "
            "tie_breaker 0.5; l. 139-150) with the English analyzer (prep_elastic.py), over DPR's psgs_w100 "
            "(21M passages); duplicate passages are not removed (l. 151).",
            "The run's retriever, BM25 by default: hopkit's BM25 (Snowball stemming, Lucene's stopwords) over "
            "title and text as one field (corpus_view.passage_text), hits with identical text dropped; the "
            "benchmarks search the pooled sample corpus.",
            "disclosed",
            reason="hopkit runs without an Elasticsearch server and on the corpus a run is given (the 2018 "
                   "Wikipedia passages arrive with the field's setting); scores differ in tokenisation, field "
                   "weighting and corpus, not in kind."),
        # loop
        Difference(
            "loop", "the loop and its ends",
            "inference (l. 607-706): generate; no trigger: add the generation; trigger: QFS, retrieve, "
            "continue and add ptext + the continuation's first sentence (get_top_sentence); stop when the "
            "text passes generate_max_length tokens, stops growing, or holds 'the answer is'.",
            "DRAGIN.generate and DRAGIN._finished, DRAGIN._kept with repeats 'keep' (default).",
            "faithful"),
        Difference(
            "loop", "repeats: skip",
            "The continuation's first sentence is always added.",
            "DRAGINConfig.repeats 'skip' (off by default) adds its first sentence the text lacks.",
            "disclosed",
            reason="An option for small models that repeat their sentences (the lever dragin-guarded)."),
        Difference(
            "loop", "bound on generations",
            "None beyond the length and no-progress checks.",
            "DRAGINConfig.max_generations 12.",
            "disclosed",
            reason="A guard against a loop that grows by a few characters per step. It counts continuations "
                   "too, so it allows at most 6 retrievals; no saved DRAGIN run stopped on it (each stopped "
                   "answered, on length or on no progress; docs/methods/dragin.md)."),
        # stops
        Difference(
            "stops", "what ends one generation",
            "BasicGenerator.generate / generate_attn call model.generate with max_new_tokens only: no stop "
            "string; the text runs past the answer line (eval.py later cuts at 'Question:' and 'Note:').",
            "method.LINE_END: each generation stops at '\\n'; with turn_stop also at chat turns "
            "('Human:', 'Assistant:', 'User:', 'Question:').",
            "disclosed",
            reason="The exemplars put each answer on one line; what follows is an invented next case "
                   "(docs/methods/dragin.md, 'generation'). It changes what RIND scores (the run-on's tokens "
                   "also pay the attention RIND's maximum takes), what is added when nothing triggers (the "
                   "authors add the whole run-on, which counts towards the length stop and the answer's "
                   "text), and a continuation that opens with a line break (hopkit keeps '' and ends on "
                   "no_progress; the authors' get_top_sentence takes the first sentence after it), so rerun "
                   "cells say which stop they used."),
        # limits
        Difference(
            "limits", "the output's token count",
            "inference l. 702: len(tokenizer.encode(text)), which counts Llama's BOS token.",
            "DRAGIN._finished: the tokens of token_texts(text, special_tokens=True), the BOS counted as "
            "encode() counts it (Qwen's tokenizer adds none).",
            "faithful"),
        Difference(
            "limits", "budget per generation",
            "generate_max_length as max_new_tokens of every generation (100 HotpotQA/StrategyQA, 64 2Wiki).",
            "DRAGINConfig.max_length as max_tokens of every generation (experiments.yaml).",
            "faithful"),
        Difference(
            "limits", "context overflow",
            "Not handled: a prompt past the model's context goes to generate as it is.",
            "prompting.fitted raises ContextFullError (the question fails, said to repeat on a rerun).",
            "disclosed",
            reason="hopkit never sends a prompt that leaves no room for the generation (methods/prompting.py)."),
        # decoding
        Difference(
            "decoding", "sampling and the entropies' logits",
            "model.generate with no sampling arguments (transformers 4.30.2, requirements.txt): the model's "
            "generation_config decides, for regenerate_answer's 20 tokens too; entropies from outputs.scores, "
            "the processed scores (after temperature and top-p when it samples). Llama-2-chat's published "
            "config is said to sample (temperature 0.6, top-p 0.9); it was not readable here.",
            "Greedy: transformers backend complete_attended and complete(temperature=0.0); entropies from "
            "the raw logits (equal to the processed scores under greedy decoding).",
            "disclosed",
            reason="Greedy makes a run repeat; whether the authors' Llama-2-chat runs sampled depends on a "
                   "model file not in their repository. If they did, θ was tuned on entropies of sharpened "
                   "scores, lower than the raw logits' that hopkit scores, so the same θ fires more often in "
                   "hopkit."),
        # answer
        Difference(
            "answer", "the answer stage",
            "eval.py regenerate_answer: cut the text at the first 'Question:', '#10000000' or 'Note:'; if "
            "'the answer is' is missing, append ' So the answer is ' and generate 20 tokens after the "
            "exemplars and the case, then cut again.",
            "DRAGIN.generate strips the text first, as main.py strips each prediction (l. 90) before eval.py "
            "reads it; dragin/answer.py and DRAGIN._answer_text: the same cut, prompt and 20 greedy tokens; the call "
            "stops at the three marks, which gives what generating 20 tokens and cutting there gives. The "
            "extract step records the text read and whether it was generated. regenerate_answer: false (not "
            "the default) reads the cut text without the call.",
            "faithful"),
        Difference(
            "answer", "the answer span",
            "data.py HotpotQA/WikiMultiHopQA.get_real_prediction: everything after 'the answer is ' to the "
            "end of the text, a final '</s>', '<|endoftext|>' and '.' removed; HotpotQA gives '' without the "
            "phrase, 2Wiki the whole text.",
            "answer.real_prediction with the set's answers form (exemplars.yaml): 'span' (HotpotQA, and the "
            "datasets that take its exemplars) and 'span_or_text' (2WikiMultihopQA) as their readings, "
            "case-sensitive, one character skipped after the phrase.",
            "faithful"),
        Difference(
            "answer", "StrategyQA yes/no",
            "StrategyQA.get_real_prediction: 'yes' if the words after 'the answer is ' begin with yes, else "
            "'no'; '' without the phrase.",
            "answer.real_prediction with form 'yes_no' (exemplars.yaml answers: yes_no).",
            "faithful"),
        # defaults
        Difference(
            "defaults", "θ and QFS words (HotpotQA, 2Wiki)",
            "At 4d71efc: HotpotQA hallucination_threshold 0.8 (since 58dca59; 1.3 from c206034), "
            "retrieve_keep_top_k 35; 2Wiki 1.0 and 25 (since 47c4cdc). 1.4/35 and 1.2/40 are the first "
            "commit's, 168f3ab.",
            "DRAGINConfig and experiments.yaml: main's 0.8/35 (HotpotQA, the default, and the datasets that "
            "take its settings) and 1.0/25 (2Wiki), each commit named in experiments.yaml and DRAGINConfig.",
            "faithful"),
        Difference(
            "defaults", "other settings",
            "Llama2-7b-chat configs: StrategyQA θ 0.75 / 35 words / 100 tokens / 6 shots (unchanged since "
            "168f3ab); HotpotQA 8 shots, 100 tokens; 2Wiki 6 shots, 64 tokens; retrieve_topk 3; "
            "query_formulation real_words; check_real_words true.",
            "experiments.yaml: the same values.",
            "faithful"),
        Difference(
            "defaults", "datasets without the authors' exemplars",
            "IIRC has its own exemplars (data.py IIRC) and settings (config/Llama2-7b-chat/IIRC/DRAGIN.json: θ "
            "0.6, 128 tokens, 8 shots); there is no setting for other datasets.",
            "prompts.FALLBACK_SET: HotpotQA's exemplars and settings (said at the start of the run); IIRC's "
            "exemplars are not shipped.",
            "disclosed",
            reason="hopkit runs on datasets the authors did not (MuSiQue, a user's own); θ is not "
                   "recalibrated for them or for other models (docs/methods/dragin.md)."),
    ),
)
