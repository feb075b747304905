#!/bin/bash
JAVA_OPTS="-XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=15" exec /work/main/bin/mcp-supervisor "$@"
