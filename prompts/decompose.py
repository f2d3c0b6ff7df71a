"""Prompt for splitting the request into executable tasks, each naming the tasks it needs
(stable first: the run's opening, memory, goal, then the instruction)."""

# the instructions alone: decompose_query drops a step that copies them
PLANNER_INSTRUCTIONS = """\
List the steps that find what the request needs before it can be answered, each done with a
document search, web search or a browser: a person, work or place the request names
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
</goal>{readings}
<instructions>
"""
    + PLANNER_INSTRUCTIONS
    + """ At most {steps} steps.
</instructions>"""
)

# shown when two readings of the evidence gave different short answers: the plan's steps then
# find what the evidence lacks to decide
READINGS = """
<readings_that_disagree>
Two readings of the evidence above answered the request differently:
{answers}
Plan the steps that find what decides between them, or the missing fact they both lack.
</readings_that_disagree>"""
