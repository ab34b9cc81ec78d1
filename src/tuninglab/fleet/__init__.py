"""Running a recipe on many machines over SSH with Fabric (invoke fleet.check, fleet.run,
fleet.clean): the hosts as named (inventory.py), their SSH keys checked (hostkeys.py), the
revision shipped (ship.py), each host's steps (remote.py), the run and its resume (run.py),
the results brought home (fetch.py)."""
