package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/** A bench run's results as a table for people and as a JSON document for charts. */
final class BenchReport {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROW = "%-10s %-10s %8s %7s %6s %9s %9s %9s %9s %9s %9s %9s %9s %9s%n";

  private final BenchPlan plan;
  private final List<EraResult> results;

  BenchReport(BenchPlan plan, List<EraResult> results) {
    this.plan = plan;
    this.results = List.copyOf(results);
  }

  void printText(PrintWriter out) {
    out.printf(
        "bench %s: %d sessions x %d calls, %d in flight per session, tool %s(%s)%n",
        String.join(", ", plan.targets().stream().map(URI::toString).toList()),
        plan.sessions(),
        plan.callsPerSession(),
        plan.inFlight(),
        plan.tool(),
        plan.argument());
    out.printf(
        ROW,
        "era",
        "protocol",
        "ok",
        "failed",
        "wrong",
        "calls/s",
        "p50 us",
        "p90 us",
        "p99 us",
        "max us",
        "conn p50",
        "conn p99",
        "conn max",
        "cpu us/call");
    for (EraResult result : results) {
      out.printf(
          ROW,
          result.era().name().toLowerCase(Locale.ROOT),
          result.era().protocolVersion(),
          result.ok(),
          result.failed(),
          result.wrong(),
          String.format(Locale.ROOT, "%.1f", result.callsPerSecond()),
          result.latency().p50(),
          result.latency().p90(),
          result.latency().p99(),
          result.latency().max(),
          result.connect().p50(),
          result.connect().p99(),
          result.connect().max(),
          result.cpuMicrosPerCall().isPresent() ? result.cpuMicrosPerCall().getAsLong() : "-");
      if (!result.firstProblem().isEmpty()) {
        out.println("  first problem: " + result.firstProblem());
      }
    }
    out.flush();
  }

  ObjectNode json() {
    ObjectNode root = JSON.createObjectNode();
    root.put("target", plan.targets().get(0).toString());
    if (plan.targets().size() > 1) {
      plan.targets().forEach(each -> root.withArray("targets").add(each.toString()));
    }
    root.put("sessions", plan.sessions());
    root.put("callsPerSession", plan.callsPerSession());
    root.put("inFlightPerSession", plan.inFlight());
    root.put("tool", plan.tool());
    root.put("argument", plan.argument());
    if (plan.gatewayPid().isPresent()) {
      root.put("pid", plan.gatewayPid().getAsLong());
      root.put("pidWithChildren", plan.withChildren());
    }
    ArrayNode runs = root.putArray("runs");
    for (EraResult result : results) {
      ObjectNode run = runs.addObject();
      run.put("era", result.era().name().toLowerCase(Locale.ROOT));
      run.put("protocolVersion", result.era().protocolVersion());
      run.put("ok", result.ok());
      run.put("failed", result.failed());
      run.put("wrong", result.wrong());
      run.put("seconds", result.elapsedNanos() / 1e9);
      run.put("callsPerSecond", result.callsPerSecond());
      stats(run.putObject("latencyMicros"), result.latency());
      stats(run.putObject("connectMicros"), result.connect());
      if (result.cpuMicros().isPresent()) {
        run.put("cpuMicros", result.cpuMicros().getAsLong());
        run.put("cpuMicrosPerCall", result.cpuMicrosPerCall().orElse(0));
      } else {
        run.putNull("cpuMicros");
        run.putNull("cpuMicrosPerCall");
      }
      run.put("firstProblem", result.firstProblem());
    }
    return root;
  }

  private static void stats(ObjectNode node, LatencyStats stats) {
    node.put("count", stats.count());
    node.put("p50", stats.p50());
    node.put("p90", stats.p90());
    node.put("p99", stats.p99());
    node.put("max", stats.max());
  }
}
