"""Results from several machines: one series per host, its hardware and device baseline in the
hover, throughput normalised by the device, the Results page, and hostile text kept inert."""

import html
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from helpers import (
    HOST_A,
    HOST_B,
    IMG,
    LONG,
    QUOTES,
    REAL,
    REPO,
    SCRIPT,
    hostile,
    result,
    spec,
    write_result,
)
from tuninglab.evidence import result_files
from tuninglab.site import charts, describe, fence, hostviews, result_listings
from tuninglab.results.result import Result

NAME = "AMD EPYC, 2 cores, 24 GiB, VM, virtio disk, mariadb 10.11.19"


def figure_of(out: str) -> dict:
    return json.loads(html.unescape(re.search(r'data-figure="([^"]*)"', out).group(1)))


# Grouping and names

def test_one_series_per_host_holding_its_latest_result():
    old_a = result(HOST_A, "2026-11-20T10:00:00+00:00", tps=[100, 90])
    b = result(HOST_B, "2026-11-21T10:00:00+00:00", tps=[300, 280],
               contribution={"description": "host B", "submitted": "2026-11-23T00:00:00Z",
                             "tool": "data.submit"})
    new_a = result(HOST_A, "2026-11-22T10:00:00+00:00", tps=[200, 190])
    figure = charts.results_bars([old_a, new_a, b], "tps")
    assert [t["y"] for t in figure["data"]] == [[300, 280], [200, 190]]  # oldest latest first
    assert [t["name"] for t in figure["data"]] == ["contributed: host B", f"{NAME}"]


def test_the_projects_machines_of_one_kind_are_one_host_class():
    """Each new VM gets a new host id; of one kind, they are one series (its latest), named
    for what they are, and another kind of machine is another."""
    first, second = result(HOST_A, tps=[100, 90]), result(HOST_B, "2026-11-23T00:00:00+00:00",
                                                          tps=[200, 190])
    other = result("cccccccccccccccc", "2026-11-24T00:00:00+00:00", tps=[400, 380])
    other["host"]["cpu_model"] = "Intel Xeon"
    figure = charts.results_bars([first, second, other], "tps")
    assert [t["y"] for t in figure["data"]] == [[200, 190], [400, 380]]
    assert figure["data"][1]["name"].startswith("Intel Xeon, 2 cores")


def test_latest_compares_times_not_strings():
    late = result(HOST_A, "2026-11-22T09:00:00+05:00", tps=[1, 1])    # 04:00 UTC
    later = result(HOST_A, "2026-11-22T05:00:00+00:00", tps=[2, 2])
    assert result_files.latest_per_host([later, late]) == [later]


def test_series_name_is_the_contribution_description_else_hardware_and_server():
    doc = result()
    assert describe.host_name(doc) == "AMD EPYC, 2 cores, 24 GiB, VM, virtio disk, mariadb 10.11.19"
    doc["host"].update(cpu_model=None, cores=None, memory_bytes=None, virtualization=None)
    assert describe.host_name(doc) == "unknown CPU, virtio disk, mariadb 10.11.19"
    doc["contribution"] = {"description": "my laptop, NVMe", "submitted": "2026-11-23T00:00:00Z",
                           "tool": "data.submit"}
    assert describe.host_name(doc) == "contributed: my laptop, NVMe"
    doc["contribution"] = {"submitted": "2026-11-23T00:00:00Z", "tool": "data.submit"}
    assert describe.host_name(doc) == "contributed: unknown CPU, virtio disk, mariadb 10.11.19"


def test_a_long_cpu_name_is_cut_before_the_server_never_the_server():
    names = []
    for server in ("mysql 9.7.4", "mariadb 11.8.9"):
        doc = result()
        doc["host"]["cpu_model"] = "Intel(R) Xeon(R) Processor @ 2.60GHz, family of the year"
        doc["server"].update(flavor=server.split()[0], version=server.split()[1])
        names.append(describe.host_name(doc))
        assert names[-1].endswith(f"\u2026, {server}") and len(names[-1]) <= 60
    assert names[0] != names[1]


def test_long_names_are_cut_and_alike_names_get_the_host_id():
    doc = result(contribution={"description": "x" * 500, "submitted": "2026-11-23T00:00:00Z",
                               "tool": "data.submit"})
    name = describe.host_name(doc).removeprefix("contributed: ")  # the mark is never cut
    assert len(name) == 60 and name.endswith("\u2026")
    given = {"submitted": "2026-11-23T00:00:00Z", "tool": "data.submit"}
    twins = charts.results_bars([result(HOST_A, contribution=given),
                                 result(HOST_B, "2026-11-23T00:00:00+00:00", contribution=given)],
                                "tps")
    assert [t["name"] for t in twins["data"]] == [
        f"contributed: {NAME} (aaaaaaaa)", f"contributed: {NAME} (bbbbbbbb)"]


# Hover

def test_hover_names_the_hardware_software_and_device_baseline():
    trace = charts.results_bars([result()], "tps")["data"][0]
    verdict = trace["customdata"][1].split("<br>")[0]   # its risk follows (OFF)
    assert verdict.startswith("ratio ") and verdict.endswith(REAL["points"][1]["stats"]
                                                             ["ratio"]["verdict"])
    assert trace["meta"].split("<br>") == ["AMD EPYC, 2 cores, 24 GiB, virtualised (docker)",
                         "mariadb 10.11.19, sysbench 1.0.20, kernel 6.18.44-fc-v657",
                         "device baseline (fio): 4,427 fsync/s, 51,305 random 16K writes/s",
                         "full result of 2026-11-22",
                         # measured before the memory model: never charted silently
                         "memory not capped: the OS may have cached the data"]
    assert trace["customdata"][0] == "baseline"
    assert trace["hovertemplate"] == ("innodb_doublewrite = %{x}<br>throughput (median of the "
                                      "runs): %{y:.1f} "
                                      "transactions/s<br>%{customdata}<br>%{meta}"
                                      "<extra></extra>")
    capped = result(memory={"limit_bytes": 192 * 2**20, "capped": True,
                            "controller": "cgroup v1"})
    meta = charts.results_bars([capped], "tps")["data"][0]["meta"]
    assert "memory not capped" not in meta


# Normalised by the device

def test_throughput_is_also_carried_per_1000_fsync_per_s_of_each_device():
    a = result(HOST_A, tps=[1000, 500])
    b = result(HOST_B, "2026-11-23T00:00:00+00:00", tps=[4000, 2000])
    b["host"]["cpu_model"] = "Intel Xeon"  # another kind of machine: another series
    a["device_baseline"]["fsync_per_s"] = 2000.0
    b["device_baseline"]["fsync_per_s"] = 8000.0
    figure = charts.results_bars([a, b], "tps")
    raw, normalised = figure["normalise"]["raw"], figure["normalise"]["normalised"]
    assert raw["traces"]["y"] == [t["y"] for t in figure["data"]]
    assert raw["layout"] == {"yaxis.title.text": figure["layout"]["yaxis"]["title"]["text"]}
    # Four times the speed on a four times faster device: the same effect, the same bars.
    assert normalised["traces"]["y"] == [[500.0, 250.0], [500.0, 250.0]]
    up_a = figure["data"][0]["error_y"]["array"]
    assert normalised["traces"]["error_y.array"][0] == pytest.approx([u / 2 for u in up_a])
    assert normalised["layout"]["yaxis.title.text"] == "transactions/s per 1000 fsync/s"
    assert "per 1000 fsync/s" in normalised["traces"]["hovertemplate"][0]
    assert len(normalised["traces"]["hovertemplate"]) == 2


@pytest.mark.parametrize("baseline", [None, {}, {"fsync_per_s": 0}, {"fsync_per_s": None}])
def test_no_toggle_when_a_host_lacks_a_baseline_and_the_hover_says_so(baseline):
    lacking = result(HOST_B, "2026-11-23T00:00:00+00:00", device_baseline=baseline)
    figure = charts.results_bars([result(HOST_A), lacking], "tps")
    assert "normalise" not in figure
    assert "fsync/s not measured, so throughput cannot be normalised" in figure["data"][1]["meta"]
    assert "4,427 fsync/s" in figure["data"][0]["meta"]


def test_only_throughput_is_normalised():
    assert "normalise" not in charts.results_bars([result()], "write_bytes_per_trx")


def test_the_fence_puts_the_toggle_only_on_charts_that_carry_it(monkeypatch):
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [Result(result())])
    tps = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    assert tps.count('class="md-button tl-normalise" aria-pressed="false"') == 1
    assert "normalise" in figure_of(tps)
    io = fence.plotly_fence(spec(kind="results", recipe="doublewrite",
                                 metric="write_bytes_per_trx"), "plotly", "", {}, None)
    assert "tl-normalise" not in io


# The Results page


def test_results_index_lists_every_file_newest_first_with_its_origin(tmp_path):
    write_result(tmp_path, "doublewrite", result(HOST_A, "2026-11-20T00:00:00+00:00"))
    write_result(tmp_path, "doublewrite", result(HOST_B, "2026-11-22T00:00:00+00:00", contribution={
        "description": "NVMe box", "submitted": "2026-11-22T08:00:00Z", "tool": "data.submit"}))
    write_result(tmp_path, "doublewrite", result(HOST_A, "2026-11-21T00:00:00+00:00", variant="v"))
    (tmp_path / "historical").mkdir()
    rows = result_listings.results_index(tmp_path)
    assert [(r["variant"], r["started"]) for r in rows] == [
        ("", "2026-11-22 00:00"), ("", "2026-11-20 00:00"), ("v", "2026-11-21 00:00")]
    assert rows[0] == {
        "recipe": "doublewrite", "variant": "", "profile": "full", "started": "2026-11-22 00:00",
        "file": "data/doublewrite/2026-11-22T000000-bbbbbbbb.json",
        "host": "AMD EPYC, 2 cores, 24 GiB, virtualised (docker); id bbbbbbbb",
        "software": "mariadb 10.11.19, sysbench 1.0.20, kernel 6.18.44-fc-v657",
        "contributed": True, "submitted": "2026-11-22", "description": "NVMe box",
        "invalid": ""}
    assert not rows[1]["contributed"] and rows[1]["description"] == ""


def test_an_invalid_result_is_listed_but_never_charted(tmp_path, monkeypatch):
    write_result(tmp_path, "doublewrite", result(HOST_A, "2026-11-20T00:00:00+00:00"))
    write_result(tmp_path, "doublewrite", result(HOST_B, "2026-11-22T00:00:00+00:00", invalid=[
        "innodb_doublewrite=ON repeat 1: TPC-C consistency condition(s) 2 broken after the run"]))
    charted = result_files.results_for("doublewrite", data_dir=tmp_path)
    assert [r.host_id for r in charted] == [HOST_A]
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    out = fence.results_index_fence("", "results-index", "", {}, None)
    assert "Invalid, not charted: innodb_doublewrite=ON repeat 1: TPC-C consistency" in out


def test_results_page_links_recipes_to_their_topic_page(tmp_path, monkeypatch):
    write_result(tmp_path, "raid-chunk", result(HOST_A))
    write_result(tmp_path, "no-such-recipe", result(HOST_B, contribution={
        "description": "NVMe box", "submitted": "2026-11-22T08:00:00Z", "tool": "data.submit"}))
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    out = fence.results_index_fence("", "results-index", "", {}, None)
    rows = re.findall(r"<tr><td>(.*?)</td>.*?<td>([^<]*)</td></tr>", out)
    assert rows == [("<code>no-such-recipe</code>", "contributed 2026-11-22: NVMe box"),
                    ('<a href="../topics/raid/"><code>raid-chunk</code></a>',
                     "this project&#x27;s runs")]
    assert "2 result files, 1 contributed." in out


@pytest.mark.integration  # runs python
def test_the_data_directory_can_be_overridden_for_the_site(tmp_path):
    out = subprocess.run([sys.executable, "-c",
                          "from tuninglab.evidence import historical, result_files; "
                          "print(result_files.DATA_DIR); print(historical.HISTORICAL_DIR)"],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "TUNINGLAB_DATA_DIR": str(tmp_path)})
    historical_dir = REPO / "data" / "historical"  # named, not read
    assert out.stdout.split() == [str(tmp_path), str(historical_dir)]


# Hostile text


class Tags(HTMLParser):
    """Every element, its attributes and the text a browser would show."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    @classmethod
    def text_of(cls, out: str) -> list[str]:
        parsed = cls()
        parsed.feed(out)
        return parsed.text


ALLOWED = {"div": {"class", "id", "data-traces", "data-figure", "data-group", "data-view",
                   "data-search-exclude"},
           "table": set(), "thead": set(), "tbody": set(), "tr": set(), "th": set(),
           "td": {"data-label"}, "wbr": set(), "code": set(), "p": {"class"},
           "a": {"href", "title"},
           "button": {"type", "class", "aria-pressed", "title"}, "label": {"class"},
           "select": {"aria-label"}, "option": {"value", "selected"}, "span": {"class"}}
# Tags the figure builders themselves write into plotly labels.
PLOTLY_TAGS = re.compile(r"<br>|<extra>|</extra>|<sup>|</sup>")


def assert_inert(out: str) -> Tags:
    parsed = Tags()
    parsed.feed(out)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED and set(attrs) <= ALLOWED[tag], (tag, attrs)
        if tag == "a":
            assert re.fullmatch(r"\.\./topics/[a-z0-9-]+/|\.\./data/[a-z0-9-]+/[\w.-]+\.json",
                                attrs["href"])
    for tag, attrs in parsed.tags:
        if "data-figure" in attrs:
            for text in strings(json.loads(attrs["data-figure"])):
                assert not re.search(r"[<>\"']", PLOTLY_TAGS.sub("", text)), text[:200]
    return parsed


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def test_hostile_text_in_a_results_chart_is_inert(monkeypatch):
    docs = [result(HOST_A), hostile()]
    monkeypatch.setattr(result_files, "results_for",
                        lambda name, variant="": [Result(d) for d in docs])
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    parsed = assert_inert(out)
    figure = figure_of(out)
    trace = figure["data"][1]
    # The text survives, as text: escaped once for plotly, whose labels read entities.
    assert trace["x"] == [describe.esc(IMG), describe.esc(SCRIPT + QUOTES)]
    assert html.unescape(trace["name"]) == "contributed: " + (IMG + QUOTES + LONG)[:59] + "\u2026"
    hover = html.unescape(trace["customdata"][1] + trace["meta"])
    for text in (IMG, SCRIPT, QUOTES, LONG):
        assert text in hover
    assert figure["layout"]["xaxis"]["title"]["text"] == describe.esc(SCRIPT)
    assert "normalise" in figure
    # The verdicts under the chart show the project's run; the hostile host is one to pick.
    assert SCRIPT not in "".join(parsed.text)
    option = next(attrs for tag, attrs in parsed.tags if tag == "option")
    assert option["value"] == hostviews.key(docs[0])


def test_hostile_text_in_a_hosts_views_is_inert():
    doc = hostile()
    views = hostviews.views(doc)
    for name, view in views.items():
        if "html" in view:
            assert_inert(view["html"])
            assert "<script" not in view["html"] and "<img" not in view["html"]
        else:
            assert_inert(f'<div data-figure="{html.escape(json.dumps(view["figure"]))}"></div>')
    text = "".join(Tags.text_of(views["verdicts"]["html"]))
    assert SCRIPT + QUOTES in text and IMG in text


def test_hostile_text_on_the_results_page_is_inert(tmp_path, monkeypatch):
    write_result(tmp_path, "doublewrite", result(HOST_A))
    write_result(tmp_path, "doublewrite", hostile())
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    out = fence.results_index_fence("", "results-index", "", {}, None)
    text = "".join(assert_inert(out).text)
    for shown in (SCRIPT, IMG, QUOTES, LONG[:100]):
        assert shown in text
    assert LONG not in text  # free text is cut in a table row
    row = next(r for r in result_listings.results_index(tmp_path) if r["contributed"])
    assert len(row["description"]) == 200 and row["host"].endswith("\u2026; id bbbbbbbb")
    assert "<script" not in out and "<img" not in out and "<b>" not in out


# Many hosts

def test_beyond_max_hosts_the_others_are_one_series_of_their_median_and_quartiles():
    own = [result(f"{i:016x}", f"2026-11-0{i + 1}T00:00:00+00:00", tps=[1000, 900])
           for i in range(2)]
    own[1]["host"]["cpu_model"] = "AMD EPYC 2"  # two kinds of machine
    contributed = [result(f"{100 + i:016x}", f"2026-11-2{i // 10}T{i % 10:02d}:00:00+00:00",
                          tps=[10 * i, 5 * i], contribution={
                              "description": f"host {i}", "submitted": "x", "tool": "t"})
                   for i in range(charts.MAX_HOSTS + 3)]  # 23: 18 drawn, 5 aggregated
    figure = charts.results_bars(own + contributed, "tps")
    names = [t["name"] for t in figure["data"]]
    assert len(names) == charts.MAX_HOSTS + 1
    assert names[-1] == "5 other hosts (median)"
    assert sum(n.startswith("AMD EPYC") for n in names) == 2  # the project's own stay
    assert "contributed: host 0" not in names and "contributed: host 22" in names  # oldest out
    others = figure["data"][-1]
    assert others["y"] == [20.0, 10.0]                       # hosts 0-4: 0, 10, 20, 30, 40
    assert others["error_y"]["array"] == [10.0, 5.0] and others["customdata"][0] == "5 hosts"
    assert len(figure["normalise"]["normalised"]["traces"]["y"]) == charts.MAX_HOSTS + 1


def test_a_page_weighs_the_same_with_a_thousand_hosts_as_with_fifty():
    def weight(n):
        docs = [result(f"{i:016x}", f"2026-11-20T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00",
                       contribution={"description": f"host {i}", "submitted": "x",
                                     "tool": "t"}) for i in range(n)]
        return len(json.dumps(charts.results_bars(docs, "tps")))
    assert weight(1000) < 1.1 * weight(50)


def test_a_lab_vm_result_describes_the_guest_it_measured_and_the_host_that_ran_it():
    doc = {"host": {"cpu_model": "AMD EPYC", "cores": 2, "memory_bytes": 24 * 2**30,
                    "virtualization": "docker"},
           "server": {"flavor": "mariadb", "version": "10.11.19"},
           "software": {"sysbench": "1.0.20", "kernel": "6.18.44"},
           "points": [{"runs": [{"lab": {"accelerator": "tcg", "kernel": k, "cpus": 2,
                                         "memory_bytes": 2074611712 + i,
                                         "cpu_model": "QEMU TCG CPU"}}]}
                      for i, k in enumerate(["6.1.0-56-amd64", "6.1.0-56-cloud-amd64"])]}
    assert describe.host_description(doc) == (
        "lab VM (TCG), QEMU TCG CPU, 2 vCPUs, 1.9 GiB; "
        "on host AMD EPYC, 2 cores, 24 GiB, virtualised (docker)")
    assert describe.software_text(doc) == (
        "mariadb 10.11.19, sysbench 1.0.20, guest kernel 6.1.0-56-amd64, 6.1.0-56-cloud-amd64")
    del doc["points"][0]["runs"][0]["lab"]["cpu_model"], doc["points"][1]["runs"][0]["lab"]
    assert "guest CPU model not recorded" in describe.host_description(doc)


def test_a_bar_its_interval_does_not_vouch_for_is_faint_hatched_and_says_so():
    doc = result(HOST_A, tps=[100, 90])
    doc["points"][0]["stats"]["tps"].update(ci_low=95, ci_high=105)
    doc["points"][1]["stats"]["tps"].update(ci_low=10, ci_high=400)   # [0.11, 4.4] of 90
    trace = charts.results_bars([doc], "tps")["data"][0]
    assert trace["marker"]["opacity"] == [1.0, 0.35]
    assert trace["marker"]["pattern"]["shape"] == ["", "/"]
    assert charts.NOISY_TEXT in trace["customdata"][1]
    assert charts.NOISY_TEXT not in trace["customdata"][0]
    doc["points"][1]["stats"]["tps"].update(ci_low=85, ci_high=95)
    assert "marker" not in charts.results_bars([doc], "tps")["data"][0]


def test_a_load_that_waits_for_no_fsync_offers_no_normalising_toggle():
    doc = result(HOST_A, tps=[100, 90])
    base = doc["points"][0]["stats"]
    if "fsyncs_per_trx" not in base.get("cost", {}):
        pytest.skip("the captured result counts no fsyncs")
    with_fsyncs = charts.results_bars([doc], "tps")
    for point in doc["points"]:
        point["stats"]["cost"]["fsyncs_per_trx"]["median"] = 0.01
    without = charts.results_bars([doc], "tps")
    assert "normalise" in with_fsyncs and "normalise" not in without
