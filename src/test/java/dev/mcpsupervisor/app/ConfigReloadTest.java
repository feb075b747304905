package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * changed server moves to a new process while 20 sessions call an unchanged one; servers added,
 * changed and removed and tokens rotated while 2025 sessions and 2026-07-28 requests call; 200
 * reloads under load leave nothing behind; a file that is broken or needs a restart changes nothing
 * and says why; {@code gateway.watchConfig} reloads a changed file, also one behind a swapped
 * symlink (a Kubernetes ConfigMap); {@code /mcp} declares its lists as changing, so a kind a server
 * added later brings reaches the sessions open before; the idle timeout and authentication on or
 * off change live.
 */
@Timeout(180)
class ConfigReloadTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int SESSIONS = 20;
  private static final int SLEEP_MS = 1_500;
  private static final int MAX_BODY_BYTES = 2_000;
  private static final int RELOADS = 200;

  /** Reloads before the heap is first measured: what a first reload loads is not growth. */
  private static final int WARM_RELOADS = 20;

  /** Used heap after GC may differ by this much from noise alone (the load goes on meanwhile). */
  private static final long HEAP_GROWTH_BOUND = 48L << 20;

  private static final Duration WATCH_INTERVAL = Duration.ofMillis(200);
  private static final String MODERN = "2026-07-28";
  private static final String KEPT_TOKEN = "k".repeat(40);
  private static final String RETIRED_TOKEN = "r".repeat(40);
  private static final String NEW_TOKEN = "n".repeat(40);

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** The bearer token of the admin requests, when the file configures tokens. */
  private String adminToken;

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

      root.put("gateway", Map.of("host", "127.0.0.1", "port", 0, "maxConnections", 10));
      Files.writeString(file, JSON.writeValueAsString(root));
      assertRefused(application, 409, "refused", "gateway.maxConnections", "restart");

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

  @Test
  void serversAddedChangedRemovedAndTokensRotatedWhileBothErasCall() throws Exception {
    Path file = dir.resolve("gateway.json");
    write(
        file,
        Map.of("keep", fixture(1), "change", fixture(2), "gone", fixture(3)),
        List.of(KEPT_TOKEN, RETIRED_TOKEN));
    adminToken = KEPT_TOKEN;
    Application application = start(file);
    // the server added is the fixture over Streamable HTTP
    try (FixtureProcess httpFixture = FixtureProcess.startHttp()) {
      URI all = URI.create(application.mcpUrl());
      McpHttpSession aggregate = McpHttpSession.open(http, all, KEPT_TOKEN);
      McpHttpSession changed =
          McpHttpSession.open(http, endpoint(application, "change"), KEPT_TOKEN);
      McpHttpSession probe = McpHttpSession.open(http, endpoint(application, "keep"), KEPT_TOKEN);
      McpHttpSession removed = McpHttpSession.open(http, endpoint(application, "gone"), KEPT_TOKEN);
      String keepPid = probe.callToolText(FixtureTools.PID, JSON.createObjectNode());
      String changePid = changed.callToolText(FixtureTools.PID, JSON.createObjectNode());
      String gonePid = aggregate.callToolText("gone__" + FixtureTools.PID, JSON.createObjectNode());
      assertTrue(toolNames(aggregate.call("tools/list", null)).contains("gone__echo"));
      CompletableFuture<String> streamListChanged = firstListChanged(aggregate, all, KEPT_TOKEN);
      CompletableFuture<String> listenListChanged =
          firstListened(all, KEPT_TOKEN, "toolsListChanged");

      Load load = new Load();
      for (int i = 0; i < SESSIONS / 2; i++) {
        String name = "session-" + i;
        load.start(
            name,
            () -> {
              McpHttpSession session =
                  McpHttpSession.open(http, endpoint(application, "keep"), KEPT_TOKEN);
              return message ->
                  session.callToolText(
                      FixtureTools.ECHO, JSON.createObjectNode().put("message", message));
            });
        load.start(
            "stateless-" + i,
            () -> message -> statelessEcho(all, KEPT_TOKEN, "keep__" + FixtureTools.ECHO, message));
      }
      load.awaitAnswered(100);
      CompletableFuture<String> inFlight =
          CompletableFuture.supplyAsync(
              () ->
                  changed.callToolText(
                      FixtureTools.SLEEP, JSON.createObjectNode().put("ms", SLEEP_MS)));
      awaitInFlight(application, "change");

      Map<String, Object> added =
          Map.of("url", httpFixture.url(), "transport", "streamable-http", "toolPrefix", "more");
      write(
          file,
          Map.of("keep", fixture(1), "change", fixture(5), "added", added),
          List.of(KEPT_TOKEN, NEW_TOKEN),
          Map.of("maxBodyBytes", MAX_BODY_BYTES));
      HttpResponse<String> reload = reload(application);
      assertEquals(200, reload.statusCode(), reload.body());
      JsonNode servers = JSON.readTree(reload.body()).path("servers");
      assertEquals("[\"added\"]", servers.path("added").toString());
      assertEquals("[\"gone\"]", servers.path("removed").toString());
      assertEquals("[\"change\"]", servers.path("changed").toString());
      assertEquals("[\"keep\"]", servers.path("unchanged").toString());

      // clients are told on both eras' streams, and the lists follow the servers in force at once
      // (the changed server's new process may still be starting: left out of a list it is late for)
      assertEquals("notifications/tools/list_changed", streamListChanged.get(30, TimeUnit.SECONDS));
      assertEquals("notifications/tools/list_changed", listenListChanged.get(30, TimeUnit.SECONDS));
      for (List<String> listed :
          List.of(
              toolNames(aggregate.call("tools/list", null)),
              toolNames(stateless(all, KEPT_TOKEN, "tools/list", null, JSON.createObjectNode())))) {
        assertTrue(
            listed.contains("more__echo") && listed.contains("keep__echo"), listed.toString());
        assertTrue(listed.stream().noneMatch(name -> name.startsWith("gone__")), listed.toString());
      }
      // the removed server: its process ends, its endpoint is unknown, its names unknown
      ProcessHandle.of(Long.parseLong(gonePid))
          .ifPresent(process -> process.onExit().orTimeout(30, TimeUnit.SECONDS).join());
      assertEquals(404, initializeStatus(endpoint(application, "gone"), KEPT_TOKEN));
      IllegalStateException ended =
          assertThrows(
              IllegalStateException.class,
              () -> removed.callToolText(FixtureTools.PID, JSON.createObjectNode()));
      assertTrue(ended.getMessage().contains("answered 404"), ended.getMessage());
      assertTrue(
          aggregate
              .call("tools/call", JSON.createObjectNode().put("name", "gone__pid"))
              .has("error"));
      // the added server starts on first use, under its prefix
      assertEquals(
          Long.toString(httpFixture.pid()),
          aggregate.callToolText("more__" + FixtureTools.PID, JSON.createObjectNode()));
      // the changed one: the call in flight gets its answer, the old process then ends
      assertEquals("slept " + SLEEP_MS, inFlight.get(60, TimeUnit.SECONDS));
      ProcessHandle.of(Long.parseLong(changePid))
          .ifPresent(process -> process.onExit().orTimeout(30, TimeUnit.SECONDS).join());
      assertNotEquals(changePid, changed.callToolText(FixtureTools.PID, JSON.createObjectNode()));
      // the tokens: a retired one is refused, a new one taken, the kept one goes on
      assertEquals(401, initializeStatus(all, RETIRED_TOKEN));
      assertEquals(200, initializeStatus(all, NEW_TOKEN));
      // a limit: the next request is held to the new one
      String large = "x".repeat(MAX_BODY_BYTES + 1);
      IllegalStateException tooLarge =
          assertThrows(
              IllegalStateException.class,
              () ->
                  probe.callToolText(
                      FixtureTools.ECHO, JSON.createObjectNode().put("message", large)));
      assertTrue(tooLarge.getMessage().contains("answered 413"), tooLarge.getMessage());

      load.awaitAnswered(load.answered() + 100);
      assertEquals(List.of(), load.stop(), "failed or wrong answers on the unchanged server");
      assertEquals(keepPid, probe.callToolText(FixtureTools.PID, JSON.createObjectNode()));
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void mcpDeclaresEveryListAsChangingSoAKindAddedLaterReachesSessionsOpenBefore() throws Exception {
    // the demo server declares tools only, and not that they change
    Path file = dir.resolve("gateway.json");
    write(file, Map.of("demo", demo()));
    Application application = start(file);
    try {
      URI all = URI.create(application.mcpUrl());
      HttpResponse<String> initialize = initialize(all, null);
      JsonNode sessionEra =
          McpHttpSession.responseTo(0, initialize).path("result").path("capabilities");
      JsonNode modern =
          stateless(all, null, "server/discover", null, JSON.createObjectNode())
              .path("result")
              .path("capabilities");
      for (JsonNode capabilities : List.of(sessionEra, modern)) {
        for (String kind : List.of("tools", "prompts", "resources")) {
          assertTrue(
              capabilities.path(kind).path("listChanged").asBoolean(false),
              kind + " changes: " + capabilities);
        }
      }
      McpHttpSession aggregate = McpHttpSession.open(http, all);
      assertEquals(0, aggregate.call("prompts/list", null).path("result").path("prompts").size());
      CompletableFuture<String> listened = firstListened(all, null, "promptsListChanged");

      write(file, Map.of("demo", demo(), "fixture", fixture(1)));
      assertEquals(200, reload(application).statusCode());

      // both eras' sessions opened before hear of the new kind, and reach it
      assertEquals("notifications/prompts/list_changed", listened.get(30, TimeUnit.SECONDS));
      JsonNode prompts = aggregate.call("prompts/list", null).path("result").path("prompts");
      assertTrue(
          prompts.size() > 0 && prompts.get(0).path("name").asText().startsWith("fixture__"),
          prompts.toString());
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void theIdleTimeoutAndAuthenticationOnOrOffChangeLive() throws Exception {
    Path file = dir.resolve("gateway.json");
    write(file, Map.of("keep", fixture(1)));
    Application application = start(file);
    try {
      URI all = URI.create(application.mcpUrl());
      McpHttpSession.open(http, all);
      assertEquals(1, admin(application).path("downstreamSessions").size());
      assertEquals("public", cacheScope(all, null));

      // the idle timeout: the next idle check ends a session idle for the new one
      write(file, Map.of("keep", fixture(1)), List.of(), Map.of("sessionIdleTimeout", "1s"));
      assertEquals(200, reload(application).statusCode());
      awaitTrue(
          () -> admin(application).path("downstreamSessions").isEmpty(),
          "the session idle for the new timeout ends");

      // authentication on: the next request needs a token, and answers are private
      write(file, Map.of("keep", fixture(1)), List.of(KEPT_TOKEN));
      assertEquals(200, reload(application).statusCode());
      adminToken = KEPT_TOKEN;
      assertEquals(401, initializeStatus(all, null));
      assertEquals(200, initializeStatus(all, KEPT_TOKEN));
      assertEquals("private", cacheScope(all, KEPT_TOKEN));

      // and off again: no token needed
      write(file, Map.of("keep", fixture(1)));
      assertEquals(200, reload(application).statusCode());
      adminToken = null;
      assertEquals(200, initializeStatus(all, null));
      assertEquals("public", cacheScope(all, null));
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  /** The cache scope of a 2026-07-28 tools/list answer on {@code endpoint}. */
  private String cacheScope(URI endpoint, String token) throws Exception {
    return stateless(endpoint, token, "tools/list", null, JSON.createObjectNode())
        .path("result")
        .path("cacheScope")
        .asText();
  }

  @Test
  void twoHundredReloadsUnderLoadLeaveNoProcessNoKeyAndNoHeap() throws Exception {
    Path file = dir.resolve("gateway.json");
    Map<String, Object> extra = new LinkedHashMap<>(fixture(2));
    extra.put("toolPrefix", "extra");
    write(file, Map.of("keep", fixture(1)), List.of(KEPT_TOKEN));
    adminToken = KEPT_TOKEN;
    Application application = start(file);
    try {
      URI all = URI.create(application.mcpUrl());
      McpHttpSession aggregate = McpHttpSession.open(http, all, KEPT_TOKEN);
      Load load = new Load();
      for (int i = 0; i < 4; i++) {
        load.start(
            "session-" + i,
            () -> {
              McpHttpSession session = McpHttpSession.open(http, all, KEPT_TOKEN);
              return message ->
                  session.callToolText(
                      "keep__" + FixtureTools.ECHO,
                      JSON.createObjectNode().put("message", message));
            });
      }
      load.awaitAnswered(50);
      long processes = childProcesses();
      long heapBefore = 0;
      for (int n = 1; n <= RELOADS; n++) {
        boolean withExtra = n % 2 == 1;
        write(
            file,
            withExtra ? Map.of("keep", fixture(1), "extra", extra) : Map.of("keep", fixture(1)),
            withExtra ? List.of(KEPT_TOKEN, NEW_TOKEN) : List.of(KEPT_TOKEN));
        HttpResponse<String> reload = reload(application);
        assertEquals(200, reload.statusCode(), reload.body());
        if (withExtra && n % 20 == 1) {
          // now and then the added server is used: its process starts, and ends when removed
          aggregate.callToolText("extra__" + FixtureTools.PID, JSON.createObjectNode());
        }
        if (n == WARM_RELOADS) {
          heapBefore = usedHeapAfterGc();
        }
      }
      load.awaitAnswered(load.answered() + 50);
      assertEquals(List.of(), load.stop(), "failed or wrong answers on the unchanged server");
      awaitTrue(() -> childProcesses() == processes, "the removed server's processes end");
      awaitTrue(
          () ->
              application.supervisor().snapshot().toCompletableFuture().get().keys().stream()
                  .allMatch(key -> key.server().equals("keep")),
          "no key of the removed server is left");
      long heapAfter = usedHeapAfterGc();
      System.out.printf(
          "heap used after GC: %d MB after %d reloads, %d MB after %d%n",
          heapBefore >> 20, WARM_RELOADS, heapAfter >> 20, RELOADS);
      assertTrue(
          heapAfter - heapBefore < HEAP_GROWTH_BOUND,
          "heap grew by " + ((heapAfter - heapBefore) >> 20) + " MB");
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWatchedFileIsReloadedWhenItChangesAlsoBehindASwappedSymlink() throws Exception {
    // as a Kubernetes ConfigMap volume: gateway.json -> ..data/gateway.json, ..data -> ..v1
    Path v1 = Files.createDirectory(dir.resolve("..v1"));
    Path v2 = Files.createDirectory(dir.resolve("..v2"));
    write(v1.resolve("gateway.json"), Map.of("keep", fixture(1)));
    Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
    Path file = dir.resolve("gateway.json");
    Files.createSymbolicLink(file, Path.of("..data", "gateway.json"));
    Application application = start(file);
    try {
      application.watch(file, WATCH_INTERVAL).toCompletableFuture().get(30, TimeUnit.SECONDS);
      String first = admin(application).path("config").path("fingerprint").asText();

      write(v2.resolve("gateway.json"), Map.of("keep", fixture(1), "more", fixture(2)));
      Path swapping = Files.createSymbolicLink(dir.resolve("..data_tmp"), v2.getFileName());
      Files.move(swapping, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
      awaitTrue(
          () -> application.supervisor().config().servers().containsKey("more"),
          "the swapped file is reloaded");
      // the page's fingerprint is set after the configuration is in force
      awaitTrue(
          () -> !first.equals(admin(application).path("config").path("fingerprint").asText()),
          "the fingerprint shown changes");

      // an editor's replace: a new file renamed over the link
      Path written = dir.resolve("gateway.json.tmp");
      write(written, Map.of("keep", fixture(1)));
      Files.move(
          written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      awaitTrue(
          () -> !application.supervisor().config().servers().containsKey("more"),
          "the replaced file is reloaded");
      String page =
          http.send(
                  HttpRequest.newBuilder(adminUri(application, "/admin")).GET().build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(page.contains("by file watch"), "the reloads are listed with who asked");
    } finally {
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWatchedIdentitySecretsFileIsReloadedWhenItChangesAndInTheFingerprint() throws Exception {
    Path secrets = dir.resolve("identity-secrets.conf");
    Files.writeString(secrets, "alice { github_token = \"first-canary-value\" }");
    Path file = dir.resolve("gateway.json");
    write(
        file,
        Map.of("keep", fixture(1)),
        List.of(KEPT_TOKEN),
        Map.of("identitySecrets", secrets.toString()));
    adminToken = KEPT_TOKEN;
    Application application = start(file);
    try {
      application.watch(file, WATCH_INTERVAL).toCompletableFuture().get(30, TimeUnit.SECONDS);
      String first = admin(application).path("config").path("fingerprint").asText();

      Files.writeString(secrets, "alice { github_token = \"second-canary-value\" }");
      // the page's fingerprint is set after the configuration is in force: awaited last
      awaitTrue(
          () -> !first.equals(admin(application).path("config").path("fingerprint").asText()),
          "a rotated secret changes the fingerprint");
      assertEquals(
          java.util.Optional.of("second-canary-value"),
          application
              .supervisor()
              .config()
              .gateway()
              .identitySecrets()
              .value("alice", "github_token"),
          "the changed secrets file is reloaded");
      String page =
          http.send(
                  authorized(HttpRequest.newBuilder(adminUri(application, "/admin")), adminToken)
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(page.contains("by file watch"), page);
      assertFalse(page.contains("canary-value"), "no value on the page");
    } finally {
      adminToken = null;
      application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * Callers that each call in a loop until stopped, counting answers and keeping every failed or
   * wrong one.
   */
  private static final class Load {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger answered = new AtomicInteger();
    private final List<String> wrong = new ArrayList<>();
    private final List<Thread> callers = new ArrayList<>();

    interface Caller {
      String echo(String message);
    }

    interface Opening {
      Caller open();
    }

    void start(String name, Opening opening) {
      Thread caller =
          new Thread(
              () -> {
                try {
                  Caller calls = opening.open();
                  for (int n = 0; !stop.get(); n++) {
                    String message = name + "#" + n;
                    String text = calls.echo(message);
                    if (!message.equals(text)) {
                      failed(message + " answered " + text);
                    }
                    answered.incrementAndGet();
                  }
                } catch (RuntimeException e) {
                  failed(name + ": " + e);
                }
              },
              name);
      caller.setDaemon(true);
      caller.start();
      callers.add(caller);
    }

    private void failed(String what) {
      synchronized (wrong) {
        wrong.add(what);
      }
    }

    int answered() {
      return answered.get();
    }

    void awaitAnswered(int atLeast) throws Exception {
      ConfigReloadTest.awaitAnswered(answered, atLeast);
    }

    /** Stops the callers once their calls in flight are answered; answers what went wrong. */
    List<String> stop() throws Exception {
      stop.set(true);
      for (Thread caller : callers) {
        caller.join(TimeUnit.SECONDS.toMillis(60));
        assertTrue(!caller.isAlive(), caller.getName() + " still calls");
      }
      synchronized (wrong) {
        return List.copyOf(wrong);
      }
    }
  }

  /** A 2026-07-28 request (no session), answered with its JSON-RPC response. */
  private JsonNode stateless(
      URI endpoint, String token, String method, String name, ObjectNode params) throws Exception {
    ObjectNode meta = params.putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
    meta.putObject("io.modelcontextprotocol/clientInfo")
        .put("name", "reload-test")
        .put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities");
    ObjectNode body =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", method);
    body.set("params", params);
    HttpRequest.Builder request =
        authorized(HttpRequest.newBuilder(endpoint), token)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", method)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    if (name != null) {
      request.header("Mcp-Name", name);
    }
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          method + " answered " + response.statusCode() + ": " + response.body());
    }
    return response
        .body()
        .lines()
        .map(line -> line.startsWith("data:") ? line.substring(5).strip() : line)
        .filter(line -> line.startsWith("{") && line.contains("\"id\""))
        .map(ConfigReloadTest::parse)
        .filter(message -> message.has("result") || message.has("error"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(method + ": no answer in " + response.body()));
  }

  private String statelessEcho(URI endpoint, String token, String tool, String message) {
    try {
      ObjectNode params = JSON.createObjectNode().put("name", tool);
      params.putObject("arguments").put("message", message);
      JsonNode answer = stateless(endpoint, token, "tools/call", tool, params);
      if (answer.has("error")) {
        throw new IllegalStateException(tool + " failed: " + answer.get("error"));
      }
      return answer.path("result").path("content").path(0).path("text").asText();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Opens a 2026-07-28 subscriptions/listen stream for {@code filter}'s list changes (answered once
   * it is acknowledged) and completes with the first list_changed method it carries.
   */
  private CompletableFuture<String> firstListened(URI endpoint, String token, String filter)
      throws Exception {
    ObjectNode params = JSON.createObjectNode();
    params.putObject("notifications").put(filter, true);
    ObjectNode meta = params.putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
    meta.putObject("io.modelcontextprotocol/clientInfo")
        .put("name", "reload-test")
        .put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities");
    ObjectNode body =
        JSON.createObjectNode()
            .put("jsonrpc", "2.0")
            .put("id", 1)
            .put("method", "subscriptions/listen");
    body.set("params", params);
    HttpRequest listen =
        authorized(HttpRequest.newBuilder(endpoint), token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", "subscriptions/listen")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<java.util.stream.Stream<String>> stream =
        http.sendAsync(listen, HttpResponse.BodyHandlers.ofLines()).get(30, TimeUnit.SECONDS);
    assertEquals(200, stream.statusCode());
    java.util.Iterator<String> lines =
        stream.body().filter(line -> line.startsWith("data:")).iterator();
    assertTrue(lines.hasNext(), "the listen stream is acknowledged");
    assertEquals(
        "notifications/subscriptions/acknowledged",
        parse(lines.next().substring(5)).path("method").asText());
    return CompletableFuture.supplyAsync(
        () -> {
          while (lines.hasNext()) {
            String method = parse(lines.next().substring(5)).path("method").asText();
            if (method.endsWith("list_changed")) {
              return method;
            }
          }
          return "stream ended";
        });
  }

  private int initializeStatus(URI endpoint, String token) throws Exception {
    return initialize(endpoint, token).statusCode();
  }

  /** A 2025 initialize (id 0) on {@code endpoint}, without the notification that would follow. */
  private HttpResponse<String> initialize(URI endpoint, String token) throws Exception {
    ObjectNode params =
        JSON.createObjectNode().put("protocolVersion", McpHttpSession.PROTOCOL_VERSION);
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "reload-test").put("version", "1");
    ObjectNode body =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
    body.set("params", params);
    return http.send(
        authorized(HttpRequest.newBuilder(endpoint), token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static List<String> toolNames(JsonNode answer) {
    List<String> names = new ArrayList<>();
    answer.path("result").path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }

  /** The live processes this JVM started (the fixture servers of the gateway under test). */
  private static long childProcesses() {
    return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
  }

  private static long usedHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  /** Bounded polling until {@code condition} holds. */
  private static void awaitTrue(Condition condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.holds()) {
      assertTrue(System.nanoTime() < deadline, what);
      Thread.sleep(50); // polling interval, not a synchronization
    }
  }

  /**
   * Opens the session's GET stream (answered once its headers arrive) and completes with the first
   * list_changed method it carries.
   */
  private CompletableFuture<String> firstListChanged(McpHttpSession session, URI endpoint)
      throws Exception {
    return firstListChanged(session, endpoint, null);
  }

  private CompletableFuture<String> firstListChanged(
      McpHttpSession session, URI endpoint, String token) throws Exception {
    HttpRequest get =
        authorized(HttpRequest.newBuilder(endpoint), token)
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

  /** The built-in demo server (tools only, declared not to change). */
  private static Map<String, Object> demo() {
    List<String> command = DemoConfig.demoServerCommand();
    return Map.of("command", command.get(0), "args", command.subList(1, command.size()));
  }

  private static void write(Path file, Map<String, Map<String, Object>> servers) throws Exception {
    write(file, servers, List.of());
  }

  /** The servers, and a gateway on a free loopback port that takes {@code tokens} (if any). */
  private static void write(
      Path file, Map<String, Map<String, Object>> servers, List<String> tokens) throws Exception {
    write(file, servers, tokens, Map.of());
  }

  /** {@link #write(Path, Map, List)}, with {@code settings} in the gateway section too. */
  private static void write(
      Path file,
      Map<String, Map<String, Object>> servers,
      List<String> tokens,
      Map<String, Object> settings)
      throws Exception {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("mcpServers", new java.util.TreeMap<>(servers));
    Map<String, Object> gateway = new LinkedHashMap<>();
    gateway.put("host", "127.0.0.1");
    gateway.put("port", 0);
    if (!tokens.isEmpty()) {
      gateway.put("authTokens", tokens);
    }
    gateway.putAll(settings);
    root.put("gateway", gateway);
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
        authorized(HttpRequest.newBuilder(adminUri(application, "/admin/reload")), adminToken)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"test\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder authorized(HttpRequest.Builder request, String token) {
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  private JsonNode admin(Application application) throws Exception {
    HttpResponse<String> response =
        http.send(
            authorized(HttpRequest.newBuilder(adminUri(application, "/admin/sessions")), adminToken)
                .GET()
                .build(),
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
