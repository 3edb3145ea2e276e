"""FlashRAG's reasoning rows (Search-R1, R1-Searcher, AutoRefine), the result sheet's "Reasoning Method" tab,
each with its own checkpoint: :mod:`hopkit.methods.flashrag_benchmark` says where and in which setting
they were read. hopkit runs them as the search agent's templates, prompted, on the model it is given.

FlashRAG's README shows R1-Searcher with other numbers than the sheet's (NQ EM 36.9, TriviaQA EM 61.6,
PopQA EM 42.0, HotpotQA F1 49.0, 2Wiki F1 49.1, MuSiQue F1 24.7, Bamboogle F1 57.7: from TriviaQA on,
the sheet's SimpleDeepSearcher row); the sheet's are declared here.

The Search-R1 paper's own rows (Table 2 of arXiv 2503.09516v5, Search-R1-base and -instruct at 7B and 3B) come
from :mod:`hopkit.methods.search_r1_paper`, which says how they were read.
"""

from __future__ import annotations

from hopkit.methods import search_r1_paper
from hopkit.methods.flashrag_benchmark import sheet_rows
from hopkit.methods.published import Model

SEARCH_R1_7B = Model("SearchR1-nq_hotpotqa_train-qwen2.5-7b-em-ppo",
                     "PeterJinGo/SearchR1-nq_hotpotqa_train-qwen2.5-7b-em-ppo")
R1_SEARCHER_7B = Model("Qwen-2.5-7B-base-RAG-RL", "XXsongLALA/Qwen-2.5-7B-base-RAG-RL")
AUTOREFINE_3B = Model("AutoRefine-Qwen2.5-3B-Base", "yrshi/AutoRefine-Qwen2.5-3B-Base")

PUBLISHED = (
    *sheet_rows("search-agent", "search-r1", "search-r1", {
        "nq": (45.2, 54.4), "triviaqa": (62.2, 69.5), "popqa": (49.2, 53.1), "hotpotqa": (42.9, 54.5),
        "2wikimultihopqa": (35.7, 42.6), "musique": (21.2, 29.2), "bamboogle": (47.2, 59.9)}, model=SEARCH_R1_7B),
    *sheet_rows("search-agent", "r1-searcher", "r1-searcher", {
        "nq": (36.9, 48.7), "triviaqa": (59.0, 67.6), "popqa": (30.2, 44.1), "hotpotqa": (46.7, 59.0),
        "2wikimultihopqa": (47.9, 54.7), "musique": (22.9, 31.9), "bamboogle": (44.0, 54.3)}, model=R1_SEARCHER_7B,
        note="FlashRAG's README shows other numbers for this row (this module's docstring)"),
    *sheet_rows("search-agent", "autorefine", "Autorefine", {
        "nq": (43.8, 54.2), "triviaqa": (59.8, 67.9), "popqa": (32.4, 47.5), "hotpotqa": (42.6, 54.0),
        "2wikimultihopqa": (41.4, 50.3), "musique": (15.6, 23.6), "bamboogle": (33.6, 46.6)}, model=AUTOREFINE_3B),
    *search_r1_paper.table_rows("search-agent", "search-r1", "Search-R1-base",
                                note="a PPO checkpoint trained from the base model; hopkit runs the template, prompted"),
    *search_r1_paper.table_rows("search-agent", "search-r1", "Search-R1-instruct",
                                note="a PPO checkpoint trained from the instruct model; hopkit runs the template, "
                                     "prompted"),
)
