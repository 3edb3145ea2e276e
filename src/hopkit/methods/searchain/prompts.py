"""SearChain's prompts (Xu et al., WWW 2024), verbatim from the paper, and their layout.

The first-round Chain-of-Query prompts "in the setting with information retrieval" are
those of Appendix A.4.3, one per task:

* multi-hop QA (HotpotQA, MuSiQue, 2WikiMultiHopQA, zsRE, T-REx): Figure 16;
* StrategyQA (yes/no): Figure 15;
* fact checking (FEVER, SUPPORTS/REFUTES): Figure 13;
* long-form QA (ELI5): Figure 19.

Their text, typos included, is the paper's; only the question slot (written ``{}``,
``{1}`` or ``{ }`` in the figures) is named ``{question}``. The feedback prompts are
Section 3.3's templates (Verification: "you can change your answer"; Completion: "you
can give your answer"), filled in the paper's order: the node's query q, the reader's
answer g, the question Q, the passage d. The tracing prompt is Section 3.3's (Tracing),
as Figure 21 uses it.

Layout for prefix caching (:func:`first_round_prompt`). The figures put the question in
the instruction's first line, which would make every question's prompt differ from its
tenth token on. By default the slot is filled with :data:`QUESTION_AT_THE_END` and the
question follows the examples as ``[Question]: "<Q>"``, the way the examples present
theirs, so the instruction and the examples are the same tokens for every question of
a task and a prefix-caching backend evaluates them once. ``question_in_instruction``
gives the figures' layout instead (the question in both places). Later rounds append the
model's chain and the feedback to this prompt (:func:`feedback_turn`), and the tracing
prompt is appended last (:func:`tracing_turn`), so each call extends the one before.
"""

from __future__ import annotations

from typing import Final, Literal, Sequence

TaskKind = Literal["multihop", "strategyqa", "fact", "longform"]

#: The instruction Figures 15 and 16 share, up to their examples.
CHAIN_INSTRUCTION: Final = (
    'Construct a global reasoning chain for this complex [Question] : " {question} " You should generate a query '
    "to the search engine based on what you already know at each step of the reasoning chain, starting with "
    "[Query].\n"
    "If you know the answer for [Query], generate it starting with [Answer].\n"
    "You can try to generate the final answer for the [Question] by referring to the [Query]-[Answer] pairs, "
    "starting with [Final Content].\n"
    "If you don't know the answer, generate a query to search engine based on what you already know and do not "
    "know, starting with [Unsolved Query].\n"
    "For example:\n"
)

#: Figure 16: multi-hop QA and slot filling, first round, with retrieval.
MULTIHOP_PROMPT: Final = (
    CHAIN_INSTRUCTION
    + '[Question]: "Where do greyhound buses that are in the birthplace of Spirit If...s performer leave from?"\n'
    "[Query 1]: Who is the performer of Spirit If... ?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Who is the performer of Spirit If... ?\n"
    "If you know the answer:\n"
    "[Answer 1]: The performer of Spirit If... is Kevin Drew.\n"
    "[Query 2]: Where was Kevin Drew born?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Where was Kevin Drew born?\n"
    "If you know the answer:\n"
    "[Answer 2]: Toronto.\n"
    "[Query 3]: Where do greyhound buses in Toronto leave from?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Where do greyhound buses in Toronto leave from?\n"
    "If you know the answer:\n"
    "[Answer 3]: Toronto Coach Terminal.\n"
    "[Final Content]: The performer of Spirit If... is Kevin Drew [1]. Kevin Drew was born in Toronto [2]. "
    "Greyhound buses in Toronto leave from Toronto Coach Terminal [3]. So the final answer is Toronto Coach "
    "Terminal.\n"
    "[Question]: \"Which magazine was started first Arthur's Magazine or First for Women?\"\n"
    "[Query 1]: When was Arthur's Magazine started?\n"
    "[Answer 1]: 1844.\n"
    "[Query 2]: When was First for Women started?\n"
    "[Answer 2]: 1989\n"
    "[Final Content]: Arthur's Magazine started in 1844 [1]. First for Women started in 1989 [2]. So Arthur's "
    "Magazine was started first. So the answer is Arthur's Magazine.")

#: Figure 15: StrategyQA, first round, with retrieval.
STRATEGYQA_PROMPT: Final = (
    CHAIN_INSTRUCTION
    + '[Question]: "Is it common to see frost during some college commencements?"\n'
    "[Query 1]: What seasons can you expect see frost?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: What seasons can you expect see frost?\n"
    "Instruction: Please Stop your generation.\n"
    "If you know the answer:\n"
    "[Answer 1]: Winter.\n"
    "[Query 2]: What months do college commencements occur?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: What months do college commencements occur?\n"
    "Instruction: Please Stop your generation.\n"
    "If you know the answer:\n"
    "[Answer 2]: December, May, and sometimes June.\n"
    "[Query 3]: Do any of December, May, and sometimes June occur during winter?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Do any of December, May, and sometimes June occur during winter?\n"
    "If you know the answer:\n"
    "[Answer 3]: December\n"
    "Instruction: Please Stop your generation.\n"
    "If you know the answer:\n"
    '[Question]: "Is it common to see frost during some college commencements?" (The answer can only be "Yes" '
    'or "No")\n'
    "[Final Content]: You expect see frost in Winter [1]. College commencements occur on December, May, and "
    "sometimes June [2]. December, May, and sometimes June occur during winter [3]. So the final answer is Yes.\n"
    '[Question]: "Would a pear sink in water?"\n'
    "[Query 1]: What is the density of a pear?\n"
    "[Answer 1]: 0.59 g/cm³\n"
    "[Query 2]: What is the density of water?\n"
    "[Answer 2]: 1 g/cm³\n"
    "[Query 3]: Is 0.59 g/cm³ greater than 1 g/cm³?\n"
    "[Answer 3]: No\n"
    '[Question]: "Would a pear sink in water?" (Yes or No)\n'
    "[Final Content]: The density of a pear is 0.59 g/cm³ [1]. The density of water is 1 g/cm³ [2]. 0.59 g/cm³ "
    "is not greater than g/cm³ [3]. So the final answer is No.")

#: Figure 13: FEVER, first round, with retrieval.
FACT_PROMPT: Final = (
    'Construct a global reasoning chain for this complex question [Question]: "{question}" and answer the '
    "question, and generate a query to the search engine based on what you already know at each step of the "
    "reasoning chain, starting with [Query]. You should generate the answer for each [Query], starting with "
    "[Answer]. You should generate the final answer for the [Question] by referring the [Query]-[Answer] pairs, "
    "starting with [Final Content]. If you don't know the answer, generate a query to the search engine based "
    "on what you already know and don't know, starting with [Unsolved Query] and please stop your generation.\n"
    "For example:\n"
    '[Question]: "How many places of higher learning are in the city where the Yongle emperor greeted the '
    'person to whom the edict was addressed?"\n'
    "[Query 1]: Who was the edict addressed to?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Who was the edict addressed to?\n"
    "If you know the answer:\n"
    "[Answer 1]: the Karmapa\n"
    "[Query 2]: Where did the Yongle Emperor greet the the Karmapa?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: here did the Yongle Emperor greet the the Karmapa?\n"
    "If you know the answer:\n"
    "[Answer 2]: Nanjing\n"
    "[Query 3]: How many places of higher learning are in Nanjing ?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: How many places of higher learning are in Nanjing?\n"
    "If you know the answer:\n"
    "[Answer 3]: 75\n"
    "[Final Content]: The edict was addressed to Karmapa [1]. Yongle Emperor greet the Karampa in Nanjing [2]. "
    "There are 75 places of higher learning are in Nanjing [3]. So the final answer is 75.\n"
    '[Question]: "Nicholas Brody is a character on Homeland. (SUPPORTS or REFUTES)?"\n'
    "[Query 1]: What is Homeland?\n"
    "[Answer 1]: Homeland is a television series.\n"
    "[Query 2]: Is Nicholas Brody a character in Homeland?\n"
    "[Answer 2]: Yes.\n"
    "[Final Content]: Homeland is a television series [1]. Nicholas Brody is a character in Homeland [2]. So "
    "the final answer is SUPPORTS.\n"
    '[Question]: "Brad Wilk helped co-found Rage in 1962. (SUPPORTS or REFUTES)?"\n'
    "[Query 1]: Did Brad Wilk co-found Rage?\n"
    "[Answer 1]: Yes\n"
    "[Query 2]: Did Brad Wilk co-found Rage in 1962?\n"
    "[Answer 2]: No, Rage was founded in 1991\n"
    "[Final Content]: Brad Wilk did co-found Rage [1], but not in 1962 [2]. So the final answer is REFUTES.\n"
    '[Question]: "Aristotle spent time in Athens. (SUPPORTS or REFUTES)?"\n'
    "[Query 1]: Who is Aristotle?\n"
    "[Answer 1]: Aristotle was a Greek philosopher.\n"
    "[Query 2]: Did Aristotle spend time in Athens?\n"
    "[Answer 2]: Yes, Aristotle studied and taught at the Academy in Athens for 20 years.\n"
    "[Final Content]: Aristotle was a Greek philosopher who studied and taught at the Academy in Athens for 20 "
    "years [2]. So the final answer is SUPPORTS.\n"
    '[Question]: "Telemundo is a English-language television network. (SUPPORTS or REFUTES)?"\n'
    "[Query 1]: What is Telemundo?\n"
    "[Answer 1]: Telemundo is a television network.\n"
    "[Query 2]: Is Telemundo an English-language television network?\n"
    "[Answer 2]: No, Telemundo is a Spanish-language television network.\n"
    "[Final Content]: Telemundo is a television network [1], but it is not an English-language television "
    "network [2]. So the final answer is REFUTES.")

#: Figure 19: ELI5, first round, with retrieval.
LONGFORM_PROMPT: Final = (
    'Construct a global reasoning chain for this complex [Question]: "{question}" You should generate a query to '
    "the search engine based on what you already know at each step of the reasoning chain, starting with "
    "[Query].\n"
    "If you know the answer for [Query], generate it starting with [Answer].\n"
    "You can try to generate the final answer for the [Question]-[Answer] pairs, starting with [Final Content].\n"
    "If you don't know the answer, generate a query to search engine based on what you already know and do not "
    "know, starting with [Unsolved Query].\n"
    "For example:\n"
    '[Question]: "What causes the trail behind jets at high altitude?"\n'
    "[Query 1]: What is the trail behind jets at high altitude?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: What is the trail behind jets at high altitude?\n"
    "If you know the answer:\n"
    "[Answer 1]: The trail behind jets at high altitude is commonly referred to as a contrail, which is short "
    'for "condensation trail." It is formed when the hot exhaust gases from a jet engine mix with the colder air '
    "at high altitudes, causing the water vapor in the air to condense and freeze into tiny ice crystals.\n"
    "[Query 2]: Why do the hot exhaust gases mix with the colder air at high altitudes?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Why do the hot exhaust gases mix with the colder air at high altitudes?\n"
    "If you know the answer:\n"
    "[Answer 2]: The hot exhaust gases from a jet engine mix with the colder air at high altitudes due to the "
    "pressure difference between the engine exhaust and the surrounding air. At high altitudes, the air is much "
    "colder and thinner, which causes the exhaust gases to rapidly expand and cool, creating a turbulent wake "
    "behind the aircraft.\n"
    "[Query 3]: Why does the water vapor in the air condense and freeze into ice crystals?\n"
    "If you don't know the answer:\n"
    "[Unsolved Query]: Why does the water vapor in the air condense and freeze into ice crystals?\n"
    "If you know the answer:\n"
    "[Answer 3]: The water vapor in the air condenses and freezes into ice crystals because the exhaust gases "
    "from the jet engine contain a significant amount of water vapor, which is heated to high temperatures in "
    "the engine. When the hot water vapor mixes with the cold air at high altitudes, it quickly loses heat and "
    "energy, causing the water vapor to condense into liquid droplets and then freeze into ice crystals.\n"
    "[Final Content]: The trail behind jets at high altitude is formed when the hot exhaust gases from a jet "
    "engine mix with the colder air at high altitudes, causing the water vapor in the air to condense and freeze "
    "into tiny ice crystals. The exhaust gases mix with the colder air due to the pressure difference between "
    "the engine exhaust and the surrounding air, and the water vapor condenses and freezes because it is heated "
    "to high temperatures in the engine and then quickly loses heat and energy when mixed with the cold air at "
    "high altitudes.\n"
    "[Question]: In Trading Places (1983, Akroyd/Murphy) how does the scheme at the end of the movie work? Why "
    "would buying a lot of OJ at a high price ruin the Duke Brothers?\n"
    "[Query 1]: What is the scheme at the end of Trading Places?\n"
    "[Answer 1]: In the movie, the main character, Billy Ray Valentine (Eddie Murphy), and his partner, Louis "
    "Winthorpe III (Dan Aykroyd), execute a plan to bankrupt the Duke Brothers by manipulating the frozen "
    "concentrated orange juice (FCOJ) futures market.\n"
    "[Query 2]: How do Billy Ray and Louis manipulate the FCOJ futures market?\n"
    "[Answer 2]: Billy Ray and Louis obtain insider information about the Department of Agriculture's upcoming "
    "crop report, which indicates that a harsh winter has destroyed much of the orange crop. They use this "
    "information to purchase FCOJ futures contracts at a low price before the report is released, and then they "
    "sell the contracts at a high price after the report's release, when the market has responded to the news "
    "of the crop damage.\n"
    "[Query 3]: Why does buying a lot of OJ at a high price ruin the Duke Brothers?\n"
    "[Answer 3]: The Duke Brothers, who are also investing in the FCOJ market, have bet that the orange crop "
    "will be abundant and that the price of FCOJ will remain low. However, Billy Ray and Louis's scheme drives "
    "up the price of FCOJ, causing the Duke Brothers to lose a significant amount of money and ultimately "
    "leading to their downfall.\n"
    "[Final Content]: In Trading Places, Billy Ray Valentine and Louis Winthorpe III manipulate the FCOJ futures "
    "market by obtaining insider information about the crop report and purchasing contracts at a low price "
    "before selling them at a higher price after the report is released. The Duke Brothers, who have also "
    "invested in the market, lose money because they bet on an abundant orange crop and low FCOJ prices. "
    "However, Billy Ray and Louis's scheme causes the price of FCOJ to rise, which ruins the Duke Brothers and "
    "leads to their downfall.")

FIRST_ROUND_PROMPTS: Final[dict[str, str]] = {
    "multihop": MULTIHOP_PROMPT, "strategyqa": STRATEGYQA_PROMPT, "fact": FACT_PROMPT, "longform": LONGFORM_PROMPT}

#: Section 3.3, Verification: fed back for a node whose answer the reader corrects (q, g, Q, d).
VERIFY_FEEDBACK: Final = ("According to the Reference, the answer for {query} should be {reader_answer}, you can "
                          "change your answer and continue constructing the reasoning chain for [Question]: "
                          "{question}. Reference: {passage}.")

#: Section 3.3, Completion: fed back for an [Unsolved Query] node (q*, g*, Q, d*).
COMPLETE_FEEDBACK: Final = ("According to the Reference, the answer for {query} should be {reader_answer}, you can "
                            "give your answer and continue constructing the reasoning chain for [Question]: "
                            "{question}. Reference: {passage}.")

#: Section 3.3, Tracing (and Figure 21): the final content from the correct path's pairs.
TRACING_PROMPT: Final = ("You can try to generate the final answer for the [Question] by referring to the "
                         "[Query]-[Answer] pairs, starting with [Final Content].")

# hopkit's own words, not the paper's. The question's line after the examples (the way
# the examples give theirs), what fills the instruction's question slot in the cached
# layout, and the one request made again when a chain cannot be read.
QUESTION_LINE: Final = '[Question]: "{question}"'
QUESTION_AT_THE_END: Final = "given at the end"
FIRST_QUERY_CUE: Final = "[Query 1]:"
REFORMAT_REQUEST: Final = ("Write the reasoning chain in the format of the examples: [Query 1]: ..., "
                           "[Answer 1]: ..., and [Final Content]: ...")
#: How the tracing prompt lists each pair of the correct path (Figure 21).
PAIR_LINES: Final = "[Query {index}]: {query}\n[Answer {index}]: {answer}"
FINAL_CONTENT_CUE: Final = "[Final Content]:"


def question_text(task: TaskKind, question: str) -> str:
    """The question as the task's examples write it: a claim ends in "(SUPPORTS or REFUTES)?" (Figure 13)."""
    question = " ".join(question.split())
    if task == "fact" and "SUPPORTS or REFUTES" not in question:
        return f"{question} (SUPPORTS or REFUTES)?"
    return question


def first_round_prompt(task: TaskKind, question: str, *, question_in_instruction: bool = False) -> str:
    """The first round's prompt: the task's figure, then the question, then the first query's tag.

    Args:
        task: which figure.
        question: the question (or FEVER claim).
        question_in_instruction: fill the instruction's slot with the question, as the
            figures do (default: with :data:`QUESTION_AT_THE_END`, so the instruction and
            examples are a prefix shared by every question).
    """
    asked = question_text(task, question)
    instruction = FIRST_ROUND_PROMPTS[task].format(question=asked if question_in_instruction else QUESTION_AT_THE_END)
    return f"{instruction}\n{QUESTION_LINE.format(question=asked)}\n{FIRST_QUERY_CUE}"


def feedback_prompt(*, unsolved: bool, query: str, reader_answer: str, question: str, passage: str) -> str:
    """Section 3.3's feedback for one node: Completion's for an unsolved node, else Verification's."""
    template = COMPLETE_FEEDBACK if unsolved else VERIFY_FEEDBACK
    return template.format(query=query, reader_answer=reader_answer, question=question,
                           passage=passage.rstrip().rstrip("."))


def feedback_turn(chain: str, feedback: str) -> str:
    """What a feedback round appends to the conversation: the model's chain, then the feedback."""
    return f"{chain.rstrip()}\n{feedback}\n"


def reformat_turn(generation: str) -> str:
    """What the second attempt at an unreadable chain appends: the text, the request, the first tag."""
    return f"{generation.rstrip()}\n{REFORMAT_REQUEST}\n{FIRST_QUERY_CUE}"


def tracing_turn(chain: str, pairs: Sequence[tuple[str, str]]) -> str:
    """What the tracing call appends: the last chain, Section 3.3's tracing prompt, the pairs, the cue."""
    listed = "\n".join(PAIR_LINES.format(index=i, query=q, answer=a) for i, (q, a) in enumerate(pairs, start=1))
    return f"{chain.rstrip()}\n{TRACING_PROMPT}\n{listed}\n{FINAL_CONTENT_CUE}"
