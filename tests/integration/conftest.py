"""Integration-test fixtures: the tally of the fault and hostile-input suite, printed as one block
in pytest's summary, each line only when its tests ran and only with what they measured:

    fault and hostile-input suite:
      store faults: K kills survived, M malformed inputs tried (D damaged files, H hostile
        imports), L acknowledged records lost
      escape attempts: B blocked out of T tried (env b/t, tools b/t), C connections reached
        the logging server
      UDP escape attempts (WebRTC, WebTransport, sandboxed frames): T tried (env t, tools t,
        browse t), D datagrams reached the UDP listener (the unguarded control: C; the browser
        alone, without the in-page removal: L from K kinds)
      corpus jail: L links out of the corpus tried, F files read outside the corpus
      odd inputs: N tried (exit 0: a, exit 2: b, ...), E ended in exit 5 (a bug)
      fault injection: K kills (N at node boundaries, S right after a reflection save),
        D duplicate reflections, R re-runs of finished work
      file and URL arguments: N tried (exit 2: a, ...), E ended in exit 5 (a bug),
        T printed a traceback
      MCP servers that break the rules: N tries, S server processes started, L left running
        after the CLI ended (must be 0)
      served graphs, remote callers: N hostile settings tried (R refused before any work),
        C commands run, F files read outside the operator's corpora, H requests to
        caller-chosen hosts, K keys sent anywhere new; X cross-caller reads and writes tried,
        S saw or changed another caller's threads or memories; U requests without a valid
        token refused

(test_store_faults.py and test_store_hostile_input.py add the store keys, test_browser_guard.py
the escape_* keys, test_browser_udp.py the udp_* keys, test_corpus_jail.py the corpus_* keys,
test_cli_odd_input.py the odd_* keys, test_fault_injection.py the injection_* keys,
test_cli_arguments.py the arguments_* keys, test_mcp_odd_servers.py the mcp_* keys,
test_served_probes.py the served_* keys, all through `tally`.)
"""

from __future__ import annotations

from collections import Counter

import pytest

STORE_FAULTS: Counter = Counter()  # one per pytest session: what the summary block reports


@pytest.fixture
def tally() -> Counter:
    return STORE_FAULTS


def _store_line(c: Counter) -> str:
    return (
        f"store faults: {c['kills']} kills survived, "
        f"{c['damaged'] + c['hostile']} malformed inputs tried "
        f"({c['damaged']} damaged files, {c['hostile']} hostile imports), "
        f"{c['lost']} acknowledged records lost"
    )


def _escape_line(c: Counter) -> str:
    sides = ", ".join(
        f"{side} {c[f'escape_blocked_{side}']}/{c[f'escape_tried_{side}']}"
        for side in ("env", "tools")
        if c[f"escape_tried_{side}"]
    )
    return (
        f"escape attempts: {c['escape_blocked']} blocked out of {c['escape_tried']} tried "
        f"({sides}), {c['escape_leaked']} connections reached the logging server"
    )


def _udp_line(c: Counter) -> str:
    sides = ", ".join(
        f"{side} {c[f'udp_tried_{side}']}"
        for side in ("env", "tools", "browse")
        if c[f"udp_tried_{side}"]
    )
    layer = (
        f"; the browser alone, without the in-page removal: {c['udp_layer_datagrams']} "
        f"from {c['udp_layer_tried']} kinds"
        if c["udp_layer_tried"]
        else ""
    )
    return (
        f"UDP escape attempts (WebRTC, WebTransport, sandboxed frames): {c['udp_tried']} tried "
        f"({sides}), {c['udp_datagrams']} datagrams reached the UDP listener "
        f"(the unguarded control: {c['udp_control_datagrams']}{layer})"
    )


def _corpus_line(c: Counter) -> str:
    return (
        f"corpus jail: {c['corpus_links_tried']} links out of the corpus tried, "
        f"{c['corpus_outside_read']} files read outside the corpus"
    )


def _odd_line(c: Counter) -> str:
    codes = sorted(int(k.rsplit("_", 1)[1]) for k in c if k.startswith("odd_exit_") and c[k])
    by_code = ", ".join(f"exit {code}: {c[f'odd_exit_{code}']}" for code in codes)
    return (
        f"odd inputs: {c['odd_tried']} tried ({by_code}), {c['odd_exit_5']} ended in exit 5 (a bug)"
    )


def _injection_line(c: Counter) -> str:
    return (
        f"fault injection: {c['injection_kills']} kills "
        f"({c['injection_boundary_kills']} at node boundaries, "
        f"{c['injection_save_kills']} right after a reflection save), "
        f"{c['injection_duplicates']} duplicate reflections, "
        f"{c['injection_reruns']} re-runs of finished work"
    )


def _arguments_line(c: Counter) -> str:
    codes = sorted(int(k.rsplit("_", 1)[1]) for k in c if k.startswith("arguments_exit_") and c[k])
    by_code = ", ".join(f"exit {code}: {c[f'arguments_exit_{code}']}" for code in codes)
    return (
        f"file and URL arguments: {c['arguments_tried']} tried ({by_code}), "
        f"{c['arguments_exit_5']} ended in exit 5 (a bug), "
        f"{c['arguments_tracebacks']} printed a traceback"
    )


def _mcp_line(c: Counter) -> str:
    return (
        f"MCP servers that break the rules: {c['mcp_tries']} tries, "
        f"{c['mcp_servers_started']} server processes started, "
        f"{c['mcp_servers_left']} left running after the CLI ended (must be 0)"
    )


def _served_line(c: Counter) -> str:
    return (
        f"served graphs, remote callers: {c['served_tried']} hostile settings tried "
        f"({c['served_refused']} refused before any work), {c['served_commands']} commands run, "
        f"{c['served_outside_read']} files read outside the operator's corpora, "
        f"{c['served_caller_requests']} requests to caller-chosen hosts, "
        f"{c['served_keys_astray']} keys sent anywhere new; {c['served_cross_tried']} "
        f"cross-caller reads and writes tried, {c['served_cross_seen']} saw or changed another "
        f"caller's threads or memories; {c['served_unauthenticated']} requests without a valid "
        "token refused"
    )


def summary_lines(c: Counter) -> list[str]:
    """The block's lines for the parts of the suite that recorded something."""
    lines = []
    if any(c[k] for k in ("kills", "damaged", "hostile", "lost")):
        lines.append(_store_line(c))
    if c["escape_tried"]:
        lines.append(_escape_line(c))
    if c["udp_tried"]:
        lines.append(_udp_line(c))
    if c["corpus_links_tried"]:
        lines.append(_corpus_line(c))
    if c["odd_tried"]:
        lines.append(_odd_line(c))
    if c["injection_runs"]:
        lines.append(_injection_line(c))
    if c["arguments_tried"]:
        lines.append(_arguments_line(c))
    if c["mcp_tries"]:
        lines.append(_mcp_line(c))
    if c["served_tried"]:
        lines.append(_served_line(c))
    return lines


def pytest_terminal_summary(terminalreporter) -> None:
    lines = summary_lines(STORE_FAULTS)
    if not lines:
        return
    terminalreporter.write_line("fault and hostile-input suite:")
    for line in lines:
        terminalreporter.write_line("  " + line)


@pytest.fixture(scope="module")
def pg_url():
    """A throwaway PostgreSQL server on 127.0.0.1 for the module's tests (postgres_server.py);
    missing server binaries fail the test, never skip it."""
    from tests.integration.postgres_server import pg_bin, running_postgres

    if pg_bin() is None:
        pytest.fail("PostgreSQL server binaries not found: apt-get install postgresql")
    with running_postgres() as url:
        yield url
