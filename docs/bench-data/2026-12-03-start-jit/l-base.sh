#!/bin/bash
JAVA_OPTS="" exec /work/main/bin/mcp-supervisor "$@"
