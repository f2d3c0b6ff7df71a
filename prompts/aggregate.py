"""Prompt for the final answer from the task results and this run's reflections, in the answer
form goal setting chose (stable first: the run's opening, memory, goal, results, instruction)."""

AGGREGATOR = """{opening}{memory}
<goal>
{goal}
</goal>
<task_results>
{results}
</task_results>
<this_run_reflections>
{run_reflections}
</this_run_reflections>
<instructions>
Answer the request from the task results and the evidence; use only facts found there. The
last task is the request itself; the tasks before it found what it needed. The request:
{request}
- answer: the answer to the request itself, in this form: {answer_form}.
- explanation: 1-3 sentences with the facts that support the answer.
- sources: the sources (file names or URLs shown in the evidence and results) the answer rests on.
</instructions>"""
