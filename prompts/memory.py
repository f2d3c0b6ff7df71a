"""The memory sections every node's prompt carries: past reflections and learned workflows."""

MEMORY_SECTIONS = """<past_reflections>
{reflections}
</past_reflections>
<workflows>
{workflows}
</workflows>"""

NO_MEMORY = "(none yet)"
