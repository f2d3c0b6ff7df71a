"""The memory sections every node's prompt carries: past reflections and learned workflows."""

MEMORY_SECTIONS = """<past_reflections>
{reflections}
</past_reflections>
<workflows>
{workflows}
</workflows>"""

NO_MEMORY = "(none yet)"

# what a lesson was learned from (memory/reflections/schema.py `outcome`), as prompts show it
LEARNED_FROM = {
    "success": "worked before",
    "failure": "failed before: avoid that mistake, do this instead",
}
