"""Prompt for splitting the request into executable tasks, each naming the tasks it needs
(stable first: the run's opening, memory, goal, then the instruction)."""

# the instructions alone: decompose_query drops a step that copies them
PLANNER_INSTRUCTIONS = """\
List the steps (0 to 4) that find what the request needs before it can be answered, each done
with a document search, web search or a browser: a person, work or place the request names
only by description, each side of a comparison, each part of a report. The request itself is
answered after them as the last task, so no step restates it; a request about one fact needs
no step at all: []. Each step is one sentence starting with a verb, says what to find, and
names the people, works, places or things it is about (from the request or the evidence; never
"this person" or "it"). Steps run at the same time unless one needs another's result: then list
the numbers of the earlier steps it needs in `depends_on` (step 1 is the first). Most need
none: []."""

DECOMPOSER = (
    """{opening}{memory}
<goal>
{goal}
</goal>
<instructions>
"""
    + PLANNER_INSTRUCTIONS
    + """
</instructions>"""
)
