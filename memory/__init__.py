"""Memory: what the agents learn and keep between runs, and the one API their nodes use.

    agent_memory.py  AgentMemory: nodes read and write memory through `runtime.store` with it
    stores/          LangGraph stores: the project's persistent SqliteStore, shared memory
    reflections/     lesson records, their retrieval score, consolidation into insights
    workflows/       workflow memory (AWM): records, retrieval, induction, the text format
    exchange.py      workflows and trajectories exported to files and imported back
    trajectories.py  recorded runs, the input of online induction and of similar-run recall
    engine/          the storage engine: SQLite records, the FAISS index, damage and repair
    budget.py        token budgets that fit memory into a model's context

Models and embeddings are passed in; nothing here imports the layers above.
"""
