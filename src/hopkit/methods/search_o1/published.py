"""Search-o1 as the Search-R1 paper measured it (a baseline of its Table 2, :mod:`hopkit.methods.search_r1_paper`,
which says where and in which setting the numbers were read)."""

from __future__ import annotations

from hopkit.methods import search_r1_paper

PUBLISHED = search_r1_paper.table_rows("search-o1", "search-o1", "Search-o1")
