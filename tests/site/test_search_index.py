"""The search index answers with the topic pages: the home page's table and the page of every
claim summarise them, and are left out of the index so a term finds the page that explains it."""

import json


def _entries(built):
    return json.loads((built / "search" / "search_index.json").read_text())["docs"]


def test_the_summary_tables_stay_out_of_the_search_index(built):
    entries = _entries(built)
    summaries = [d for d in entries if d["location"].split("#")[0] in ("", "claims/")]
    assert summaries, "the home page and the claims page are still indexed (their prose)"
    assert not any("O_DIRECT" in d["text"] for d in summaries)
    # The topic page itself still answers the search.
    assert any(d["location"].startswith("topics/direct-io/") and "O_DIRECT" in d["text"]
               for d in entries)
