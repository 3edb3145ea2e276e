"""ReAct as Shao et al. (2023) ran it for the MIGRES paper's Table 3, compared with their paper: they
released no code, and their ReAct is not Yao et al.'s prompt (that one is ``react``'s table)."""

from __future__ import annotations

from hopkit.methods.fidelity import Difference, FidelityTable, Reference

FIDELITY = FidelityTable(
    method="react-shao",
    reference=Reference(
        paper="Shao et al., Enhancing Retrieval-Augmented Large Language Models with Iterative "
              "Retrieval-Generation Synergy, Findings of EMNLP 2023 (arXiv 2305.15294), their ReAct baseline "
              "(Table 2, Appendix B Table 10), as the MIGRES paper's Table 3 repeats it",
        note="No code by Shao et al. is public (no repository is linked from the paper's pages or found in the "
             "code index). Only the paper's abstract could be read here, not its Appendix B, so the prompt "
             "and settings of their ReAct are compared as hopkit's docs (docs/methods/react-shao.md) and the "
             "MIGRES paper (seed 002: Section 4.2's description of ReAct, Table 4's counts: 2.9-3.0 calls and "
             "14.3-15.0 under # Passages) give them; rows say where that could not be checked."),
    rows=(
        Difference(
            "prompt", "demonstrations",
            "Shao et al.'s ReAct prompt (Appendix B, Table 10), in Self-Ask's markers per hopkit's docs; its "
            "text could not be read here.",
            "hopkit.methods.react_shao.method.ReActShao inherits hopkit.methods.self_ask.prompts: Press et "
            "al.'s four Self-Ask demonstrations (with the notebook's trailing spaces since issue 71; option "
            "trailing_spaces, pinned false for the saved react-shao cells) and the question line 'Question: "
            "q\\nAre follow up questions needed here:'.",
            "disclosed",
            reason="Table 10's text is not at hand; with the Self-Ask markers Shao et al. use, the two methods "
                   "differ only in where paragraphs go (docs/methods/react-shao.md)."),
        Difference(
            "documents", "where retrieved paragraphs go",
            "MIGRES Section 4.2: ReAct's observation concatenates the knowledge retrieved for its action, in "
            "the trajectory after it (Self-Ask instead prepends it to the question).",
            "ReActShao.observation: the follow-up's top-k paragraphs as 'Wikipedia Title: T\\ntext' blocks on "
            "the lines after 'Follow up: f', then '\\nIntermediate answer:'; ReActShao.before_question: only the "
            "question's paragraphs before the question.",
            "faithful"),
        Difference(
            "retrieval", "queries and top-k",
            "Each action (follow-up) is a query, top-5 (hopkit's docs); MIGRES Table 4: about one retrieval per "
            "call (2.9-3.0 calls, 14.3-15.0 passages).",
            "SelfAsk._retrieve through ReActShao: top-k (5) for the question before the first generation "
            "(retrieve_question) and for each follow-up.",
            "disclosed",
            reason="Whether Shao et al. retrieve with the question first is not in what could be read; Table 4's "
                   "one retrieval per call is what a first retrieval with the question gives."),
        Difference(
            "loop", "thought, action, observation",
            "MIGRES Section 4.2: reasoning, an action that is a search query or the answer, and an "
            "observation, repeated until the answer.",
            "hopkit.methods.self_ask.method.SelfAsk.generate: a generation ends with 'Follow up: f' (the "
            "action), its paragraphs are the observation and the model writes the intermediate answer; it "
            "ends when no follow-up is asked.",
            "faithful"),
        Difference(
            "stops", "end of a generation",
            "Not in what could be read of the paper.",
            "hopkit.methods.self_ask.prompts.STOP: '\\nIntermediate answer:', '\\nIntermediate Answer:', "
            "'\\nQuestion:'; the forced final answer stops at '\\n'.",
            "disclosed",
            reason="The stops of the Self-Ask markers the demonstrations use (see the self-ask table)."),
        Difference(
            "limits", "actions and context",
            "At most 5 retrievals (hopkit's docs; not re-checked here).",
            "SelfAskConfig.max_follow_ups = 5, then the loop writes 'So the final answer is:'; on a full context "
            "the question's paragraphs are left out first, oldest first; a transcript too long even then fails "
            "the question (hopkit.methods.prompting.check_fits).",
            "disclosed",
            reason="The observations are the method's evidence and stay; a bounded context needs a rule."),
        Difference(
            "decoding", "temperature and budget",
            "Not in what could be read of the paper.",
            "temperature 0.0, max_tokens 100 (ReActShaoConfig, inherited from SelfAskConfig).",
            "disclosed",
            reason="Greedy decoding keeps runs repeatable; the budget is Self-Ask's."),
        Difference(
            "answer", "final answer",
            "Not in what could be read of the paper (hopkit's docs: Self-Ask's markers).",
            "hopkit.methods.self_ask.transcript.final_answer: after the last 'So the final answer is:'; when "
            "absent, the loop writes the line and the model completes it to '\\n'.",
            "disclosed",
            reason="The answer line of the Self-Ask demonstrations the prompt uses."),
        Difference(
            "defaults", "k and the action cap",
            "Top-5, at most 5 (hopkit's docs); consistent with MIGRES Table 4's counts.",
            "ReActShaoConfig: k = 5, max_follow_ups = 5, retrieve_question = True, max_tokens = 100 "
            "(experiments.yaml the same).",
            "faithful"),
    ),
)
