"""The nodes: research/ (goal, decompose, execute, reflect, aggregate), web/ (observe, decide,
act), tools/ (corpus, web search, browser tools), and the LLM judge."""
