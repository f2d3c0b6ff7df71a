"""Answer hygiene: a model's answer without repeated sentences, echoed instructions, JSON debris,
and with the sources its task results cite.

A small model's final answer repeats whole paragraphs and echoes the prompt's own instructions,
and short answers cut from truncated JSON begin with `);` or `}`. It cannot be asked out of
this; the text is cleaned after it is written:

    answer = clean_answer(raw, prompts=(AGGREGATOR,))
    answer = with_sources(answer, cited_sources(results))
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PLACEHOLDER = re.compile(r"\{\w+\}")
# a template slot copied into an answer: `{ description }`
_SLOT = re.compile(r" *\{\{?\s*\w+\s*\}\}?")
_TAG = re.compile(r"</?[a-z_]+>")
# a prompt's section tag copied back unescaped: `<past_reflections>`, `<ref_0>`, `</ref_2>`,
# or markup made up in its likeness: `<br />`, `<task name="x" /&gt;` (attributes quoted, so
# `a<b and c>d` is no tag)
_SECTION_TAG = re.compile(
    r"""</?[a-z][\w-]*(?:\s+[\w-]+=(?:"[^"<>]*"|'[^'<>]*'))*\s*/?(?:>|&gt;)"""
)
# half an escaped bracket: `&lt'1983: …`; whole ones are the evidence's `<` and `>`, escaped by
# prompts.untrusted.data
_BROKEN_ENTITY = re.compile(r"&(?:lt|gt)'")
# a quoted JSON key and its colon left by a cut structured output: `{"answer": "`
_JSON_KEY = re.compile(r'^\s*[{\[]?\s*"\w+"\s*:\s*"?')
_LEADING_DEBRIS = " \t\n)]};:,.|"
_TRAILING_DEBRIS = " \t\n{[(;:,|\\"
_PAIRS = {")": "(", "]": "[", "}": "{"}
SHINGLE = 5  # words per run compared with the prompts' fixed text
ECHO_SHARE = 0.75  # a sentence whose words are mostly runs copied from a prompt echoes it
# a prompt's section tags arrive escaped (prompts.untrusted.data); copied back, they are prompt text
_ESCAPED_TAG = re.compile(r"&lt;/?[a-z_]+|&#\d+")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_NUMBER_LINE = re.compile(r"[\d\s.,/:-]*")  # a date or a number is an answer
_SOURCE_LABEL = re.compile(r"\bsources?\s*:\s*([^\n)]+)", re.I)
_FILE_NAME = re.compile(r"\b[\w.-]+\.(?:md|txt|jsonl|json|html?|pdf|csv)\b")


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _shingles(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


class PromptEcho:
    """Recognises sentences copied from prompt templates (their fixed text, not their fields)."""

    def __init__(self, prompts: Iterable[str], *, share: float = ECHO_SHARE) -> None:
        self.share = share  # of a sentence's words in runs copied from a prompt
        self.sentences: set[str] = set()
        self.shingles: set[tuple[str, ...]] = set()
        for prompt in prompts:
            fixed = _TAG.sub("\n", _PLACEHOLDER.sub("\n", prompt))
            for line in fixed.splitlines():
                for sentence in _SENTENCE_END.split(line.strip(" -")):
                    norm = _norm(sentence)
                    if len(norm.split()) >= 3:
                        self.sentences.add(norm)
            self.shingles |= _shingles(_norm(fixed).split())

    def echoes(self, sentence: str) -> bool:
        norm = _norm(sentence)
        if not norm:
            return False
        if norm in self.sentences:
            return True
        if len(norm) > 12 and any(f" {norm} " in f" {s} " for s in self.sentences):
            return True  # a fragment of an instruction sentence
        words = norm.split()
        covered: set[int] = set()
        for i in range(len(words) - SHINGLE + 1):
            if tuple(words[i : i + SHINGLE]) in self.shingles:
                covered.update(range(i, i + SHINGLE))
        return len(covered) >= self.share * len(words)


def strip_debris(text: str) -> str:
    """`text` without stray brackets, semicolons, quotes or a JSON key at its ends."""
    text = _JSON_KEY.sub("", text) if text.lstrip()[:1] in '{["' else text
    previous = None
    while text != previous:
        previous = text
        text = text.lstrip(_LEADING_DEBRIS).rstrip(_TRAILING_DEBRIS)
        for closer, opener in _PAIRS.items():  # a closer with no opener is debris
            if text.endswith(closer) and text.count(closer) > text.count(opener):
                text = text[:-1]
        if text.count('"') % 2:  # an unpaired quote at either end
            text = text[1:] if text.startswith('"') else text.rstrip('"')
    return text.strip()


def _from_json(text: str) -> str:
    """The first string value when the whole text is a JSON object (a model's raw output)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict):
        return next((v for v in value.values() if isinstance(v, str)), text)
    return text


def _keep(sentence: str, seen: set[str], echo: PromptEcho) -> bool:
    """Not a repeat (nor a repeat cut off at the budget), not prompt text, not escaped markup."""
    norm = _norm(sentence)
    if not norm or norm in seen or _ESCAPED_TAG.search(sentence):
        return False
    if len(norm.split()) >= 3 and any(s.startswith(norm + " ") for s in seen):
        return False  # the start of a sentence already given: a repeat cut at the budget
    return not echo.echoes(sentence)


def _brackets(sentence: str) -> str:
    """The evidence's escaped `<` and `>` as they were written; broken halves dropped."""
    text = _BROKEN_ENTITY.sub("", sentence).replace("&lt;", "<").replace("&gt;", ">")
    return text.strip()


def clean_answer(text: str, *, prompts: Iterable[str] = ()) -> str:
    """Each sentence once (compared normalised), no sentence echoing `prompts`, no debris.

    Lines and paragraph breaks are kept; a line left empty goes, and so do doubled blank lines.
    """
    echo = PromptEcho(prompts)
    seen: set[str] = set()
    lines: list[str] = []
    for raw_line in _from_json(text.strip()).splitlines():
        kept = []
        bare = _SECTION_TAG.sub("", _SLOT.sub("", raw_line))
        for sentence in _SENTENCE_END.split(bare.strip()):
            if _keep(sentence, seen, echo):
                seen.add(_norm(sentence))
                kept.append(_brackets(sentence))
        line = " ".join(kept)
        if not _LETTERS.search(line) and not _NUMBER_LINE.fullmatch(line):
            line = ""  # brackets and a stray letter or code point: debris
        if line or (lines and lines[-1]):  # one blank line between paragraphs, at most
            lines.append(line)
    return strip_debris("\n".join(lines))


def short_answer_text(text: str) -> str:
    """A short answer (a name, a date, yes/no) without JSON debris around it."""
    # the first line with words in it: a cut answer may open with a line of debris (`}`)
    lines = (strip_debris(line) for line in _from_json(text.strip()).splitlines())
    text = next((line for line in lines if line), "")
    quoted = len(text) > 1 and text[0] == text[-1] == '"'
    return text[1:-1].strip() if quoted else text


def cited_sources(results: Iterable[str | None]) -> list[str]:
    """The sources the task results name (`source: X`, `Sources: a, b`, file names), in order."""
    found: list[str] = []
    for result in results:
        for labelled in _SOURCE_LABEL.findall(result or ""):
            found.extend(s for s in re.split(r"[,;]", labelled))
        found.extend(_FILE_NAME.findall(result or ""))
    out: list[str] = []
    for source in (strip_debris(s) for s in found):
        if source and len(source) <= 120 and source.lower() not in {o.lower() for o in out}:
            out.append(source)
    return out


def with_sources(answer: str, sources: Sequence[str]) -> str:
    """`answer` naming every source in `sources`: those it omits go on a final Sources: line."""
    missing = [s for s in sources if not re.search(rf"(?<!\w){re.escape(s)}(?!\w)", answer, re.I)]
    if not missing:
        return answer
    line = "Sources: " + ", ".join(missing)
    return f"{answer}\n\n{line}" if answer else line


def clean_short_answer(text: str) -> str:
    """The answer's first line without a label, quotes or a closing full stop."""
    answer = short_answer_text(text)
    for label in ("answer:", "the answer is"):
        if answer.lower().startswith(label):
            answer = answer[len(label) :].strip()
    return answer.rstrip(".").strip()
