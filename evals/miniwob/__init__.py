"""MiniWoB++: tasks served locally, episodes with a policy or the graph, scripted oracles."""
