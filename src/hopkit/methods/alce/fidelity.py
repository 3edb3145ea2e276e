"""ALCE's readers compared with the authors' code (princeton-nlp/ALCE: ``run.py``, ``utils.py``,
``prompts/asqa_default.json``, ``tools/gen_summary.py``, ``tools/rerank_outputs.py``), run zero-shot over
reranked BM25 hits as the MIGRES paper's Table 3 runs them. One table covers every reader (``reader``
option); a row names the reader it is about where it is not all of them."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_ALCE = "246c476a4edfc564266b7346b6e29ef4861ae937"

FIDELITY = FidelityTable(
    method="alce",
    reference=Reference(
        paper="Gao et al., Enabling Large Language Models to Generate Text with Citations, EMNLP 2023; the "
              "zero-shot VANILLA, VANILLA-s, SUMM, SNIPPET and RERANK rows of the MIGRES paper's Table 3",
        repository="princeton-nlp/ALCE",
        commit=_ALCE,
        files=("run.py", "utils.py", "prompts/asqa_default.json", "prompts/asqa_sum_or_ext.json",
               "tools/gen_summary.py", "tools/rerank_outputs.py", "eval.py"),
        note="ALCE's run.py defaults are --temperature 0.5, --top_p 1, --max_new_tokens 300; its configs for "
             "OpenAI models (gpt-3.5, gpt-4: the kind MIGRES runs) keep them, those for Hugging Face models set "
             "temperature 1.0 and top_p 0.95, and none sets max_new_tokens. What the MIGRES paper adds (zero-shot, BM25 then BGE-reranker-base, "
             "VANILLA-s's sentence filter) is compared with its Sections 4.1-4.2 and 4.4 (seed 002); "
             "VANILLA-s's filter is MIGRES's, not ALCE's, and is reviewed in MIGRES's table."),
    variants=("alce-vanilla", "alce-vanilla-s", "alce-summ", "alce-snippet", "alce-rerank"),
    rows=(
        Difference(
            "prompt", "answer instruction and layout",
            "asqa_default.json (asqa_sum_or_ext.json has the same instruction, demo_prompt and doc_prompt): "
            "utils.make_demo(test=True) gives '{INST}\\n\\nQuestion: {Q}\\n\\n{D}\\nAnswer:'; with --shot 0 "
            "no demonstrations (MIGRES Section 4.2: zero-shot).",
            "hopkit.methods.alce.prompts.answer_prompt: the same instruction, character for character, and "
            "layout, no demonstrations (whitespace inside the question collapsed).",
            "faithful"),
        Difference(
            "prompt", "how the answer prompt is sent",
            "run.py LLM.generate: an OpenAI chat model gets it as the user turn after the system turn 'You are a "
            "helpful assistant that answers the following questions with proper citations.'; a completion or "
            "Hugging Face model gets the raw text.",
            "hopkit.methods.alce.method.ALCE.generate: llm.complete on the raw text for every model, as ALCE's "
            "Hugging Face path; no system turn.",
            "disclosed",
            reason="MIGRES ran gpt-3.5-turbo-1106, which ALCE's code would send as a chat turn with the system "
                   "turn and no stop; hopkit's local models take ALCE's completion path (its newline stop, the "
                   "stops row), which docs/methods/alce.md gives as the reason."),
        Difference(
            "prompt", "summary and extraction prompts (summ, snippet)",
            "tools/gen_summary.py: a system turn and a user request per document (target summary or "
            "extraction), always through the chat API.",
            "hopkit.methods.alce.prompts SUMMARY_*/EXTRACTION_*: the same text, character for character; "
            "ALCE._condense sends them as chat turns when the model has a chat template, else as one "
            "completion prompt 'system\\n\\nrequest' stopping at a blank line.",
            "disclosed",
            reason="A model without a chat template cannot take turns; docs/methods/alce.md states the "
                   "fallback."),
        Difference(
            "documents", "document text",
            "prompts doc_prompt 'Document [{ID}](Title: {T}): {P}\\n', numbered from 1, the first ndoc of the "
            "list (vanilla) or the summary or extraction in place of the text (utils.make_doc_prompt).",
            "prompts.documents: the same block, numbered from 1, with the paragraph's whole text, its sentences "
            "above δ (vanilla-s) or the summary or extraction.",
            "faithful"),
        Difference(
            "documents", "which condensed documents are kept (summ, snippet)",
            "utils.get_shorter_text: documents in order, dropping a summary that contains 'irrelevant' or "
            "'Irrelevant' anywhere; an empty one is kept.",
            "ALCEConfig.irrelevant_rule (default 'anywhere'): hopkit.methods.alce.prompts.is_irrelevant drops "
            "one holding 'irrelevant' or 'Irrelevant' anywhere and keeps an empty one, as get_shorter_text "
            "does. The campaign's saved alce-summ, alce-snippet and alce-vanilla-s cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun. (Their rule, empty or the word first, differs from the authors' on 22 of the "
            "1,947 saved summaries and extractions: hopkit campaign pin-effects.)",
            "faithful"),
        Difference(
            "documents", "how far down the ranking condensing goes (summ, snippet)",
            "gen_summary.py --ndoc 20 condenses the top 20 only (with gpt-3.5-turbo-0301, whatever the reader); "
            "get_shorter_text stops at the first document without a summary.",
            "ALCE._documents: the reader's own model condenses down the reranked hits (up to `hits`) until k "
            "are kept.",
            "disclosed",
            reason="The MIGRES paper (Section 4.4) describes SUMM and SNIPPET as condensing until 5 relevant "
                   "documents are found (7.9 and 8.4 calls on average), with no cap of 20, and runs every module "
                   "with one LLM (Section 4.1); the loop's 'until k' is stated in docs/methods/alce.md."),
        Difference(
            "documents", "when no summary or extraction is kept (summ, snippet)",
            "get_shorter_text: 'If there aren't any document, at least provide one (using full text)': the "
            "first document without a summary (the 21st) is given whole.",
            "ALCEConfig.none_kept (default 'full_text'): ALCE._documents gives the answer the top-ranked hit "
            "whole (a 'full_text' condense step in the trace). The campaign's saved alce-summ, alce-snippet and alce-vanilla-s cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun. (Their answers read no document "
            "on 60 of the 240 saved SUMM and SNIPPET questions: hopkit campaign pin-effects.)",
            "disclosed",
            reason="One document whole, as the authors give; which one differs because hopkit condenses every "
                   "hit it reads, so none is left past the condensed ones: the top-ranked is the one the "
                   "reranker trusts most."),
        Difference(
            "documents", "vanilla-s's sentence filter",
            "Not in ALCE: MIGRES Sections 4.2 and 4.4 add sentence-level filtering to VANILLA (VANILLA-s).",
            "ALCE._documents with hopkit.methods.migres.filter.KnowledgeFilter.keep_sentences on each top-k "
            "document (no passage-level δ): whole when it has one sentence or outscores every sentence, else "
            "its sentences at or above δ; ALCEConfig.empty_sentences (default 'drop') drops a document left "
            "with none, as MIGRES's filter drops such a passage. The campaign's saved alce-summ, alce-snippet and alce-vanilla-s cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun. (They showed 110 of their 600 "
            "documents with an empty text: hopkit campaign pin-effects.)",
            "faithful"),
        Difference(
            "retrieval", "candidates and reranker",
            "ALCE: pre-retrieved lists (GTR or DPR top-100, BM25 for ELI5), the first ndoc (5) in their order, "
            "no reranker. MIGRES Section 4.1: BM25, then BGE-reranker-base.",
            "ALCE.generate: BM25 top `hits` (50; the benchmark's variants 10) ordered by the `reranker` judge "
            "(the LLM by default, `{kind: cross-encoder, model: BAAI/bge-reranker-base}` as in MIGRES), "
            "then k = 5.",
            "disclosed",
            reason="MIGRES's setting, with the LLM judge as default (docs/methods/alce.md: the same judge "
                   "MIGRES runs use; BGE with the judges extra); the variants rerank the same 10 candidates "
                   "MIGRES's runs score."),
        Difference(
            "loop", "RERANK's choice",
            "tools/rerank_outputs.py rerank_outputs: per output, sentences by nltk sent_tokenize; a sentence "
            "without '[n' or citing past the last document scores 0, else the NLI of all documents joined as "
            "'Title: T\\nP' against the sentence without citations; score = sum / sentences; strict '>' keeps "
            "the first best; no score above 0 leaves ''.",
            "hopkit.methods.alce.rerank.citation_recall and best_sample: the same rule and tie-break, '' "
            "when none is above 0 (unsupported_answer 'empty', the default).",
            "faithful"),
        Difference(
            "loop", "RERANK's judge and sentence splitter",
            "AUTOAIS google/t5_xxl_true_nli_mixture, entailed when p('1') >= 0.5 in --rerank_mode discrete "
            "(the mode has no default: 'prob' sums probabilities instead); nltk "
            "sent_tokenize; remove_citations also drops every ']' and ' |'; '[0' counts as a valid citation.",
            "`entailment` judge (the LLM by default, an NLI model with the judges extra); SyntokSplitter; "
            "citations removed as '\\s*[n]'; a citation must be 1..k; discrete mode (entailed at 0.5); a cited "
            "sentence left empty without its citations scores 0 (ALCE sends what is left, '.' say, to the "
            "NLI); the answer's first line is scored, the one the newline stop leaves.",
            "disclosed",
            reason="An 11B NLI model is out of reach of the small-model runs; the judge is an option "
                   "(docs/methods/alce.md). The splitter and citation details change no verdict on well-formed "
                   "citations."),
        Difference(
            "stops", "end of the answer",
            "run.py LLM.generate: completion API stop ['\\n', '\\n\\n'], Hugging Face models stop at '\\n' "
            "tokens or EOS; the chat API gets no stop.",
            "hopkit.methods.alce.method.ANSWER_STOP: '\\n'.",
            "faithful"),
        Difference(
            "limits", "budgets and context overflow",
            "run.py: --max_new_tokens 300, cut to max_length minus the prompt; a prompt past max_length gives "
            "'' (prompt_exceed_max_length); gen_summary.py --max_tokens 100.",
            "ALCEConfig.max_tokens 300, condense_max_tokens 100; hopkit.methods.prompting.fitted fails the "
            "question with ContextFullError when the prompt and the 300 tokens reserved for the answer do not "
            "fit (ALCE answers with what is left).",
            "disclosed",
            reason="A prompt that does not fit is a failed question with its reason, not an empty answer "
                   "counted as wrong, as for every method."),
        Difference(
            "decoding", "answer and summary decoding",
            "run.py: the answer sampled at --temperature 0.5, top_p 1 (the OpenAI configs; 1.0 and 0.95 for "
            "Hugging Face models); gen_summary.py: temperature 0.7.",
            "ALCE.generate and ALCE._condense: temperature 0.0 for the answer (all readers but rerank) and the "
            "summaries or extractions.",
            "disclosed",
            reason="docs/methods/alce.md: hopkit decodes greedily so a run can be repeated."),
        Difference(
            "decoding", "RERANK's samples",
            "Four samples (MIGRES Section 4.2 and the ALCE paper; run.py's --num_samples defaults to 1) at "
            "temperature 0.5, top_p 1, from the whole distribution; no sampling seed (--seed 42 picks "
            "demonstrations).",
            "ALCE._best_of_samples: four samples at temperature 0.5 (sample_temperature), each repeatable "
            "(complete_sample: llama.cpp draws sample i with the model's seed + i), truncated as the backend "
            "samples: top_k 40, top_p 0.95 and (llama.cpp) min_p 0.05.",
            "disclosed",
            reason="The LLM protocol's sampling carries a temperature only, and hopkit's backends truncate with "
                   "llama.cpp's defaults; the rare tokens a full-distribution draw could add are cut. Seeded "
                   "samples make a RERANK run repeatable."),
        Difference(
            "answer", "the prediction",
            "run.py saves the output (rstrip, '<|im_end|>' and a final 'End.' removed); eval.py cuts it to its "
            "first line and removes the citations for every metric but the citation ones, then scores it as "
            "a long answer (ASQA str_em: presence of the short answers).",
            "hopkit.methods.alce.method.prediction: the first line without its [n] marks (as eval.py), then "
            "cleaned as a direct answer (clean_direct_answer: 'answer is:' and a final period removed); the "
            "marks stay in the trace.",
            "disclosed",
            reason="hopkit scores these readers on short-answer QA (EM, F1, cover-EM, Acc†) as the MIGRES "
                   "paper does, which ALCE's long-answer evaluation does not define."),
        Difference(
            "defaults", "documents, samples, budgets",
            "ndoc 5 (the configs' ndoc5 runs), four samples for RERANK (the samples row), temperature 0.5, "
            "max_new_tokens 300; summaries of at most 100 tokens.",
            "ALCEConfig: k 5, samples 4, sample_temperature 0.5, max_tokens 300, condense_max_tokens 100; "
            "hits 50 (MIGRES's runs, as experiments.yaml reads them).",
            "faithful"),
    ),
)
