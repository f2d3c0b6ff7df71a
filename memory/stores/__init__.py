"""LangGraph stores (BaseStore implementations) over memory: the project's persistent store
and the parts it routes to."""
