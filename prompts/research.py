"""Every prompt the research graphs' nodes send, grouped by node in the order a run calls them.

Stable first: every call's system message is `preamble(role)`, and every prompt opens with
`RUN_OPENING` (the request and what its first search found), then memory, then the node's own
inputs, with the instruction last. A local model keeps the tokens of its last call, so every
call after the first reads only what follows that opening.

Untrusted text (documents, pages, search and tool output, memories, model results) stays data
inside the XML-tagged sections (prompts/untrusted.py): every prompt builder passes each inserted
value through `data`, and `DATA_RULE`, in the preamble, tells the model those sections are
information.
"""

from typing import Literal

from prompts.untrusted import DATA_RULE

# -- every call: the system message and the run's opening -----------------------------------------

# what every call is told it is: the default of the user's setting `Context.system_prompt`
ROLE = "You are one step of a research agent that plans, searches, judges its work and answers."


def preamble(role: str) -> str:
    """The system message: the role the user set (blank: ROLE), then the data rule, which no
    setting removes."""
    return f"{role.strip() or ROLE}\n{DATA_RULE}"


RUN_OPENING = """<request>
{query}
</request>
<evidence>
{evidence}
</evidence>
"""

NO_EVIDENCE = "(no search tool is configured, or it found nothing)"

# what one search tool found, in the evidence and a task's own search results (agents/research/
# evidence.py): cut to its share of the room with TRUNCATED said, or FAILED when the tool failed
SEARCH_SECTION = """<{tool}>
{text}
</{tool}>"""
TRUNCATED = " …[truncated]"
SEARCH_FAILED = "Error: {tool} failed: {error}"


# -- memory: the sections every node's prompt carries after the opening ---------------------------
MEMORY_SECTIONS = """<past_reflections>
{reflections}
</past_reflections>
<workflows>
{workflows}
</workflows>"""

NO_MEMORY = "(none yet)"


# -- goal_setting ---------------------------------------------------------------------------------
# the form of a run's answer, chosen by goal setting (a choice, not free text: asked to describe
# a form, a model describes an essay's sections); every later prompt names the chosen one
AnswerForm = Literal[
    "a name, date, number, yes or no, or a short phrase",
    "a list",
    "a paragraph",
    "a report with sections",
]
DEFAULT_FORM = "a paragraph"
SHORT_FORM: AnswerForm = "a name, date, number, yes or no, or a short phrase"  # one fact
# the passive goal creator, the prompt optimizer (what must be found) and the response optimizer
# (the answer's form) in one structured answer
# the structured answer's schema, as a model that reads schemas sees it (the embedded models'
# grammars keep only its shape): what it is, then each field
GOAL_SCHEMA = {
    "description": "The form of the final answer, what a complete answer must establish, and "
    "checks that it is complete.",
    "answer_form": "The form of the final answer.",
    "goal": "What a complete answer must establish, in one sentence.",
    "criteria": "1-3 checks that the answer is complete.",
}

# the goal the later prompts show: goal setting's sentence, then its checks when it wrote any
GOAL_WITH_CRITERIA = """{goal}
Success criteria:
{checks}"""

GOAL_SETTER = """{opening}{memory}
<instructions>
Set the goal of this research request, from the request and the evidence above.
- goal: one sentence saying what a complete answer must establish. Keep every name, title,
  date and detail the request gives.
- answer_form: the form of the final answer: a question about one fact is answered with
  "a name, date, number, yes or no, or a short phrase".
- criteria: 1-3 checks that tell the answer is complete (what must be found or confirmed).
Take the lessons in <past_reflections> into account.
</instructions>"""

# -- hop ------------------------------------------------------------------------------------------
# a short answer reasoned out along the request's chain, a few sentences a call (IRCoT's format: a
# small model keeps to it when shown it). Every hop's prompt opens as goal setting's does (the
# request and its first search), then the examples, then the passages the hops found, appended in
# the order found, so a local model reads of each hop only what the last one did not show
HOP = """{opening}<examples>
{examples}
</examples>
{solved}{found}Question: {query}
Reasoning so far: {facts}
Continue the reasoning as the examples do: the next facts from the evidence and passages, one
short sentence each. When the facts give the answer, end with "So the answer is: <answer>." in
as few words as it needs."""

FOUND = """<passages_found_since>
{passages}
</passages_found_since>
"""

# the examples a hop is shown: the passages, the question and a reasoning that ends with the
# answer (written for this prompt; no benchmark question is among them)
HOP_EXAMPLE = """Passages:
{passages}
Question: {question}
Reasoning: {reasoning}"""

HOP_EXAMPLES = (
    (
        (
            "Metropolis (1927 film): Metropolis is a 1927 German expressionist science-fiction "
            "film directed by Fritz Lang.",
            "Fritz Lang: Friedrich Christian Anton Lang (1890-1976) was an Austrian-German "
            "filmmaker, born in Vienna.",
        ),
        "Where was the director of the film Metropolis (1927) born?",
        "Metropolis (1927) was directed by Fritz Lang. Fritz Lang was born in Vienna. So the "
        "answer is: Vienna.",
    ),
    (
        (
            "Eiffel Tower: The Eiffel Tower is a wrought-iron lattice tower in Paris, completed "
            "in 1889.",
            "Statue of Liberty: The Statue of Liberty is a colossal statue on Liberty Island in "
            "New York Harbor, dedicated in 1886.",
        ),
        "Which was finished first, the Eiffel Tower or the Statue of Liberty?",
        "The Eiffel Tower was completed in 1889. The Statue of Liberty was dedicated in 1886. "
        "1886 is earlier than 1889. So the answer is: the Statue of Liberty.",
    ),
    (
        (
            "Mount Everest: Mount Everest is Earth's highest mountain, in the Mahalangur Himal "
            "sub-range of the Himalayas.",
            "K2: K2 is the second-highest mountain on Earth and lies in the Karakoram range.",
        ),
        "Are Mount Everest and K2 both in the Himalayas?",
        "Mount Everest is in the Himalayas. K2 is in the Karakoram range, not the Himalayas. "
        "So the answer is: no.",
    ),
)

NO_FACTS = "(none yet)"

# questions of the request's very kind answered right before (memory's worked examples: the
# reasoning of a chain that worked, its names those of its own question)
SOLVED_BEFORE = """<solved_before>
{examples}
</solved_before>
"""
SOLVED_EXAMPLE = """Question: {question}
Reasoning: {reasoning} So the answer is: {answer}."""

# a chain that ended without a short answer the passages hold: the hop's prompt up to its question,
# then one reading of it (a local model reads only this instruction anew)
LAST_READING = """{opening}<examples>
{examples}
</examples>
{solved}{found}Question: {query}
Reasoning so far: {facts}
Answer the question from the evidence and passages. Reply with the answer only: {answer_form};
no sentence, no explanation."""


# -- check_answer (agents/research/readings.py) -------------------------------------------
# one direct reading of the evidence, and the choice between two answers that differ; the opening
# and what the tasks found besides come first, the question last, where a small model answers it
# best. The direct reading's instruction comes before the question: put after it, a small model may
# answer with the form itself ("a name") instead of the answer
MORE_EVIDENCE = """<more_evidence>
{hits}
</more_evidence>
"""

EVIDENCE_ANSWER = (
    "{opening}Answer the question from the evidence. Reply with the answer only: {answer_form};"
    " no sentence, no explanation.\n<question>{query}</question>"
)

ANSWER_OPTION = "<answer>{answer}</answer>"  # one of the answers CHOOSE_ANSWER shows
ANSWER_CHOICE = "One of the given answers."  # the choice's one field, as its schema says

CHOOSE_ANSWER = """{opening}<answers>
{answers}
</answers>
<question>{query}</question>
Choose the answer that gives exactly what the question asks for (the kind of thing it asks: a
person, a place, a work, a date, a number, yes or no) and that the evidence supports."""

# -- decompose_query ------------------------------------------------------------------------------
PLAN_SCHEMA = {"tasks": "0 to 4 steps, in order."}
PLANNED_TASK_SCHEMA = {
    "task": "One sentence starting with a verb: what to find.",
    "depends_on": "Numbers of EARLIER tasks whose results this task needs; [] if none.",
}
# the request split into executable tasks, each naming the tasks it needs; the instructions
# stand alone as well: decompose_query drops a step that copies them
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
</goal>
<instructions>
"""
    + PLANNER_INSTRUCTIONS
    + """ At most {steps} steps.
</instructions>"""
)

# -- execute_task ---------------------------------------------------------------------------------
# one task with tools (the system message is the preamble), or one call answering from the
# evidence; a retry sees its previous attempt and the reflection on it
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

# a task's own search results where they hold only passages the evidence shows
SAME_AS_EVIDENCE = "(the same passages as the evidence above)"
# the result of a step not run: its search found only passages the run had read
NOTHING_NEW = "(not run: its search found only passages the run had already read)"

DEPENDENCY_RESULT = """<result>
<task>{task}</task>
{result}
</result>"""

# a tool call naming no tool the executor has, answered as the tool's error
NO_SUCH_TOOL = "Error: there is no tool {name!r} (tools: {known})."

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

# -- reflect_on_task ------------------------------------------------------------------------------
# judge one task result (needs_retry=true means NOT good enough), or ask only for its lesson; every
# prompt opens with the attempt (`ATTEMPT`), so the second call on the same attempt reads it from
# the model's cache
ATTEMPT = """{opening}{memory}
<task>
{task}
</task>{evidence}
<result>
{result}
</result>"""

REFLECTION_SCHEMA = {
    "description": "The verdict on the task's result, then the lesson from it.",
    "needs_retry": "True if the result is NOT good enough.",
    "reflection": "1-2 sentences about this task: what to do differently (after a failure) or "
    "the step that made it work; empty if there is no lesson.",
    "strategy": "One sentence for any task of this kind: 'When <kind of task>, <what to do>.' "
    "Names nothing particular.",
}
# the lesson alone, where the verdict is already known (a result the evidence overruled, a run
# whose readings disagreed)
FAILURE_LESSON_SCHEMA = {
    "description": "The lesson: the mistake to avoid and the step to take instead.",
    "reflection": "1-2 sentences: the mistake to avoid, the step instead.",
    "strategy": "One sentence for any task of this kind: 'When <kind>, <do>.'",
}

LESSON_FIELDS = """- reflection: 1-2 sentences about this task: %s
  Never the verdict again; empty if there is no lesson.
- strategy: one sentence of advice for any task of this kind, in the form "When <kind of
  task>, <what to do>." It names nothing particular (no person, title, place, number or
  answer), so it helps the next, different task."""

REFLECTOR = (
    ATTEMPT
    + """
<instructions>
Judge whether the result is good enough: it answers the task, and the evidence or search
results above support it.
- needs_retry: true if the result is NOT good enough and the task must be done again (it is
  wrong, unsupported, or does not answer the task); false if it is good enough.
- confidence: how sure you are, from 0 to 1.
"""
    + LESSON_FIELDS
    % "if needs_retry is true, what to do differently next time\n  (the mistake to avoid and "
    "the step to take instead); if false, the step that made it work."
    + """
- reasons: short reasons for the verdict.
</instructions>"""
)

UNSUPPORTED = (
    ATTEMPT
    + """
<instructions>
The result is NOT good enough: it names {names}, which neither the request, the evidence, the
task nor its search results contain, so it was not read but made up. Say what to do
differently next time.
"""
    + LESSON_FIELDS % "the mistake to avoid and the step to take instead."
    + """
</instructions>"""
)

RETRY_WORKED = (
    ATTEMPT
    + """
<instructions>
An earlier attempt at this task failed; this result is supported by what the task read. Say
what made it work.
"""
    + LESSON_FIELDS % "the step that made this attempt work where the earlier one failed."
    + """
</instructions>"""
)

# -- aggregate_results ----------------------------------------------------------------------------
ANSWER_SCHEMA = {
    "description": "The answer first, then the facts that support it and its sources.",
    "answer": "The answer itself, in the requested form.",
    "explanation": "1-3 sentences with the supporting facts.",
}
# one task's result, as the aggregator reads it (NO_RESULT: the task gave none)
TASK_RESULT = """<result task="{n}">
<task>{task}</task>
{result}
</result>"""
NO_RESULT = "(no result)"
NO_RUN_REFLECTIONS = "(none)"  # this run's tasks left no judged lesson

# the final answer from the task results and this run's reflections, in the answer form goal
# setting chose (a short answer then goes to check_answer, above)
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
{query}
- answer: the answer to the request itself, in this form: {answer_form}.
- explanation: 1-3 sentences with the facts that support the answer.
- sources: the sources (file names or URLs shown in the evidence and results) the answer rests on.
</instructions>"""

# -- reflect_on_answer ----------------------------------------------------------------------------
# the lesson of a run whose two readings of its evidence disagreed; it opens as check_answer's
# choice does (opening, answers, question), so a local model reads only the instruction anew
ANSWERS_DISAGREED = (
    """{opening}<answers>
{answers}
</answers>
<question>{query}</question>
<instructions>
The research over this evidence answered the first, one direct reading of the same evidence
the second; {kept!r} was kept. Two readings that disagree mean at least one went wrong: the
wrong kind of thing (a person where the question asks for an event, a step on the way where it
asks for the end), a name the evidence does not give, or more or fewer words than the question
asks for. Say what to do differently on a question like this one.
"""
    + LESSON_FIELDS % "the mistake one of the answers shows and the step to take instead."
    + """
</instructions>"""
)
