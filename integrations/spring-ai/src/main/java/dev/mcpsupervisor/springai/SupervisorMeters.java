package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.concurrent.TimeUnit;

/**
 * The supervisor's Micrometer meters:
 *
 * <ul>
 *   <li>{@code mcp.supervisor.calls} (timer; {@code server}, {@code tool}, {@code outcome}: {@code
 *       success}, {@code tool_error} or {@code failed}): the tool calls of the Spring AI callbacks
 *   <li>{@code mcp.supervisor.requests} (timer; {@code server}, {@code method}, {@code outcome}:
 *       {@code success} or the error's kind, e.g. {@code timeout}): every request the supervisor
 *       answered, from its arrival to its answer
 *   <li>{@code mcp.supervisor.sessions.started}, {@code .reused}, {@code .lost}, {@code .restarted}
 *       (counters; {@code server}) and {@code mcp.supervisor.sessions.evicted} ({@code server},
 *       {@code reason}: idle, failures, ...)
 *   <li>{@code mcp.supervisor.circuit.opened} (counter; {@code server})
 * </ul>
 *
 * The supervisor reports from its start, the registries bind later: meters are kept in a composite
 * of our own that each registry Boot binds joins, so nothing is recorded before one has.
 */
final class SupervisorMeters implements MeterBinder, SupervisorObserver, ToolCallObserver {

  private static final String PREFIX = "mcp.supervisor.";

  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  @Override
  public void completed(String server, String tool, long nanos, String outcome) {
    Timer.builder(PREFIX + "calls")
        .description("Tool calls through the Spring AI callbacks")
        .tags("server", server, "tool", tool, "outcome", outcome)
        .register(meters)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void requestCompleted(String server, String method, long nanos, String errorKind) {
    Timer.builder(PREFIX + "requests")
        .description("Requests answered by the supervisor")
        .tags(
            "server", server, "method", method, "outcome", errorKind == null ? SUCCESS : errorKind)
        .register(meters)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void sessionReused(String server) {
    meters.counter(PREFIX + "sessions.reused", "server", server).increment();
  }

  @Override
  public void supervision(SupervisionEvent event) {
    switch (event.kind()) {
      case STARTED -> count("sessions.started", event);
      case LOST -> count("sessions.lost", event);
      case RESTARTED -> count("sessions.restarted", event);
      case CIRCUIT_OPEN -> count("circuit.opened", event);
      case EVICTED ->
          meters
              .counter(
                  PREFIX + "sessions.evicted", "server", event.server(), "reason", event.cause())
              .increment();
      default -> {
        // ready, failed attempts, operator restarts, circuit closed: seen in the others
      }
    }
  }

  private void count(String name, SupervisionEvent event) {
    meters.counter(PREFIX + name, "server", event.server()).increment();
  }
}
