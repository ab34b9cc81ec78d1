"""The output of `invoke fleet.*`: Ansible's default output, with each host's latest progress
line while its recipe runs (instead of "FAILED - RETRYING" at every poll), and each host's
first failure written to the JSON file TUNINGLAB_FLEET_OUTCOMES names, which the fleet reads
to say why a host did not finish: {host: {"kind": "failed" or "unreachable", "task": name,
"msg": one line}}."""

import json
import os

from ansible.plugins.callback.default import CallbackModule as Default

DOCUMENTATION = """
    name: tuninglab
    type: stdout
    short_description: the default output, a recipe's progress and each host's outcome
    description: Used by invoke fleet.run, fleet.check, fleet.clean and advise --on.
    extends_documentation_fragment:
      - default_callback
      - result_format_callback
"""


class CallbackModule(Default):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "tuninglab"

    def __init__(self):
        super().__init__()
        self.outcomes, self.latest = {}, {}

    def v2_runner_retry(self, result):
        # fleet-run.yml's poll prints the recipe's state, then its latest progress line.
        lines = result.result.get("stdout_lines") or []
        host = result.host.get_name()
        if len(lines) > 1 and lines[1] and self.latest.get(host) != lines[1]:
            self.latest[host] = lines[1]
            self._display.display(f"{host}  {lines[1].strip()}")

    def v2_runner_on_async_poll(self, result):
        pass   # setup.sh's polls: nothing new to say

    def v2_runner_on_failed(self, result, ignore_errors=False):
        super().v2_runner_on_failed(result, ignore_errors)
        if not ignore_errors:
            self._record(result, "failed")

    def v2_runner_on_unreachable(self, result):
        super().v2_runner_on_unreachable(result)
        self._record(result, "unreachable")

    def _record(self, result, kind):
        host, r = result.host.get_name(), result.result
        if host in self.outcomes or not os.environ.get("TUNINGLAB_FLEET_OUTCOMES"):
            return
        stderr = (r.get("stderr") or "").strip().splitlines()
        msg = r.get("msg") or ""
        if stderr and (not msg or msg.startswith("non-zero return code")):
            msg = stderr[-1]
        self.outcomes[host] = {"kind": kind, "task": result.task_name,
                               "msg": " ".join(str(msg).split())[:500]}
        path = os.environ["TUNINGLAB_FLEET_OUTCOMES"]
        with open(path + ".tmp", "w") as f:
            json.dump(self.outcomes, f)
        os.replace(path + ".tmp", path)
