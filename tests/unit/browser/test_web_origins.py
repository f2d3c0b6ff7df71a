"""The origin policy: deny by default, every spelling of an address normalised, private and
link-local addresses only by name, file folders, and the allow-list growing with search results."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from browser.guard import episode_policy
from browser.origins import OriginPolicy, file_origin, is_internal_host, normalize_host, origin_of
from browser.session import BrowserSession


@pytest.mark.parametrize(
    ("spelling", "address"),
    [("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
     ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("[::ffff:127.0.0.1]", "127.0.0.1"),
     ("2852039166", "169.254.169.254"), ("0xA9FEA9FE", "169.254.169.254"),
     ("Example.COM.", "example.com"), ("1.2.3.4.5", "1.2.3.4.5")],
)  # fmt: skip
def test_hosts_are_read_the_way_a_browser_reads_them(spelling: str, address: str) -> None:
    assert normalize_host(spelling) == address


def test_nothing_is_allowed_by_default() -> None:
    policy = OriginPolicy()
    for url in ("http://127.0.0.1:8123/a", "https://example.com/", "file:///etc/passwd"):
        assert policy.check(url) is not None, url
    for url in ("about:blank", "data:text/html,hi"):
        assert policy.allows(url)
    assert "scheme 'ftp'" in (policy.check("ftp://example.com/") or "")


def test_exact_origins_hosts_and_wildcards() -> None:
    policy = OriginPolicy(("http://127.0.0.1:8000", "*.wiki.test", "docs.test"))
    assert policy.allows("http://127.0.0.1:8000/page")
    assert policy.allows("ws://127.0.0.1:8000/socket")  # a websocket to an allowed origin
    assert not policy.allows("http://127.0.0.1:8001/page")  # not every port of the host
    assert not policy.allows("https://127.0.0.1:8000/")  # nor the other scheme
    assert policy.allows("https://en.wiki.test/A") and policy.allows("http://docs.test:81/")
    assert not policy.allows("https://wiki.test.evil.com/")
    assert OriginPolicy(("http://example.com",)).allows("http://example.com:80/x")


def test_private_and_link_local_addresses_only_by_name() -> None:
    anything = OriginPolicy(("*",))
    assert anything.allows("https://example.com/")
    for url in (
        "http://169.254.169.254/latest/",
        "http://2852039166/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://localhost:8000/",
        "http://[::1]:9/",
        "http://0.0.0.0:8000/",
        "http://metadata.google.internal/",
        "http://127.1:8000/",
    ):
        reason = anything.check(url)
        assert reason is not None and "refused unless allowed by name" in reason, url
    named = OriginPolicy(("http://127.0.0.1:8000", "10.0.0.1"))
    assert named.allows("http://2130706433:8000/") and named.allows("http://10.0.0.1:9/")
    assert named.names("127.0.0.1") and named.names("10.0.0.1") and not named.names("10.0.0.2")
    assert is_internal_host("localhost") and not is_internal_host("93.184.216.34")


# the IPv6 spellings of the metadata and loopback addresses that `*` once let through
EMBEDDED_IPV4 = [
    ("[::a9fe:a9fe]", "169.254.169.254"),  # IPv4-compatible
    ("[64:ff9b::a9fe:a9fe]", "169.254.169.254"),  # NAT64 well-known prefix
    ("[2002:a9fe:a9fe::1]", "169.254.169.254"),  # 6to4
    ("[::ffff:0:a9fe:a9fe]", "169.254.169.254"),  # SIIT (IPv4-translated)
    ("[::127.0.0.1]", "127.0.0.1"),  # IPv4-compatible, dotted
    ("[64:ff9b::127.0.0.1]", "127.0.0.1"),  # NAT64, dotted
]


@pytest.mark.parametrize(("host", "inner"), EMBEDDED_IPV4)
def test_ipv6_forms_that_embed_an_internal_ipv4_address_are_refused(host: str, inner: str) -> None:
    import ipaddress

    from browser.origins import embedded_ipv4

    address = ipaddress.IPv6Address(normalize_host(host))
    assert str(embedded_ipv4(address)) == inner
    assert is_internal_host(normalize_host(host))
    reason = OriginPolicy(("*",)).check(f"http://{host}:8080/latest/meta-data/")
    assert reason is not None and "refused unless allowed by name" in reason


def test_ipv6_forms_of_public_addresses_and_plain_ipv6_stay_public() -> None:
    anything = OriginPolicy(("*",))
    for host in ("[64:ff9b::808:808]", "[2002:808:808::1]", "[2606:4700::1111]"):
        assert anything.allows(f"https://{host}/"), host
    for host in ("[64:ff9b:1::a]", "[::ffff:10.0.0.1]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]"):
        assert not anything.allows(f"https://{host}/"), host  # local NAT64, mapped, Teredo


def test_files_only_under_allowed_folders(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.html").write_text("a")
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", corpus / "link.txt")
    policy = OriginPolicy((file_origin(corpus),))
    assert policy.allows((corpus / "a.html").as_uri())
    assert not policy.allows((tmp_path / "secret.txt").as_uri())
    assert not policy.allows(f"file://{corpus}/../secret.txt")  # no way up
    assert not policy.allows((corpus / "link.txt").as_uri())  # nor out through a symlink
    assert not policy.allows("file://otherhost/etc/passwd")


def test_an_episode_allows_its_start_origin_and_nothing_more() -> None:
    policy = episode_policy((), "http://127.0.0.1:8000/miniwob/x.html")
    assert policy.allows("http://127.0.0.1:8000/core.js")
    assert not policy.allows("http://127.0.0.1:8001/")
    assert episode_policy((), "about:blank").allowed == ()
    assert origin_of("HTTPS://Example.com:443/x") == "https://example.com"
    with pytest.raises(ValueError, match="allowed origin"):
        OriginPolicy(("http://host:notaport",))


def test_search_results_widen_the_allow_list_but_never_to_private_addresses() -> None:
    session = BrowserSession(allowed_origins=["https://docs.test"])
    session.allow_urls(
        [
            "https://en.wikipedia.org/wiki/Ada",
            "http://169.254.169.254/x",
            "http://10.1.2.3/",
            "https://en.wikipedia.org/wiki/Owl",
            "not a url",
        ]
    )
    assert session.allowed == ("https://docs.test", "https://en.wikipedia.org")
    assert session.check("https://en.wikipedia.org/wiki/X") is None
    assert (session.check("http://169.254.169.254/") or "").startswith("Refused:")
    with pytest.raises(ValueError):
        BrowserSession(allowed_origins=["http://bad:port"])


def test_run_allow_origin_reaches_the_research_context(tmp_path: Path) -> None:
    from cli.commands import build_parser
    from cli.run import _context_from_args

    argv = ["run", "task", "--allow-origin", "https://docs.test", "--allow-origin", "*"]
    args = build_parser(argv).parse_args(argv)
    args.home = str(tmp_path)
    assert _context_from_args(args, {}).allowed_origins == ["https://docs.test", "*"]
    plain = build_parser(["run", "t"]).parse_args(["run", "t"])
    plain.home = str(tmp_path)
    assert _context_from_args(plain, {}).allowed_origins == []
