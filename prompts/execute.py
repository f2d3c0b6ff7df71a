"""Prompts for running one task with tools, including a retry that sees its previous attempt."""

EXECUTOR_SYSTEM = """You complete one research task. Use the tools to find facts; do not
invent them. When you have enough, answer with the facts you found and name their sources.
{memory}"""

EXECUTOR_TASK = """<task>
{task}
</task>
<overall_goal>
{goal}
</overall_goal>{dependencies}{retry}"""

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
</reflection_on_previous_attempt>
Your previous attempt was judged not good enough. Fix what the reflection points out."""

GROUNDED_ANSWER = """<task>
{task}
</task>
<search_results>
{evidence}
</search_results>
Answer the task using only the search results above. Quote the facts that answer it and name
the source of each.{retry}"""

TOOL_LIMIT_NOTE = """You have used all your tool calls for this task. Answer now, using only
what the tools returned above; name the source of each fact."""
