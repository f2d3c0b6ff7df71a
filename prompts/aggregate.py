"""Prompt for writing the final answer from every task result and this run's reflections."""

AGGREGATOR = """You write the final answer to the user's request from the results of the tasks
below. Use only facts from the results; keep sources. Follow the answer shape.
{memory}
<request>
{query}
</request>
<goal>
{goal}
</goal>
<answer_shape>
{response_shape}
</answer_shape>
<task_results>
{results}
</task_results>
<this_run_reflections>
{run_reflections}
</this_run_reflections>"""
