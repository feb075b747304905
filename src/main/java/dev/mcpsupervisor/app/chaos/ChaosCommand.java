package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import dev.mcpsupervisor.app.cli.UsageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code mcp-supervisor chaos [options]}: starts the gateway in front of the fixture server and
 * disrupts the upstream under load. Exit status 0 when every scenario met its targets (failures
 * only retryable "session lost", no more than the calls in flight at the kills, no failed read-only
 * call, none past its deadline, no leaked process), 1 otherwise, 2 for bad flags.
 */
public final class ChaosCommand implements Command {

  private static final String ALL = "all";

  private static final Syntax SYNTAX =
      new Syntax(
          "chaos",
          "Starts the gateway (this jar) in front of the fixture server on 127.0.0.1 and, while N"
              + " sessions call echo and read_only_echo without pause, kills the stdio upstream"
              + " every interval (kill), kills and restarts a Streamable HTTP upstream"
              + " (http-restart), or SIGSTOPs the stdio upstream (hang); reports calls ok / failed"
              + " by kind / past their deadline, failed read-only calls, kill-to-next-success and"
              + " leaked processes.",
          List.of(),
          List.of(
              Flag.option("--scenario", "NAME", "kill, http-restart, hang or all").withDefault(ALL),
              Flag.option("--sessions", "N", "sessions calling").alias("-n").withDefault("50"),
              Flag.option("--seconds", "SECONDS", "load per scenario").withDefault("60"),
              Flag.option("--interval", "MILLIS", "between kills").withDefault("2000"),
              Flag.option("--deadline", "MILLIS", "the upstream's requestTimeout")
                  .withDefault("5000"),
              Flag.option(
                      "--hang", "MILLIS", "how long the hang scenario keeps the upstream stopped")
                  .withDefault("15000"),
              Flag.option("--read-only-every", "R", "every R-th call is read_only_echo")
                  .withDefault("4"),
              Flag.option(
                  "--fixture-classpath",
                  "CP",
                  "the fixture server's classpath (default: this JVM's class path)"),
              Flag.option("--json", "FILE", "also write the results as JSON")));

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) throws IOException {
    List<Scenario> scenarios = scenarios(arguments.text("--scenario"));
    ChaosSettings settings = settings(arguments);
    Path json = arguments.path("--json");
    Path work = Files.createTempDirectory("mcp-supervisor-chaos");
    out.println("logs in " + work);
    List<ChaosReport> reports = new ArrayList<>();
    for (Scenario each : scenarios) {
      ChaosReport report = new ChaosRun(settings, work).run(each);
      report.printText(out);
      out.flush();
      reports.add(report);
    }
    if (json != null) {
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("sessions", settings.sessions());
      root.put("intervalMillis", settings.interval().toMillis());
      root.put("deadlineMillis", settings.deadline().toMillis());
      root.put("readOnlyEvery", settings.readOnlyEvery());
      root.put("loadAverage", loadAverage());
      ArrayNode runs = root.putArray("scenarios");
      reports.forEach(report -> runs.add(report.json()));
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(json.toFile(), root);
    }
    return reports.stream().allMatch(ChaosReport::metTargets) ? 0 : 1;
  }

  private static List<Scenario> scenarios(String scenario) {
    if (ALL.equals(scenario)) {
      return List.of(Scenario.values());
    }
    try {
      return List.of(Scenario.of(scenario));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The flags, checked before anything starts; a bad one is a usage error. */
  private static ChaosSettings settings(Arguments arguments) {
    String fixtureClasspath = arguments.text("--fixture-classpath");
    return new ChaosSettings(
        arguments.positive("--sessions"),
        Duration.ofSeconds(arguments.positive("--seconds")),
        Duration.ofMillis(arguments.positive("--interval")),
        Duration.ofMillis(arguments.positive("--deadline")),
        Duration.ofMillis(arguments.positive("--hang")),
        arguments.positive("--read-only-every"),
        fixtureClasspath == null ? System.getProperty("java.class.path") : fixtureClasspath);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
