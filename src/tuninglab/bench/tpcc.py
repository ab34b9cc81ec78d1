"""The TPC-C-like workload's speed (invoke bench --only tpcc), on a throwaway server in the work
directory: how fast the loader fills warehouses (target: 10 in at most 3 minutes), and the
small shape's new-order TPM at 4 threads (transactions on 1 of the warehouses, in a buffer pool
that holds them)."""

import shutil
import time

from tuninglab import files
from tuninglab.engine.host import workdir
from tuninglab.engine.server import datadir
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.workloads import sysbench, tpcc

LOAD_TARGET_S = 180
WAREHOUSES = 10
THREADS = 4
SECONDS = 30


def run(say=print, warehouses: int = WAREHOUSES, seconds: int = SECONDS) -> dict:
    binary = srv.find()
    with workdir.held(files.default_workdir()) as wd:
        base = wd / "bench-tpcc"
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        try:
            srv.initialize(binary, base / "data", base / "install.log")
            load_s, threads = _load(binary, base, warehouses)
            tpm, tps = _small_shape(binary, base, warehouses, seconds)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    say(f"load: {warehouses} warehouses in {load_s:.1f}s with {threads} threads, "
        f"{warehouses * 60 / load_s:.1f} warehouses a minute; "
        f"{load_s / LOAD_TARGET_S * 10 / warehouses:.2f} of the 3-minute target for 10")
    say(f"small shape (transactions on 1 of {warehouses} warehouses, {THREADS} threads, "
        f"{seconds}s, innodb_flush_log_at_trx_commit = 1): {tpm:,.0f} new-order TPM, "
        f"{tps:,.0f} transactions/s")
    return {"load_s": load_s, "tpm": tpm, "tps": tps}


def _load(binary, base, warehouses: int) -> tuple[float, int]:
    """The template builder's settings and thread count, timed from create to loaded."""
    with srv.Server(binary, base, base / "data", datadir.LOAD_SETTINGS) as server:
        started = time.monotonic()
        threads = tpcc.load(server, warehouses, THREADS)
        load_s = time.monotonic() - started
        server.stop(slow=True)
    return load_s, threads


def _small_shape(binary, base, warehouses: int, seconds: int) -> tuple[float, float]:
    settings = {"innodb_buffer_pool_size": "1G", "innodb_flush_log_at_trx_commit": "1"}
    with srv.Server(binary, base, base / "data", settings) as server:
        report = sysbench.run(tpcc.run_command(server.socket, warehouses, THREADS, seconds,
                                               active_warehouses=1))
        server.stop(discard=True)
    total = tpcc.parse_total(report.text)
    return tpcc.tpm(total.new_orders, report.summary["total_time_s"]), report.summary["tps"]
