"""One resume entry as a line of text, the same wherever agui shows one.

Two places show the answers of a run: the timeline of a recorded or live request
(`answers ID: status PAYLOAD`, under the request it belongs to) and `agui resume`'s
confirmation before it posts typed answers. A user who checks one against the other
must see the same words, so both take the line from here: the item, its status, and
the payload as compact JSON. Control characters and line breaks are escaped
(`cli.visible_text`): an id or status is a server's text, or a recording's, and must
neither move the cursor nor start a line that looks like another entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cli.visible_text import visible_line


def entry_text(entry: Mapping[str, Any], limit: int | None = None) -> str:
    """`ID: status PAYLOAD` for a resume entry; the payload cut to `limit` characters
    (ending in `…`) when given. A field the entry lacks shows as `?`. The payload is cut
    before it is escaped, so the cut never falls inside an escape (`\x1b`)."""
    line = f"{entry.get('interruptId', '?')}: {entry.get('status', '?')}"
    if "payload" in entry:
        payload = json.dumps(entry["payload"], separators=(",", ":"), ensure_ascii=False)
        if limit is not None and len(payload) > limit:
            payload = payload[: limit - 1] + "…"
        line += f" {payload}"
    return visible_line(line)
