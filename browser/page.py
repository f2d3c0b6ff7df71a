"""What the browser tools see of a page: its text, an accessibility tree with ids, origins."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.async_api import Locator, Page

ID_ATTR = "data-agent-id"
DEFAULT_PORTS = {"http": 80, "https": 443}

# Walks the visible DOM in order and prints one line per interactive element, heading, image or
# text run. Interactive elements get a fresh numeric id stored in data-agent-id, so a later
# click/type can find exactly the element the model saw.
TREE_JS = r"""
(maxNodes) => {
  document.querySelectorAll('[data-agent-id]').forEach(e => e.removeAttribute('data-agent-id'));
  const lines = [];
  let nextId = 1;
  const INPUT_ROLES = {checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button',
    reset: 'button', image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox'};
  const ACTIVE = new Set(['link', 'button', 'checkbox', 'radio', 'textbox', 'searchbox',
    'combobox', 'menuitem', 'tab', 'option', 'switch', 'slider', 'spinbutton']);
  const LEAF = new Set(['link', 'button', 'heading', 'option', 'img', 'textbox', 'searchbox']);
  const VISIBLE = {checkVisibilityCSS: true, visibilityProperty: true};
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const roleOf = el => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit;
    const t = el.tagName;
    if (t === 'A') return el.hasAttribute('href') ? 'link' : null;
    if (t === 'BUTTON' || t === 'SUMMARY') return 'button';
    if (t === 'SELECT') return 'combobox';
    if (t === 'OPTION') return 'option';
    if (t === 'TEXTAREA') return 'textbox';
    if (t === 'INPUT') return INPUT_ROLES[(el.type || 'text').toLowerCase()] || 'textbox';
    if (/^H[1-6]$/.test(t)) return 'heading';
    if (t === 'IMG') return el.alt ? 'img' : null;
    if (el.isContentEditable) return 'textbox';
    if (el.hasAttribute('onclick')) return 'button';
    return null;
  };
  const nameOf = el => {
    const label = el.getAttribute('aria-label');
    if (label) return clean(label);
    const by = el.getAttribute('aria-labelledby');
    if (by) return clean(by.split(/\s+/).map(i => document.getElementById(i)?.innerText).join(' '));
    if (el.labels && el.labels.length) return clean(el.labels[0].innerText);
    const isButton = ['submit', 'button', 'reset'].includes(el.type);
    if (el.tagName === 'INPUT' && isButton) return clean(el.value);
    return clean(el.alt || el.innerText || el.title || el.placeholder || '');
  };
  const walk = (node, depth) => {
    for (const child of node.childNodes) {
      if (lines.length >= maxNodes) return;
      const pad = '  '.repeat(depth);
      if (child.nodeType === Node.TEXT_NODE) {
        const text = clean(child.textContent);
        if (text) lines.push(pad + 'text ' + JSON.stringify(text));
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const el = child;
      if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD'].includes(el.tagName)) continue;
      if (el.type === 'hidden' || !el.checkVisibility(VISIBLE)) continue;
      const role = roleOf(el);
      if (!role) { walk(el, depth); continue; }
      let line = pad;
      if (ACTIVE.has(role)) {
        el.setAttribute('data-agent-id', String(nextId));
        line += `[${nextId++}] `;
      }
      line += `${role} ${JSON.stringify(nameOf(el))}`;
      if (role === 'heading') line += ` level=${el.tagName.slice(1) || 2}`;
      if ('value' in el && ['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role))
        line += ` value=${JSON.stringify(el.value)}`;
      if (role === 'checkbox' || role === 'radio') line += el.checked ? ' checked' : ' unchecked';
      if (el.disabled) line += ' disabled';
      lines.push(line);
      if (!LEAF.has(role)) walk(el, depth + 1);
    }
  };
  if (document.body) walk(document.body, 0);
  return {lines, truncated: lines.length >= maxNodes};
}
"""


class NotOnPage(LookupError):
    """The element or link the model named is not on the current page."""


def origin_of(url: str) -> str:
    """scheme://host:port of a URL, default ports made explicit; "" when it has no host."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if not parts.hostname:
        return ""
    scheme = parts.scheme.lower()
    port = parts.port or DEFAULT_PORTS.get(scheme, 0)
    return f"{scheme}://{parts.hostname.lower()}:{port}"


def normalize_url(url: str) -> str:
    """Add https:// to a bare host such as 'example.com/page'."""
    url = url.strip()
    return url if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) else f"https://{url}"


def truncate(text: str, max_chars: int) -> str:
    """`text` cut to max_chars, saying how much was left out."""
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars].rstrip()}\n…[truncated {len(text) - max_chars} more characters]"


def header(page: Page, title: str) -> str:
    return f"Page: {title or '(no title)'}\nURL: {page.url}"


async def page_text(page: Page) -> str:
    """Title, URL and the rendered text of the page's body."""
    body = await page.inner_text("body") if await page.locator("body").count() else ""
    text = re.sub(r"\n{3,}", "\n\n", body).strip()
    return f"{header(page, await page.title())}\n\n{text or '(the page has no text)'}"


async def page_tree(page: Page, max_nodes: int = 400) -> str:
    """Title, URL and the accessibility tree; `[n]` marks elements click/type can address."""
    snapshot = await page.evaluate(TREE_JS, max_nodes)
    lines = snapshot["lines"] or ["(the page is empty)"]
    more = "\n…[more elements not shown]" if snapshot["truncated"] else ""
    return f"{header(page, await page.title())}\n\n" + "\n".join(lines) + more


def parse_element_id(value: str | int) -> int | None:
    """12, "12" or "[12]" -> 12; anything else -> None."""
    match = re.fullmatch(r"\s*\[?\s*(\d+)\s*\]?\s*", str(value))
    return int(match.group(1)) if match else None


async def element(page: Page, element_id: int) -> Locator:
    """The element tagged [element_id] by the latest tree; NotOnPage when there is none."""
    locator = page.locator(f'[{ID_ATTR}="{element_id}"]')
    if await locator.count() == 0:
        raise NotOnPage(
            f"no element [{element_id}] on this page; ids change after every action, so read "
            "the current ids with browser_tree"
        )
    return locator.first


async def find_link(page: Page, link: str) -> Locator:
    """A link by tree id ("7", "[7]") or by its text (exact, then contained; case-insensitive)."""
    element_id = parse_element_id(link)
    if element_id is not None:
        return await element(page, element_id)
    wanted = " ".join(link.split()).lower()
    links = page.locator("a[href]")
    texts = [" ".join(t.split()).lower() for t in await links.all_inner_texts()]
    for exact in (True, False):
        for i, text in enumerate(texts):
            if text and (text == wanted if exact else wanted in text):
                candidate = links.nth(i)
                if await candidate.is_visible():
                    return candidate
    raise NotOnPage(f"no link with text {link!r} on this page; see its links with browser_tree")
