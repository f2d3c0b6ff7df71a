"""Which urls the browser may load: an allow-list of origins, hosts and folders, deny by default.

Entries: an exact origin (`http://127.0.0.1:8000`), a host on any port (`wiki.test`), a wildcard
host (`*.wiki.test`), a folder for file urls (`file:///data/corpus`), or `*` for any public
origin. Private, loopback, link-local and metadata addresses (10/8, 127/8, 169.254.169.254, ::1,
`localhost`, `metadata.google.internal`, …) are refused unless an entry names that host; `*`
and wildcards never admit them. Hosts are normalised before any check the way a browser does
(`2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are all 127.0.0.1), and an IPv6 address
that embeds an IPv4 one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`,
NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`, Teredo) is judged by that IPv4 address too, so
no spelling of an address slips past. Only http(s), ws(s) (checked as http(s)) and file urls
can be allowed; `about:blank`, `about:srcdoc` and `data:` never reach the network.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

ANY = "*"
_INTERNAL = ("about:blank", "about:srcdoc")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_AS_HTTP = {"ws": "http", "wss": "https", "http": "http", "https": "https"}
_METADATA_HOSTS = {"metadata", "metadata.google.internal", "instance-data"}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: local use, never public
_SIIT = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 IPv4-translated
_COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291 IPv4-compatible (deprecated)


def _ipv4_part(part: str) -> int | None:
    """One part of a WHATWG IPv4 address: decimal, 0x-hex or 0-octal; None if not a number."""
    try:
        if part[:2].lower() == "0x":
            return int(part[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10)
    except ValueError:
        return None


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The address a browser reads in `host` (`127.1`, `2130706433`, `0x7f.1`), else None."""
    parts = host.split(".")
    if parts and parts[-1] == "":
        parts = parts[:-1]
    if not parts or len(parts) > 4 or _ipv4_part(parts[-1]) is None:
        return None
    numbers = [_ipv4_part(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    *head, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(parts)):
        return None
    value = last
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def normalize_host(host: str) -> str:
    """Lower case, no trailing dot, IP addresses in their one canonical form."""
    host = unquote(host).strip().lower().rstrip(".").strip("[]")
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(host)
    except ValueError:
        found = _ipv4(host)
        return str(found) if found is not None else host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, SIIT, NAT64, 6to4, Teredo
    client), else None. A packet to such an address may well reach that IPv4 host."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _NAT64 or address in _SIIT:
        return low
    if address in _COMPATIBLE and int(address) > 1:  # `::` and `::1` are not IPv4 addresses
        return low
    return None


def _non_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not address.is_global or address.is_multicast


def is_internal_host(host: str) -> bool:
    """Loopback, private, link-local, metadata or otherwise non-public (host normalised); an
    IPv6 address is also judged by the IPv4 address it embeds."""
    if host == "localhost" or host.endswith(".localhost") or host in _METADATA_HOSTS:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if address in _NAT64_LOCAL or (inner is not None and _non_public(inner)):
            return True
    return _non_public(address)


@dataclass(frozen=True)
class _Url:
    scheme: str  # http or https (ws/wss mapped)
    host: str  # normalised
    port: int

    @property
    def origin(self) -> str:
        """`scheme://host[:port]`, the port only when it is not the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == _DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{host}{port}"


def _parse(url: str) -> _Url | str:
    """The url's origin parts, or the reason it has none."""
    parts = urlsplit(url.strip())
    scheme = _AS_HTTP.get(parts.scheme.lower())
    if scheme is None:
        return f"url {url!r} has scheme {parts.scheme or 'none'!r}; only http(s) is allowed"
    try:
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        return f"url {url!r} has an invalid port"
    host = normalize_host(parts.hostname or "")
    if not host:
        return f"url {url!r} has no host"
    return _Url(scheme, host, port)


@dataclass(frozen=True)
class OriginPolicy:
    """The allow-list; `check(url)` says why a url may not be loaded (None when it may)."""

    allowed: tuple[str, ...] = ()
    _origins: frozenset[str] = field(init=False, repr=False, compare=False)
    _hosts: frozenset[str] = field(init=False, repr=False, compare=False)
    _wildcards: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _folders: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        origins, hosts, wildcards, folders = set(), set(), [], []
        for entry in (e.strip() for e in self.allowed if e.strip()):
            if entry.lower().startswith("file:"):
                folders.append(_folder(entry))
            elif "://" in entry:
                parsed = _parse(entry)
                if isinstance(parsed, str):
                    raise ValueError(f"allowed origin {entry!r}: {parsed}")
                origins.add(parsed.origin)
            elif entry.startswith("*.") or entry == ANY:
                wildcards.append(entry.lower())
            else:
                hosts.add(normalize_host(entry))
        object.__setattr__(self, "_origins", frozenset(origins))
        object.__setattr__(self, "_hosts", frozenset(hosts))
        object.__setattr__(self, "_wildcards", tuple(wildcards))
        object.__setattr__(self, "_folders", tuple(folders))

    def with_entries(self, *entries: str) -> OriginPolicy:
        """This policy plus more entries (e.g. a start page's origin, search result origins)."""
        return OriginPolicy(tuple(dict.fromkeys(self.allowed + entries)))

    def check(self, url: str) -> str | None:
        """None when the url may be loaded, else the reason it may not."""
        if url in _INTERNAL or url.startswith("data:"):
            return None
        if url.lower().startswith("file:"):
            return self._check_file(url)
        parsed = _parse(url)
        if isinstance(parsed, str):
            return parsed
        if parsed.origin in self._origins or parsed.host in self._hosts:
            return None
        if is_internal_host(parsed.host):
            return (
                f"{parsed.origin} is a private, loopback or link-local address; it is "
                "refused unless allowed by name (--allow-origin)"
            )
        if ANY in self._wildcards or any(parsed.host.endswith(w[1:]) for w in self._wildcards):
            return None
        shown = ", ".join(self.allowed) or "none"
        return f"origin {parsed.origin} is not allowed (allowed: {shown})"

    def allows(self, url: str) -> bool:
        return self.check(url) is None

    def names(self, host: str) -> bool:
        """Does an entry name this (normalised) host itself, not through `*` or a wildcard?"""
        return host in self._hosts or any(
            normalize_host(urlsplit(o).hostname or "") == host for o in self._origins
        )

    def _check_file(self, url: str) -> str | None:
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            return f"file url {url!r} names a host; only local files can be allowed"
        path = os.path.realpath(unquote(parts.path))
        if any(path == folder or path.startswith(folder + os.sep) for folder in self._folders):
            return None
        return f"file {path} is outside the allowed folders ({', '.join(self._folders) or 'none'})"


def _folder(entry: str) -> str:
    """`file:///data/corpus/` -> the folder's real path (symlinks resolved)."""
    path = unquote(urlsplit(entry).path) or "/"
    return os.path.realpath(path)


def file_origin(folder: str | os.PathLike[str]) -> str:
    """The allow-list entry for every file under `folder`."""
    return "file://" + os.path.realpath(folder)


def origin_of(url: str) -> str | None:
    """`scheme://host:port` of a url as the policy sees it (None when it has no origin)."""
    parsed = _parse(url)
    return None if isinstance(parsed, str) else parsed.origin
