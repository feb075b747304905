#!/usr/bin/env python3
"""The conformance gate's verdict, from the suite's own per-scenario results (checks.json).

Called by .ci/conformance.sh after it ran the suite against every server directly and through the gateway:
    conformance_gate.py WORK REQUIREMENTS_DIR FLOORS KNOWN_GAPS SERVER...
where WORK/<server>-<path>-<set>-results holds the suite's output (-o) for path direct or gateway.

A required scenario passes when it ran at least one check, every check it ran that can fail succeeded (SUCCESS),
and none failed (FAILURE); WARNING, INFO and SKIPPED checks are counted apart and decide nothing. A scenario the set
requires that left no results did not pass. Fails (exit 1) when:
  - through the gateway a scenario passes that passes directly does not, or passes with fewer successful checks,
    unless KNOWN_GAPS lists it for that server and set (with the issue item it waits for);
  - a listed gap (one that names the issue item it waits for) is no longer one (it passes through the gateway with every check it passes directly), or is not a
    gap at all (it does not pass directly): the list only shrinks;
    (an entry whose reason starts with "accepted" is a deliberate difference, allowed whether or not a run shows it);
  - a run passes fewer scenarios or fewer checks than its floor in FLOORS, or a run has no floor there.
"""
import glob
import json
import os
import sys

SETS = ("2025-11-25", "2026-07-28")
PATHS = ("direct", "gateway")


def required_scenarios(requirements_dir, requirement_set):
    """The `server:` list of the suite's requirements/<set>.yaml (a plain list; no YAML library needed)."""
    names, in_server = [], False
    with open(os.path.join(requirements_dir, requirement_set + ".yaml"), encoding="utf-8") as yaml:
        for line in yaml:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line.startswith(" "):
                in_server = line.startswith("server:")
                continue
            if in_server and line.strip().startswith("- "):
                names.append(line.strip()[2:].strip())
    if not names:
        sys.exit(f"error: no server scenarios in {requirements_dir}/{requirement_set}.yaml")
    return names


def scenario_results(results_dir):
    """scenario name -> counts of its checks by status, from <results_dir>/server-<scenario>-<timestamp>/checks.json."""
    results = {}
    for checks_file in glob.glob(os.path.join(results_dir, "server-*", "checks.json")):
        folder = os.path.basename(os.path.dirname(checks_file))[len("server-"):]
        # the folder ends in -<ISO timestamp>, e.g. -2026-11-27T01-17-38-290Z: 6 dash-separated parts
        scenario = "-".join(folder.split("-")[:-6])
        with open(checks_file, encoding="utf-8") as f:
            checks = json.load(f)
        counts = {}
        for check in checks:
            counts[check.get("status", "?")] = counts.get(check.get("status", "?"), 0) + 1
        results[scenario] = counts
    return results


class Run:
    def __init__(self, work, requirements_dir, server, path, requirement_set):
        self.name = f"{server} {path} {requirement_set}"
        self.required = required_scenarios(requirements_dir, requirement_set)
        found = scenario_results(os.path.join(work, f"{server}-{path}-{requirement_set}-results"))
        self.counts = {s: found.get(s, {}) for s in self.required}

    def passed(self, scenario):
        counts = self.counts[scenario]
        return counts.get("SUCCESS", 0) > 0 and counts.get("FAILURE", 0) == 0

    def successes(self, scenario):
        return self.counts[scenario].get("SUCCESS", 0)

    def scenarios_passed(self):
        return sum(1 for s in self.required if self.passed(s))

    def checks(self, status):
        return sum(c.get(status, 0) for c in self.counts.values())


def read_table(path, width):
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, width - 1)
            if len(fields) != width:
                sys.exit(f"error: {path}:{number}: expected {width} fields: {line}")
            rows.append(fields)
    return rows


def main():
    work, requirements_dir, floors_file, gaps_file, *servers = sys.argv[1:]
    runs = {(s, p, r): Run(work, requirements_dir, s, p, r) for s in servers for p in PATHS for r in SETS}
    floors = {(s, p, r): (int(n), int(c)) for s, r, p, n, c in read_table(floors_file, 5)}
    gaps = {(s, r, scenario): item for s, r, scenario, item in read_table(gaps_file, 4)}
    failures, notes, allowed = [], [], []

    for server in servers:
        for requirement_set in SETS:
            direct = runs[(server, "direct", requirement_set)]
            gateway = runs[(server, "gateway", requirement_set)]
            for scenario in direct.required:
                gap = gaps.get((server, requirement_set, scenario))
                worse = direct.passed(scenario) and (
                    not gateway.passed(scenario) or gateway.successes(scenario) < direct.successes(scenario))
                what = (f"{server} {requirement_set} {scenario}: directly {direct.successes(scenario)} checks"
                        f" {'pass' if direct.passed(scenario) else 'FAIL'}, through the gateway"
                        f" {gateway.successes(scenario)} checks {'pass' if gateway.passed(scenario) else 'FAIL'}"
                        f" ({gateway.counts[scenario].get('FAILURE', 0)} failed)")
                if worse and gap:
                    allowed.append(f"{what} [known gap: {gap}]")
                elif worse:
                    failures.append(f"worse through the gateway than directly: {what}")
                elif gap and gap.startswith("accepted"):
                    pass  # a deliberate difference, allowed whether or not it shows in this run
                elif gap and direct.passed(scenario):
                    failures.append(f"listed as a known gap but no longer one (remove it from {gaps_file}): {what}")
                elif gap:
                    failures.append(f"listed as a known gap but it does not pass directly: {what}")
    for (server, requirement_set, scenario) in gaps:
        if server not in servers or requirement_set not in SETS or scenario not in runs[
                (server, "direct", requirement_set)].required:
            failures.append(f"{gaps_file}: {server} {requirement_set} {scenario} names no run scenario")

    for key, run in runs.items():
        floor = floors.get(key)
        scenarios, checks = run.scenarios_passed(), run.checks("SUCCESS")
        if floor is None:
            failures.append(f"{floors_file} has no floor for {run.name} (it passed {scenarios} scenarios, {checks} checks)")
        elif scenarios < floor[0] or checks < floor[1]:
            failures.append(f"{run.name}: {scenarios} scenarios / {checks} checks passed, below its floor "
                            f"{floor[0]} / {floor[1]} ({floors_file})")
        elif (scenarios, checks) != floor:
            notes.append(f"{run.name}: {scenarios} scenarios / {checks} checks passed, above its floor "
                         f"{floor[0]} / {floor[1]}: raise it in {floors_file}")

    print("== conformance: required scenarios passed / required, checks passed (failed)")
    print(f"{'server':<10} {'requirements':<12} {'directly':>22} {'through the gateway':>22}")
    for server in servers:
        for requirement_set in SETS:
            cells = []
            for path in PATHS:
                run = runs[(server, path, requirement_set)]
                cells.append(f"{run.scenarios_passed()}/{len(run.required)}, "
                             f"{run.checks('SUCCESS')} ({run.checks('FAILURE')})")
            print(f"{server:<10} {requirement_set:<12} {cells[0]:>22} {cells[1]:>22}")
    for line in allowed:
        print("allowed: " + line)
    for line in notes:
        print("note: " + line)
    for line in failures:
        print("FAILED: " + line, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"OK: through the gateway every server passes every scenario it passes directly, with as many checks, "
          f"except {len(allowed)} known gaps ({gaps_file}); every run at or above its floor ({floors_file})")


if __name__ == "__main__":
    main()
