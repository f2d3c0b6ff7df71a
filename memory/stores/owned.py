"""One caller's view of a shared LangGraph store: every namespace under the caller's identity.

    store = OwnedStore(runtime.store, "alice")    # ("reflections", "default") is stored at
    store.put(("reflections", "default"), ...)    # ("alice", "reflections", "default")

A served graph with authenticated callers gives each run this view of the server's store
(agents/resources.py `memory`), and the server's auth handler rewrites every namespace a caller
names in the store API the same way (graphs/auth.py), so a caller reads and writes their own
memories and no one else's, through the graph or the API alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)


class OwnedStore(BaseStore):
    """`store` seen by `owner`: namespaces prefixed with (owner,) going in, stripped coming out."""

    def __init__(self, store: BaseStore, owner: str) -> None:
        self.store, self.prefix = store, (owner,)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._out(r) for r in self.store.batch([self._in(op) for op in ops])]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._out(r) for r in await self.store.abatch([self._in(op) for op in ops])]

    def _in(self, op: Op) -> Op:
        if isinstance(op, GetOp | PutOp):
            return op._replace(namespace=self.prefix + op.namespace)
        if isinstance(op, SearchOp):
            return op._replace(namespace_prefix=self.prefix + op.namespace_prefix)
        if isinstance(op, ListNamespacesOp):
            return self._listing(op)
        raise TypeError(f"unknown store operation {op!r}")

    def _listing(self, op: ListNamespacesOp) -> ListNamespacesOp:
        conditions = list(op.match_conditions or ())
        prefixes = [c for c in conditions if c.match_type == "prefix"]
        others = [c for c in conditions if c.match_type != "prefix"]
        owned = [MatchCondition("prefix", self.prefix + tuple(c.path)) for c in prefixes]
        depth = None if op.max_depth is None else op.max_depth + len(self.prefix)
        return op._replace(
            match_conditions=tuple(owned or [MatchCondition("prefix", self.prefix)])
            + tuple(others),
            max_depth=depth,
        )

    def _out(self, result: Any) -> Any:
        if isinstance(result, Item):
            return self._item(result)
        if isinstance(result, list):
            return [self._out(r) for r in result]
        if isinstance(result, tuple):  # a namespace from a listing
            return result[len(self.prefix) :]
        return result

    def _item(self, item: Item) -> Item:
        namespace = item.namespace[len(self.prefix) :]
        if isinstance(item, SearchItem):
            return SearchItem(
                namespace, item.key, item.value, item.created_at, item.updated_at, item.score
            )
        return Item(
            value=item.value,
            key=item.key,
            namespace=namespace,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )
