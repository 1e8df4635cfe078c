"""`agui replay --html`: one self-contained HTML page showing runs, pauses, answers, findings.

Public names: `HtmlReport` (fed by the replay pipeline, writes the page as it goes),
`ReportCollector` and the values of `replay.runs.html_report.model` (what the page shows),
`PageWriter` (draws those values) and `atomic_text` (how the file is written).
Nothing else in `replay` imports this package; the CLI does.
"""

from __future__ import annotations

from replay.runs.html_report.collector import Describe, ReportCollector, plain_describe
from replay.runs.html_report.page import PageWriter
from replay.runs.html_report.report import HtmlReport
from replay.runs.html_report.writer import ReportNotWritable, atomic_text

__all__ = [
    "Describe",
    "HtmlReport",
    "PageWriter",
    "ReportCollector",
    "ReportNotWritable",
    "atomic_text",
    "plain_describe",
]
