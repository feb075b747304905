package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mcp-supervisor bench URL [options]}: a load generator for any Streamable HTTP MCP
 * endpoint. Exit status 0 when every call was answered with its own payload, 1 when any failed or
 * was wrong, 2 for bad flags.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description =
        "Calls an echo-like tool on a Streamable HTTP MCP endpoint from N sessions x M calls, K in"
            + " flight per session, each call with a unique payload checked in its answer, in each"
            + " protocol era; prints ok / failed / wrong, latency percentiles, throughput, connect"
            + " time and (with --pid) CPU per call.")
public final class BenchCommand implements Callable<Integer> {

  public static final int EXIT_CLEAN = 0;
  static final int EXIT_FAILURES = 1;

  @Spec private CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URL",
      description = "the MCP endpoint, e.g. http://127.0.0.1:8080/servers/demo/mcp")
  private URI target;

  @Option(
      names = {"-n", "--sessions"},
      paramLabel = "N",
      defaultValue = "10",
      description = "sessions (default ${DEFAULT-VALUE})")
  private int sessions;

  @Option(
      names = {"-m", "--calls"},
      paramLabel = "M",
      defaultValue = "100",
      description = "calls per session (default ${DEFAULT-VALUE})")
  private int calls;

  @Option(
      names = {"-k", "--in-flight"},
      paramLabel = "K",
      defaultValue = "1",
      description = "calls in flight per session (default ${DEFAULT-VALUE})")
  private int inFlight;

  @Option(
      names = "--era",
      paramLabel = "ERA",
      defaultValue = "both",
      description =
          "session (2025-06-18: initialize, Mcp-Session-Id), stateless (2026-07-28) or both"
              + " (default ${DEFAULT-VALUE}, session first)")
  private String era;

  @Option(
      names = "--tool",
      defaultValue = "echo",
      description =
          "tool to call; it must answer its argument in its text (default ${DEFAULT-VALUE})")
  private String tool;

  @Option(
      names = "--argument",
      defaultValue = "message",
      description = "the tool's string argument carrying the payload (default ${DEFAULT-VALUE})")
  private String argument;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description = "per request (default ${DEFAULT-VALUE})")
  private int timeoutSeconds;

  @Option(
      names = "--pid",
      paramLabel = "PID",
      description = "the gateway's process id: reports its CPU time per call (Linux /proc)")
  private Long pid;

  @Option(
      names = "--pid-children",
      description = "with --pid, add the CPU time of its live child processes (the upstreams)")
  private boolean withChildren;

  @Option(
      names = "--urls",
      paramLabel = "URL,URL...",
      split = ",",
      description =
          "more endpoints (e.g. the other nodes of a cluster): each request goes to the next of URL"
              + " and these in turn, so every session's requests spread over all of them")
  private List<URI> moreTargets = List.of();

  @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
  private Path json;

  @Override
  public Integer call() throws IOException {
    BenchPlan plan = plan();
    PrintWriter out = spec.commandLine().getOut();
    List<EraResult> results = new ArrayList<>();
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(plan.timeout())
            .build();
    for (Era each : plan.eras()) {
      results.add(new LoadRunner(plan, each, http).run());
    }
    BenchReport report = new BenchReport(plan, results);
    report.printText(out);
    if (json != null) {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(json.toFile(), report.json());
    }
    return results.stream().allMatch(EraResult::clean) ? EXIT_CLEAN : EXIT_FAILURES;
  }

  /** The flags, checked; a bad one is a usage error. */
  BenchPlan plan() {
    List<URI> targets = new ArrayList<>();
    targets.add(target);
    targets.addAll(moreTargets);
    for (URI each : targets) {
      String scheme = each.getScheme();
      if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
        throw usage("URL must be an http or https URL, got " + each);
      }
    }
    positive("--sessions", sessions);
    positive("--calls", calls);
    positive("--in-flight", inFlight);
    positive("--timeout", timeoutSeconds);
    if ((long) sessions * calls > Integer.MAX_VALUE) {
      throw usage("--sessions x --calls must be at most " + Integer.MAX_VALUE);
    }
    if (pid == null && withChildren) {
      throw usage("--pid-children needs --pid");
    }
    return new BenchPlan(
        targets,
        eras(),
        sessions,
        calls,
        inFlight,
        tool,
        argument,
        Duration.ofSeconds(timeoutSeconds),
        pid == null ? OptionalLong.empty() : OptionalLong.of(pid),
        withChildren);
  }

  private List<Era> eras() {
    return switch (era.toLowerCase(Locale.ROOT)) {
      case "session", "2025" -> List.of(Era.SESSION);
      case "stateless", "2026" -> List.of(Era.STATELESS);
      case "both" -> List.of(Era.SESSION, Era.STATELESS);
      default -> throw usage("--era must be session, stateless or both, got " + era);
    };
  }

  private void positive(String option, int value) {
    if (value < 1) {
      throw usage(option + " must be at least 1, got " + value);
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
