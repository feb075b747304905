package dev.mcpsupervisor.app;

import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tool calls through a private gateway once the real one listens (which serves meanwhile, and
 * is not ready until this is over), so that the JIT compiles the call path (HTTP, routing,
 * sessions, stdio) soon: cold, the first few thousand calls cost several times a warm one
 * (docs/benchmarks.md, "Warm-up").
 *
 * <p>The private gateway is an {@link Application} of its own (actor system, supervisor, metrics,
 * session registry) in front of the built-in {@link DemoServer}, bound on 127.0.0.1 at a free port
 * and stopped at the end: the JIT's compiled code is per class, so it carries over, while nothing a
 * client can see (sessions, metrics, servers) does. Its load is the {@code bench} load generator's,
 * in both protocol eras, sessions opened and deleted; with {@code warmup.settledShare} set, in
 * rounds until the JIT settles (its compilations, not a count of calls, say when the call path is
 * compiled). A failure, a timeout or a termination signal cuts it short with a warning; it never
 * stops the real gateway.
 */
final class Warmup {

  private static final Logger log = LoggerFactory.getLogger(Warmup.class);

  /** Stopping the private gateway: closing its one demo session and process. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

  private Warmup() {}

  /**
   * Warms up, bounded by {@code settings.maxDuration()} (plus stopping the private gateway);
   * returns early when {@code abandon} completes (a termination signal). Never throws.
   */
  static void run(WarmupSettings settings, CompletableFuture<?> abandon) {
    run(settings, abandon, privateConfig());
  }

  /**
   * {@link #run(WarmupSettings, CompletableFuture)} through a gateway on {@code config}, whose
   * server {@value DemoConfig#SERVER_NAME} must have an {@code echo} tool (tests break it). True
   * when every call was answered.
   */
  static boolean run(
      WarmupSettings settings, CompletableFuture<?> abandon, SupervisorConfig config) {
    if (!settings.enabled()) {
      return false;
    }
    log.info(
        "warming up: {} calls through a private gateway in front of the built-in demo server{}",
        settings.calls(),
        settings.settledShare() > 0 ? ", then rounds of as many until the JIT settles" : "");
    long start = System.nanoTime();
    WarmupLoad warmupLoad = new WarmupLoad(settings);
    Optional<String> problem;
    try (QuietLogs quiet = QuietLogs.belowWarn()) {
      problem = warmUp(warmupLoad, settings, abandon, config);
    }
    return problem.map(each -> report(warmupLoad, each, millisSince(start))).orElse(false);
  }

  /** The load's problem ("" when none), or empty when it was cut short (logged as a warning). */
  private static Optional<String> warmUp(
      WarmupLoad warmupLoad,
      WarmupSettings settings,
      CompletableFuture<?> abandon,
      SupervisorConfig config) {
    CompletableFuture<Application> started = start(config);
    CompletableFuture<String> load =
        started.thenApplyAsync(
            application -> untilSettled(warmupLoad, application.address().getPort(), settings),
            Warmup::runOnOwnThread);
    try {
      CompletableFuture.anyOf(load, abandon)
          .get(settings.maxDuration().toMillis(), TimeUnit.MILLISECONDS);
      if (load.isDone()) {
        return Optional.of(load.join());
      }
      log.warn("warm-up cut short by a termination signal");
    } catch (TimeoutException e) {
      log.warn(
          "warm-up cut short after {} ms (mcp-supervisor.application.{}); the gateway is ready anyway",
          settings.maxDuration().toMillis(),
          WarmupSettings.MAX_DURATION);
    } catch (ExecutionException | RuntimeException e) {
      log.warn("warm-up failed, the gateway is ready anyway: {}", Main.reason(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      // a load not begun yet (the start was slow) never begins; one under way makes no more calls
      load.cancel(false);
      warmupLoad.stop();
      List<ProcessHandle> demoServers = upstreamProcesses(started);
      stop(started);
      awaitGone(demoServers);
    }
    return Optional.empty();
  }

  /**
   * Rounds of the load until the JIT settles ({@link JitSettling}) or one fails: the load's problem
   * ("" when none).
   */
  private static String untilSettled(WarmupLoad warmupLoad, int port, WarmupSettings settings) {
    JitSettling settling = JitSettling.ofThisJvm(settings.settledShare(), settings.maxDuration());
    String problem = warmupLoad.run(port);
    while (problem.isEmpty() && settings.settledShare() > 0 && settling.anotherRound()) {
      problem = warmupLoad.run(port);
    }
    return problem;
  }

  private static CompletableFuture<Application> start(SupervisorConfig config) {
    try {
      return Application.start(config).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The built-in demo config, on a free loopback port whatever the real gateway's address. */
  static SupervisorConfig privateConfig() {
    SupervisorConfig demo = DemoConfig.create();
    return new SupervisorConfig(demo.servers(), demo.gateway().withAddress("127.0.0.1", 0));
  }

  private static boolean report(WarmupLoad warmupLoad, String problem, long elapsedMillis) {
    if (problem.isEmpty()) {
      log.info(
          "warm-up: {} calls in {} ms ({} rounds of {})",
          warmupLoad.calls(),
          elapsedMillis,
          warmupLoad.rounds(),
          warmupLoad.callsPerRound());
      return true;
    }
    log.warn("warm-up: not every call was answered ({}); the gateway is ready anyway", problem);
    return false;
  }

  /**
   * Stops the private gateway, bounded; one still starting (the warm-up timed out first) is stopped
   * whenever it has started.
   */
  private static void stop(CompletableFuture<Application> started) {
    CompletableFuture<Void> stopped =
        started
            .thenCompose(application -> application.stop(Duration.ZERO))
            .exceptionally(failure -> null);
    if (!started.isDone()) {
      return;
    }
    try {
      stopped.get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("the warm-up gateway did not stop within {} ms", STOP_TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The processes of the private gateway's own upstream sessions (its demo server), read before it
   * stops: never the serving gateway's, which are this JVM's children too (a caller's first call
   * during the warm-up starts one).
   */
  private static List<ProcessHandle> upstreamProcesses(CompletableFuture<Application> started) {
    if (!started.isDone() || started.isCompletedExceptionally()) {
      return List.of(); // no load ran, so no demo server was started
    }
    try {
      return started
          .join()
          .supervisor()
          .snapshot()
          .toCompletableFuture()
          .get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .processIds()
          .stream()
          .flatMap(pid -> ProcessHandle.of(pid).stream())
          .toList();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("the warm-up gateway's sessions could not be read: {}", Main.reason(e));
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  /**
   * The private gateway ends its demo server at stop; one still there after a bounded wait is
   * killed, so none outlives the warm-up.
   */
  private static void awaitGone(List<ProcessHandle> demoServers) {
    if (!ChildProcesses.awaitExit(demoServers, STOP_TIMEOUT)) {
      log.warn("the warm-up's demo server did not exit; killing it");
      ChildProcesses.kill(demoServers);
    }
  }

  /**
   * The load blocks its thread until done; a daemon, so a cut-short warm-up never holds the JVM.
   */
  private static void runOnOwnThread(Runnable task) {
    Thread thread = new Thread(task, "mcp-supervisor-warmup");
    thread.setDaemon(true);
    thread.start();
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
