#!/usr/bin/python3
"""Checks a demo directory's report.html against the data beside it.

    check_report_html.py DIR FILE_MB

Prints "ok - ..." / "not ok - ..." lines (the integration tests' protocol)
and exits 1 if any check failed. The numbers must agree:
  - report.html's patterns table and figure 3-5/3-6 bars equal patterns.csv;
  - patterns.csv's fragments per file equal the layout (layout.tsv, summed
    by directory), its bytes and reads what the demo's reader did (16 files
    of FILE_MB MiB each, dd bs=1M: FILE_MB reads with data + 1 at EOF);
  - the windows table equals windows.csv, report.json equals patterns.csv;
  - the page is well-formed XML and has one figure per chart it promises.
"""
import csv
import json
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
failed = False


def check(name, cond, why=""):
    global failed
    if cond:
        print(f"ok - {name}")
    else:
        failed = True
        print(f"not ok - {name}: {why}")


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def text(el):
    return "".join(el.itertext()).strip()


def main():
    d, file_mb = sys.argv[1], int(sys.argv[2])
    try:
        root = ET.parse(os.path.join(d, "report.html")).getroot()
    except ET.ParseError as e:
        check("report.html is well-formed", False, str(e))
        return
    check("report.html is well-formed", True)
    pats = read_csv(os.path.join(d, "patterns.csv"))
    names = [p["pattern"] for p in pats]
    check("patterns A to E", names == list("ABCDE"), f"got {names}")

    # the layout, independently: fragments per file by directory
    frags = {}
    with open(os.path.join(d, "layout.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        path = r["path"]
        if "/" not in path:
            continue
        group = path.rsplit("/", 2)[-2]
        frags.setdefault(group, []).append(int(r["fragments"]))
    for p in pats:
        got = frags.get(p["pattern"], [])
        want = "%.2f" % (sum(got) / len(got)) if got else "none"
        check(f"pattern {p['pattern']}: fragments per file from the layout",
              p["fragments_per_file"] == want and int(p["files"]) == len(got),
              f"csv {p['fragments_per_file']} ({p['files']} files), "
              f"layout {want} ({len(got)} files)")
        check(f"pattern {p['pattern']}: bytes read = 16 files x {file_mb} MiB",
              int(p["bytes"]) == 16 * file_mb * 1048576, p["bytes"])
        check(f"pattern {p['pattern']}: reads = 16 x ({file_mb} + 1 at EOF)",
              int(p["reads"]) == 16 * (file_mb + 1), p["reads"])
        mbps = int(p["bytes"]) / float(p["seconds"]) / 1e6
        check(f"pattern {p['pattern']}: MB/s = bytes / seconds",
              abs(mbps - float(p["throughput_mbps"])) <= 0.05 + mbps * 1e-5,
              f"{mbps} vs {p['throughput_mbps']}")

    # the HTML's table
    table = root.find(".//*[@id='patterns']")
    check("HTML has the patterns table", table is not None)
    if table is not None:
        trs = [tr for tr in table.iter("tr") if tr.find("td") is not None]
        check("HTML table has a row per pattern", len(trs) == len(pats), str(len(trs)))
        for tr, p in zip(trs, pats):
            td = [text(x) for x in tr.findall("td")]
            same = (td[0] == p["pattern"] and td[1] == p["files"]
                    and td[2] == p["fragments_per_file"]
                    and td[4] == p["throughput_mbps"])
            check(f"HTML table row {p['pattern']}: name, files, fragments, MB/s",
                  same, f"{td[:5]} vs {p}")
            us = [float(x) for x in td[5:9]]
            ns = [float(p[k]) for k in ("syscall_avg_ns", "bio_avg_ns",
                                         "scheduler_avg_ns", "device_avg_ns")]
            check(f"HTML table row {p['pattern']}: syscall/bio/scheduler/device",
                  all(abs(u * 1000 - n) <= 51 for u, n in zip(us, ns)),
                  f"{us} us vs {ns} ns")

    def bars(fig_id):
        fig = root.find(f".//*[@id='{fig_id}']")
        if fig is None:
            return None
        out = {}
        for g in fig.iter(NS + "g"):
            if g.get("data-pattern") is None:
                continue
            rect = g.find(NS + "rect")
            out[g.get("data-pattern")] = rect.get("data-v") if rect is not None else None
        return out

    for fig, col in (("fig-3-5", "fragments_per_file"), ("fig-3-6", "throughput_mbps")):
        b = bars(fig)
        want = {p["pattern"]: p[col] for p in pats}
        check(f"{fig} bars equal patterns.csv {col}", b == want, f"{b} vs {want}")

    # windows
    wins = read_csv(os.path.join(d, "windows.csv"))
    wt = root.find(".//*[@id='windows']")
    if wt is None:
        check("HTML has the windows table", False)
    else:
        trs = [[text(x) for x in tr.findall("td")] for tr in wt.iter("tr")
               if tr.find("td") is not None]
        same = len(trs) == len(wins) and all(
            abs(float(t[0]) - float(w["window_start_s"])) < 0.0006
            and t[1] == w["requests"] and t[2] == w["bytes"]
            for t, w in zip(trs, wins))
        check("HTML windows table equals windows.csv", same and len(wins) > 0,
              f"{len(trs)} rows vs {len(wins)}")

    # the JSON beside it
    with open(os.path.join(d, "report.json")) as f:
        js = json.load(f)
    jp = {p["pattern"]: p for p in js.get("patterns", [])}
    check("report.json patterns equal patterns.csv",
          all(jp.get(p["pattern"], {}).get("bytes") == int(p["bytes"])
              and jp[p["pattern"]]["reads"] == int(p["reads"])
              # the JSON has three decimals, the CSV one: rounding twice
              # may move the last digit (12.3496 -> 12.350 -> 12.4 vs 12.3)
              and abs(jp[p["pattern"]]["throughput_mbps"]
                      - float(p["throughput_mbps"])) <= 0.0505
              for p in pats),
          str([(p["pattern"], jp.get(p["pattern"], {}).get("throughput_mbps"),
                p["throughput_mbps"]) for p in pats]))
    bo = js.get("block_order", {})
    check("figure 3-15: every traced block of the file where the layout says",
          bo.get("traced_blocks", 0) >= 16 and
          bo.get("where_layout_says") == bo.get("traced_blocks"), str(bo))

    # the figures promised
    ids = [f.get("id") for f in root.iter("figure")]
    want = ["fig-3-5", "fig-3-6", "fig-seek", "fig-3-1", "fig-3-10", "fig-3-11", "fig-3-15"]
    want += [f"fig-3-7-{p}" for p in names]
    missing = [w for w in want if w not in ids]
    check("every figure is there", not missing, f"missing {missing}")
    check("a latency histogram and a stage breakdown per device",
          any(i.startswith("fig-hist-") for i in ids) and
          any(i.startswith("fig-stages-") for i in ids), str(ids))
    with open(os.path.join(d, "figures.txt"), "w") as f:
        f.write("\n".join(ids) + "\n")


main()
sys.exit(1 if failed else 0)
