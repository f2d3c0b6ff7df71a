"""Prompt for writing the final answer from every task result and this run's reflections
(stable first: preamble, memory, request, goal, shape, results, then the instruction)."""

from prompts.untrusted import PREAMBLE

AGGREGATOR = (
    PREAMBLE
    + """
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
</this_run_reflections>
<instructions>
Write the final answer to the request from the task results. Use only facts from the results;
keep their sources. Follow the answer shape.
</instructions>"""
)
