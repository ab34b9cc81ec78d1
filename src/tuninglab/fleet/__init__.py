"""Running a recipe on many machines with Ansible (invoke fleet.check, fleet.run, fleet.clean,
advise --on): the playbooks in ansible/ do the hosts' work (ship, set up, run detached, fetch,
clean up); this package keeps what Ansible does not: the user's inventory read and checked
(inventory.py; places.py: where a host's files may live and what it may erase), the
revision archived (ship.py), the playbooks run with the fleet's callback
(playbook.py), the run and its resume (run.py), the fetched files checked and kept and the
verdict table (fetch.py), fleet.check's report (survey.py) and advise --on (advise_on.py)."""
