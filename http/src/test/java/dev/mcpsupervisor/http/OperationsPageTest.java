package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.http.ops.OpsJournal;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operations page against a real gateway and fixture processes: the page, its live feed, the
 * two actions (effective and audited) and the access rules.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OperationsPageTest {

  private static final String TOKEN = "ops-token-0123456789";

  @Test
  void thePageShowsTheTreeAndTheFeedFollowsItInOrder() throws Exception {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      try (AdminEvents events = AdminEvents.open(gateway, null)) {
        JsonNode view = events.next("view", any -> true);
        assertTrue(view.path("servers").asText().contains("data-server=\"fixture\""));
        String session = gateway.initialize("/servers/fixture/mcp");
        gateway.post("/servers/fixture/mcp", session, callTool(2, "echo", "{\"message\":\"m\"}"));

        JsonNode started = events.next("supervision", kind("started"));
        JsonNode ready = events.next("supervision", kind("ready"));
        assertEquals("fixture", started.path("server").asText());
        assertTrue(ready.path("seq").asLong() > started.path("seq").asLong());
        assertTrue(ready.path("html").asText().startsWith("<li class=\"event kind-ready\""));
        long pid = upstream(gateway).pid().orElseThrow();
        events.next(
            "view",
            v ->
                v.path("servers").asText().contains("data-pid=\"" + pid + "\"")
                    && v.path("sessions").asText().contains(session.substring(0, 8)));

        HttpResponse<String> page = gateway.get("/admin");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(
            page.headers()
                .firstValue("Content-Security-Policy")
                .orElse("")
                .startsWith("default-src 'none'"));
        String html = page.body();
        assertTrue(html.contains("data-state=\"ready\" data-pid=\"" + pid + "\""), html);
        assertTrue(html.contains(session.substring(0, 8) + "…"));
        assertFalse(html.contains(session), "a full session id is a credential");
        assertTrue(html.contains("data-kind=\"ready\""), "the events so far, as a snapshot");
      }
    }
  }

  @Test
  void aRestartReplacesTheProcessAndIsAuditedInTheLogAndTheFeed() throws Exception {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      String session = gateway.initialize("/servers/fixture/mcp");
      SupervisorSnapshot.KeySnapshot key = gateway.snapshot().keys().get(0);
      SupervisorSnapshot.SessionSnapshot before = key.sessions().get(0);
      ProcessHandle oldProcess = ProcessHandle.of(before.pid().orElseThrow()).orElseThrow();
      try (AdminEvents events = AdminEvents.open(gateway, null)) {
        HttpResponse<String> restart =
            action(
                gateway,
                "/admin/servers/" + key.keyId() + "/sessions/" + before.sessionId() + "/restart",
                "{\"reason\":\"stuck\"}");
        assertEquals(200, restart.statusCode(), restart.body());
        assertEquals("restarting", json(restart.body()).path("status").asText());

        JsonNode requested = events.next("supervision", kind("restart requested"));
        assertEquals("by anonymous: stuck", requested.path("detail").asText());
        assertEquals(Long.toString(before.sessionId()), requested.path("session").asText());
        JsonNode restarted = events.next("supervision", kind("restarted"));
        assertEquals(Long.toString(before.sessionId()), restarted.path("session").asText());
      }
      SupervisorSnapshot.SessionSnapshot after = upstream(gateway);
      assertEquals("ready", after.state());
      assertEquals(1, after.restarts());
      assertNotEquals(before.pid(), after.pid(), "a new process");
      assertTrue(oldProcess.onExit().get(10, TimeUnit.SECONDS) != null);
      assertTrue(
          gateway.metrics.journal().entries().stream()
              .anyMatch(
                  entry ->
                      entry.kind().equals("restart requested")
                          && entry.detail().equals("by anonymous: stuck")),
          "audited");
      // the downstream session goes on, on the new process
      HttpResponse<String> call =
          gateway.post("/servers/fixture/mcp", session, callTool(3, "echo", "{\"message\":\"x\"}"));
      assertEquals("x", TestGateway.text(TestGateway.answer(call)));
    }
  }

  @Test
  void hundredsOfRacingRestartsAreEachAnsweredAndLeaveOneLiveProcess() throws Exception {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      gateway.initialize("/servers/fixture/mcp");
      SupervisorSnapshot.KeySnapshot key = gateway.snapshot().keys().get(0);
      String path =
          "/admin/servers/" + key.keyId() + "/sessions/" + key.sessions().get(0).sessionId();
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        answers.add(
            gateway.http.sendAsync(
                actionRequest(gateway, path + "/restart", "{}").build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      int restarted = 0;
      for (CompletableFuture<HttpResponse<String>> answer : answers) {
        int status = answer.get(30, TimeUnit.SECONDS).statusCode();
        assertTrue(status == 200 || status == 409, "restarted, or not ready to: " + status);
        restarted += status == 200 ? 1 : 0;
      }
      assertTrue(restarted >= 1);
      int expectedRestarts = restarted;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      SupervisorSnapshot.SessionSnapshot session = upstream(gateway);
      while (!(session.state().equals("ready") && session.restarts() == expectedRestarts)
          && System.nanoTime() < deadline) {
        Thread.sleep(50); // polling an observable state with a bound, not synchronizing
        session = upstream(gateway);
      }
      assertEquals("ready", session.state());
      assertEquals(restarted, session.restarts(), "one restart per 200");
      assertEquals(
          restarted,
          gateway.metrics.journal().entries().stream()
              .filter(entry -> entry.kind().equals("restart requested"))
              .count());
      assertTrue(ProcessHandle.of(session.pid().orElseThrow()).orElseThrow().isAlive());
    }
  }

  @Test
  void closingADownstreamSessionEndsItAndReleasesItsLease() throws Exception {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      String session = gateway.initialize("/servers/fixture/mcp");
      String other = gateway.initialize("/servers/fixture/mcp");
      gateway.awaitLeasedContexts(Stream.of(session, other).sorted().toList());
      String shown =
          json(gateway.get("/admin/sessions").body())
              .path("downstreamSessions")
              .findValuesAsText("id")
              .stream()
              .filter(id -> session.startsWith(id.replace("…", "")))
              .findFirst()
              .orElseThrow();
      HttpResponse<String> close =
          action(
              gateway,
              "/admin/sessions/" + java.net.URLEncoder.encode(shown, "UTF-8") + "/close",
              "{\"reason\":\"runaway agent\"}");
      assertEquals(200, close.statusCode(), close.body());
      gateway.awaitLeasedContexts(List.of(other));
      assertEquals(
          404,
          gateway
              .post("/servers/fixture/mcp", session, callTool(2, "echo", "{\"message\":\"m\"}"))
              .statusCode());
      assertEquals(
          200,
          gateway
              .post("/servers/fixture/mcp", other, callTool(2, "echo", "{\"message\":\"m\"}"))
              .statusCode(),
          "the other session goes on");
      OpsJournal.Entry audit =
          gateway.metrics.journal().entries().stream()
              .filter(entry -> entry.kind().equals("session closed"))
              .findFirst()
              .orElseThrow();
      assertEquals(shown, audit.session());
      assertEquals("by anonymous: runaway agent", audit.detail());
      assertEquals(
          404,
          action(
                  gateway,
                  "/admin/sessions/" + java.net.URLEncoder.encode(shown, "UTF-8") + "/close",
                  "{}")
              .statusCode(),
          "gone already");
    }
  }

  @Test
  void anActionIsAJsonPost() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      HttpResponse<String> form =
          gateway.send(
              gateway
                  .request("/admin/sessions/x/close")
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString("reason=x"))
                  .build());
      assertEquals(415, form.statusCode(), "a cross-site form cannot send one");
      assertEquals(400, action(gateway, "/admin/sessions/x/close", "[1]").statusCode());
      assertEquals(
          404, action(gateway, "/admin/servers/nokey/sessions/1/restart", "{}").statusCode());
      assertEquals(405, gateway.get("/admin/sessions/x/close").statusCode());
    }
  }

  @Test
  void theFeedResumesAfterTheLastEventIdAndEndsWithTheGateway() throws Exception {
    TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"));
    try {
      gateway.initialize("/servers/fixture/mcp");
      awaitJournal(gateway, entries -> entries.size() >= 2);
      long firstSeq = gateway.metrics.journal().entries().get(0).seq();
      try (AdminEvents resumed = AdminEvents.open(gateway, Long.toString(firstSeq))) {
        JsonNode next = resumed.next("supervision", any -> true);
        assertEquals(firstSeq + 1, next.path("seq").asLong(), "what came after the last id seen");
        TestGateway.await(gateway.server.stop(Duration.ofSeconds(2)));
        assertTrue(resumed.ended(Duration.ofSeconds(10)), "the stream ends with the gateway");
      }
    } finally {
      gateway.close();
    }
  }

  @Test
  void withTokensThePageAndTheActionsWantTheToken() throws Exception {
    try (TestGateway gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(TOKEN), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"))) {
      HttpResponse<String> anonymous = gateway.get("/admin");
      assertEquals(401, anonymous.statusCode());
      assertTrue(
          anonymous.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"),
          "the challenge, as every 401 here");
      assertTrue(anonymous.body().contains("id=\"token-form\""), "the page asks for the token");
      assertFalse(anonymous.body().contains("data-server="), "and shows nothing else");
      assertEquals(401, gateway.get("/admin/events").statusCode());
      assertEquals(401, gateway.get("/admin/sessions").statusCode());
      assertEquals(401, action(gateway, "/admin/sessions/x/close", "{}").statusCode());
      assertEquals(
          401,
          gateway.get("/admin", "Authorization", "Bearer wrong-token").statusCode(),
          "a wrong token is refused, not asked for");

      HttpResponse<String> page = gateway.get("/admin", "Authorization", "Bearer " + TOKEN);
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("data-server=\"fixture\""));
      HttpResponse<String> close =
          gateway.send(
              actionRequest(gateway, "/admin/sessions/x/close", "{}")
                  .header("Authorization", "Bearer " + TOKEN)
                  .build());
      assertEquals(404, close.statusCode(), "authorized: no such session");
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  private static Predicate<JsonNode> kind(String kind) {
    return event -> event.path("kind").asText().equals(kind);
  }

  private static SupervisorSnapshot.SessionSnapshot upstream(TestGateway gateway) {
    return gateway.snapshot().keys().get(0).sessions().get(0);
  }

  private static HttpRequest.Builder actionRequest(TestGateway gateway, String path, String body) {
    return gateway
        .request(path)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpResponse<String> action(TestGateway gateway, String path, String body) {
    return gateway.send(actionRequest(gateway, path, body).build());
  }

  private static void awaitJournal(TestGateway gateway, Predicate<List<OpsJournal.Entry>> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.test(gateway.metrics.journal().entries()) && System.nanoTime() < deadline) {
      Thread.sleep(20); // polling an observable state with a bound, not synchronizing
    }
    assertTrue(done.test(gateway.metrics.journal().entries()));
  }

  /** {@code GET /admin/events}, its events (type and JSON data) read into a queue. */
  static final class AdminEvents implements AutoCloseable {
    record Event(String type, JsonNode data) {}

    private static final Event END = new Event("end", null);

    private final HttpResponse<Stream<String>> response;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    private AdminEvents(HttpResponse<Stream<String>> response) {
      this.response = response;
      Thread reader =
          new Thread(
              () -> {
                String[] type = {"message"};
                try {
                  response
                      .body()
                      .forEach(
                          line -> {
                            if (line.startsWith("event: ")) {
                              type[0] = line.substring(7);
                            } else if (line.startsWith("data: ")) {
                              events.add(new Event(type[0], json(line.substring(6))));
                              type[0] = "message";
                            }
                          });
                } catch (RuntimeException closed) {
                  // hung up by the test
                }
                events.add(END);
              },
              "admin-events-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static AdminEvents open(TestGateway gateway, String lastEventId) throws Exception {
      HttpRequest.Builder request = gateway.request("/admin/events").timeout(Duration.ofMinutes(2));
      if (lastEventId != null) {
        request.header("Last-Event-ID", lastEventId);
      }
      HttpResponse<Stream<String>> response =
          gateway
              .http
              .sendAsync(request.GET().build(), HttpResponse.BodyHandlers.ofLines())
              .get(10, TimeUnit.SECONDS);
      assertEquals(200, response.statusCode());
      assertTrue(
          response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
      return new AdminEvents(response);
    }

    /** The next event of {@code type} that {@code matches}, skipping others (at most 15 s). */
    JsonNode next(String type, Predicate<JsonNode> matches) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      Set<String> seen = new java.util.LinkedHashSet<>();
      while (System.nanoTime() < deadline) {
        Event event = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (event == null || event == END) {
          break;
        }
        if (event.type().equals(type) && matches.test(event.data())) {
          return event.data();
        }
        seen.add(event.type() + ":" + event.data().path("kind").asText(""));
      }
      throw new AssertionError("no matching " + type + " event; saw " + seen);
    }

    /** Whether the stream ends within {@code within}. */
    boolean ended(Duration within) throws InterruptedException {
      long deadline = System.nanoTime() + within.toNanos();
      while (System.nanoTime() < deadline) {
        if (events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) == END) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void close() {
      response.body().close();
    }
  }
}
