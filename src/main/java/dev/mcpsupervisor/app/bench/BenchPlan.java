package dev.mcpsupervisor.app.bench;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * One load run: {@code sessions} x {@code callsPerSession} calls of {@code tool}, {@code inFlight}
 * at a time per session, against {@code target} in each era.
 *
 * @param gatewayPid the process whose CPU time is measured, when given
 */
public record BenchPlan(
    URI target,
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
  }

  public long totalCalls() {
    return (long) sessions * callsPerSession;
  }
}
