"""Which origins the agent may visit: allow-listed hosts or exact origins (loopback by default)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")
# Pages the browser itself shows; never a network fetch.
_INTERNAL = ("about:blank", "about:srcdoc")


@dataclass(frozen=True)
class OriginPolicy:
    """Allowed entries: a host ("127.0.0.1"), a wildcard host ("*.example.org"), or an exact
    origin ("http://127.0.0.1:8000"). Only http(s) urls and about:blank can ever be allowed."""

    allowed: tuple[str, ...] = LOOPBACK

    def check(self, url: str) -> str | None:
        """None when the url may be visited, else the reason it may not."""
        if url in _INTERNAL or url.startswith("data:"):
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return f"url {url!r} has scheme {parts.scheme or 'none'!r}; only http(s) is allowed"
        host = (parts.hostname or "").lower()
        if not host:
            return f"url {url!r} has no host"
        origin = f"{parts.scheme}://{parts.netloc.lower()}"
        if any(_matches(entry.lower(), host, origin) for entry in self.allowed):
            return None
        return f"origin {origin} is not allowed (allowed: {', '.join(self.allowed) or 'none'})"

    def allows(self, url: str) -> bool:
        return self.check(url) is None


def _matches(entry: str, host: str, origin: str) -> bool:
    if "://" in entry:
        return entry.rstrip("/") == origin
    entry = entry.strip("[]")
    if entry.startswith("*."):
        return host.endswith(entry[1:])
    return host == entry
