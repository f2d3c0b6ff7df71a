"""hop: a short answer reasoned out along the request's chain, searching for each link it lacks.

A multi-hop question names its answer only through a bridge (the film's director, then where the
director was born), and the bridge is found only by reading: the request's own search finds the
first link, and only a search for what that link names finds the next. So each hop reads what the
run has read (the request's first search, then the few passages each earlier hop's search added:
the best of its new ones for the link it searched) and continues the reasoning in short
sentences, as IRCoT does (Trivedi et al., 2023), shown a few examples. Its prompt opens as goal
setting's does and grows only at its end, so a local model reads of each hop only what is new.
Then, sentence by sentence:
- a sentence whose names and numbers are all in one passage read is a fact found: it joins the
  reasoning (a reply may hold several, so a link the passages already give costs no call);
- the first sentence naming something the run has not read is the model's guess at the next link:
  it is searched (the bridge it names, not the request's words again), the best of its new
  passages join the rest, and the next hop continues from the facts found;
- "So the answer is: X" ends the chain when the passages hold X and X is short: the evidence judges
  it, not a second reading of the same passages. But a name the request does not give, whose own
  passage the run has not read, is looked up first: a small model often answers with the bridge
  (the director, where the question asks for his birthplace), and a bridge has a page of its own;
  when its search finds that page, the next hop reads it and says again what the answer is (a
  name with no page of its own stands at no cost: the search needs no call). An answer not of
  the kind asked, or a comparison's whose facts leave a side out, is searched first (`hop_checks`);
  a choice between two sides by a date or a count is decided by their values (`compare`).
A link the question asks through that a page read already names ("the director of film X": X's
page says "directed by D") is taken as a fact and D searched, with no call (`bridge`).
A search that brings nothing new is tried once more with the new names alone. After `max_hops`
hops, when nothing new can be found, or when the stated answer is no short one, one last reading
answers from what was read and the reasoning; an answer naming what no passage holds never stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langgraph.runtime import Runtime

from agents import resources
from agents.research.answer_text import clean_short_answer
from agents.research.bridge import bridge, page_read
from agents.research.compare import because, chosen, options, side_of, unvalued, valued_sides
from agents.research.evidence import EVIDENCE_CHARS, EVIDENCE_HITS, ground
from agents.research.hop_checks import Reasoning, answers, asked, lacking, split_reasoning
from agents.research.memory_context import memory_block, solved_before
from agents.research.prompting import human, opening, system_message
from agents.research.readings import unless_echoed
from agents.research.reply import replied
from agents.research.sources import beyond, cited, hits, title_and_source
from agents.research.support import normal, unsupported
from agents.tools.bm25 import BM25, tokenize
from core.context import Context
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from core.state import ChainEnd, ChainLink, ReflectiveAgentState
from memory.reflections.lessons import particulars
from prompts.research import FOUND, HOP, HOP_EXAMPLE, HOP_EXAMPLES, LAST_READING, NO_FACTS
from prompts.untrusted import data

FOUND_PER_HOP = 3  # the new passages a hop's search adds: the best for the link it searched
SHORT_WORDS = 8  # a stated answer longer than this is read again in the short form
# how a chain ended (core.state.ChainEnd)
ANSWERED: ChainEnd = "answered"
COMPARED: ChainEnd = "compared"
LAST: ChainEnd = "last reading"
UNANSWERED: ChainEnd = "not found"


def hop(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Continue the reasoning over what the run has read: a short answer the passages hold ends
    the chain; else the next link is searched for the next hop, or the answer read one last
    time. A question of a kind solved before is shown that chain's reasoning to follow, and a
    request answered before its own lessons (a retry's)."""
    ctx, memory = runtime.context, resources.memory(runtime)
    solved = solved_before(memory, ctx, state["query"])
    own = memory_block(memory, ctx, state["query"], "aggregator", workflows_k=0, own_lessons=True)
    shown = solved.text + (own.text if own.ids else "")
    return {**_next_link(ctx, state, shown), "recalled": [*solved.ids, *own.ids]}


def _next_link(ctx: Context, state: ReflectiveAgentState, solved: str) -> dict:
    query = state["query"]
    chain = list(state.get("chain") or [])
    passages = passages_read(state)
    facts = [f for link in chain for f in link["facts"]]
    picked = chosen(query, facts, passages)  # what the passages say orders a choice: no call
    bridged, linked = (None, []) if picked else _bridged(ctx, state, chain, facts, passages)
    if bridged:  # a page read says who the question asks through: searched, no call
        return bridged
    facts = [*facts, *linked]  # the link's page already read: facts the hop continues from
    reply = "" if picked else _reasoning(ctx, state, facts, solved)
    said = split_reasoning(reply, query, passages, facts)
    link: ChainLink = {"facts": [*linked, *said.facts], "guess": said.guess, "searched": ""}
    facts = [*facts, *said.facts]
    picked = picked or chosen(query, facts, passages)
    if picked:  # two values that order a choice's sides decide it, not the model's conclusion
        grounds = [f for f in because(query, facts, passages) if f not in facts]
        link["facts"] = [*said.facts, *grounds]  # what it rests on, for the record
        return _ended(state, chain, {**link, "answer": picked}, picked, COMPARED)
    more = len(chain) + 1 < ctx.max_hops
    wanted: list[str] = []
    said.answer = said.answer if said.answer and answers(query, said.answer) else None
    stated = side_of(said.answer, query, facts, passages) if said.answer else None
    if stated and len(stated.split()) <= SHORT_WORDS:
        wanted = lacking(query, stated, facts, passages)
        if not wanted:
            page = _looked_up(ctx, state, stated, passages) if more else []
            if page:  # a name with a page of its own may be a bridge: the next hop reads it
                return {"chain": [*chain, {**link, "searched": stated}], "read": page}
            return _ended(state, chain, {**link, "answer": stated}, stated, ANSWERED)
    elif not stated:  # none stated, or not one of a choice's sides
        wanted = unvalued(query, facts, passages) or next_queries(said, query)
    if wanted and more:
        searched, new = _next_search(ctx, state, chain, wanted, passages)
        if new:
            best = focused(new, " ".join([searched, query, *facts]), FOUND_PER_HOP)
            return {"chain": [*chain, {**link, "searched": searched}], "read": best}
    last = _last_reading(ctx, state, facts, solved)
    return _ended(state, chain, {**link, "answer": last}, last, LAST if last else UNANSWERED)


def _bridged(
    ctx: Context,
    state: ReflectiveAgentState,
    chain: list[ChainLink],
    facts: list[str],
    passages: list[str],
) -> tuple[dict | None, list[str]]:
    """What the pages read say of who the question asks through (`bridge`: "the director of
    film X", X's page: "directed by D"): the next hop, when D's own page is not read yet (those
    sentences are facts found and D is searched, with no call), and the sentences not among
    the facts yet (for the hop to continue from, when D's page is read or finds nothing new)."""
    query = state["query"]
    found = None if valued_sides(query) else bridge(query, passages)
    linked = [f for f in found[0] if f not in facts] if found else []
    if not found or not linked or page_read(found[1], passages):
        return None, linked
    searched, new = _next_search(ctx, state, chain, [found[1]], passages)
    if not new:
        return None, linked
    link: ChainLink = {"facts": linked, "guess": "", "searched": searched}
    return {"chain": [*chain, link], "read": focused(new, found[1], FOUND_PER_HOP)}, []


def passages_read(state: ReflectiveAgentState) -> list[str]:
    """Every passage the run has read, whole (header and text), each once: the request's first
    search, then what its hops and tasks found."""
    seen = hits(state.get("evidence") or "")
    return [*seen, *(h for h in state.get("read") or [] if h not in seen)]


def focused(passages: Sequence[str], about: str, n: int) -> list[str]:
    """The `n` passages that best match `about` (BM25 among themselves; when fewer match, the
    latest found), in the order read."""
    if len(passages) <= n:
        return list(passages)
    best = [i for i, _ in BM25([tokenize(p) for p in passages]).top(tokenize(about), n)]
    latest = (i for i in reversed(range(len(passages))) if i not in best)
    best += [next(latest) for _ in range(n - len(best))]
    return [p for i, p in enumerate(passages) if i in set(best)]


def _reasoning(ctx: Context, state: ReflectiveAgentState, facts: list[str], solved: str) -> str:
    """One hop's call: the reasoning's next sentences."""
    prompt = HOP.format(**_shown(state, facts, solved))
    chat = with_max_tokens(ctx.chat("aggregator"), OUTPUT_LIMITS["hop"])
    return chat.invoke([system_message(ctx), human(prompt)]).text


def _shown(state: ReflectiveAgentState, facts: list[str], solved: str) -> dict[str, str]:
    """What a hop's prompt shows, in an order a local model reads from its cache: the run's
    opening (as goal setting's), the examples (and questions of its kind solved before), the
    passages the hops found (in the order found), the question and the reasoning so far."""
    found = state.get("read") or []
    return {
        "opening": opening(state["query"], state.get("evidence") or ""),
        "examples": examples(),
        "solved": solved,
        "found": FOUND.format(passages=numbered(found)) if found else "",
        "query": data(state["query"]),
        "facts": data(" ".join(facts)) or NO_FACTS,
    }


def examples() -> str:
    return "\n\n".join(
        HOP_EXAMPLE.format(passages="\n".join(found), question=question, reasoning=reasoning)
        for found, question, reasoning in HOP_EXAMPLES
    )


def numbered(passages: Sequence[str]) -> str:
    """Passages as a prompt shows them: numbered, each whole (already escaped as data)."""
    return "\n\n".join(f"[{n}] {p}" for n, p in enumerate(passages, 1))


def _next_search(
    ctx: Context,
    state: ReflectiveAgentState,
    chain: list[ChainLink],
    queries: list[str],
    passages: list[str],
) -> tuple[str, list[str]]:
    """The first of `queries` not searched yet that finds passages the run had not read, and
    those passages (a query that finds nothing new gives way to the next)."""
    done = {state["query"].casefold(), *(c["searched"].casefold() for c in chain)}
    for query in queries:
        if query.casefold() in done:
            continue
        done.add(query.casefold())
        with resources.open_tools(ctx) as tools:
            found = ground(query, tools, k=EVIDENCE_HITS, max_chars=EVIDENCE_CHARS)
        new = hits(beyond(found, state.get("evidence") or "", passages))
        if new:
            return query, new
    return "", []


def _looked_up(
    ctx: Context, state: ReflectiveAgentState, answer: str, passages: list[str]
) -> list[str]:
    """The new passages of a search for `answer` when it is a name the request does not give
    and a passage of its own (titled with it) turns up that the run has not read; [] when the
    answer stands as it is (no name, the request's own, its page already read, or none)."""
    if not particulars(answer) or normal(answer) in normal(state["query"]):
        return []
    if any(_titled(answer, title_and_source(p)[0]) for p in passages):
        return []
    with resources.open_tools(ctx) as tools:
        found = ground(answer, tools, k=EVIDENCE_HITS, max_chars=EVIDENCE_CHARS)
    new = hits(beyond(found, state.get("evidence") or "", passages))
    if not any(_titled(answer, title_and_source(p)[0]) for p in new):
        return []
    return focused(new, answer, FOUND_PER_HOP)


def _titled(name: str, title: str) -> bool:
    """Is `title` the name's own (its words, a parenthesised kind and a leading article aside:
    "Paris (film)", "the Nelson River")?"""
    return _bare(re.sub(r"\s*\([^)]*\)\s*$", "", title)) == _bare(name)


def _bare(name: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", normal(name).strip())


def next_queries(said: Reasoning, request: str) -> list[str]:
    """What to search next: the guess at the next link (else the last fact found), then the
    names in it that the request does not already give."""
    sentence = said.guess or (said.facts[-1] if said.facts else "")
    if not sentence:
        return []
    asked = {n.casefold() for n in particulars(request)}
    named = particulars(sentence)
    words = (w.strip(".,;:!?'\"()") for w in sentence.split())
    names = [w for w in dict.fromkeys(words) if w in named and w.casefold() not in asked]
    return [sentence, " ".join(names)] if names else [sentence]


def _last_reading(ctx: Context, state: ReflectiveAgentState, facts: list[str], solved: str) -> str:
    """One reading of what the run read and the reasoning: its answer if the passages hold it,
    else "" (a made-up name never stands)."""
    query = state["query"]
    form = asked(query) or " or ".join(options(query) or ()) or state.get("answer_form", "")
    prompt = LAST_READING.format(**_shown(state, facts, solved), answer_form=form)
    chat = with_max_tokens(ctx.chat("aggregator"), OUTPUT_LIMITS["short_answer"])
    reply = chat.invoke([system_message(ctx), human(prompt)])
    answer = unless_echoed(clean_short_answer(reply.text), form)
    answer = side_of(answer, query, facts, passages_read(state)) or answer if answer else ""
    read = "\n".join([query, *passages_read(state)])
    return answer if answer and answers(query, answer) and not unsupported(answer, read) else ""


def _ended(
    state: ReflectiveAgentState, chain: list[ChainLink], link: ChainLink, answer: str, how: ChainEnd
) -> dict:
    """The chain's end: its answer (cited with the passages that hold it) as the run's reply,
    or, none found, a reply that says so and what was found."""
    links: list[ChainLink] = [*chain, {**link, "how": how}]
    if not answer:
        found = " ".join(f for c in links for f in c["facts"])
        text = "No passage read states the answer." + (f" Found: {found}" if found else "")
        return replied(state, text, answer="", chain=links)
    final = cited(answer, f"<read>\n{numbered(passages_read(state))}\n</read>")
    return replied(state, final, answer=answer, chain=links)
