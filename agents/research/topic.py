"""Does a small model's text keep to the request? Topic words, and the guards built on them.

A small model's goals, tasks and search queries drift off the request (a schema's field name
copied as the value, "{ description }"; invented URLs): goal_setting, decompose_query and the
executor's search calls are checked against the request's own topic words.
"""

from __future__ import annotations

import re

from agents.tools.bm25 import STOPWORDS

# a schema's field name copied as the value ("{ description }", "{title}"): a small model's habit
_PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_]*\s*\}")
MAX_KEYWORDS = 8


def keywords(text: str) -> list[str]:
    """The words of `text` that carry its topic, in order, once each: no function words,
    at least 3 characters, at least one letter (as written, so a search sees real words)."""
    found: dict[str, str] = {}
    for word in re.findall(r"\w+", text):
        key = word.lower()
        if key not in STOPWORDS and len(key) >= 3 and re.search(r"[^\W\d_]", key):
            found.setdefault(key, word)
    return list(found.values())


def copies_placeholder(text: str) -> bool:
    """Does `text` hold a schema field name as a value (`{ description }`, `{title}`)?"""
    return bool(_PLACEHOLDER.search(text))


def grounded(text: str, source: str) -> bool:
    """Does `text` keep to `source`'s topic? It shares a topic word with it (any, when the
    source has none) and copies no schema placeholder."""
    if copies_placeholder(text):
        return False
    topic = {w.lower() for w in keywords(source)}
    return not topic or bool(topic & {w.lower() for w in keywords(text)})


def on_topic_query(query: str, topic: str) -> str:
    """`query` if it is grounded in `topic`, else the topic's own keywords (at most 8)."""
    if grounded(query, topic) or not keywords(topic):
        return query
    return " ".join(keywords(topic)[:MAX_KEYWORDS])
