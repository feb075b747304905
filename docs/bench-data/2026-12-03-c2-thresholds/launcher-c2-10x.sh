#!/bin/bash
# the README's launcher with C2's thresholds ten times Java's defaults
export JAVA_OPTS="-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000"
exec bin/mcp-supervisor "$@" # run from the repository root, as bench/start-ab.py is
