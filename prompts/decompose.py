"""Prompt for splitting a goal into 3-5 executable tasks."""

DECOMPOSER = """You split a goal into 3 to 5 concrete tasks that can each be done with web
search, a browser or a document search. Each task is one sentence starting with a verb, and
says what to find. No task repeats another. Together they achieve the goal.
{memory}
<goal>
{goal}
</goal>"""
