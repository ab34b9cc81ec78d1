"""A topic page's first screen (site/today_table.py): every point of the topic's recipes against
its baseline, per server, pooled over the server's first evidence set, judged, ranked by what
was found, with the cost that moved most; a lab VM's throughput never judged."""

import math

from tuninglab.results import stats
from tuninglab.evidence import claim_verdicts, effects
from tuninglab.site import today_table

ANSWERS = effects.ANSWERS


def test_direct_io_on_the_reference_server_ranks_answers_first():
    found = effects.effects("direct-io", "mariadb 10.11")
    points = {(x.variant, x.point) for x in found}
    assert any(p == "O_DIRECT" for _, p in points)
    ranks = [x.rank for x in found]
    assert ranks == sorted(ranks)
    answered = [x for x in found if x.ratio and x.ratio.verdict_kind in ANSWERS]
    assert answered, "no answered comparison on direct-io"
    sizes = [abs(math.log(x.ratio.ratio)) for x in answered]
    assert sizes == sorted(sizes, reverse=True)
    assert found.index(answered[-1]) < min(
        (found.index(x) for x in found if x not in answered), default=len(found))


def test_an_answer_agrees_with_its_interval():
    for topic in ("direct-io", "doublewrite", "io-schedulers", "commit-batching"):
        for x in effects.effects(topic, "mariadb 10.11"):
            if not x.ratio:
                continue
            kind = x.ratio.verdict_kind
            assert (kind == stats.FASTER) == (x.ratio.ci_low > 1)
            assert (kind == stats.SLOWER) == (x.ratio.ci_high < 1)


def test_the_cost_shown_moved_clear_of_one():
    costs = [x.cost for x in effects.effects("direct-io", "mariadb 10.11") if x.cost]
    assert costs
    for metric, ratio in costs:
        assert ratio.verdict_kind in (stats.MORE, stats.LESS)
        assert ratio.ci_low > 1 or ratio.ci_high < 1


def test_a_lab_vm_throughput_is_never_judged():
    for x in effects.effects("raid", "mariadb 10.11"):
        assert x.ratio is None or not x.comparison.evidence.host_class.lab


def test_a_server_without_results_says_how_to_measure(monkeypatch):
    monkeypatch.setattr(claim_verdicts, "comparisons", lambda *a, **k: [])
    out = today_table._server_block(effects.effects("redo-size", "mysql 9.7"),
                                    "mysql 9.7")
    assert "Not measured on MySQL 9.7 yet" in out
    assert "invoke recipe redo-size" in out and "--server mysql-9.7" in out


def test_the_fence_renders_a_tab_per_server_and_refuses_a_bad_topic():
    out = today_table.today_fence('topic = "direct-io"', "today", "today", {}, None)
    assert out.count('<div class="tabbed-block">') == len(today_table.servers.SHOWN)
    assert "not testable here" not in out
    bad = today_table.today_fence('topic = "no-such"', "today", "today", {}, None)
    assert "no recipe has the topic &#x27;no-such&#x27;" in bad and "failure" in bad


def test_an_emulated_cpu_shows_no_cpu_cost():
    for x in effects.effects("raid", "mariadb 10.11"):
        if x.cost and x.comparison.kind == today_table.claim_verdicts.NOT_TESTABLE:
            assert x.cost[0] not in effects.CPU_COSTS


def test_the_raid_page_leads_with_the_disk_ios_that_carry_over():
    """A lab VM's RAID throughput answers nothing, the IO requests a transaction makes at the
    members do: RAID 5 reads its parity, so its first rows show disk requests moving."""
    found = effects.effects("raid", "mariadb 10.11")
    first = found[:today_table.SHOWN_FIRST]
    assert all(x.cost and x.cost[0] in effects.IO_REQUESTS for x in first)
    level5 = next(x for x in found if x.comparison.evidence.recipe == "raid-level"
                  and x.point == "5")
    assert level5.cost[0] == "reads_per_trx" and level5.cost[1].verdict_kind == stats.MORE


def test_a_server_without_the_option_says_so_rather_than_how_to_measure():
    """MariaDB has no innodb_buffer_pool_instances: its tab says why, with no command that the
    recipe's preflight would refuse."""
    for server in ("mariadb 10.11", "mariadb 11.8"):
        out = today_table._server_block(effects.effects("buffer-pool-instances", server),
                                        server)
        assert out.startswith("<p>Not on MariaDB") and "innodb_buffer_pool_instances" in out
        assert "invoke recipe" not in out and "yet" not in out
    assert today_table.servers.cannot_measure("buffer-pool-instances", "", "mysql 9.7") is None


def test_a_preloaded_allocator_is_said_to_be_out_of_a_roots_reach():
    """The allocators recipe preloads jemalloc and tcmalloc from the host's libraries, which a
    server in its Debian root cannot see (the preflight refuses it): its tab says so."""
    why = today_table.servers.cannot_measure("allocators", "", "mysql 9.7")
    assert why.startswith("not measured on MySQL 9.7: it runs in its own Debian root")
    assert today_table.servers.cannot_measure("allocators", "", "mariadb 10.11") is None
    assert today_table.servers.cannot_measure("doublewrite", "", "mysql 9.7") is None
