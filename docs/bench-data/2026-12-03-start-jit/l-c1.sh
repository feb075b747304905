#!/bin/bash
JAVA_OPTS="-XX:TieredStopAtLevel=1" exec /work/main/bin/mcp-supervisor "$@"
