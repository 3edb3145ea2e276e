"""ReAct (Yao et al., 2023) compared with the authors' HotpotQA code (ysymyth/ReAct: ``hotpotqa.ipynb``'s
``llm`` and ``webthink``, ``wikienv.py``, ``wrappers.py``, ``prompts/prompts_naive.json``)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

_REACT = "6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9"

FIDELITY = FidelityTable(
    method="react",
    reference=Reference(
        paper="Yao et al., ReAct: Synergizing Reasoning and Acting in Language Models, ICLR 2023 (HotpotQA)",
        repository="ysymyth/ReAct",
        commit=_REACT,
        files=("hotpotqa.ipynb", "wikienv.py", "wrappers.py", "prompts/prompts_naive.json"),
        note="hotpotqa.ipynb's code cells 1 (llm), 4 (instruction, webthink) and 5 (the run: 500 questions of "
             "HotpotQA dev drawn with random.Random(233), where hopkit answers the benchmark's sample); "
             "prompts_naive.json was last changed in 19c6bae and has no other version in the history."),
    rows=(
        Difference(
            "prompt", "instruction",
            "hotpotqa.ipynb cell 4: the instruction string ('Solve a question answering task with interleaving "
            "Thought, Action, Observation steps. ...', a space before its first newline), then the examples.",
            "hopkit.methods.react.prompts.INSTRUCTION: identical, character for character.",
            "faithful"),
        Difference(
            "prompt", "the six trajectories",
            "prompts_naive.json key 'webthink_simple6': the first trajectory's first observation reads "
            "'Observation 1: The Colorado orogeny was ...' (no '1T' anywhere in the repository's history).",
            "hopkit/methods/react/webthink_simple6.txt: the key as json.load decodes it, character for "
            "character (its mis-decoded dashes are the authors'); the stray 'T' of hopkit's earlier copy "
            "('Observation 1T:') is gone (issue 71). Option stray_t, default false; stray_t true puts the 'T' "
            "back: the campaign's saved react cells ran with it (pinned in "
            "src/hopkit/campaign/saved_run_pins.yaml) and await a rerun.",
            "faithful"),
        Difference(
            "prompt", "the test question",
            "webthink: prompt += env.reset() + '\\n', where HotPotQAWrapper.reset returns 'Question: <q>' "
            "(wrappers.py).",
            "hopkit.methods.react.prompts.prompt_start: 'Question: <q>\\n' after the trajectories (whitespace "
            "inside q collapsed, which changes none of the 400 questions hopkit's loaders give on the four "
            "samples).",
            "faithful"),
        Difference(
            "documents", "Search observation",
            "wikienv.py WikiEnv.search_step: the Wikipedia page of the exact title, get_page_obs's first 5 "
            "sentences (split at '. ', a period added); a query with no title match gives 'Could not find x. "
            "Similar: [...]' (the first 5 result titles as a Python list); webthink strips literal "
            "backslash-n from every observation.",
            "hopkit.methods.react.environment.PassageEnvironment.search: the first 5 sentences of the top-k "
            "(1) retrieved paragraphs, split the same way, without the paragraph's title; 'Could not find x.' "
            "only when nothing is retrieved; no backslash-n stripping.",
            "disclosed",
            reason="hopkit runs every method on the benchmark's own corpus through a passage retriever, not the "
                   "live Wikipedia API (docs/methods/react.md)."),
        Difference(
            "documents", "a paragraph's last sentence",
            "get_page_obs / construct_lookup_list: a sentence that already ends with '.' gets another, so a "
            "paragraph's last sentence reads '..'.",
            "hopkit.methods.react.environment.sentences_of: the doubled period is cut to one.",
            "disclosed",
            reason="The double period is an artefact of the split, not text of the page; the docs page lists "
                   "it."),
        Difference(
            "documents", "Lookup and its end",
            "WikiEnv.step lookup: sentences of the current page holding the keyword (case-insensitive), "
            "'(Result n / N) <sentence>', reset on a new keyword or a successful search; when none is left the "
            "observation "
            "is 'No more results.\\n', so the trajectory gets a blank line after it.",
            "PassageEnvironment.lookup: the same over the last search's paragraphs, and 'No more results.\\n' "
            "(environment.NO_MORE_RESULTS), so the trajectory gets the blank line (option lookup_end_newline, "
            "default true, issue 71). lookup_end_newline false (no newline) is hopkit's before the fix: the "
            "campaign's saved react cells ran with it (pinned) and await a rerun.",
            "faithful"),
        Difference(
            "documents", "what Lookup searches",
            "construct_lookup_list over the whole article (every <p> and <ul> of more than 2 words), so a "
            "Lookup finds sentences past the 5 shown; a failed search ('Could not find') keeps the previous "
            "page and its lookup state.",
            "PassageEnvironment.lookup over the sentences of the last search's k (1) paragraphs, most of which "
            "the Search observation showed; a search that retrieves nothing empties the page.",
            "disclosed",
            reason="The page is the retrieved paragraph (a HotpotQA abstract on the samples), not a live "
                   "Wikipedia article; as for Search, every method reads the benchmark's own corpus."),
        Difference(
            "retrieval", "what Search queries",
            "search_step: Wikipedia's search URL with the entity as written; a disambiguation page is searched "
            "again as '[entity]'.",
            "PassageEnvironment.search: retriever.retrieve(entity, k) with k = 1 by default (BM25 in "
            "experiments.yaml); no disambiguation step.",
            "disclosed",
            reason="A passage retriever in place of the Wikipedia API (docs/methods/react.md: a retriever never "
                   "answers 'Could not find' for a near miss)."),
        Difference(
            "loop", "turns and the missing action",
            "webthink: for i in 1..7, LLM(prompt + 'Thought i:'); split at exactly '\\nAction i: ' (a failure "
            "when it is absent or appears twice) and then ask for the action alone; step the environment; "
            "append 'Thought i: ...\\nAction i: ...\\nObservation i: ...\\n'; break when done.",
            "hopkit.methods.react.method.ReAct.generate and actions.split_thought_action: the same turns and "
            "re-prompt, the split tolerant of whitespace (line breaks included) around 'Action i:' and taking "
            "the first occurrence, the action cut to its first line; an empty re-asked action observes "
            "'Invalid action: ' (the authors' code raises IndexError on it and stops the run).",
            "disclosed",
            reason="Model output is untrusted; the tolerant split is stated in docs/methods/react.md."),
        Difference(
            "loop", "reading an action",
            "webthink lowers the action's first letter; WikiEnv.step accepts 'search[', 'lookup[', 'finish[' "
            "only when the line ends with ']', else 'Invalid action: <action, first letter lowered>'.",
            "hopkit.methods.react.actions.parse_action: any case, spaces before '[' and a final period allowed; "
            "an action followed by more text on its line is read up to its first ']' and the rest dropped; an "
            "invalid one is echoed as written. 'think[...]' (wikienv.py answers 'Nice thought.') is not an "
            "action here: it observes 'Invalid action: ...'; neither the instruction nor the six trajectories "
            "offer it.",
            "disclosed",
            reason="docs/methods/react.md: with a small model most invalid actions were a well-formed Finish "
                   "followed by more text, which the authors' environment would count as no answer."),
        Difference(
            "stops", "stop sequences",
            "webthink: stop ['\\nObservation i:'] for the thought and action, ['\\n'] for the re-asked action.",
            "ReAct._think: the same two stops.",
            "faithful"),
        Difference(
            "limits", "token budget and context",
            "llm(): max_tokens = 100 per call; nothing handles a prompt longer than text-davinci-002's context "
            "(the API would refuse it).",
            "ReActConfig.max_tokens = 100; hopkit.methods.prompting.fitted fails the question with "
            "ContextFullError when a prompt does not fit.",
            "disclosed",
            reason="The budget is the authors'; a prompt that does not fit is a failed question with its "
                   "reason, as for every method."),
        Difference(
            "decoding", "sampling",
            "llm(): text-davinci-002, temperature 0, top_p 1, no penalties.",
            "ReAct._think: temperature 0.0 for both calls (top_p and penalties do not act at temperature 0); "
            "the model is the run's (Qwen2.5-Coder-1.5B in the saved cells), not text-davinci-002.",
            "disclosed",
            reason="hopkit runs local models; the decoding is the authors'."),
        Difference(
            "answer", "the answer",
            "WikiEnv.step finish: the text between 'finish[' and ']'; after 7 turns without it, "
            "step(env, 'finish[]') gives an empty answer; HotPotQAWrapper scores EM and F1 after normalising.",
            "ReAct.generate: Finish's argument, its spaces collapsed by actions.parse_action, then "
            "hopkit.methods.agent_turn.agent_answer (agent markup removed with its content, '' for an answer "
            "with no letter or digit); after 7 turns the empty answer ('finish[]'); an empty answer is stored "
            "as '' with an EmptyAnswerError, scored 0 as the authors' empty answer is.",
            "faithful"),
        Difference(
            "answer", "Finish's observation",
            "HotPotQAWrapper.step: 'Episode finished, reward = r\\n'.",
            "ReAct.generate: 'Episode finished'.",
            "cosmetic"),
        Difference(
            "defaults", "turns, paragraphs, budget",
            "7 turns (range(1, 8)), the found page's first 5 sentences, 100 tokens.",
            "ReActConfig: max_turns = 7, k = 1, max_tokens = 100 (experiments.yaml the same).",
            "faithful"),
    ),
)
