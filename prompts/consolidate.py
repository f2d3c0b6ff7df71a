"""Prompts for memory consolidation: rating a lesson's importance, and distilling a group of
lessons about one kind of task into strategies (memory/reflections/consolidation.py)."""

IMPORTANCE = """<memory>
<task>{task}</task>
<reflection>{reflection}</reflection>
</memory>
<instructions>
On a scale of 1 to 10, where 1 is purely mundane (a routine step that went as expected) and 10
is extremely poignant (a lesson that changes how such tasks must be done), rate how important
this lesson is for future tasks. Answer with the integer only.
</instructions>"""

INSIGHTS = """<memories>
{memories}
</memories>
<instructions>
The memories above are lessons from attempts at one kind of task: what worked, and what failed
and what to do instead. Name that kind of task, and say what to do to succeed at any task of
this kind.
- task_kind: the kind of task in general words, naming no person, title, place or number from
  the memories (for example "find the year an event happened").
- insights: at most {n} strategies, each one self-contained instruction for the next task of
  this kind: what to do, or what to avoid and what to do instead. A strategy is never a fact
  or an answer about the tasks above: it names no person, title, place or number from them.
</instructions>"""
