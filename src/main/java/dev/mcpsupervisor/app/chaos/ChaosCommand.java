package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code mcp-supervisor chaos [options]}: starts the gateway in front of the fixture server and
 * disrupts the upstream under load. Exit status 0 when every scenario met its targets (failures
 * only retryable "session lost", no more than the calls in flight at the kills, no failed read-only
 * call, none past its deadline, no leaked process), 1 otherwise, 2 for bad flags.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description =
        "Starts the gateway (this jar) in front of the fixture server on 127.0.0.1 and, while N"
            + " sessions call echo and read_only_echo without pause, kills the stdio upstream every"
            + " interval (kill), kills and restarts a Streamable HTTP upstream (http-restart), or"
            + " SIGSTOPs the stdio upstream (hang); reports calls ok / failed by kind / past their"
            + " deadline, failed read-only calls, kill-to-next-success and leaked processes.")
public final class ChaosCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--scenario",
      defaultValue = "all",
      description = "kill, http-restart, hang or all (default ${DEFAULT-VALUE})")
  private String scenario;

  @Option(
      names = {"-n", "--sessions"},
      paramLabel = "N",
      defaultValue = "50",
      description = "sessions calling (default ${DEFAULT-VALUE})")
  private int sessions;

  @Option(
      names = "--seconds",
      defaultValue = "60",
      description = "load per scenario (default ${DEFAULT-VALUE})")
  private int seconds;

  @Option(
      names = "--interval",
      paramLabel = "MILLIS",
      defaultValue = "2000",
      description = "between kills (default ${DEFAULT-VALUE})")
  private int intervalMillis;

  @Option(
      names = "--deadline",
      paramLabel = "MILLIS",
      defaultValue = "5000",
      description = "the upstream's requestTimeout (default ${DEFAULT-VALUE})")
  private int deadlineMillis;

  @Option(
      names = "--hang",
      paramLabel = "MILLIS",
      defaultValue = "15000",
      description =
          "how long the hang scenario keeps the upstream stopped (default ${DEFAULT-VALUE})")
  private int hangMillis;

  @Option(
      names = "--read-only-every",
      paramLabel = "R",
      defaultValue = "4",
      description = "every R-th call is read_only_echo (default ${DEFAULT-VALUE})")
  private int readOnlyEvery;

  @Option(
      names = "--fixture-classpath",
      paramLabel = "CP",
      description = "the fixture server's classpath (default: this JVM's class path)")
  private String fixtureClasspath;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
  private Path json;

  @Override
  public Integer call() throws IOException {
    ChaosSettings settings = settings();
    List<Scenario> scenarios =
        "all".equals(scenario) ? List.of(Scenario.values()) : List.of(scenarioFlag());
    PrintWriter out = spec.commandLine().getOut();
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

  private Scenario scenarioFlag() {
    try {
      return Scenario.of(scenario);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  ChaosSettings settings() {
    positive("--sessions", sessions);
    positive("--seconds", seconds);
    positive("--interval", intervalMillis);
    positive("--deadline", deadlineMillis);
    positive("--hang", hangMillis);
    positive("--read-only-every", readOnlyEvery);
    if (!"all".equals(scenario)) {
      scenarioFlag();
    }
    return new ChaosSettings(
        sessions,
        Duration.ofSeconds(seconds),
        Duration.ofMillis(intervalMillis),
        Duration.ofMillis(deadlineMillis),
        Duration.ofMillis(hangMillis),
        readOnlyEvery,
        fixtureClasspath == null ? System.getProperty("java.class.path") : fixtureClasspath);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
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
