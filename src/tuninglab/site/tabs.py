"""Blocks as the theme's content tabs (pymdownx.tabbed's alternate markup, which the theme styles
without script): radio inputs, their labels, then the blocks in the same order. The home page's
table and a topic page's first screen give one tab per server, the first open; their class
tl-server-tabs tells them from a page's tabs of experiments."""

import html

from tuninglab.evidence import servers


def server_tabs(blocks: list[tuple[str, str]], name: str) -> str:
    """[(server, its HTML)] as tabs labelled with the servers' names; `name` keeps one set's
    inputs apart from another's on the same page."""
    inputs = "".join(f'<input id="{name}-{i}" name="{name}" type="radio"'
                     f'{" checked" * (i == 0)}>' for i in range(len(blocks)))
    labels = "".join(f'<label for="{name}-{i}">{html.escape(servers.label(server))}</label>'
                     for i, (server, _) in enumerate(blocks))
    shown = "".join(f'<div class="tabbed-block">{block}</div>' for _, block in blocks)
    return (f'<div class="tabbed-set tabbed-alternate tl-server-tabs" '
            f'data-tabs="1:{len(blocks)}">{inputs}'
            f'<div class="tabbed-labels">{labels}</div>'
            f'<div class="tabbed-content">{shown}</div></div>')
