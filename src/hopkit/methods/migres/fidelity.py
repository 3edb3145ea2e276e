"""MIGRES compared with its authors' code (AdelWang/MIGRES: ``code/pipeline.py``, ``code/utils/search_engine.py``,
``code/migres.sh``)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

FIDELITY = FidelityTable(
    method="migres",
    reference=Reference(
        paper="Wang et al., LLMs Know What They Need: Leveraging a Missing Information Guided Framework to "
              "Empower Retrieval-Augmented Generation, 2024",
        repository="AdelWang/MIGRES",
        commit="1de6265c9ca1014054d6ba875738e785830908f8",
        files=("code/pipeline.py", "code/utils/search_engine.py", "code/migres.sh",
               "data/demons/multihopQA_demons.json", "code/BM25_searcher/process.py"),
        note="pipeline.py's class RetGBatched is the method; migres.sh is the released run script (MAX_ITER 5, "
             "RELEVANCE 3.0, TOPK 5, --gpt_knowledge --entail_judge, neither --sentRerank nor --add_demon). The "
             "script leaves DATASET and INDEX_DIR unset, and pipeline.py does not run as published (an unclosed "
             "string in its BM25 index names, send_post_request called with three arguments where it takes one, "
             "args.ignore_string and args.num_queries never defined), so it was read, not run; where the code "
             "contradicts itself the rows follow the path a working run would take."),
    rows=(
        Difference(
            "prompt", "module instructions",
            "pipeline.py RetGBatched.__init__: instruction_main_iter_head, instruction_leaf_head/tail, "
            "instruction_query_head (ends 'Separate each query with \"<line break>\".'), "
            "instruction_query_forward 'Generate relevant information to the given Question.', "
            "instruction_main_last.",
            "hopkit.methods.migres.prompts: Main, Leaf and Query instructions verbatim from the paper's Table 17 "
            "(no separator sentence; 'confidence score }'), knowledge prompting from Table 15 ('Generation "
            "relevant information to the given question.'), the last Main's from the code (identical).",
            "disclosed",
            reason="hopkit quotes the paper's tables, which differ from the code in a few characters and the "
                   "Query instruction's last sentence; hopkit's query parser reads one query per line without "
                   "being told. On StrategyQA the code's iteration instruction is its own yes/no head and tail "
                   "('If the Information provided is not sufficient...', '\"text\": Yes or No'); hopkit puts "
                   "Table 17's yes/no sentence before the multi-hop instruction (prompts.main_instruction), "
                   "the last Main's yes/no text being the code's."),
        Difference(
            "prompt", "layout",
            "promptMain/promptLeaf/promptQuery: instruction, '\\n\\n', [demonstrations, '\\n\\n'], instance; "
            "the iteration Main's instruction is head + '\\n' + tail (the last Main's has no extra line break), "
            "the Leaf's two sentences are joined by '\\n', the Query's instruction ends in a space (head + ' ' + "
            "an empty tail). Instances "
            "'Information: a; b\\nQuestion: q\\nYour response:', 'Original Question: ...\\nHistorical "
            "Questions: ...\\nKnown Information: ...\\nMissing Information: ...\\nNew queries:'.",
            "prompts.prefixed / main_instance / query_instance / leaf_instance: the same instances; "
            "instruction and demonstrations joined by one blank line; the Leaf instruction's two sentences "
            "joined by a space; no trailing space.",
            "disclosed",
            reason="Whitespace only, but it is prompt text, so not cosmetic: hopkit lays every module out the "
                   "same way (instruction, blank line, demonstrations, blank line, instance) with the paper's "
                   "instruction text (the previous row)."),
        Difference(
            "prompt", "chat or completion",
            "send_post_request: an OpenAI chat call (gpt-3.5-turbo-1106 or gpt-4-0613) with the system turn "
            "'You are ChatGPT, a model trained by OpenAI.}' and the prompt as the user turn.",
            "hopkit.methods.migres.modules.MIGRESModules._complete: the prompt as a completion, no system turn.",
            "disclosed",
            reason="hopkit runs local completion models; the prompt text is the same."),
        Difference(
            "prompt", "demonstrations",
            "--add_demon (off in migres.sh) puts data/demons/<set>_demons.json's main/final_main/leaf/query/"
            "forward text after each instruction.",
            "hopkit.methods.migres.demonstrations: the same files and modules (few_shot option, off by "
            "default; the migres-fewshot experiment turns it on), each stripped; faithful while the prompt fits "
            "(the 'tokens and context' row says what happens when it does not).",
            "faithful"),
        Difference(
            "prompt", "2Wiki relationship hints",
            "RetGBatched.__init__: a question containing 'maternal grandmother' (or 'maternal grandfather', "
            "'paternal grandmother', 'paternal grandfather', lower-cased) starts with that relation's definition "
            "('maternal grandmother is mother's mother') as known information, on every dataset.",
            "MIGRESConfig.relation_hints (default true): the same four definitions, matched the same way, learnt "
            "into the Memory before the first retrieval (hopkit.methods.migres.knowledge_rules). "
            "The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "documents", "passages shown to the Leaf Module",
            "promptPassages: 'Passage i: (Title: t) text' lines, at most top_k (5), best reranked first; a "
            "snippet under 5 space-separated words (len(text.split(' ')) < 5) is skipped; LLM knowledge shows "
            "'(Title: None)'.",
            "MIGRES._retrieve_and_read and prompts.leaf_instance: the same lines, the best 5 by relevance; "
            "MIGRESConfig.min_snippet_words (default 5) skips a passage or LLM knowledge under 5 words counted "
            "the same way, before the 5 are taken; MIGRESConfig.knowledge_title_none (default true) shows LLM "
            "knowledge with '(Title: None)' as the code writes it. The passages' text is shown as the corpus "
            "holds it (the authors also remove '\\n', '<br>' and '<b>' tags: cosmetic on corpora without them). "
            "The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "documents", "LLM knowledge kept",
            "promptPassages drops generated knowledge containing 'sorry', '2022', 'have no specific "
            "iinformation' or 'no publicly available information' (lower-cased).",
            "MIGRESConfig.drop_knowledge_refusals (default true): the same four strings, the authors' typo "
            "included, drop the knowledge before the Leaf Module (knowledge_rules.is_refusal). "
            "The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "retrieval", "BM25 and its hits",
            "search_engine.py Bm25Searcher (pyserini, k1 0.9, b 0.4): num_bm25 50 hits per query; with fewer "
            "than 50, searches again with 'Find information about ' + query and keeps that search's hits; hits "
            "deduplicated by text.",
            "retrieval pipeline bm25-migres (k1 0.9, b 0.4; hits of distinct text), hits_per_query 50; "
            "MIGRESConfig.second_search (default true): under 50 hits, the prefixed search's hits replace the "
            "first's (the trace's retrieve step names it under 'searched'); the filter scores them against the "
            "query, as the authors' reranker does. The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "retrieval", "Knowledge Filter (passage level)",
            "Reranker.sentenceRerank: BGE reranker on (query, 'title [SEP] text'), kept at score ≥ δ; a "
            "passage used twice (history_passages ≥ 2) is skipped; one found by several queries keeps the "
            "score of the last query under which it scored ≥ δ.",
            "hopkit.methods.migres.filter.KnowledgeFilter with the relevance judge ('llm' by default, or a "
            "cross-encoder) on '(Title: t) text'; the same δ rule and the same twice-used rule; a passage "
            "found by several queries keeps its best score.",
            "disclosed",
            reason="The default judge is the run's own LLM, with δ calibrated for it by the paper's rule "
                   "(docs/migres.md); the best score orders a shared passage by its strongest query."),
        Difference(
            "retrieval", "which query scores which passage",
            "search_bm25 / Bm25Searcher.perform_search: a round's queries are searched together and their hits "
            "pooled (deduplicated by text); Reranker.sentenceRerank scores every query of the round against "
            "every pooled passage, so a passage found by one query can be kept for another.",
            "MIGRES._retrieve_and_read: each query's hits are scored against that query only (KnowledgeFilter."
            "filter per query); the round's kept passages are then pooled.",
            "disclosed",
            reason="Kept for cost (no option yet): scoring every query against the pooled hits multiplies the relevance judge's calls by the number of queries (up to 3), "
                   "and with hopkit's default LLM judge those calls are most of MIGRES's cost. The first round "
                   "(one query, the question) is the same either way."),
        Difference(
            "retrieval", "sentence filter",
            "sentenceRerank with --sentRerank (not passed by migres.sh): nltk punkt sentences (a lower-case "
            "start joins the previous), those inside the question dropped; whole passage if it outscores its "
            "best sentence, else sentences ≥ δ.",
            "KnowledgeFilter with sentence_filter True (the paper's method, Table 5): syntok sentences, the "
            "same whole-or-sentences rule, but none of the code's three text rules: its sentences contained in "
            "the round's query are dropped (the query, not the original question), a passage left with no "
            "sentence is dropped, and a sentence already inside a chosen snippet is skipped.",
            "disclosed",
            reason="The paper's MIGRES filters sentences (Table 5 ablates it); the released script does not, "
                   "so the code's text rules belong to a path no released run takes. syntok needs no nltk "
                   "data."),
        Difference(
            "retrieval", "query generation",
            "extractNewinfo('query'): every line of the response over 10 characters not asked before (no cap "
            "at 3); none left -> the original question is asked again.",
            "MIGRES._new_queries with responses.parse_queries: lines (or a list), markers removed, only "
            "question sentences when there are some; MIGRESConfig.min_query_chars (default 11) drops a query "
            "of 10 characters or fewer (counted after the markers are removed); at most 3 not asked before "
            "(Memory.ask_at_most); none left -> MIGRESConfig.no_new_queries (default 'ask_question') retrieves "
            "with the original question again, as the authors do. The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun. (In their traces 1 of 1,012 "
            "generated queries has 10 characters or fewer: hopkit campaign pin-effects.)",
            "disclosed",
            reason="The cap of 3 is the paper's (Section 3.2), which the authors' instruction also states "
                   "('write no more than 3 queries') where their code reads every line; hopkit's parser reads "
                   "the numbered or labelled query lines small models write. The fall-back to the question is "
                   "the authors'."),
        Difference(
            "retrieval", "what counts as asked before",
            "promptPassages: question_list (the Historical Questions and the 'not asked before' test) grows only "
            "with the queries of the passages shown to the Leaf (the first query alone when only LLM knowledge "
            "is shown); a query whose hits were all filtered out is not in it and can be generated again; the "
            "test is exact string equality.",
            "hopkit.methods.migres.memory.Memory.asked: every query retrieved for, compared after case, "
            "whitespace and punctuation are normalised (Memory.ask_at_most); the Historical Questions show them "
            "all.",
            "disclosed",
            reason="A query asked and found nothing is still asked; asking it again retrieves the same "
                   "filtered hits, so hopkit spends the round on a new query instead."),
        Difference(
            "retrieval", "the BM25 index",
            "BM25_searcher/process.py: pyserini's Lucene index over 'contents' (the passage text), the title a "
            "field of its own; hits deduplicated by exact text over the round's queries "
            "(search_engine.py).",
            "retrieval/bm25.py (bm25s) over 'title\\ntext' (corpus_view.passage_text); hits of the same text "
            "(case and whitespace normalised) kept once per query, the pool widened until 50 distinct hits.",
            "disclosed",
            reason="Every hopkit method reads one BM25 index per corpus, its title included; the tokenizer "
                   "and stemmer are bm25s's, not Lucene's."),
        Difference(
            "loop", "the order of the modules",
            "RetGBatched._iteration: retrieve with the question, Leaf, then Main; while unanswerable: Query "
            "Generator, retrieve, Leaf, Main.",
            "MIGRES.generate steps (a)-(i): the same order.",
            "faithful"),
        Difference(
            "loop", "how many rounds",
            "_iteration: up to max_iter (5) Main calls with the iteration instruction, each followed by a "
            "round of queries, retrieval and Leaf, then one more Main with instruction_main_last.",
            "MIGRESConfig.last_main (default 'after_iterations'): max_iterations (5) Main calls with the "
            "iteration instruction, each followed by a round, then the last Main (MIGRESConfig.main_calls). "
            "The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "loop", "no new information",
            "promptMain skips the Main call while the known information is unchanged (step > 1), keeping the "
            "last missing information for the Query Generator; this also skips the last Main, leaving no answer.",
            "MIGRES._main reuses the last verdict (reuse_main_without_new_information) but always asks the "
            "last Main.",
            "disclosed",
            reason="A question must end with an answer; the authors' skip of the last call leaves it "
                   "without one."),
        Difference(
            "loop", "unreadable Leaf or Query response",
            "extractNewinfo('leaf'): a response without 'useful_information' is skipped (no facts) and the "
            "loop goes on; extractLeaf falls back to reading the items one by one. extractNewinfo('query'): the "
            "response is only split into lines, so it never fails; no line left -> the original question.",
            "MIGRESModules._ask asks once more with a correction; MIGRESConfig.unreadable (default 'carry_on'): "
            "still unreadable, the Leaf gives no facts and the Query Generator no new query (no_new_queries "
            "applies), and the loop goes on. The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun. (None of their 270 questions ended on an "
            "unreadable Leaf or Query response: hopkit campaign pin-effects.)",
            "disclosed",
            reason="The one request to correct the format is hopkit's (small local models break the dict "
                   "format more often than GPT-3.5); what follows a response still unreadable is the "
                   "authors'."),
        Difference(
            "loop", "unreadable Main response",
            "extractNewinfo('main'): a response eval cannot read goes to a string-splitting fall-back; one "
            "without an 'answer' dict or an 'explanation' (a KeyError) marks the question 'fail', which leaves "
            "the loop with no answer; a text with no answer found reads as the answer ''.",
            "MIGRESModules._ask asks once more with a correction; still unreadable -> recorded, and the next "
            "Main is the last (the question still gets an answer).",
            "disclosed",
            reason="Small local models break the dict format more often than GPT-3.5; a failed question would "
                   "count as wrong without the method having answered."),
        Difference(
            "stops", "stop sequences",
            "None: each chat call ends where the model ends its turn.",
            "hopkit.methods.migres.modules.STOPS per module ('\\n\\n' and the next instance's label).",
            "disclosed",
            reason="A completion model has no end of turn; the stops end it where the next instance would "
                   "begin. '\\n\\n' also ends every response at its first blank line: LLM knowledge longer than "
                   "a paragraph is cut there, and queries separated by blank lines are read as the first "
                   "alone."),
        Difference(
            "limits", "tokens and context",
            "No max_tokens, no prompt fitting (the chat API's own limits).",
            "max_tokens 300 per response; demonstrations dropped when a prompt would overflow the context "
            "(MIGRESModules._prompt).",
            "disclosed",
            reason="Local models have small contexts; 300 tokens hold every module's dict."),
        Difference(
            "limits", "passages used twice",
            "history_passages counts a passage once when shown and once more when cited by information new to "
            "the known information (a fact already known adds nothing); at 2 it is skipped.",
            "Memory.use / exhausted with max_passage_uses 2; MIGRESConfig.cited_use (default 'new_facts') "
            "counts the extra use only for learnt information, as the code does (MIGRES._read); the cited "
            "index is the prompt's (the NLI row). The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "decoding", "temperature",
            "send_post_request sets no temperature (the API's default, 1.0) and num_return 1.",
            "temperature 0.0 for every module.",
            "disclosed",
            reason="Greedy decoding makes runs repeatable; the authors' sampling is the API default, not a "
                   "choice the paper states."),
        Difference(
            "answer", "when the Main Module answers",
            "extractNewinfo('main'): an answer whose text lacks 'unanswerable' ends the loop, at any "
            "confidence.",
            "MIGRES._answers with min_confidence 1: the same.",
            "faithful"),
        Difference(
            "answer", "missing information for the Query Generator",
            "extractNewinfo('main'): the explanation replaces the missing information when that is under 10 "
            "characters.",
            "MIGRESConfig.min_missing_information_chars (default 10): responses.MainVerdict.wanted gives the "
            "explanation when the missing information (stripped) is under 10 characters. "
            "The campaign's saved MIGRES cells ran with the pinned old value (src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "answer", "NLI check of extracted facts",
            "verify_info: t5_xxl_true_nli_mixture on 'premise: (Title: t) text hypothesis: fact' -> '1'; the "
            "cited index looks up the ranked list before promptPassages' skips.",
            "MIGRES._judge: the entailment judge ('llm' by default, or an NLI model) on the cited passages as "
            "shown, entailed at probability ≥ 0.5; indices are those of the prompt.",
            "disclosed",
            reason="The T5-XXL NLI model is too large for hopkit's machines; the index is the prompt's, which "
                   "is what the model cited (the authors' lookup differs after a skipped passage)."),
        Difference(
            "defaults", "settings",
            "migres.sh: MAX_ITER 5, RELEVANCE 3.0 (BGE logits), TOPK 5, num_bm25 50, k1 0.9, b 0.4, "
            "--gpt_knowledge, --entail_judge, no demonstrations.",
            "MIGRESConfig: max_iterations 5, relevance_threshold 3.0 (calibrated per judge in the migres "
            "experiment), passages_per_leaf_call 5, hits_per_query 50, knowledge_prompting and nli_check on, "
            "few_shot off; bm25-migres k1 0.9, b 0.4. Two defaults differ from the script and have their own "
            "rows: sentence_filter is on (the paper's method; the script passes no --sentRerank) and the "
            "relevance judge is the run's LLM (reranker 'llm', δ calibrated for it).",
            "faithful"),
    ),
)
