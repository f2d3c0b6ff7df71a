"""The web agent: observe the page, decide one action, act (nodes, decision, memory, sessions)."""
