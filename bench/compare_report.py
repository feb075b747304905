#!/usr/bin/env python3
"""Aggregates bench/compare.sh's raw runs: medians per (target, sessions, era), ratios vs direct and vs the best peer.

usage: compare_report.py INDEX.tsv OUT.json OUT.md [--in-flight K] [--era ERA] [--peers a,b] [--versions TEXT]
INDEX.tsv rows: target, sessions, calls per session, run, bench JSON file (or a note when the cell was not run).
"""
import argparse
import datetime
import json
import platform
import statistics

METRICS = ("callsPerSecond", "p50", "p99", "cpuMicrosPerCall")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def read_runs(index_path):
    """{(target, sessions): {"calls": M, "eras": {era: [run dicts]}, "note": str}} in index order."""
    cells = {}
    with open(index_path) as index:
        for line in index:
            target, sessions, calls, run, file_or_note = line.rstrip("\n").split("\t")
            cell = cells.setdefault((target, sessions), {"calls": calls, "eras": {}, "note": ""})
            if run == "-":
                cell["note"] = file_or_note
                continue
            try:
                with open(file_or_note) as bench_json:
                    report = json.load(bench_json)
            except (OSError, ValueError) as e:
                cell["note"] = f"run {run}: no result ({e})"
                continue
            for era in report["runs"]:
                cell["eras"].setdefault(era["era"], []).append({
                    "run": int(run),
                    "ok": era["ok"],
                    "failed": era["failed"],
                    "wrong": era["wrong"],
                    "seconds": era["seconds"],
                    "callsPerSecond": era["callsPerSecond"],
                    "p50": era["latencyMicros"]["p50"],
                    "p90": era["latencyMicros"]["p90"],
                    "p99": era["latencyMicros"]["p99"],
                    "connectP50": era["connectMicros"]["p50"],
                    "cpuMicrosPerCall": era["cpuMicrosPerCall"],
                    "firstProblem": era["firstProblem"],
                })
    return cells


def summarize(cells, peers):
    rows = []
    for (target, sessions), cell in cells.items():
        if not cell["eras"]:
            rows.append({"target": target, "sessions": int(sessions) if sessions != "-" else None,
                         "era": None, "runs": [], "note": cell["note"]})
            continue
        for era, runs in cell["eras"].items():
            row = {"target": target, "sessions": int(sessions), "callsPerSession": int(cell["calls"]), "era": era,
                   "runs": runs, "note": cell["note"],
                   "failed": sum(r["failed"] for r in runs), "wrong": sum(r["wrong"] for r in runs),
                   "firstProblem": next((r["firstProblem"] for r in runs if r["firstProblem"]), "")}
            row["median"] = {m: median([r[m] for r in runs]) for m in METRICS}
            rows.append(row)
    # ratios within one (sessions, era): calls/s relative to direct and to the best peer (highest median calls/s)
    for row in rows:
        if row["era"] is None:
            continue
        same = [r for r in rows if r["era"] == row["era"] and r["sessions"] == row["sessions"]]
        direct = next((r for r in same if r["target"] == "direct"), None)
        peer_rows = [r for r in same if r["target"] in peers and r["median"]["callsPerSecond"]]
        best_peer = max(peer_rows, key=lambda r: r["median"]["callsPerSecond"], default=None)
        mine = row["median"]["callsPerSecond"]
        row["vsDirect"] = ratio(mine, direct["median"]["callsPerSecond"] if direct else None)
        row["bestPeer"] = best_peer["target"] if best_peer else None
        row["vsBestPeer"] = ratio(mine, best_peer["median"]["callsPerSecond"] if best_peer else None)
        # CPU per call against the floor (a bare MCP echo on Pekko HTTP, the same JVM) and mcp-proxy
        cpu = row["median"]["cpuMicrosPerCall"]
        for key, name in (("cpuVsFloor", "floor"), ("cpuVsMcpProxy", "mcp-proxy")):
            other = next((r for r in same if r["target"] == name), None)
            row[key] = ratio(cpu, other["median"]["cpuMicrosPerCall"] if other else None)
    return rows


def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None


def times(value):
    return "-" if value is None else f"{value:.2f}×"


def fmt(value, suffix=""):
    if value is None:
        return "-"
    return f"{value:,.0f}{suffix}"


def markdown(rows, meta):
    lines = [f"Comparison run {meta['date']} ({meta['host']}), era {meta['era']}, K = {meta['inFlight']} in flight "
             f"per session, median of {meta['runs']} run(s); ratios are calls/s against direct and against the "
             f"best peer ({', '.join(meta['peers'])}) in the same run; CPU is the front process's only (the gateway "
             f"or peer; for direct, the upstream). Versions: {meta['versions'] or 'not given'}.",
             "",
             "| N | M | Target | Calls/s | p50 µs | p99 µs | CPU µs/call | Failed | Wrong | vs direct | vs best peer "
             "| CPU vs floor | CPU vs mcp-proxy |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["era"] is None:
            lines.append(f"| {row['sessions'] or '-'} | | {row['target']} | {row['note']} | | | | | | | | | |")
            continue
        m = row["median"]
        vs_peer = "-" if row["vsBestPeer"] is None else f"{row['vsBestPeer']:.2f}× ({row['bestPeer']})"
        vs_direct = "-" if row["vsDirect"] is None else f"{row['vsDirect']:.2f}×"
        lines.append(f"| {row['sessions']} | {row['callsPerSession']} | {row['target']} | {fmt(m['callsPerSecond'])}"
                     f" | {fmt(m['p50'])} | {fmt(m['p99'])} | {fmt(m['cpuMicrosPerCall'])} | {row['failed']}"
                     f" | {row['wrong']} | {vs_direct} | {vs_peer} | {times(row.get('cpuVsFloor'))}"
                     f" | {times(row.get('cpuVsMcpProxy'))} |")
    problems = [r for r in rows if r.get("firstProblem")]
    if problems:
        lines += ["", "First problems:"]
        lines += [f"- {r['target']} N={r['sessions']} {r['era']}: {r['firstProblem']}" for r in problems]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("index")
    parser.add_argument("json_out")
    parser.add_argument("md_out")
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--era", default="session")
    parser.add_argument("--peers", default="mcp-proxy,supergateway")
    parser.add_argument("--versions", default="")
    args = parser.parse_args()
    peers = args.peers.split(",")
    rows = summarize(read_runs(args.index), peers)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": f"{platform.node()}, {platform.machine()}",
            "versions": args.versions, "era": args.era, "inFlight": args.in_flight, "peers": peers,
            "runs": max((len(r["runs"]) for r in rows), default=0)}
    with open(args.json_out, "w") as out:
        json.dump({"meta": meta, "rows": rows}, out, indent=2)
    with open(args.md_out, "w") as out:
        out.write(markdown(rows, meta))


if __name__ == "__main__":
    main()
