"""Search-o1 compared with its authors' code (sunnynexus/Search-o1: ``scripts/run_search_o1.py``,
``scripts/prompts.py``, ``scripts/evaluate.py``, ``scripts/bing_search.py``)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_COMMIT = "6ced48f5d97ca277a5689f5c135926a39ff903eb"

FIDELITY = FidelityTable(
    method="search-o1",
    reference=Reference(
        paper="Li et al., Search-o1: Agentic Search-Enhanced Large Reasoning Models, arXiv 2501.05366 (2025)",
        repository="sunnynexus/Search-o1",
        commit=_COMMIT,
        files=("scripts/run_search_o1.py", "scripts/prompts.py", "scripts/evaluate.py", "scripts/bing_search.py"),
        note="Line numbers are those of scripts/run_search_o1.py at this commit. The authors batch all "
             "questions through vLLM; hopkit runs one question at a time, which changes no prompt."),
    rows=(
        # prompt
        Difference(
            "prompt", "instruction and task (multi-hop)",
            "prompts.py get_multiqa_search_o1_instruction(MAX_SEARCH_LIMIT) + get_task_instruction_openqa "
            "(the non-QwQ wording) as one user message (run_search_o1.py l. 332-370).",
            "search_o1/prompts.py multiqa_instruction + openqa_task: equal strings (checked by running the "
            "authors' prompts.py and comparing).",
            "faithful"),
        Difference(
            "prompt", "instruction on single-hop datasets",
            "run_search_o1.py l. 199-204 and 332-336: NQ and TriviaQA get get_singleqa_search_o1_instruction "
            "(its own one-hop example) and MAX_SEARCH_LIMIT 5 (turns stay 15, top_k 10, max_doc_len 3000).",
            "search_o1.method.for_dataset: the dataset the run answers decides single_hop; then "
            "prompts.singleqa_instruction (equal string, checked against the authors' prompts.py) and "
            "single_hop_searches 5, turns 15; the option single_hop overrides the dataset's kind.",
            "faithful"),
        Difference(
            "prompt", "which datasets are single-hop",
            "Only the names 'nq' and 'triviaqa' (l. 199, 333); the command line accepts no other dataset "
            "(l. 53's choices), and one in neither list would fail at l. 368 (no instruction is set); the "
            "authors do not run PopQA.",
            "The names of adaptive_rag.labels.SINGLE_HOP (nq, natural_questions, triviaqa, trivia, squad, "
            "popqa), in any case; any other dataset, and a free-text question, is multi-hop.",
            "disclosed",
            reason="PopQA (and SQuAD) are single-hop QA like NQ and TriviaQA; hopkit gives them the authors' "
                   "single-hop settings and keeps one list of single-hop datasets (Adaptive-RAG's)."),
        Difference(
            "prompt", "QwQ's task wording",
            "get_task_instruction_openqa(model_name='qwq') drops 'You should think step by step' when the "
            "model path contains 'qwq' (l. 337-340).",
            "openqa_task: always the non-QwQ wording.",
            "disclosed",
            reason="hopkit's runs use instruct models, for which the authors use this wording; a QwQ run in "
                   "hopkit would get the other one."),
        Difference(
            "prompt", "the reasoning as the assistant's turn",
            "apply_chat_template(user message, add_generation_prompt=True), then each generation and result "
            "appended to that string (l. 368-370, 525, 669).",
            "agent_turn.continue_turn(chat=True): the user turn, and the reasoning so far as a last assistant "
            "message the backend continues: llama.cpp renders the turns with the generation prompt and appends "
            "the reasoning verbatim (the authors' string); an OpenAI-compatible server gets "
            "continue_final_message, the same string as far as its chat template writes the assistant text "
            "unchanged.",
            "faithful"),
        Difference(
            "prompt", "a backend without a chat template",
            "Always the model's chat template.",
            "continue_turn falls back to the instruction and reasoning as one plain prompt.",
            "disclosed",
            reason="Backends without a chat template cannot do otherwise (docs/methods/search-o1.md)."),
        Difference(
            "prompt", "Reason-in-Documents prompt",
            "prompts.py get_webpage_to_reasonchain_instruction(prev_reasoning, search_query, documents) as a "
            "user message through the chat template (l. 286-302).",
            "prompts.reason_in_documents_instruction via continue_turn(chat=True): equal string (checked).",
            "faithful"),
        Difference(
            "prompt", "the reasoning shown to Reason-in-Documents",
            "l. 565-583: '\\n\\n' -> '\\n', each line 'Step n: ...'; past five steps keep the first, the last "
            "four and those with a search or its result, '...' for the rest.",
            "reading.reasoning_for_documents: the same steps.",
            "faithful"),
        # documents
        Difference(
            "documents", "a document's layout",
            "l. 634-648: '**Web Page i:**\\n' + json.dumps(doc_info, indent=2), doc_info holding id, title, "
            "url, site_name, date, snippet and context (bing_search.extract_relevant_info).",
            "SearchO1._documents: the same heading and JSON with id, title and context (SearchO1Config."
            "document_id, default true; the campaign's saved search-o1 cells ran with the pinned old value, "
            "title and context only, src/hopkit/campaign/saved_run_pins.yaml, and await a rerun).",
            "disclosed",
            reason="A corpus paragraph has no url, site, date or search snippet (docs/methods/search-o1.md)."),
        Difference(
            "documents", "a document's length",
            "bing_search.extract_snippet_with_context(context_chars=max_doc_len 3000): the sentence best "
            "matching the snippet with 3,000 characters either side, else the page's first 6,000.",
            "SearchO1._documents: the paragraph's first max_doc_chars (3,000) characters.",
            "disclosed",
            reason="A paragraph has no snippet to centre on; corpus paragraphs are far shorter than the cut."),
        Difference(
            "documents", "how the information enters the reasoning",
            "l. 666-671: '\\n\\n<|begin_search_result|>' + extracted info + '<|end_search_result|>\\n\\n'.",
            "SearchO1.generate: the same string.",
            "faithful"),
        # retrieval
        Difference(
            "retrieval", "the search query",
            "l. 529-532: extract_between (the last non-greedy match between the markers, stripped), searched "
            "only when the output ends with '<|end_search_query|>'.",
            "reading.last_query: the same, except that an opening marker inside the match becomes a space.",
            "disclosed",
            reason="'<b> a <b> q <e>' searches 'a <|begin_search_query|> q' in the authors' code; hopkit "
                   "keeps markup out of the query. Only nested markers differ."),
        Difference(
            "retrieval", "search engine and top-k",
            "Bing Web Search, top_k 10 results, pages fetched with Jina (l. 535-631).",
            "The run's retriever (BM25 by default), k 10.",
            "disclosed",
            reason="hopkit retrieves from a local corpus; the number of documents is the authors'."),
        Difference(
            "retrieval", "search limit and repeated queries",
            "l. 533-608: search when count < MAX_SEARCH_LIMIT and the query is new; else the limit message, "
            "else the 'You have searched this query' message.",
            "SearchO1.generate: the same order and messages (prompts.LIMIT_EXCEEDED, ALREADY_SEARCHED).",
            "faithful"),
        # loop
        Difference(
            "loop", "turns and the end of the loop",
            "l. 496-685: generate; a generation not ending with a query finishes the question; otherwise "
            "search and Reason-in-Documents; stop after MAX_TURN (15) turns.",
            "SearchO1.generate: the same loop over max_turns 15.",
            "faithful"),
        Difference(
            "loop", "a generation stopped with a query still open",
            "vLLM keeps the stop string (include_stop_str_in_output), so a generation ending at EOS with an "
            "open query does not end with the closing marker and finishes the question.",
            "SearchO1._reason: a generation whose finish is not 'length' and that leaves a query open gets "
            "the closing marker and is searched (backends cut stop strings off).",
            "disclosed",
            reason="hopkit's backends remove the stop string, so an open query at the stop is taken for one "
                   "closed by it (docs/methods/search-o1.md)."),
        Difference(
            "loop", "a generation cut by its token budget",
            "l. 532, 610-612: an output not ending with the closing marker finishes the question, whatever "
            "ended it (8,192 tokens for models other than QwQ).",
            "SearchO1._reason: a generation that ran to max_tokens (finish 'length') gets no closing marker, "
            "so last_query finds none and the loop ends; the answer is then read or forced (the answer rows). "
            "With 1,024 tokens (the limits row) this ending is more common than at the authors' budget.",
            "faithful"),
        # stops
        Difference(
            "stops", "stop strings",
            "run_generation (l. 397-409): stop at '<|end_search_query|>' or the EOS token, stop string kept; "
            "Reason-in-Documents has no stop string.",
            "SearchO1._reason: stop ('<|end_search_query|>',), marker written back; _condense: no stop.",
            "faithful"),
        # limits
        Difference(
            "limits", "tokens per generation",
            "l. 388-394: max_tokens 8,192 for models other than QwQ (QwQ 20,480 or 32,768), for the "
            "reasoning and for Reason-in-Documents (l. 662).",
            "SearchO1Config.max_tokens 1,024 and condense_tokens 512.",
            "disclosed",
            reason="8,192 tokens is more than a small model's whole context (docs/methods/search-o1.md)."),
        Difference(
            "limits", "context overflow",
            "Not handled (vLLM fails or truncates at the model's length).",
            "A turn or Reason-in-Documents call that would not fit ends the loop (context_full) and the "
            "answer is forced.",
            "disclosed",
            reason="hopkit never sends a prompt that leaves no room for its generation."),
        Difference(
            "limits", "searches and turns (multi-hop)",
            "l. 199-205: HotpotQA, MuSiQue, Bamboogle, 2Wiki: MAX_SEARCH_LIMIT 10, MAX_TURN 15, top_k 10, "
            "max_doc_len 3000.",
            "SearchO1Config defaults and experiments.yaml: 10, 15, 10, 3000.",
            "faithful"),
        # decoding
        Difference(
            "decoding", "sampling",
            "Reasoning: temperature 0.7, top_p 0.8, top_k 20, repetition_penalty 1.0 for non-QwQ models "
            "(1.05 for QwQ); Reason-in-Documents: 0.7, 0.8, 20, 1.05 (l. 124-150, 211-212, 304-312).",
            "Greedy (continue_turn, temperature 0.0) for both.",
            "disclosed",
            reason="Greedy makes a run repeat (docs/methods/search-o1.md)."),
        # answer
        Difference(
            "answer", "reading the answer",
            "evaluate.py extract_answer(mode='qa'): the last \\boxed{...} (greedy, one line), a \\text{...} "
            "inside unwrapped, '()' stripped.",
            "reading.boxed_answer: the same regexes, the text stripped; an empty box ('\\boxed{}', "
            "'\\boxed{()}') counts as no box and the answer is forced (the next row); then "
            "agent_turn.agent_answer removes agent markup with its content and gives '' for an answer with no "
            "letter or digit (a failed question, scored 0 as the authors' empty answer is).",
            "disclosed",
            reason="The authors score an empty box as it is (0); hopkit asks for the answer instead, as for "
                   "a missing box, and reads past the tags a small model writes inside the box "
                   "(docs/methods/search-o1.md)."),
        Difference(
            "answer", "no boxed answer",
            "extract_answer returns '' and the question scores 0 (evaluate.py evaluate_predictions).",
            "SearchO1._forced_answer: the loop writes '\\n\\n**Final Answer**\\n\\n\\boxed{', the model "
            "completes it to '}' (answer_tokens 32), read by agent_answer then clean_direct_answer (first line, "
            "'answer is:' and a final period removed); the extract step's forced says why.",
            "disclosed",
            reason="A small model often reasons without boxing; the forced answer is recorded as such "
                   "(docs/methods/search-o1.md)."),
        Difference(
            "answer", "reading Reason-in-Documents",
            "evaluate.py extract_answer(mode='infogen'): the text after '\\n**Final Information**' (newlines "
            "removed), else after '\\n**Modified Reasoning Steps**', else 'No helpful information found.'.",
            "reading.found_information: the same, with a newline put before the analysis so the marker may "
            "also open it.",
            "disclosed",
            reason="An instruct model starts its reply with the marker; the authors' reasoning models think "
                   "first (docs/methods/search-o1.md)."),
        # defaults
        Difference(
            "defaults", "defaults and datasets",
            "parse_args defaults (l. 73-99): max_search_limit 10, max_turn 15, top_k 10, max_doc_len 3000; "
            "the paper has no StrategyQA.",
            "SearchO1Config defaults: k 10, max_searches 10, max_turns 15, max_doc_chars 3000, "
            "single_hop_searches 5; StrategyQA skipped in experiments.yaml (single-hop settings: the prompt "
            "rows).",
            "faithful"),
    ),
)
