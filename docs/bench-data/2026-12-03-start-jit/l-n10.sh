#!/bin/bash
JAVA_OPTS="-XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=10" exec /work/main/bin/mcp-supervisor "$@"
