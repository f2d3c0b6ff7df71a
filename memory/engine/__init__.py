"""The storage engine of memory: items in one SQLite file, their vectors in a FAISS index,
and the tools that find and repair damage to either."""
