#!/bin/bash
JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining" exec /work/main/bin/mcp-supervisor "$@"
