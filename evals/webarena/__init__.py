"""WebArena scoring (string, URL and page-content evaluators) and MMInA multi-hop scoring."""
