"""Prompts for running one task with tools, including a retry that sees its previous attempt.

Stable first: the system message is the shared preamble and memory; the task message (the
agent's, or the one asking for an answer from the evidence) gives the goal, the task, what it
builds on and any previous attempt, then the instruction last.
"""

from prompts.untrusted import PREAMBLE

EXECUTOR_SYSTEM = PREAMBLE + "\n{memory}"

EXECUTOR_TASK = """<overall_goal>
{goal}
</overall_goal>
<task>
{task}
</task>{evidence}{dependencies}{retry}
<instructions>
Complete the task. Use the search results and the tools to find facts; do not invent them.
When you have enough, answer with the facts you found and name their sources.{retry_note}
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

# sent with EXECUTOR_SYSTEM (preamble and memory) as its system message
GROUNDED_ANSWER = """<overall_goal>
{goal}
</overall_goal>
<task>
{task}
</task>{dependencies}{retry}
<search_results>
{evidence}
</search_results>
<instructions>
Answer the task using only the search results above (and the earlier tasks' results, if
any). Quote the facts that answer it and name
the source of each.{retry_note}
</instructions>"""
