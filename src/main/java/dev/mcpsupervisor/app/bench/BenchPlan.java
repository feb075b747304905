package dev.mcpsupervisor.app.bench;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * One load run: {@code sessions} x {@code callsPerSession} calls of {@code tool}, {@code inFlight}
 * at a time per session, against {@code targets} in each era: each request goes to the next target
 * in turn (one target: all to it), so a session's requests spread over every node of a cluster.
 *
 * @param gatewayPid the process whose CPU time is measured, when given
 */
public record BenchPlan(
    List<URI> targets,
    List<Era> eras,
    int sessions,
    int callsPerSession,
    int inFlight,
    String tool,
    String argument,
    Duration timeout,
    OptionalLong gatewayPid,
    boolean withChildren) {

  public BenchPlan {
    eras = List.copyOf(eras);
    targets = List.copyOf(targets);
  }

  public long totalCalls() {
    return (long) sessions * callsPerSession;
  }
}
