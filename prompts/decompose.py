"""Prompt for splitting the request into executable tasks, each naming the tasks it needs
(stable first: the run's opening, memory, goal, then the instruction)."""

DECOMPOSER = """{opening}{memory}
<goal>
{goal}
</goal>
<instructions>
Split the request into as few concrete tasks as it needs (1 to 5) that can each be done with
a document search, web search or a browser. Each task is one sentence starting with a verb,
says what to find, and names the people, works, places or things it is about (from the request
or the evidence; never "this person" or "it"). No task repeats another. Together they answer
the request itself, not only part of it: the last task finds what the request asks for.
Tasks run at the same time unless one needs another's result: then list the numbers of the
earlier tasks it needs in `depends_on` (task 1 is the first). Most tasks need none: [].
</instructions>"""
