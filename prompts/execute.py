"""Prompts for running one task with tools, including a retry that sees its previous attempt.

Stable first: the system message is the shared preamble; the task message opens with the run's
opening (request, evidence) and memory, then the task, what its own search found, what it
builds on and any previous attempt, with the instruction last.
"""

EXECUTOR_TASK = """{opening}{memory}
<task>
{task}
</task>{evidence}{dependencies}{retry}
<instructions>
Complete the task. Use the evidence, the search results and the tools to find facts; do not
invent them. When you have enough, answer with the facts you found and name their
sources.{retry_note}
</instructions>"""

EVIDENCE_SECTION = """
<search_results_for_the_task>
{evidence}
</search_results_for_the_task>"""

DEPENDENCIES_SECTION = """
<results_this_task_builds_on>
{results}
</results_this_task_builds_on>"""

RETRY_SECTION = """
<previous_attempt>
{previous}
</previous_attempt>
<reflection_on_previous_attempt>
{reflection}
</reflection_on_previous_attempt>"""

RETRY_NOTE = """
Your previous attempt was judged not good enough: fix what the reflection points out."""

GROUNDED_ANSWER = """{opening}{memory}
<task>
{task}
</task>{evidence}{dependencies}{retry}
<instructions>
Answer the task using only the evidence and search results above (and the earlier tasks'
results, if any). State the answer first, then the facts that support it, naming the source of
each.{retry_note}
</instructions>"""
