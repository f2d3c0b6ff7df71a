"""Evaluation harnesses: WebArena evaluators, MMInA multi-hop, HotpotQA, MiniWoB++, AWM."""
