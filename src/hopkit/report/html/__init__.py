"""The static HTML report: an overview page per dataset and a per-question explorer with traces.

Built with Jinja2 templates (``templates/``) into plain files that open from disk without a server
or the internet. :func:`collect_report` reads what it shows from a store; :func:`write_html` writes it.
"""

from hopkit.report.html.collect import collect_report
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.html.pages import ASSETS, HTML_ENTRIES, INDEX, write_html

__all__ = ["ASSETS", "HTML_ENTRIES", "INDEX", "HtmlReportInput", "HtmlRun", "collect_report", "write_html"]
