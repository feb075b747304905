#!/bin/bash
# the README's launcher with C2's thresholds three times Java's defaults
export JAVA_OPTS="-XX:Tier4InvocationThreshold=15000 -XX:Tier4MinInvocationThreshold=1800 -XX:Tier4CompileThreshold=45000 -XX:Tier4BackEdgeThreshold=120000"
exec bin/mcp-supervisor "$@" # run from the repository root, as bench/start-ab.py is
