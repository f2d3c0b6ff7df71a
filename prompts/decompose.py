"""Prompt for splitting a goal into 3-5 executable tasks, each naming the tasks it needs
(stable first: preamble, memory, goal, then the instruction)."""

from prompts.untrusted import PREAMBLE

DECOMPOSER = (
    PREAMBLE
    + """
{memory}
<goal>
{goal}
</goal>
<instructions>
Split the goal into 3 to 5 concrete tasks that can each be done with web search, a browser or
a document search. Each task is one sentence starting with a verb, and says what to find. No
task repeats another. Together they achieve the goal.
Tasks run at the same time unless one needs another's result: then list the numbers of the
earlier tasks it needs in `depends_on` (task 1 is the first). Most tasks need none: [].
</instructions>"""
)
