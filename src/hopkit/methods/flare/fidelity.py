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
            "(hopkit.methods.flare.exemplars.with_retrieved_paragraphs), on every IRCoT set; the StrategyQA "
            "exemplars keep the authors' statements. The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "prompt", "layout of exemplars and test case",
            "templates.py CtxPrompt.format with the defaults format_reference_method 'searchresultsrank' and "
            "ctx_position 'before_case': 'Search results ranked based on relevance in descending order:\\n"
            "[1]: ...\\n[2]: ...\\nQuestion: q\\nAnswer: <cot> So the answer is X.', blocks joined by a blank line.",
            "hopkit.prompts.layout.test_block and the IRCoT files: 'Wikipedia Title: T\\ntext' blocks (350 "
            "words at most), then 'Q: q\\nA: <cot> So the answer is: X.'.",
            "disclosed",
            reason="docs/methods/flare.md: one frame on every dataset so a difference between datasets is the "
                   "exemplars, not the layout (the page names the authors' header 'Reference: [1]:', the "
                   "'default' method's; the 2WikiMultihopQA configuration keeps the code's default "
                   "'searchresultsrank')."),
        Difference(
            "prompt", "StrategyQA, HotpotQA and MuSiQue",
            "datasets.py StrategyQA: six exemplars, 'Generate a yes or no answer to the following "
            "question.\\nQuestion: ...\\nAnswer:', '... So the final answer is yes.'; no HotpotQA or MuSiQue "
            "configuration exists.",
            "StrategyQA: the authors' six exemplars and statements in hopkit's frame "
            "(hopkit.prompts.flare_strategyqa); HotpotQA and MuSiQue: the 2WikiMultihopQA settings with that "
            "dataset's IRCoT demonstrations.",
            "disclosed",
            reason="docs/methods/flare.md: the same frame on every dataset; the paper has no configuration for "
                   "HotpotQA or MuSiQue."),
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
            "stripped, so the pieces either side of a masked sub-word stay apart.",
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
            "QueryAgent.retrieve: a look-ahead query is cut to its last 64 GPT-2 tokens (max_query_length); "
            "Elasticsearch BM25 over the DPR Wikipedia passages, top-2.",
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
            "ApiReturn.truncate_at_boundary: NLTK's Punkt sentence tokenizer, the first sentence of at least 5 "
            "characters.",
            "FLARE._look_ahead: hopkit.judges.sentences.SyntokSplitter.first.",
            "disclosed",
            reason="hopkit uses one sentence splitter (syntok) for every method; the two may place a boundary "
                   "differently (after an abbreviation, say); docs/methods/flare.md says so."),
        Difference(
            "stops", "what ends a look-ahead and the loop",
            "final_stop_sym '\\n\\n' (openai_api.py __main__, a non-chat model); ret_prompt goes on until a "
            "kept generation ends at that stop or the end-of-text token (finish_reason 'stop', not cut at its "
            "first sentence), or 256 tokens in all; a sentence saying 'answer is' does not end it.",
            "FLAREConfig.stops (default 'paragraph'): FLARE._look_ahead stops at '\\n\\n'; the loop ends when the "
            "kept generation is its first sentence and ended at the stop or the end of text (finish_reason "
            "'stop'), on an empty sentence, or after max_sentences (the limits row). The campaign's saved FLARE cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "limits", "generation budget and context",
            "openai.sh: --max_generation_len 256 for the whole answer; look-ahead 64 tokens; no handling of a "
            "prompt longer than the context.",
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
            "temperature 1) over the sentence as written after the same prompt.",
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
            "defaults", "k, θ, β, look-ahead, shots",
            "2wikihop_flare_config.json: topk 2, look_ahead_filter_prob 0.8, look_ahead_mask_prob 0.4, "
            "look_ahead_steps 64; openai.sh: fewshot 8 (StrategyQA 6).",
            "FLAREConfig: k 2, theta 0.8, beta 0.4, look_ahead_tokens 64; FLAREOptions.shots 8 (StrategyQA 6); "
            "experiments.yaml the same, StrategyQA θ 0.4 and top-3 (not in this commit's files).",
            "faithful"),
    ),
)
