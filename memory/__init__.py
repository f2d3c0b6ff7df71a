"""Memory: reflections, workflows (AWM), trajectories, scoring, token budgets and the stores.

Models and embeddings are passed in; nothing here imports the layers above."""
