package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start as a user sees it, with the README's command (bin/mcp-supervisor: its first run records
 * the start-up cache and the demo server's archive, the second uses them) and with {@code java
 * -jar}: the port answers soon after start, and calls are served while the warm-up runs; {@code
 * /livez} is 200 from the bind, {@code /readyz} 503 {@code warming} until the warm-up is over, then
 * 200. The bound is generous for CI; the start's real figures are in docs/benchmarks.md.
 */
@Timeout(600)
class StartIT {

  /** From the process's start to the answering port: far above the ~1 s measured, for CI. */
  private static final Duration LISTENING_BOUND = Duration.ofSeconds(30);

  private static final Duration READY_BOUND = Duration.ofSeconds(120);

  /**
   * The recording run's stop: the gateway's, the cache's assembly (JDK 25), the demo server's
   * recording; seconds each on an idle machine, for CI.
   */
  private static final Duration RECORDING_BOUND = Duration.ofSeconds(180);

  /**
   * A warm-up short for CI's sake, long enough to be seen (three JVMs start for it), in whole
   * sessions (150 calls per era and phase: 3 of 50, 50 of 3).
   */
  private static final int WARMUP_CALLS = 600;

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path cacheDir;

  @Test
  void theReadmeCommandListensAndServesWhileWarmingUpThenIsReadyOnBothRuns() throws Exception {
    for (String run : List.of("recording", "with its cache")) {
      long start = System.nanoTime();
      try (JarProcess launcher =
          JarProcess.launch(cacheDir, JarProcess.warmupCalls(WARMUP_CALLS), "--port", "0")) {
        checkStart(launcher, start, run);
        launcher.process().destroy(); // SIGTERM: the first run's cache is written at its exit
        assertEquals(
            0, launcher.awaitExit(RECORDING_BOUND), run + "; stderr:\n" + launcher.stderrText());
      }
      try (Stream<Path> files = Files.list(cacheDir)) {
        List<String> names = files.map(file -> file.getFileName().toString()).sorted().toList();
        assertEquals(2, names.size(), "after the " + run + " run: " + names);
        assertTrue(
            names.get(0).matches("mcp-supervisor-\\d+-DemoServer\\.jsa"),
            "the demo server's archive, after the " + run + " run: " + names);
        assertTrue(
            names.get(1).matches("mcp-supervisor-\\d+\\.(aot|jsa)"),
            "the gateway's cache, after the " + run + " run: " + names);
      }
    }
  }

  @Test
  void javaDashJarListensAndServesWhileWarmingUpThenIsReady() throws Exception {
    long start = System.nanoTime();
    try (JarProcess jar =
        JarProcess.startWithJvmOptions(
            List.of(JarProcess.warmupCalls(WARMUP_CALLS)), "--port", "0")) {
      checkStart(jar, start, "java -jar");
    }
  }

  private static void checkStart(JarProcess gateway, long startNanos, String run) throws Exception {
    String url = gateway.awaitListening();
    Duration listening = Duration.ofNanos(System.nanoTime() - startNanos);
    assertTrue(
        listening.compareTo(LISTENING_BOUND) < 0,
        run + ": listening after " + listening + "; stderr:\n" + gateway.stderrText());
    assertEquals(200, get(url, "/livez").statusCode(), run);
    HttpResponse<String> warming = get(url, "/readyz");
    assertEquals(503, warming.statusCode(), run + ": " + warming.body());
    assertTrue(warming.body().contains("\"warming\""), run + ": " + warming.body());

    try (McpSyncClient client = GatewayClients.connect(url, "/servers/demo/mcp")) {
      assertEquals("served", GatewayClients.callText(client, "echo", Map.of("message", "served")));
    }

    long readyDeadline = System.nanoTime() + READY_BOUND.toNanos();
    HttpResponse<String> ready = get(url, "/readyz");
    while (ready.statusCode() != 200 && System.nanoTime() < readyDeadline) {
      assertEquals(503, ready.statusCode(), run + ": " + ready.body());
      Thread.sleep(50); // polling a probe, as a load balancer does
      ready = get(url, "/readyz");
    }
    assertEquals(200, ready.statusCode(), run + ": not ready within " + READY_BOUND);
    assertTrue(
        gateway.stderrText().contains(" rounds of " + WARMUP_CALLS + ")"),
        run + ": ready after the warm-up's summary; stderr:\n" + gateway.stderrText());
    assertEquals(200, get(url, "/livez").statusCode(), run);
  }

  private static HttpResponse<String> get(String mcpUrl, String path)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(mcpUrl).resolve(path))
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
