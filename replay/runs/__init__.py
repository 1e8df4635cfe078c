"""Runs: folding events into runs, checking them against the rule catalog, the checking
loop, normalising and reporting findings (`reports`; `html_report`, the `--html` page)."""
