package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /admin/reload} on the whole application, in front of the fixture over stdio: a
 * changed server moves to a new process while 20 sessions call an unchanged one, and a file that is
 * broken or needs a restart changes nothing and says why.
 */
@Timeout(180)
class ConfigReloadTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int SESSIONS = 20;
  private static final int SLEEP_MS = 1_500;

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void aChangedServerMovesToANewProcessWhileTheUnchangedOneServesOnUntouched() throws Exception {
    Path file = dir.resolve("gateway.json");
    write(file, Map.of("keep", fixture(1), "change", fixture(2)));
    Application application = start(file);
    try {
      URI keep = endpoint(application, "keep");
      URI change = endpoint(application, "change");
      McpHttpSession probe = McpHttpSession.open(http, keep);
      McpHttpSession changed = McpHttpSession.open(http, change);
      String keepPid = probe.callToolText(FixtureTools.PID, JSON.createObjectNode());
      String changePid = changed.callToolText(FixtureTools.PID, JSON.createObjectNode());
      String fingerprint = admin(application).path("config").path("fingerprint").asText();
      CompletableFuture<String> listChanged = firstListChanged(changed, change);

      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger answered = new AtomicInteger();
      List<String> wrong = new ArrayList<>();
      CountDownLatch done = new CountDownLatch(SESSIONS);
      for (int i = 0; i < SESSIONS; i++) {
        String name = "session-" + i;
        Thread caller =
            new Thread(
                () -> {
                  try {
                    McpHttpSession session = McpHttpSession.open(http, keep);
                    for (int n = 0; !stop.get(); n++) {
                      String message = name + "#" + n;
                      String text =
                          session.callToolText(
                              FixtureTools.ECHO, JSON.createObjectNode().put("message", message));
                      if (!message.equals(text)) {
                        synchronized (wrong) {
                          wrong.add(text);
                        }
                      }
                      answered.incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    synchronized (wrong) {
                      wrong.add(e.toString());
                    }
                  } finally {
                    done.countDown();
                  }
                },
                name);
        caller.setDaemon(true);
        caller.start();
      }
      awaitAnswered(answered, 100);
      CompletableFuture<String> inFlight =
          CompletableFuture.supplyAsync(
              () ->
                  changed.callToolText(
                      FixtureTools.SLEEP, JSON.createObjectNode().put("ms", SLEEP_MS)));
      awaitInFlight(application, "change");

      write(file, Map.of("keep", fixture(1), "change", fixture(5)));
      HttpResponse<String> reload = reload(application);
      JsonNode answer = JSON.readTree(reload.body());
      assertEquals(200, reload.statusCode(), reload.body());
      assertEquals("reloaded", answer.path("status").asText());
      assertEquals("[\"change\"]", answer.path("servers").path("changed").toString());
      assertEquals("[\"keep\"]", answer.path("servers").path("unchanged").toString());
      String newFingerprint = answer.path("config").path("fingerprint").asText();
      assertNotEquals(fingerprint, newFingerprint);
      assertEquals(newFingerprint, admin(application).path("config").path("fingerprint").asText());

      // the call in flight gets its real answer, the old process then ends; new calls run anew
      assertEquals("slept " + SLEEP_MS, inFlight.get(60, TimeUnit.SECONDS));
      ProcessHandle.of(Long.parseLong(changePid)).ifPresent(process -> process.onExit().join());
      String newChangePid = changed.callToolText(FixtureTools.PID, JSON.createObjectNode());
      assertNotEquals(changePid, newChangePid);
      assertEquals("notifications/tools/list_changed", listChanged.get(30, TimeUnit.SECONDS));

      int atReload = answered.get();
      awaitAnswered(answered, atReload + 100);
      stop.set(true);
      assertTrue(done.await(60, TimeUnit.SECONDS));
      assertEquals(List.of(), wrong, "failed or wrong answers on the unchanged server");
      assertEquals(keepPid, probe.callToolText(FixtureTools.PID, JSON.createObjectNode()));
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBrokenFileOrOneNeedingARestartChangesNothingAndSaysWhy() throws Exception {
    Path file = dir.resolve("gateway.json");
    write(file, Map.of("keep", fixture(1)));
    Application application = start(file);
    try {
      String fingerprint = admin(application).path("config").path("fingerprint").asText();

      Files.writeString(file, "{\"mcpServers\": {\"keep\": ");
      assertRefused(application, 422, "invalid", file.toString(), "syntax error");

      Files.writeString(
          file, "{\"mcpServers\": {\"keep\": {\"transport\": \"pigeon\", \"url\": \"x\"}}}");
      assertRefused(application, 422, "invalid", "keep", "transport");

      Map<String, Object> root = new LinkedHashMap<>();
      root.put("mcpServers", Map.of("keep", fixture(1)));
      root.put("gateway", Map.of("host", "127.0.0.2", "port", 0));
      Files.writeString(file, JSON.writeValueAsString(root));
      assertRefused(application, 409, "refused", "gateway.host", "restart");

      write(file, Map.of("keep", fixture(1), "more", fixture(2)));
      assertRefused(application, 409, "refused", "servers added (more)", "restart");

      assertEquals(fingerprint, admin(application).path("config").path("fingerprint").asText());
      assertEquals(
          List.of("keep"), List.copyOf(application.supervisor().config().servers().keySet()));
      String page =
          http.send(
                  HttpRequest.newBuilder(adminUri(application, "/admin")).GET().build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(page.contains("reload invalid") && page.contains("reload refused"), page);
      assertTrue(page.contains(fingerprint), "the page shows the fingerprint");
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * Opens the session's GET stream (answered once its headers arrive) and completes with the first
   * list_changed method it carries.
   */
  private CompletableFuture<String> firstListChanged(McpHttpSession session, URI endpoint)
      throws Exception {
    HttpRequest get =
        HttpRequest.newBuilder(endpoint)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session.sessionId())
            .header("MCP-Protocol-Version", McpHttpSession.PROTOCOL_VERSION)
            .GET()
            .build();
    HttpResponse<java.util.stream.Stream<String>> stream =
        http.sendAsync(get, HttpResponse.BodyHandlers.ofLines()).get(30, TimeUnit.SECONDS);
    assertEquals(200, stream.statusCode());
    return CompletableFuture.supplyAsync(
        () ->
            stream
                .body()
                .filter(line -> line.startsWith("data:") && line.contains("list_changed"))
                .map(line -> parse(line.substring(5)).path("method").asText())
                .findFirst()
                .orElse("stream ended"));
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void assertRefused(Application application, int status, String word, String... named)
      throws Exception {
    HttpResponse<String> reload = reload(application);
    assertEquals(status, reload.statusCode(), reload.body());
    JsonNode answer = JSON.readTree(reload.body());
    assertEquals(word, answer.path("status").asText(), reload.body());
    for (String part : named) {
      assertTrue(answer.path("message").asText().contains(part), reload.body());
    }
  }

  private static Map<String, Object> fixture(int instance) {
    List<String> command = new ArrayList<>(FixtureProcess.stdioCommand());
    command.add(1, "-Dfixture.instance=" + instance);
    return Map.of("command", command.get(0), "args", command.subList(1, command.size()));
  }

  private static void write(Path file, Map<String, Map<String, Object>> servers) throws Exception {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("mcpServers", new java.util.TreeMap<>(servers));
    root.put("gateway", Map.of("host", "127.0.0.1", "port", 0));
    Files.writeString(file, JSON.writeValueAsString(root));
  }

  private static Application start(Path file) throws Exception {
    ConfigLoader.Loaded loaded = ConfigLoader.loadWithFingerprint(file);
    return Application.start(
            loaded.config(),
            McpTelemetry.OFF,
            () -> ConfigLoader.loadWithFingerprint(file),
            loaded.fingerprint(),
            CompletableFuture.completedFuture(null))
        .toCompletableFuture()
        .get(60, TimeUnit.SECONDS);
  }

  private static URI endpoint(Application application, String server) {
    return URI.create(application.mcpUrl().replace("/mcp", "/servers/" + server + "/mcp"));
  }

  private HttpResponse<String> reload(Application application) throws Exception {
    return http.send(
        HttpRequest.newBuilder(adminUri(application, "/admin/reload"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"test\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode admin(Application application) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(adminUri(application, "/admin/sessions")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }

  private static URI adminUri(Application application, String path) {
    return URI.create("http://127.0.0.1:" + application.address().getPort() + path);
  }

  private static void awaitAnswered(AtomicInteger answered, int atLeast) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (answered.get() < atLeast) {
      assertTrue(System.nanoTime() < deadline, "only " + answered.get() + " answers");
      Thread.sleep(10); // polling a counter
    }
  }

  /** Bounded polling of /admin/sessions until a session of {@code server} holds a call. */
  private void awaitInFlight(Application application, String server) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      int held =
          application.supervisor().snapshot().toCompletableFuture().get().keys().stream()
              .filter(key -> key.server().equals(server))
              .flatMap(key -> key.sessions().stream())
              .mapToInt(session -> session.inFlight() + session.stashed())
              .sum();
      if (held > 0) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, server + " holds no call");
      Thread.sleep(20); // polling interval, not a synchronization
    }
  }
}
