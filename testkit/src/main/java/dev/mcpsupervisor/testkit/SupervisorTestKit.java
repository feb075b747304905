package dev.mcpsupervisor.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfigBuilder;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A {@link SessionSupervisor} over scripted servers for one test: add the servers ({@link #stdio},
 * {@link #http}, {@link #httpProcess}), then use {@link #client()} (which starts the supervisor
 * with them) and await what the supervision tree does ({@link #expectRestart}, {@link
 * #expectCircuitOpen}, or any event on {@link #events()}). Restart back-off and circuit cool-down
 * are short ({@link #FAST_SETTINGS}) so faults do not slow tests. {@link #close()} ends the
 * supervisor (every child process with it) and the servers; the {@link McpSupervisorTest} extension
 * does that after each test and fails a test that leaves a process behind.
 */
public final class SupervisorTestKit implements AutoCloseable {

  /**
   * The supervisor's settings in tests: restarts after 10-100 ms, a circuit that opens after 3
   * failed starts in a row for 1 s; Pekko logs warnings and errors only.
   */
  public static final String FAST_SETTINGS =
      "mcp-supervisor.supervisor { restartBackoff { min = 10ms, max = 100ms, randomFactor = 0 }\n"
          + " circuitBreaker { maxFailures = 3, cooldown = 1s } }\n"
          + "pekko.loglevel = WARNING";

  /**
   * Over {@link #FAST_SETTINGS}, for a server whose restart takes a JVM start (an HTTP child
   * process, {@link #httpProcess}): a lost session keeps reconnecting, every 100 ms for 30 s, until
   * the server is back, where three refused reconnects in 70 ms would open its circuit.
   */
  public static final String RECONNECT_UNTIL_BACK =
      "mcp-supervisor.supervisor.circuitBreaker.maxFailures = 300";

  /** How long an {@code expect...} waits by default. */
  public static final Duration EXPECT_TIMEOUT = Duration.ofSeconds(30);

  private final SupervisorConfigBuilder config = SupervisorConfig.builder();
  private final List<ScriptedServer> servers = new ArrayList<>();
  private final EventForwarder events = new EventForwarder();
  private Config settings = ConfigFactory.parseString(FAST_SETTINGS);
  private SessionSupervisor supervisor;
  private TestProbe<SupervisionEvent> probe;

  /** The scripted session-era server as a stdio child named {@code name}. */
  public ScriptedServer stdio(String name, Class<? extends Scenario> scenario) {
    return add(name, ScriptedServer.stdio(scenario));
  }

  /** The scripted server of {@code era} as a stdio child named {@code name}. */
  public ScriptedServer stdio(
      String name, Class<? extends Scenario> scenario, ScriptedServer.Era era) {
    return add(name, ScriptedServer.stdio(scenario, era));
  }

  /** The scripted server over HTTP in this JVM named {@code name}; the supervisor finds its era. */
  public ScriptedServer http(String name, Scenario scenario) {
    return add(name, ScriptedServer.http(scenario));
  }

  /** The scripted server over HTTP in this JVM named {@code name}, spoken to in {@code era}. */
  public ScriptedServer http(String name, Scenario scenario, ScriptedServer.Era era) {
    return add(name, ScriptedServer.http(scenario, era));
  }

  /**
   * The scripted server over HTTP as a child process named {@code name}, spoken to in {@code era}
   * ({@link ScriptedServer#httpProcess}); started now, ended by {@link #close}.
   */
  public ScriptedServer httpProcess(
      String name, Class<? extends Scenario> scenario, ScriptedServer.Era era) {
    return add(name, ScriptedServer.httpProcess(scenario, era));
  }

  /**
   * One more field of a server's configuration, as the config file names it: {@code
   * option("weather", "requestTimeout", Duration.ofSeconds(1))}. Before the supervisor starts.
   */
  public SupervisorTestKit option(String server, String field, Object value) {
    requireNotStarted();
    config.option(server, field, value);
    return this;
  }

  /** HOCON over {@link #FAST_SETTINGS} (e.g. {@code mcp-supervisor.supervisor.pingInterval}). */
  public SupervisorTestKit settings(String hocon) {
    requireNotStarted();
    settings = ConfigFactory.parseString(hocon).withFallback(settings);
    return this;
  }

  /** The supervisor, started with the servers added so far on first use. */
  public synchronized SessionSupervisor supervisor() {
    if (supervisor == null) {
      supervisor =
          SessionSupervisor.start(
              config.build(),
              DefaultConnectors.create(),
              events,
              settings.withFallback(ConfigFactory.load()));
      probe = TestProbe.create("supervision", supervisor.actorSystem());
      events.attach(probe.ref());
    }
    return supervisor;
  }

  /** A client of the supervisor (started on first use). */
  public SupervisorClient client() {
    return SupervisorClient.of(supervisor());
  }

  /** Every supervision event from the supervisor's start on, in order. */
  public TestProbe<SupervisionEvent> events() {
    supervisor();
    return probe;
  }

  /** Awaits the next event of {@code kind} for {@code server}, skipping others. */
  public SupervisionEvent expect(String server, SupervisionEvent.Kind kind, Duration within) {
    List<SupervisionEvent> seen =
        events()
            .fishForMessage(
                within,
                kind.word() + " of " + server,
                event ->
                    event.kind() == kind && event.server().equals(server)
                        ? FishingOutcomes.complete()
                        : FishingOutcomes.continueAndIgnore());
    return seen.get(seen.size() - 1);
  }

  /** Awaits {@code server}'s session connected again after a loss. */
  public SupervisionEvent expectRestart(String server) {
    return expect(server, SupervisionEvent.Kind.RESTARTED, EXPECT_TIMEOUT);
  }

  /** Awaits the loss of a ready session of {@code server}. */
  public SupervisionEvent expectLost(String server) {
    return expect(server, SupervisionEvent.Kind.LOST, EXPECT_TIMEOUT);
  }

  /** Awaits {@code server}'s circuit opening (failed starts in a row). */
  public SupervisionEvent expectCircuitOpen(String server) {
    return expect(server, SupervisionEvent.Kind.CIRCUIT_OPEN, EXPECT_TIMEOUT);
  }

  /** Awaits {@code server}'s circuit closing again. */
  public SupervisionEvent expectCircuitClosed(String server) {
    return expect(server, SupervisionEvent.Kind.CIRCUIT_CLOSED, EXPECT_TIMEOUT);
  }

  /** Ends the supervisor (and every process it started) and the servers. Idempotent. */
  @Override
  public synchronized void close() {
    if (supervisor != null) {
      supervisor.close();
    }
    servers.forEach(ScriptedServer::close);
    servers.clear();
  }

  private ScriptedServer add(String name, ScriptedServer server) {
    requireNotStarted();
    servers.add(server);
    server.addTo(config, name);
    return server;
  }

  private synchronized void requireNotStarted() {
    if (supervisor != null) {
      throw new IllegalStateException("the supervisor has started: configure before using it");
    }
  }

  /** The observer the supervisor starts with: events wait here until the probe exists. */
  private static final class EventForwarder implements SupervisorObserver {

    private final List<SupervisionEvent> early = new ArrayList<>();
    private ActorRef<SupervisionEvent> target;

    @Override
    public synchronized void supervision(SupervisionEvent event) {
      if (target == null) {
        early.add(event);
      } else {
        target.tell(event);
      }
    }

    synchronized void attach(ActorRef<SupervisionEvent> probe) {
      target = probe;
      early.forEach(probe::tell);
      early.clear();
    }
  }
}
