"""SearChain compared with its authors' code (xsc1234/Search-in-the-Chain: ``SearChain_w_IR.py`` and
``Server/server.py``)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

FIDELITY = FidelityTable(
    method="searchain",
    reference=Reference(
        paper="Xu et al., Search-in-the-Chain: Interactively Enhancing Large Language Models with Search for "
              "Knowledge-intensive Tasks, WWW 2024",
        repository="xsc1234/Search-in-the-Chain",
        commit="a2e2e515cc88b7e7d542f675793597c50e0d2872",
        files=("SearChain_w_IR.py", "Server/server.py", "Server/retrieval/reader_model.py",
               "ColBERT/process_hotpotqa_wiki.py"),
        note="The released code is the HotpotQA example with retrieval: a chat client (SearChain_w_IR.py) "
             "talking over a socket to the IR server (Server/server.py). The other tasks' prompts (Figures 13, "
             "15, 19), Tracing and the answer's evaluation are in the paper only; those rows compare with the "
             "paper."),
    rows=(
        Difference(
            "prompt", "first-round Chain-of-Query prompt",
            "SearChain_w_IR.py excute: the Figure 16 instruction and two examples as one user message, every "
            "line indented and broken where the paper's PDF breaks it (inside '[Final\\nContent]' too), the "
            "question in the instruction and again, unquoted, as the last line '[Question]: <Q>'; the examples "
            "differ from the figure in a few characters (\"...Spirit If...'s performer leave from? \"\", a "
            "curly ’ in Arthur’s, '[Question]:\"Which' without a space, a blank line between the two) and the "
            "second ends cut off ('So the answer is Arthur’s Magazi').",
            "hopkit.methods.searchain.prompts.first_round_prompt: the paper's Figure 16 text (whole), the "
            "instruction's slot filled with 'given at the end' by default, then '[Question]: \"<Q>\"' and the "
            "cue '[Query 1]:'.",
            "disclosed",
            reason="The figure's text without the code's indentation, line breaks and cut; the question only at "
                   "the end so that every question shares the prompt's prefix (question_in_instruction puts it "
                   "in both places, as the code does); the cue starts the chain for a completion model."),
        Difference(
            "prompt", "feedback prompt",
            "excute: '\\nAccording to this Reference, the answer for \"<q>\" should be \"<g>\",  \\n you can "
            "change (give) your answer based on the Reference and continue constructing the reasoning chain to "
            "give the final answer for [Question]:<Q>\\nReference: <d>' (lines indented); <q>, <g> and <d> keep "
            "the tags of server.py's message ('[Query]:' or '[Unsolved Query]:', '[Answer]:', '[Reference]:'), "
            "and Completion's '[Question]' takes a full-width colon ('：').",
            "prompts.VERIFY_FEEDBACK / COMPLETE_FEEDBACK: Section 3.3's wording, 'According to the Reference, "
            "the answer for <q> should be <g>, you can change (give) your answer and continue constructing the "
            "reasoning chain for [Question]: <Q>. Reference: <d>.'",
            "disclosed",
            reason="hopkit quotes Section 3.3's templates; the code's wording (which the paper's worked "
                   "example, Figure 20, also shows) differs by a few words and carries its socket message's "
                   "tags into the prompt."),
        Difference(
            "prompt", "chat or one growing prompt",
            "A multi-turn chat with gpt-3.5-turbo: each chain is an assistant turn, each feedback a user turn.",
            "hopkit.methods.searchain.conversation.Conversation: one completion prompt that grows by each "
            "chain and feedback (feedback_turn).",
            "disclosed",
            reason="hopkit runs local completion models and reuses the cached prefix; the model sees the same "
                   "history in the same order."),
        Difference(
            "documents", "the passage read and fed back",
            "server.py: the top-1 passage's text; reader_model.get_answer gives it to the DPR reader as the "
            "title field with an empty text; the feedback's Reference is that text. A passage is one 2017 "
            "HotpotQA abstract written 'Title: <title> Text:  <sentences>' (process_hotpotqa_wiki.py).",
            "hopkit.methods.searchain.method.passage_text: '<title>: <text>' for the reader and the Reference.",
            "disclosed",
            reason="hopkit's corpora keep the title apart from the text and every method shows both; the "
                   "authors' passages hold the title too, in their own words."),
        Difference(
            "retrieval", "retriever and top-k",
            "server.py: ColBERTv2 service, k=1 (the top-1 passage).",
            "The configured retrieval pipeline (bm25 in the searchain experiment), SearChainConfig.top_k 1.",
            "disclosed",
            reason="hopkit runs without a ColBERT index; the searchain experiment says BM25 stands in."),
        Difference(
            "retrieval", "which nodes are processed",
            "server.py: every line holding 'Query' and ']:' in order; a query is skipped when the Quora "
            "cross-encoder scores it > 0.5 against a seen one, except [Unsolved Query] lines, which are never "
            "skipped.",
            "hopkit.methods.searchain.feedback.ProcessedQueries: every node in order; skipped when its "
            "normalised text or the similarity judge (WordLlama cosine ≥ 0.9 by default) matches a processed "
            "query, unsolved ones included.",
            "disclosed",
            reason="Algorithm 1 checks every node against M; the code's exemption makes an unsolved query "
                   "asked again get the same completion again. The Quora cross-encoder is not installed here."),
        Difference(
            "retrieval", "Verification and Completion",
            "server.py: an [Unsolved Query] is always fed back with the reader's answer (empty or not); any "
            "other query is fed back when the DPR relevance logit > 1.5 and the normalised reader answer is "
            "not a substring of the normalised answer line (match_or_not), that line being the first later "
            "line holding 'Answer' (it can be a later node's; none gives '', which never matches).",
            "feedback.judge_node: Completion (an unsolved node, the next row) when the reader gives a "
            "non-empty answer; Verification when its confidence > θ and its answer is not among the whole "
            "words of the node's own answer (answers_agree), an empty one for a [Query] without an answer.",
            "disclosed",
            reason="Whole words: a reader answer 'art' does not agree with 'Arthur'; an empty completion is "
                   "not fed back (it would tell the model nothing)."),
        Difference(
            "retrieval", "which nodes are unsolved",
            "server.py: the tag decides: a line holding 'Unsolved' is completed, whatever follows it; every "
            "other query line goes through Verification, an answer after it or not.",
            "SearChainConfig.unsolved_by (default 'tag'): SearChain._process completes the nodes the model "
            "marked [Unsolved Query] (hopkit.parsing.chain reads the tag) and verifies a [Query] without an "
            "answer against an empty answer. The campaign's saved SearChain cells ran with the pinned old value "
            "'answer' (a node without an answer line was completed, an [Unsolved Query] with one verified; "
            "src/hopkit/campaign/saved_run_pins.yaml) and await a rerun: in their traces the two rules differ "
            "on 2 of the 596 nodes IR processed in the ten saved runs, one node of one StrategyQA question in "
            "both searchain and searchain-no-completion (hopkit campaign pin-effects).",
            "faithful"),
        Difference(
            "retrieval", "reading the nodes of a chain",
            "server.py: every line of the reply holding 'Query' and ']:', after [Final Content] too; the query "
            "is the text between the line's first ']' and the next ']' (or the line's end), its first "
            "character dropped; the answer is the next line holding 'Answer'.",
            "hopkit.parsing.chain.parse_chain: the tags in any case and with one-letter slips ('[Querry 2]', "
            "'Query 2:' without brackets), several on a line; an answer joins the open query of its number "
            "(else the last open one); reading ends at [Final Content].",
            "disclosed",
            reason="Small local models write the tags less exactly than gpt-3.5-turbo; a query holding ']' is "
                   "read whole; a line after the final content is not a node of the chain the model "
                   "concluded."),
        Difference(
            "retrieval", "the reader",
            "reader_model.py: DPR reader (dpr_reader_multi, inputs cut at 510 tokens), answer span by "
            "independent start and end argmax (empty when the end comes first), confidence its relevance "
            "logit.",
            "The answer judge of SearChainConfig.reader: by default the run's LLM shown three worked "
            "examples writes a short answer (one line, 32 tokens, asked to copy it from the passage but not "
            "held to a span; an empty answer has confidence -inf) and a yes/no log-odds is its confidence; "
            "{kind: extractive} for a transformers QA model's span.",
            "disclosed",
            reason="No DPR reader can be downloaded here; θ is then calibrated for the LLM reader by "
                   "Appendix A.4.1's sweep (hopkit calibrate searchain)."),
        Difference(
            "loop", "rounds and feedback",
            "excute: while round_count < 5 and the server has not answered 'end'; the server sends the first "
            "node needing feedback and stops traversing.",
            "SearChain.generate: at most max_rounds (5); _traverse stops at the first feedback; no feedback "
            "ends the loop ('finished').",
            "faithful"),
        Difference(
            "loop", "Tracing",
            "Not in the released code: the last reply's [Final Content] stands (the whole chat is printed; "
            "nothing reads an answer). The fifth round's feedback is made and appended, but no call follows it.",
            "SearChain._trace: Section 3.3's Tracing, the model writes the final content from the correct "
            "path's pairs (unquoted, where Figure 21 quotes them), each step marked [n] for its passage; a "
            "last-round correction that was never sent still gives its node's answer on the path.",
            "disclosed",
            reason="The paper's method (Section 3.3, Figure 21); the released example stops before it."),
        Difference(
            "loop", "unreadable chain",
            "A reply with no '[Query' line gets no feedback: the server answers 'end'.",
            "SearChain._write_chain asks once more with a reformat request; still unreadable -> the answer is "
            "read from that text when no earlier round was read, else Tracing runs over the earlier rounds' "
            "path (after the unreadable attempt).",
            "disclosed",
            reason="Small local models drift from the format; one more request keeps a question from ending "
                   "on a malformed first reply."),
        Difference(
            "stops", "what ends a chain",
            "The chat turn's end.",
            "conversation.chain_stop: '\\nFor example:', '\\n\\n\\n' (two blank lines) and (not StrategyQA) "
            "'\\n[Question]'; the final content stops at '\\n'.",
            "disclosed",
            reason="A completion model has no end of turn; the stops end it where a new example would begin."),
        Difference(
            "limits", "tokens and context",
            "No max_tokens; socket reads of 10240 bytes.",
            "chain_max_tokens 400, final_max_tokens 200; a conversation over the context keeps its first prompt "
            "and its latest turn (Conversation.prompt).",
            "disclosed",
            reason="Local models have small contexts; 400 tokens hold a chain of the examples' length."),
        Difference(
            "decoding", "temperature",
            "openai.ChatCompletion.create with no temperature (the API's default, 1.0).",
            "temperature 0.0 for every call.",
            "disclosed",
            reason="Greedy decoding makes runs repeatable; the paper states no sampling setting."),
        Difference(
            "answer", "reading the answer",
            "Not in the released code (no evaluation of SearChain_w_IR.py's output).",
            "hopkit.methods.searchain.tracing.task_answer: what follows 'answer is' in the final content "
            "(yes/no for StrategyQA, SUPPORTS/REFUTES for FEVER, the whole text for ELI5; without 'answer "
            "is', the whole final content); an empty answer after Tracing falls back to the last pair's "
            "answer.",
            "disclosed",
            reason="Nothing to follow in the code; the rule reads the examples' closing 'So the (final) answer "
                   "is ...' sentence."),
        Difference(
            "defaults", "r_max, θ, top-1",
            "5 rounds, relevance logit > 1.5, k=1 (SearChain_w_IR.py, server.py; Section 4.1.3).",
            "SearChainConfig max_rounds 5, confidence_threshold 1.5 (calibrated per reader in the searchain "
            "experiment), top_k 1; rouge_threshold 0.35 (paper only).",
            "faithful"),
    ),
)
