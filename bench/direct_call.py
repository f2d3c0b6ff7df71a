"""One direct model call over the search results for a question: the cost and answer an agent
run is measured against (`python -m bench.embedded_run --against direct`).

    python -m bench.direct_call QUESTION --corpus DIR [--model SPEC] [--json]

The same search the agent's run starts with (every search tool queried with the question,
agents.research.evidence.ground), then one call asked for the answer in a short form. Prints
the answer, the call's tokens and the process's seconds (model loading included).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

STARTED = time.perf_counter()

DIRECT_SYSTEM = """Answer the request from the search results. Give the answer first, in as few
words as it needs, then one sentence naming the source it comes from."""


def direct_call(question: str, corpus: str, model_spec: str) -> dict[str, Any]:
    from agents.research.evidence import EVIDENCE_CHARS, EVIDENCE_HITS, ground
    from agents.tools import build_tools
    from core.context import RunCache
    from core.models import Models

    model = Models().chat(model_spec)
    tools, toolset = build_tools(corpus_dir=corpus, use_browser=False, cache=RunCache())
    try:
        # the run's first search: goal_setting's hits and budget
        evidence = ground(question, tools, k=EVIDENCE_HITS, max_chars=EVIDENCE_CHARS)
    finally:
        toolset.close()
    prompt = f"<search_results>\n{evidence}\n</search_results>\n<request>{question}</request>"
    reply = model.invoke([SystemMessage(DIRECT_SYSTEM), HumanMessage(prompt)])
    usage: dict[str, Any] = dict(reply.usage_metadata or {})
    tokens = {"input": usage.get("input_tokens"), "cached": 0, "output": usage.get("output_tokens")}
    return {
        "final_output": reply.text.strip(),
        "llm_calls": 1,
        "tokens": tokens,
        "elapsed_s": round(time.perf_counter() - STARTED, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--corpus", required=True, help="folder of documents to search")
    parser.add_argument("--model", default="local", help="model spec (default: local)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    out = direct_call(args.question, args.corpus, args.model)
    print(json.dumps(out, ensure_ascii=False) if args.json else out["final_output"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
