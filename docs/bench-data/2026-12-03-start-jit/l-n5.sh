#!/bin/bash
JAVA_OPTS="-XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=5" exec /work/main/bin/mcp-supervisor "$@"
