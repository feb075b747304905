package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The warm-up in this JVM: it makes its calls through a private gateway and leaves no demo server
 * or load generator process behind; a demo server that cannot start, a max duration too short, or a
 * termination signal end it early with a warning, never with an exception (the real gateway is then
 * ready anyway).
 */
@Timeout(120)
class WarmupTest {

  private static final CompletableFuture<Void> NO_SIGNAL = new CompletableFuture<>();

  @Test
  void makesEveryCallInBothErasAndLeavesNoDemoServerBehind() {
    List<ProcessHandle> before = demoServers();

    boolean answered =
        Warmup.run(
            new WarmupSettings(300, Duration.ofSeconds(60), 0), NO_SIGNAL, Warmup.privateConfig());

    assertTrue(answered, "every warm-up call answered");
    assertTrue(
        demoServers().equals(before), "demo servers or load generators left: " + demoServers());
  }

  /**
   * The serving gateway's own demo server is this JVM's child too, started by a caller's first call
   * while the warm-up runs: the warm-up must neither wait for it nor kill it.
   */
  @Test
  void aDemoServerStartedBesideTheWarmUpIsNotTheWarmUpsToEnd() throws Exception {
    List<ProcessHandle> before = demoServers();
    CompletableFuture<Process> beside = new CompletableFuture<>();
    Thread starter =
        new Thread(
            () -> {
              try {
                // once the warm-up's own demo server runs, as a caller's first call would
                for (int i = 0; i < 600 && demoServers().equals(before); i++) {
                  Thread.sleep(50);
                }
                beside.complete(
                    new ProcessBuilder(
                            ProcessHandle.current().info().command().orElseThrow(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            DemoServer.class.getName())
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start());
              } catch (Exception e) {
                beside.completeExceptionally(e);
              }
            });
    starter.start();
    try {
      boolean answered =
          Warmup.run(
              new WarmupSettings(2_000, Duration.ofSeconds(60), 0),
              NO_SIGNAL,
              Warmup.privateConfig());

      assertTrue(answered, "every warm-up call answered");
      assertTrue(beside.isDone(), "the other demo server was started during the warm-up");
      assertTrue(beside.get().isAlive(), "the warm-up ended a demo server that is not its own");
    } finally {
      starter.join();
      beside.thenAccept(process -> ChildProcesses.end(process, Duration.ofSeconds(10)));
    }
  }

  @Test
  void anUnrunnableDemoServerEndsTheWarmUpWithoutAnException() {
    SupervisorConfig broken =
        withAddressOfThePrivateConfig(
            ConfigLoader.parse(
                "{\"mcpServers\": {\""
                    + DemoConfig.SERVER_NAME
                    + "\": {\"command\": \"/nonexistent/mcp-supervisor-warmup-server\"}}}",
                "broken warm-up config"));

    assertFalse(Warmup.run(new WarmupSettings(200, Duration.ofSeconds(60), 0), NO_SIGNAL, broken));
  }

  @Test
  void aMaxDurationTooShortCutsTheWarmUpShortAndStopsItsDemoServer() {
    List<ProcessHandle> before = demoServers();
    long start = System.nanoTime();

    boolean answered =
        Warmup.run(
            new WarmupSettings(1_000_000, Duration.ofSeconds(3), 0),
            NO_SIGNAL,
            Warmup.privateConfig());

    assertFalse(answered);
    // 3 s of load plus stopping, against the hours a million calls would take
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(took.compareTo(Duration.ofSeconds(60)) < 0, "took " + took);
    assertTrue(
        demoServers().equals(before), "demo servers or load generators left: " + demoServers());
  }

  @Test
  void aTerminationSignalEndsTheWarmUp() {
    CompletableFuture<String> signalled = CompletableFuture.completedFuture("TERM");

    assertFalse(
        Warmup.run(
            new WarmupSettings(1_000_000, Duration.ofSeconds(60), 0),
            signalled,
            Warmup.privateConfig()));
  }

  @Test
  void noCallsNoWarmUp() {
    assertFalse(
        Warmup.run(
            new WarmupSettings(0, Duration.ofSeconds(60), 0), NO_SIGNAL, Warmup.privateConfig()));
  }

  private static SupervisorConfig withAddressOfThePrivateConfig(SupervisorConfig config) {
    return new SupervisorConfig(config.servers(), Warmup.privateConfig().gateway());
  }

  /** The demo servers and load generators this JVM runs. */
  private static List<ProcessHandle> demoServers() {
    return Stream.concat(
            Descendants.running(ProcessHandle.current(), DemoServer.class.getName()).stream(),
            Descendants.running(ProcessHandle.current(), Main.class.getName() + " bench").stream())
        .toList();
  }
}
