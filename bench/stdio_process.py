"""What bench/stdio-start.py and bench/start-ab.py share: a client's first initialize, and a process's own CPU."""
import os

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system seconds of the process itself (not its children)."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK
