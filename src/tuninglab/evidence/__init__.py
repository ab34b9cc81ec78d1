"""What the evidence says: the source claims and what answers each (claims_map.py), the result
files as evidence (result_files.py, host_class.py, superseded.py, functional.py), the evidence
sets they pool in (sets.py), each claim's verdict and status (claim_verdicts.py,
claim_status.py), and the advice's judgement (topic_pages.py, advice.py, server_rows.py).

The site renders it, the terminal prints it (claims_text.py), `invoke advise` and the campaign
weigh it; none of it imports the site or the engine, so weighing the evidence loads no page
machinery and starts no process.
"""
