"""Showing results: text tables, 95% intervals, plots, the HTML report page, JSON reports."""
