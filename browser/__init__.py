"""A browser environment with WebArena's action space and accessibility-tree observations."""
