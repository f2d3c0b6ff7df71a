"""What makes a record a lesson: a reusable strategy, not a verdict on one attempt or an answer.

A reflector, a small one above all, often writes its verdict where the lesson belongs ("The
result is good enough and the evidence supports it") or nothing at all. Such a record is kept as
the judgment of its attempt, but it teaches nothing: it is never retrieved into a prompt as a
lesson and never distilled into an insight. An insight distilled from several tasks is advice
for a kind of task, so it names nothing particular (a title, a person, a year): such a sentence
is an answer to one question, and it misleads the next. For the same reason a lesson learned on
another task reaches a prompt only as its strategy (`strategy`): the sentences that say what to
do (`is_advice`), judge nothing and name nothing particular; on the same task (a retry, a later
trial of the same question) it comes whole, since there its particulars are the point.

Why word lists rather than the model or embeddings: on real reflector sentences labelled by
hand, the default model cannot make this call and MiniLM's nearest neighbours do no better
(bench/lesson_judgment.py; docs/memory.md, "Who decides what is a lesson").
"""

from __future__ import annotations

import re

NO_LESSON = "(no lesson stated)"
UNJUDGED_LESSON = "No usable verdict: the reflector's output could not be read."
_PLACEHOLDERS = {NO_LESSON.lower(), UNJUDGED_LESSON.lower()}
# a sentence ends at . ! or ?, but not at an initial ("John M. Keller"), an abbreviation of
# initials ("Burnley F.C. season") or "e.g." / "i.e."
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\s[A-Z]\.)(?<![A-Z]\.[A-Z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)\s+"
)
# a connective that opens a sentence without changing what it is ("Therefore, the result ...")
_CONNECTIVE = re.compile(
    r"^(?:therefore|thus|hence|so|overall|also|however|in (?:conclusion|summary|general)"
    r"|next time|in the future)\s*,?\s+",
    re.IGNORECASE,
)
# a sentence about this attempt: its result, answer, evidence, or the reflection itself
_ABOUT_ATTEMPT = re.compile(
    r"^(?:(?:the|this|that|our|my|its|your)\s+(?:\w+\s+){0,2}?"
    r"(?:result|answer|response|output|reflection|evidence|passage|source|attempt|search"
    r"|information|fact|task|reason)s?\b"
    r"|(?:it|this|that)\s)",
    re.IGNORECASE,
)
# ... that judges it rather than saying what to do
_JUDGES = re.compile(
    r"good enough|\b(?:in)?correct(?:ly)?\b|\b(?:in)?accurate(?:ly)?\b|\bwrong\b|\bright\b"
    r"|\bsupport(?:s|ed)?\b|\banswer(?:s|ed)? (?:the|this|our|it)\b|\b(?:in)?sufficient\b"
    r"|\b(?:in)?complete\b|\breliable\b|\bvalid\b|\bemphasi[sz]es\b|\bconfirm(?:s|ed)?\b"
    r"|\bprovid(?:es|ed|ing)\b|\bneeds? (?:a )?retry\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'’-]+")


# advice: a condition to act on, a directive, or an imperative opening
_CONDITION = re.compile(r"^(?:when|whenever|if|unless|before|after|once|while)\b", re.IGNORECASE)
_DIRECTIVE = re.compile(
    r"\b(?:should|must|always|never|avoid|instead|rather than|prefer|make sure|be sure|ensure"
    r"|it helps to|(?:it is|it's) (?:\w+ )?(?:important|essential|best|better|crucial"
    r"|necessary|helpful|wise|useful|key|safer) to"
    r"|the (?:strategy|step|mistake|rule|lesson)s? (?:is|are|to))\b",
    re.IGNORECASE,
)
# words that open a statement, never an imperative ("The ...", "No further ...", "In this case")
_NOT_IMPERATIVE = frozenset(
    "a an the this that these those it its there here no not none nothing in on at of as by"
    " with from for to i we you he she they our my your his her their both each all some one"
    " is are was were".split()
)


def _body(sentence: str) -> str:
    return _CONNECTIVE.sub("", sentence.strip(), count=1)


def is_verdict(sentence: str) -> bool:
    """True for a sentence that judges this attempt ("The result is good enough ...",
    "Therefore, the information is accurate.")."""
    text = _body(sentence)
    return bool(_ABOUT_ATTEMPT.match(text) and _JUDGES.search(text))


def is_advice(sentence: str) -> bool:
    """True for a sentence that says what to do: under a condition ("When a question asks for
    a year, ..."), as a directive ("it is important to ...", "avoid ...") or an imperative
    ("Search the full name first."), or names what worked ("Quoting the birth line worked.").
    A statement about one attempt ("In this case, the passage names the team.", "No further
    action is needed.") or a fragment ("To.") is none."""
    words = _WORD.findall(_body(sentence))
    if len(words) < 2:
        return False
    text = " ".join(words)
    if _CONDITION.match(text) or _DIRECTIVE.search(text):
        return True
    first = words[0].lower()
    # a verb's base form ("Search ...") or a gerund ("Quoting the birth line worked."): not a
    # function word, a plural or third-person -s, or a past -ed (a narration of one attempt)
    return first not in _NOT_IMPERATIVE and not re.search(r"(?<!s)s$|ed$", first)


def states_lesson(text: str) -> bool:
    """True when `text` says something reusable: not empty, not a placeholder, not only a
    verdict on the attempt it came from."""
    text = text.strip()
    if not re.search(r"\w", text) or text.lower() in _PLACEHOLDERS:
        return False
    return any(s.strip() and not is_verdict(s) for s in _SENTENCE_END.split(text))


def _particular(word: str, first: bool) -> bool:
    word = word.strip("'’-")  # a quoted name ('Romeo') is a name
    if any(ch.isdigit() for ch in word):
        return len(word) >= 2  # a year, a count, a date; one digit is a passage number
    return not first and len(word) >= 2 and word[0].isupper()


def particulars(text: str) -> set[str]:
    """What `text` names that belongs to one task rather than a kind of task: names and titles
    (capitalized words that do not open a sentence) and numbers of two digits or more."""
    found: set[str] = set()
    for sentence in _SENTENCE_END.split(text):
        words = _WORD.findall(sentence)
        found |= {w for i, w in enumerate(words) if _particular(w, first=i == 0)}
    return found


def is_lesson(text: str, *, kind: str = "reflection", verdict: str | None = None) -> bool:
    """Whether a record may reach a prompt as a lesson: judged, stating a lesson, and, for an
    insight (advice for a kind of task), naming nothing particular to one task."""
    if verdict == "unjudged" or not states_lesson(text):
        return False
    return kind != "insight" or not particulars(text)


def strategy(text: str) -> str:
    """The sentences of `text` that would hold for any task of its kind: advice, not a
    verdict on its attempt, naming nothing particular ("" when none)."""
    sentences = (s.strip() for s in _SENTENCE_END.split(text))
    return " ".join(
        s for s in sentences if is_advice(s) and not is_verdict(s) and not particulars(s)
    )


SAME_LESSON = 0.8  # the share of all their words two lessons hold in common to say the same


def same_lesson(a: str, b: str) -> bool:
    """Do `a` and `b` say the same lesson (SAME_LESSON of all their words in common)?"""
    words_a, words_b = (set(_WORD.findall(t.lower())) for t in (a, b))
    union = words_a | words_b
    return bool(union) and len(words_a & words_b) / len(union) >= SAME_LESSON


def same_task(a: str, b: str) -> bool:
    """Are `a` and `b` the same task (the same words, case and spacing aside)?"""
    return _WORD.findall(a.lower()) == _WORD.findall(b.lower())
