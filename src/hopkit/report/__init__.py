"""Reports: comparison tables (Markdown, CSV, terminal text) and plots (``hopkit.report.plot``).

The plotting functions live in :mod:`hopkit.report.plot` and are not imported
here, so that building a table never loads matplotlib.
"""

from hopkit.report.table import Column, Table, comparison_table, to_csv, to_markdown, to_text

__all__ = ["Column", "Table", "comparison_table", "to_csv", "to_markdown", "to_text"]
