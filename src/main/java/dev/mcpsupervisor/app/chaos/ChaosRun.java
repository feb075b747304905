package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One scenario: starts the gateway (and, for an HTTP upstream, the fixture serving HTTP) as child
 * processes on 127.0.0.1, runs the load, disrupts the upstream on schedule, then counts leftover
 * processes and stops everything it started by pid.
 */
final class ChaosRun {

  static final String SERVER = "up";
  private static final String FIXTURE_MAIN = "dev.mcpsupervisor.fixture.FixtureServer";
  private static final String GATEWAY_MAIN = "dev.mcpsupervisor.app.Main";
  private static final String GATEWAY_READY = "mcp-supervisor listening on ";
  private static final String FIXTURE_READY = "FIXTURE_LISTENING ";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ChaosSettings settings;
  private final Path work;
  private final HttpClient http;
  private final List<ChaosEvent> events = new ArrayList<>();
  private final Set<Long> upstreamPids = new LinkedHashSet<>();

  ChaosRun(ChaosSettings settings, Path work) {
    this.settings = settings;
    this.work = work;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  ChaosReport run(Scenario scenario) throws IOException {
    int httpPort = scenario == Scenario.HTTP_RESTART ? freePort() : 0;
    ManagedProcess httpUpstream =
        scenario == Scenario.HTTP_RESTART ? startHttpFixture(httpPort) : null;
    Path config = writeConfig(scenario, httpPort);
    try (ManagedProcess gateway =
        ManagedProcess.start(
            List.of(
                java(),
                "-cp",
                System.getProperty("java.class.path"),
                GATEWAY_MAIN,
                "--config",
                config.toString(),
                "--host",
                "127.0.0.1",
                "--port",
                "0"),
            GATEWAY_READY,
            work.resolve(scenario.flag() + "-gateway.log"))) {
      // a runner stopped by SIGTERM or Ctrl-C still stops the gateway it started
      Thread stopOnExit = new Thread(gateway::close, "chaos-stop-gateway");
      Runtime.getRuntime().addShutdownHook(stopOnExit);
      URI mcp = URI.create(gateway.awaitReady(START_TIMEOUT));
      URI target = mcp.resolve("/servers/" + SERVER + "/mcp");
      AdminSessions admin = new AdminSessions(http, mcp, SERVER);
      ChaosLoad load =
          new ChaosLoad(
              http,
              target,
              settings.sessions(),
              settings.readOnlyEvery(),
              settings.deadline().plus(Duration.ofSeconds(10)));
      awaitReadyUpstream(admin, target);
      CompletableFuture<Void> done = load.start(settings.duration());
      httpUpstream = disrupt(scenario, load, admin, httpUpstream, httpPort);
      awaitLoad(done);
      int leaked = leaked(gateway.handle(), admin);
      gateway.close();
      Runtime.getRuntime().removeShutdownHook(stopOnExit);
      int leftAfterStop = leftAfterStop();
      return new ChaosReport(
          scenario.flag(),
          scenario == Scenario.HTTP_RESTART ? "fixture (Streamable HTTP)" : "fixture (stdio)",
          settings.sessions(),
          settings.duration(),
          settings.deadline(),
          load.records(),
          events,
          load.connectFailures(),
          leaked,
          leftAfterStop);
    } finally {
      if (httpUpstream != null) {
        httpUpstream.close();
      }
    }
  }

  /** Runs the scenario's disruptions until the load's end; answers the HTTP upstream now alive. */
  private ManagedProcess disrupt(
      Scenario scenario, ChaosLoad load, AdminSessions admin, ManagedProcess httpUpstream, int port)
      throws IOException {
    long interval = settings.interval().toMillis();
    long end = settings.duration().toMillis();
    switch (scenario) {
      case KILL -> {
        for (long at = interval; at < end; at += interval) {
          sleepUntil(load, at);
          List<Long> pids = admin.pids();
          upstreamPids.addAll(pids);
          int inFlight = load.inFlight();
          pids.forEach(Signals::kill);
          events.add(new ChaosEvent(load.now(), ChaosEvent.KILL, pids, inFlight));
        }
      }
      case HTTP_RESTART -> {
        long period = interval * 5;
        // a slow restart (a loaded machine) pushes the next kill back: each process gets a period
        for (long at = period; at + interval < end; at = Math.max(at, load.now()) + period) {
          sleepUntil(load, at);
          int inFlight = load.inFlight();
          httpUpstream.kill();
          events.add(
              new ChaosEvent(load.now(), ChaosEvent.KILL, List.of(httpUpstream.pid()), inFlight));
          sleepUntil(load, at + interval);
          httpUpstream = startHttpFixture(port);
          events.add(
              new ChaosEvent(
                  load.now(), ChaosEvent.RESTART, List.of(httpUpstream.pid()), load.inFlight()));
        }
      }
      case HANG -> {
        sleepUntil(load, interval);
        List<Long> pids = admin.pids();
        upstreamPids.addAll(pids);
        int inFlight = load.inFlight();
        for (long pid : pids) {
          Signals.stop(pid);
        }
        events.add(new ChaosEvent(load.now(), ChaosEvent.SIGSTOP, pids, inFlight));
        sleepUntil(load, Math.min(end, interval + settings.hang().toMillis()));
        for (long pid : pids) {
          Signals.resume(pid);
        }
        events.add(new ChaosEvent(load.now(), ChaosEvent.SIGCONT, pids, load.inFlight()));
      }
    }
    return httpUpstream;
  }

  /**
   * Opens one session and waits until the upstream is ready, so the first kill does not land in the
   * first process start.
   */
  private void awaitReadyUpstream(AdminSessions admin, URI target) throws IOException {
    ChaosLoad warmUp = new ChaosLoad(http, target, 1, 1, START_TIMEOUT);
    long until = System.nanoTime() + START_TIMEOUT.toNanos();
    CompletableFuture<Void> warming = warmUp.start(Duration.ofSeconds(1));
    while (!readyNow(admin) && System.nanoTime() < until) {
      pause(100);
    }
    awaitLoad(warming);
  }

  /** A slow {@code /admin/sessions} answer (a loaded machine) is "not ready yet", not the end. */
  private static boolean readyNow(AdminSessions admin) {
    try {
      return admin.anyReady();
    } catch (IOException notYet) {
      return false;
    }
  }

  /**
   * Descendants of the gateway still alive that it no longer lists as upstream sessions, after
   * giving them a few seconds to go.
   */
  private int leaked(ProcessHandle gateway, AdminSessions admin) throws IOException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<ProcessHandle> strays;
    do {
      List<Long> listed = admin.pids();
      upstreamPids.addAll(listed);
      strays =
          gateway
              .descendants()
              .filter(ProcessHandle::isAlive)
              .filter(process -> !listed.contains(process.pid()))
              .toList();
      strays.forEach(process -> upstreamPids.add(process.pid()));
      if (strays.isEmpty()) {
        return 0;
      }
      pause(200);
    } while (System.nanoTime() < until);
    return strays.size();
  }

  /** Upstream processes seen during the run still alive once the gateway stopped: killed here. */
  private int leftAfterStop() {
    int left = 0;
    for (long pid : upstreamPids) {
      ProcessHandle process = ProcessHandle.of(pid).orElse(null);
      if (process != null && process.isAlive()) {
        left++;
        process.destroyForcibly();
      }
    }
    return left;
  }

  private ManagedProcess startHttpFixture(int port) throws IOException {
    ManagedProcess fixture =
        ManagedProcess.start(
            fixtureCommand("--http", Integer.toString(port)),
            FIXTURE_READY,
            work.resolve("fixture-http.log"));
    fixture.awaitReady(START_TIMEOUT);
    return fixture;
  }

  private List<String> fixtureCommand(String... args) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(settings.fixtureClasspath());
    command.add(FIXTURE_MAIN);
    command.addAll(List.of(args));
    return command;
  }

  private Path writeConfig(Scenario scenario, int httpPort) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode server = root.putObject("mcpServers").putObject(SERVER);
    if (scenario == Scenario.HTTP_RESTART) {
      server.put("url", "http://127.0.0.1:" + httpPort + "/mcp");
    } else {
      List<String> command = fixtureCommand("--stdio");
      server.put("command", command.get(0));
      command.subList(1, command.size()).forEach(server.putArray("args")::add);
    }
    server.put("requestTimeout", settings.deadline().toMillis() + "ms");
    Path config = work.resolve(scenario.flag() + "-config.json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(config.toFile(), root);
    return config;
  }

  private void awaitLoad(CompletableFuture<Void> done) throws IOException {
    try {
      done.get(
          settings.duration().plus(settings.deadline()).plusSeconds(60).toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IOException("the load did not end: " + e, e);
    }
  }

  private static void sleepUntil(ChaosLoad load, long atMillis) {
    long wait = atMillis - load.now();
    if (wait > 0) {
      pause(wait);
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
