"""FLARE-direct compared with the authors' code (jzbjyb/FLARE): its 2WikiMultihopQA configuration
(``configs/2wikihop_flare_config.json`` run by ``openai.sh``), the loop of ``src/openai_api.py``, the prompt
of ``src/templates.py`` and ``src/datasets.py``, and the answer reading of ``prep.py``."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_FLARE = "ec4b06b502b5ab54f3f9236b0112a5d28482e7bb"

FIDELITY = FidelityTable(
    method="flare",
    reference=Reference(
        paper="Jiang et al., Active Retrieval Augmented Generation, EMNLP 2023 (FLARE-direct)",
        repository="jzbjyb/FLARE",
        commit=_FLARE,
        files=("configs/2wikihop_flare_config.json", "openai.sh", "src/openai_api.py", "src/templates.py",
               "src/datasets.py", "src/retriever.py", "prep.py"),
        note="The repository has configurations for 2WikiMultihopQA and WikiAsp only; openai.sh gives "
             "StrategyQA 6 shots, but its θ and top-k are not in any file of this commit. Values not set by "
             "the config come from the defaults in openai_api.py's __main__ (retrieval_kwargs) and "
             "QueryAgent.__init__."),
    rows=(
        Difference(
            "prompt", "which exemplars (2WikiMultihopQA)",
            "datasets.py WikiMultiHopQA.cot_examplars with --fewshot 8 (openai.sh): Hypocrite, Kurram Garhi, "
            "Coolie No. 1, Boraqchin, Martin Hodge, Laughter In Hell, The Gal Who Took the West, Krishna Shah, "
            "in that order; their chains of thought are the IRCoT authors' words.",
            "FLAREOptions.exemplars (default 'flare'): hopkit.methods.flare.exemplars reads the same eight, by "
            "question id and in the authors' order, from the IRCoT authors' 2WikiMultihopQA file, whose chains "
            "and answers are the same (checked word for word). The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "prompt", "exemplars' paragraphs",
            "use_ctx_for_examplars 'ret': datasets.py retrieval_augment_examplars puts each exemplar's own "
            "BM25 top-2 for its question before it (retrieved, not gold), once before the run; the question is "
            "not cut (is_question).",
            "FLAREOptions.exemplar_paragraphs (default 'retrieved'): FLARE.build_heavy_parts puts the "
            "retriever's top-k for each exemplar's whole question before it, once before the first question "
            "(hopkit.methods.flare.exemplars.with_retrieved_paragraphs), on every IRCoT set (StrategyQA: the "
            "next row). The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "prompt", "layout of exemplars and test case",
            "templates.py CtxPrompt.format with the defaults format_reference_method 'searchresultsrank' and "
            "ctx_position 'before_case', which openai_api.py's __main__ sets for every dataset: 'Search results "
            "ranked based on relevance in descending order:\\n[1]: ...\\n[2]: ...\\nQuestion: q\\nAnswer: <cot> "
            "So the answer is X.'; a passage is its text only (retriever.py returns the hit's 'txt', no title), "
            "its line breaks turned into spaces (CtxPrompt.clean_rets); one '\\n' between the results and "
            "'Question:'; exemplars and test case joined by a blank line ('\\n\\n').",
            "hopkit.prompts.layout.test_block and the IRCoT files: 'Wikipedia Title: T\\ntext' paragraphs (350 "
            "words at most) joined by a blank line, a blank line before 'Q: q\\nA: <cot> So the answer is: X.'; "
            "exemplars and test case joined by two blank lines (DEMONSTRATION_SEPARATOR).",
            "disclosed",
            reason="docs/methods/flare.md: one frame on every dataset (the IRCoT files') so a difference between "
                   "datasets is the exemplars, not the layout; the titles are shown as every other method "
                   "shows them."),
        Difference(
            "prompt", "StrategyQA, HotpotQA and MuSiQue",
            "datasets.py StrategyQA: six exemplars, 'Generate a yes or no answer to the following "
            "question.\\nQuestion: ...\\nAnswer:', '... So the final answer is yes.'; no HotpotQA or MuSiQue "
            "configuration exists.",
            "StrategyQA: the authors' six exemplars in hopkit's frame, each after the short statements the "
            "authors wrote as its context (StrategyQA.cot_examplars' ctxs; hopkit.prompts.flare_strategyqa), "
            "not after retrieved paragraphs; HotpotQA and MuSiQue: the 2WikiMultihopQA settings with that "
            "dataset's IRCoT demonstrations.",
            "disclosed",
            reason="docs/methods/flare.md: the same frame on every dataset; the paper has no configuration for "
                   "HotpotQA or MuSiQue. The authors' code shows the statements only when use_ctx_for_examplars "
                   "is set to a value other than 'ret' ('ret' replaces them with retrieved paragraphs, False "
                   "shows none); no StrategyQA configuration in this commit says which, and hopkit keeps the "
                   "context the authors wrote for these exemplars."),
        Difference(
            "documents", "the test question's paragraphs",
            "ctx_increase 'replace': each retrieval's top-2 replace the previous ones (CtxPrompt.update_retrieval); "
            "a step without retrieval keeps them.",
            "hopkit.methods.flare.method.FLARE.generate: `paragraphs` replaced by each retrieval's top-k, kept "
            "otherwise.",
            "faithful"),
        Difference(
            "retrieval", "first retrieval",
            "look_ahead_pre_retrieval 'first': before the first look-ahead, retrieve with the question, not "
            "truncated (use_full_input_as_query).",
            "FLARE.generate (a): retrieve with the whole question first.",
            "faithful"),
        Difference(
            "retrieval", "trigger and masking thresholds",
            "ApiReturn.use_as_query: retrieve when some token has p <= 0.8; mask tokens with p <= 0.4.",
            "FLARE.generate: retrieve when the lowest p < θ; masked_query masks tokens with p < β.",
            "cosmetic"),
        Difference(
            "retrieval", "the masked query",
            "use_as_query mask_method 'simple': each masked token becomes a space, the tokens are joined and "
            "stripped, so the pieces either side of a masked sub-word stay apart; the query is the look-ahead "
            "alone (only_use_look_ahead), not the question before it.",
            "FLAREConfig.query_masking (default 'space'): hopkit.methods.flare.method.masked_query puts a space "
            "in place of each masked token, joins and collapses the spaces (the same words for BM25). "
            "The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "retrieval", "a query with every token masked",
            "ret_prompt: an empty query is left out (nonemp_queries_to_issue), so nothing is retrieved and the "
            "previous paragraphs stay; the sentence is generated again over the same prompt.",
            "FLAREConfig.query_masking 'space': an empty masked query retrieves nothing, the paragraphs stay and "
            "the look-ahead sentence is kept, which is what greedy decoding writes again over the same prompt. "
            "The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "retrieval", "query length and retriever",
            "QueryAgent.retrieve: a look-ahead query is cut to its last 64 GPT-2 tokens (max_query_length, "
            "truncation_side 'left'), except the first one issued: retrieve(is_question=first_ret) leaves it "
            "uncut (use_full_input_as_query), and first_ret is still true after the question's own retrieval; "
            "Elasticsearch BM25 (title and text fields) over the DPR Wikipedia passages, top-2.",
            "The look-ahead is at most 64 model tokens and is not cut again; BM25 over the benchmark's corpus "
            "(experiments.yaml), top-k 2.",
            "disclosed",
            reason="Every method reads from the benchmark's own BM25 index; the 64-token cut seldom bites on a "
                   "look-ahead of at most 64 tokens."),
        Difference(
            "loop", "look-ahead, check and the kept sentence",
            "ret_prompt: look ahead 64 tokens, truncate at the first sentence, retrieve if uncertain, then "
            "generate again (frequency 64, truncated at the first sentence) and keep that; the new sentence is "
            "not checked. Without retrieval the regeneration sees the same prompt, so greedy decoding writes the "
            "same sentence.",
            "FLARE.generate: keep the look-ahead sentence when no token is uncertain (or when its masked query is "
            "empty), otherwise retrieve and keep the sentence written again, unchecked.",
            "faithful"),
        Difference(
            "loop", "sentence boundary",
            "ApiReturn.truncate_at_boundary: an untrained PunktSentenceTokenizer() (no English model, no "
            "abbreviation list), the first sentence ending 5 characters or more into the text.",
            "FLARE._look_ahead: hopkit.judges.sentences.SyntokSplitter.first: syntok's first sentence, with no "
            "minimum length (a first sentence ' No.' stands alone), a line break always ending one.",
            "disclosed",
            reason="hopkit uses one sentence splitter (syntok) for every method; the two may place a boundary "
                   "differently (after an abbreviation, say); docs/methods/flare.md says so."),
        Difference(
            "stops", "what ends a look-ahead and the loop",
            "final_stop_sym '\\n\\n' (openai_api.py __main__, a non-chat model); ret_prompt goes on until a "
            "kept generation ends at that stop or the end-of-text token (finish_reason 'stop', not cut at its "
            "first sentence), or the 256-token count of the limits row; a sentence saying 'answer is' does not end it.",
            "FLAREConfig.stops (default 'paragraph'): FLARE._look_ahead stops at '\\n\\n'; the loop ends when the "
            "kept generation is its first sentence and ended at the stop or the end of text (finish_reason "
            "'stop'), on an empty sentence, or after max_sentences (the limits row). The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "limits", "generation budget and context",
            "openai.sh: --max_generation_len 256, counted per batch of 8 questions (batch_size): each step "
            "adds the shortest kept generation among the batch's active questions (np.min of num_tokens), so "
            "a question can write more than 256 tokens, and a regeneration gets min(256 - counted, 64) tokens; "
            "look-ahead 64 tokens; no handling of a prompt longer than the context.",
            "FLAREConfig: look_ahead_tokens 64, max_sentences 10 (no total token budget); "
            "hopkit.methods.prompting.DemonstrationFitter drops exemplars that do not fit and fails the question "
            "when the test case alone does not.",
            "disclosed",
            reason="The loop counts sentences, its unit; 10 sentences exceed any exemplar's chain of thought. A "
                   "small model's context is bounded, so overflow needs a rule."),
        Difference(
            "decoding", "temperature and token probabilities",
            "openai.sh: text-davinci-003 at temperature 0; the probabilities are the API's logprobs of the "
            "generated tokens.",
            "temperature 0.0; the probabilities come from score_tokens (the model's raw distribution, "
            "temperature 1) over the sentence as written after the same prompt, tokenized again (the tokens can "
            "differ from the generated ones where a tokenizer splits a text two ways).",
            "faithful"),
        Difference(
            "answer", "reading the answer",
            "prep.py eval (2wikihop): the output cut at '\\n\\n', then the first match of 'answer is (.*)', to the "
            "end of its line; when there is none the prediction is empty (counted 'wrongformat').",
            "FLAREConfig.answer_reading (default 'authors'): hopkit.methods.flare.method.read_answer takes the "
            "first 'answer is' of the kept text to the end of its line, the colon of hopkit's frame ('So the "
            "answer is: X.', the layout row) allowed and a final period dropped (cosmetic: the metrics drop "
            "punctuation); none: the empty answer, which fails the question as unanswered. The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "answer", "reading a StrategyQA answer",
            "prep.py eval (strategyqa): anchor 'answer is (yes|no)\\.', case-sensitive: 'answer is Yes.' or "
            "'answer is yes' at the line's end reads as nothing (counted 'wrongformat', so wrong).",
            "read_answer as for every dataset: the first 'answer is' to the end of its line, a final period "
            "dropped; the metrics compare it case- and punctuation-free with 'yes' or 'no'.",
            "disclosed",
            reason="hopkit scores every method's StrategyQA answers with the same normalised metrics; a "
                   "capitalised or unpunctuated yes/no that the authors' anchor misses counts as right here, "
                   "anything else after 'answer is' is wrong in both."),
        Difference(
            "defaults", "k, θ, β, look-ahead, shots",
            "2wikihop_flare_config.json: topk 2, look_ahead_filter_prob 0.8, look_ahead_mask_prob 0.4, "
            "look_ahead_steps 64; openai.sh: fewshot 8 (StrategyQA 6).",
            "FLAREConfig: k 2, theta 0.8, beta 0.4, look_ahead_tokens 64; FLAREOptions.shots 8; "
            "experiments.yaml the same, StrategyQA 6 shots, θ 0.4 and top-3 (θ and top-k not in this commit's "
            "files).",
            "faithful"),
    ),
)
