"""The research agent's nodes: goal, decompose, execute, reflect, aggregate."""
