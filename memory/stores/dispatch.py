"""The one way this project's stores carry out LangGraph's Store operations: `batch` hands each
operation, in order, to the method for its kind, and `abatch` runs the batch off the event loop
(SQLite, FAISS, files and PostgreSQL calls block)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)


class DispatchingStore(BaseStore):
    """A BaseStore whose subclass says how to get, put, search and list namespaces."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)  # a delete is a put of None
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        raise NotImplementedError

    def _put(self, op: PutOp) -> None:
        raise NotImplementedError

    def _search(self, op: SearchOp) -> list[SearchItem]:
        raise NotImplementedError

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        raise NotImplementedError
