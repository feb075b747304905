package dev.mcpsupervisor.app;

import dev.mcpsupervisor.app.bench.BenchPlan;
import dev.mcpsupervisor.app.bench.Era;
import dev.mcpsupervisor.app.bench.EraResult;
import dev.mcpsupervisor.app.bench.LoadRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The warm-up's calls ({@link Warmup}): the {@code bench} load generator against the private
 * gateway's demo server, in both protocol eras, many sessions each opened and deleted, so that the
 * connect path gets compiled as well as the calls. {@link #stop} ends it early.
 */
final class WarmupLoad {

  /** Many sessions, so that opening and deleting one gets compiled too. */
  private static final int CALLS_PER_SESSION = 50;

  private static final int IN_FLIGHT = 2;

  /** The session era last: most clients speak it, so its paths are the freshest profiled. */
  private static final List<Era> ERAS = List.of(Era.STATELESS, Era.SESSION);

  private static final String TOOL = "echo";
  private static final String ARGUMENT = "message";

  private final WarmupSettings settings;
  private volatile LoadRunner current;
  private volatile boolean stopped;

  WarmupLoad(WarmupSettings settings) {
    this.settings = settings;
  }

  /** Blocks until every era has made its calls, or soon after {@link #stop}. */
  List<EraResult> run(int port) {
    URI target =
        URI.create("http://127.0.0.1:" + port + "/servers/" + DemoConfig.SERVER_NAME + "/mcp");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(settings.maxDuration())
            .build();
    List<EraResult> results = new ArrayList<>();
    int remaining = settings.calls();
    for (int index = 0; index < ERAS.size() && !stopped; index++) {
      Era era = ERAS.get(index);
      int eraCalls = remaining / (ERAS.size() - index);
      remaining -= eraCalls;
      if (eraCalls > 0) {
        current = new LoadRunner(plan(target, era, eraCalls), era, http);
        if (stopped) {
          break;
        }
        results.add(current.run());
      }
    }
    return results;
  }

  void stop() {
    stopped = true;
    LoadRunner running = current;
    if (running != null) {
      running.stop();
    }
  }

  private BenchPlan plan(URI target, Era era, int calls) {
    int sessions = Math.max(1, (calls + CALLS_PER_SESSION - 1) / CALLS_PER_SESSION);
    int callsPerSession = (calls + sessions - 1) / sessions;
    return new BenchPlan(
        target,
        List.of(era),
        sessions,
        callsPerSession,
        IN_FLIGHT,
        TOOL,
        ARGUMENT,
        settings.maxDuration(),
        OptionalLong.empty(),
        false);
  }
}
