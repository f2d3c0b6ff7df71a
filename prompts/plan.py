"""Prompts of the web agent's plan node: the task's steps, one browser action each, written
on the first page (and once more if they run out and the task goes on); decide shows them and
names the step that is next."""

from prompts.untrusted import DATA_RULE

PLAN_SYSTEM = (
    "You plan how to do a task on a web page before anyone acts on it. Each step is one browser"
    " action: type a value into one field, click one element, or press one key. Answering a"
    " question the task asks is not a step: it comes after the steps.\n" + DATA_RULE
)

PLAN_TASK = """<task>
{task}
</task>

<workflows>
{workflows}
</workflows>

<page>
{observation}
</page>

List the steps that do the task, one action each: every action the task asks for, in the order
it asks for them, the last one included. Name the element as the page shows it (its text or
label) and the exact value to type. When a workflow in <workflows> fits the task, follow its
steps with this task's values."""

# A second plan, when the first one's steps are done and the task has not ended.
REPLAN_TASK = """<task>
{task}
</task>

<workflows>
{workflows}
</workflows>

<done>
{done}
</done>

<page>
{observation}
</page>

The actions in <done> were carried out and <page> shows the page after them, but the task has
not ended. List the steps that are left to do it, one action each, the last one included. Name
the element as the page shows it (its text or label) and the exact value to type."""

# decide's view of the plan: written once per run, so it sits before what changes every turn.
PLAN_SECTION = """<plan>
{steps}
</plan>
"""

# The first words of decide's closing instruction while a plan step is left.
NEXT_STEP = "The previous actions did steps 1 to {done} of <plan>; step {number} is next: {step}\n"
FIRST_STEP = "Nothing is done yet; step 1 of <plan> is next: {step}\n"
LAST_STEP_DONE = (
    "The previous actions did every step of <plan>; check the page, and stop if the task is done.\n"
)
