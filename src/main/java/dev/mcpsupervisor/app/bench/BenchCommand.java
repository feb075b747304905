package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import dev.mcpsupervisor.app.cli.UsageException;
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

/**
 * {@code mcp-supervisor bench URL [options]}: a load generator for any Streamable HTTP MCP
 * endpoint. Exit status 0 when every call was answered with its own payload, 1 when any failed or
 * was wrong, 2 for bad flags.
 */
public final class BenchCommand implements Command {

  public static final int EXIT_CLEAN = 0;
  static final int EXIT_FAILURES = 1;

  static final Syntax SYNTAX =
      new Syntax(
          "bench",
          "Calls an echo-like tool on a Streamable HTTP MCP endpoint from N sessions x M calls, K"
              + " in flight per session, each call with a unique payload checked in its answer, in"
              + " each protocol era; prints ok / failed / wrong, latency percentiles, throughput,"
              + " connect time and (with --pid) CPU per call.",
          List.of(
              new Syntax.Parameter(
                  "URL", "the MCP endpoint, e.g. http://127.0.0.1:8080/servers/demo/mcp")),
          List.of(
              Flag.option("--sessions", "N", "sessions").alias("-n").withDefault("10"),
              Flag.option("--calls", "M", "calls per session").alias("-m").withDefault("100"),
              Flag.option("--in-flight", "K", "calls in flight per session")
                  .alias("-k")
                  .withDefault("1"),
              Flag.option(
                      "--era",
                      "ERA",
                      "session (2025-06-18: initialize, Mcp-Session-Id), stateless (2026-07-28) or"
                          + " both, session first")
                  .withDefault("both"),
              Flag.option("--tool", "TOOL", "tool to call; it must answer its argument in its text")
                  .withDefault("echo"),
              Flag.option("--argument", "NAME", "the tool's string argument carrying the payload")
                  .withDefault("message"),
              Flag.option("--timeout", "SECONDS", "per request").withDefault("30"),
              Flag.option(
                  "--pid",
                  "PID",
                  "the gateway's process id: reports its CPU time per call (Linux /proc)"),
              Flag.toggle(
                  "--pid-children",
                  "with --pid, add the CPU time of its live child processes (the upstreams)"),
              Flag.option(
                  "--urls",
                  "URL,URL...",
                  "more endpoints (e.g. the other nodes of a cluster): each request goes to the"
                      + " next of URL and these in turn, so every session's requests spread over"
                      + " all of them"),
              Flag.option("--json", "FILE", "also write the results as JSON")));

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) throws IOException {
    BenchPlan plan = plan(arguments);
    Path json = arguments.path("--json");
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
    out.flush();
    if (json != null) {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(json.toFile(), report.json());
    }
    return results.stream().allMatch(EraResult::clean) ? EXIT_CLEAN : EXIT_FAILURES;
  }

  /** The flags, checked; a bad one is a usage error. */
  static BenchPlan plan(Arguments arguments) {
    List<URI> targets = new ArrayList<>();
    targets.add(Arguments.uri("URL", arguments.parameter("URL")));
    String more = arguments.text("--urls");
    if (more != null) {
      for (String each : more.split(",")) {
        targets.add(Arguments.uri("--urls", each.strip()));
      }
    }
    for (URI each : targets) {
      String scheme = each.getScheme();
      if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
        throw new UsageException("URL must be an http or https URL, got " + each);
      }
    }
    int sessions = arguments.positive("--sessions");
    int calls = arguments.positive("--calls");
    int inFlight = arguments.positive("--in-flight");
    int timeoutSeconds = arguments.positive("--timeout");
    if ((long) sessions * calls > Integer.MAX_VALUE) {
      throw new UsageException("--sessions x --calls must be at most " + Integer.MAX_VALUE);
    }
    Long pid = arguments.longInteger("--pid");
    boolean withChildren = arguments.has("--pid-children");
    if (pid == null && withChildren) {
      throw new UsageException("--pid-children needs --pid");
    }
    return new BenchPlan(
        targets,
        eras(arguments.text("--era")),
        sessions,
        calls,
        inFlight,
        arguments.text("--tool"),
        arguments.text("--argument"),
        Duration.ofSeconds(timeoutSeconds),
        pid == null ? OptionalLong.empty() : OptionalLong.of(pid),
        withChildren);
  }

  private static List<Era> eras(String era) {
    return switch (era.toLowerCase(Locale.ROOT)) {
      case "session", "2025" -> List.of(Era.SESSION);
      case "stateless", "2026" -> List.of(Era.STATELESS);
      case "both" -> List.of(Era.SESSION, Era.STATELESS);
      default -> throw new UsageException("--era must be session, stateless or both, got " + era);
    };
  }
}
