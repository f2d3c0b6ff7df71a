"""Agent Workflow Memory (AWM) experiments: the arms, the protocol on MiniWoB++, its jobs."""
