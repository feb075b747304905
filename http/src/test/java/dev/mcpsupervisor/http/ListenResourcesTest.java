package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.endpoint.AggregatedEndpoint;
import dev.mcpsupervisor.http.session.Subscription;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * 2026-07-28 {@code subscriptions/listen} streams with {@code resourceSubscriptions}, over real
 * HTTP in front of the fixture over stdio: the gateway subscribes upstream on the listeners'
 * behalf, once per URI however many listen, tags each update with the stream's id, and unsubscribes
 * when the last listener has gone. The fixture counts what reached it ({@code request_counts}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListenResourcesTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String SUBSCRIBE = "resources/subscribe";
  private static final String UNSUBSCRIBE = "resources/unsubscribe";
  private static final String UPDATED = "notifications/resources/updated";

  private TestGateway gateway;
  private StatelessClient client;
  private int nextId = 1000;

  @BeforeAll
  void start() {
    gateway = startGateway();
    client = new StatelessClient(gateway, "{}");
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  /**
   * Two fixtures (the same resources on both, so on /mcp the first owns them); a client that hangs
   * up is noticed within 200 ms.
   */
  private static TestGateway startGateway() {
    return TestGateway.start(
        "mcp-supervisor.http.sseKeepAlive = 200ms",
        TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
        TestGateway.stdioFixture("fixture"),
        TestGateway.stdioFixture("spare"));
  }

  private static String uri(String name) {
    return FixtureTools.ITEM_RESOURCE_PREFIX + name;
  }

  @Test
  void aListenerGetsTheUpdatesOfItsOwnResourceTaggedWithItsIdAndNoOthers() throws Exception {
    String a = uri("only-a");
    String b = uri("only-b");
    try (SseStream listenA = listen(FIXTURE, "\"listen-a\"", a, false);
        SseStream listenB = listen(FIXTURE, 2, b, false)) {
      JsonNode ack = listenA.next();
      assertEquals(Subscription.ACKNOWLEDGED, ack.path("method").asText());
      assertEquals(
          json("{\"resourceSubscriptions\":[\"" + a + "\"]}"),
          ack.path("params").path("notifications"),
          "exactly the honored filter");
      assertEquals("listen-a", idOf(ack).asText());
      assertEquals(Subscription.ACKNOWLEDGED, listenB.next().path("method").asText());

      touch(FIXTURE, a);
      assertUpdate(listenA.next(), a, json("\"listen-a\""));
      touch(FIXTURE, b);
      assertUpdate(listenB.next(), b, json("2"));
      touch(FIXTURE, a);
      // B's update went out between A's two: had it reached A's stream, it would come now
      assertUpdate(listenA.next(), a, json("\"listen-a\""));
    }
    gateway.awaitLeasedContexts(List.of());
  }

  @Test
  void onTheAggregatedEndpointOnlyTheServerThatSubscribedForTheListenerUpdatesIt()
      throws Exception {
    String watched = uri("aggregated");
    try (SseStream aggregated = listen(AggregatedEndpoint.PATH, 5, watched, true);
        SseStream spare = listen("/servers/spare/mcp", 6, watched, false)) {
      JsonNode ack = aggregated.next();
      assertEquals(
          watched,
          ack.path("params").path("notifications").path("resourceSubscriptions").path(0).asText());
      spare.next();

      // spare updates the same URI for its own listener, on the upstream session the aggregated
      // listener leases too; the tools change after it comes the same way
      touch("/servers/spare/mcp", watched);
      assertUpdate(spare.next(), watched, json("6"));
      client.callTool("/servers/spare/mcp", nextId++, FixtureTools.TRIGGER_LIST_CHANGED, "{}");
      assertEquals(
          "notifications/tools/list_changed",
          aggregated.next().path("method").asText(),
          "the update of a server that did not subscribe for this stream is not its");

      touch(AggregatedEndpoint.PATH, watched);
      assertUpdate(aggregated.next(), watched, json("5"));
    }
    gateway.awaitLeasedContexts(List.of());
  }

  @Test
  void theUpstreamIsUnsubscribedOnlyWhenTheLastListenerHasGone() throws Exception {
    String watched = uri("last-one-out");
    JsonNode before = counts();
    SseStream first = listen(FIXTURE, 11, watched, false);
    try (SseStream second = listen(FIXTURE, 12, watched, false)) {
      first.next();
      second.next();
      assertEquals(1, delta(before, counts(), SUBSCRIBE), "one subscribe for two listeners");

      first.close();
      awaitLeases(1);
      touch(FIXTURE, watched);
      assertUpdate(second.next(), watched, json("12"));
    } finally {
      first.close();
    }
    awaitCount(before, UNSUBSCRIBE, 1);
    JsonNode after = counts();
    assertEquals(1, delta(before, after, SUBSCRIBE));
    assertEquals(1, delta(before, after, UNSUBSCRIBE), "once, when the last one left");
    gateway.awaitLeasedContexts(List.of());
  }

  @Test
  void hundredsOfListenersOfOneUriEachGetExactlyOneTaggedUpdatePerChange() throws Exception {
    int listeners = 200;
    String watched = uri("crowd");
    JsonNode before = counts();
    List<CompletableFuture<SseStream>> opening = new ArrayList<>();
    IntStream.range(0, listeners)
        .forEach(i -> opening.add(listenAsync(FIXTURE, 5000 + i, watched, true)));
    List<SseStream> streams = new ArrayList<>();
    try {
      for (CompletableFuture<SseStream> stream : opening) {
        streams.add(stream.get(30, TimeUnit.SECONDS));
      }
      for (int i = 0; i < listeners; i++) {
        JsonNode ack = streams.get(i).next();
        assertEquals(5000 + i, idOf(ack).asInt());
        assertEquals(
            watched,
            ack.path("params")
                .path("notifications")
                .path("resourceSubscriptions")
                .path(0)
                .asText());
      }
      assertEquals(1, delta(before, counts(), SUBSCRIBE), "the upstream saw one subscribe");

      for (int change = 0; change < 2; change++) {
        touch(FIXTURE, watched);
        // the tools change goes out after the update, on the same way: each stream's next two
        // frames are its update and the tools change, so a second copy of the update would show
        client.callTool(FIXTURE, nextId++, FixtureTools.TRIGGER_LIST_CHANGED, "{}");
        for (int i = 0; i < listeners; i++) {
          JsonNode id = json(Integer.toString(5000 + i));
          assertUpdate(streams.get(i).next(), watched, id);
          JsonNode changed = streams.get(i).next();
          assertEquals(
              "notifications/tools/list_changed",
              changed.path("method").asText(),
              "listener " + i + " got more than one update: " + changed);
          assertEquals(id, idOf(changed));
        }
      }
    } finally {
      streams.forEach(SseStream::close);
    }
    awaitCount(before, UNSUBSCRIBE, 1);
    assertEquals(1, delta(before, counts(), SUBSCRIBE));
    gateway.awaitLeasedContexts(List.of());
  }

  @Test
  void sessionEraSubscribersShareTheUpstreamSubscriptionWithListeners() throws Exception {
    String watched = uri("both-eras");
    JsonNode before = counts();
    String session = gateway.initialize(FIXTURE);
    try (SseStream getStream =
            SseStream.open(
                gateway,
                gateway
                    .request(FIXTURE)
                    .header("Accept", "text/event-stream")
                    .header("Mcp-Session-Id", session)
                    .GET()
                    .build());
        SseStream listening = listen(FIXTURE, 21, watched, false)) {
      listening.next();
      HttpResponse<String> subscribed =
          gateway.post(FIXTURE, session, request(1, SUBSCRIBE, "{\"uri\":\"" + watched + "\"}"));
      assertTrue(TestGateway.answer(subscribed).path("result").isObject(), subscribed.body());
      assertEquals(1, delta(before, counts(), SUBSCRIBE), "the listener subscribed already");

      touch(FIXTURE, watched);
      JsonNode update = getStream.next();
      assertEquals(UPDATED, update.path("method").asText());
      assertEquals(watched, update.path("params").path("uri").asText());
      assertUpdate(listening.next(), watched, json("21"));

      HttpResponse<String> unsubscribed =
          gateway.post(FIXTURE, session, request(2, UNSUBSCRIBE, "{\"uri\":\"" + watched + "\"}"));
      assertTrue(TestGateway.answer(unsubscribed).path("result").isObject());
      touch(FIXTURE, watched);
      assertUpdate(listening.next(), watched, json("21"));
      assertNull(getStream.poll(Duration.ofMillis(300)), "the session-era client unsubscribed");
      assertEquals(0, delta(before, counts(), UNSUBSCRIBE), "the listener still wants it");
    } finally {
      gateway.delete(FIXTURE, session);
    }
    awaitCount(before, UNSUBSCRIBE, 1);
  }

  @Test
  void aRestartedUpstreamIsSubscribedAgainToWhatIsStillListenedFor() throws Exception {
    String watched = uri("restart");
    try (TestGateway own = startGateway()) {
      StatelessClient ownClient = new StatelessClient(own, "{}");
      try (SseStream listening = listen(own, FIXTURE, 31, watched, false)) {
        listening.next();
        long pid =
            Long.parseLong(TestGateway.text(last(ownClient.callTool(FIXTURE, 1, "pid", "{}"))));
        ownClient.callTool(FIXTURE, 2, FixtureTools.CRASH, "{}");
        // the session restarts the process; the new one hears the subscription again
        long newPid = pid;
        for (int attempt = 0; attempt < 100 && newPid == pid; attempt++) {
          String text = TestGateway.text(last(ownClient.callTool(FIXTURE, 3, "pid", "{}")));
          newPid = text.matches("\\d+") ? Long.parseLong(text) : pid;
        }
        assertTrue(newPid != pid, "the fixture was restarted");
        JsonNode counts = null;
        for (int attempt = 0; attempt < 100; attempt++) {
          counts =
              json(
                  TestGateway.text(
                      last(ownClient.callTool(FIXTURE, 4, FixtureTools.REQUEST_COUNTS, "{}"))));
          if (counts.path(SUBSCRIBE).asLong() == 1) {
            break;
          }
        }
        assertEquals(
            1, counts.path(SUBSCRIBE).asLong(), "the new process was subscribed: " + counts);
        touch(own, FIXTURE, watched);
        assertUpdate(listening.next(), watched, json("31"));
      }
    }
  }

  @Test
  void aStatelessUpstreamIsAskedThroughTheFilterOfItsOwnListenStream() throws Exception {
    String watched = uri("modern");
    String modern = "/servers/modern/mcp";
    FixtureHttpServer upstream = FixtureServer.startHttp(0);
    try (TestGateway own =
            TestGateway.start(
                TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
                TestGateway.server(
                    "modern",
                    new ServerSpec.StreamableHttp(
                        URI.create(upstream.url()), Map.of(), UpstreamProtocol.STATELESS)));
        SseStream listening = listen(own, modern, 41, watched, false)) {
      JsonNode ack = listening.next();
      assertEquals(
          watched,
          ack.path("params").path("notifications").path("resourceSubscriptions").path(0).asText(),
          ack::toString);
      // the upstream's answer to resources/subscribe does not wait for its listen stream to be
      // reopened with the new filter: touch until that stream is there
      JsonNode update = null;
      for (int attempt = 0; attempt < 50 && update == null; attempt++) {
        touch(own, modern, watched);
        update = listening.poll(Duration.ofMillis(200));
      }
      assertTrue(update != null, "no update within 50 touches");
      assertUpdate(update, watched, json("41"));
    } finally {
      upstream.close();
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  private SseStream listen(String path, Object id, String uri, boolean toolsToo) {
    return listen(gateway, path, id, uri, toolsToo);
  }

  private static SseStream listen(
      TestGateway to, String path, Object id, String uri, boolean toolsToo) {
    return listenAsync(to, path, id, uri, toolsToo).join();
  }

  private CompletableFuture<SseStream> listenAsync(
      String path, Object id, String uri, boolean toolsToo) {
    return listenAsync(gateway, path, id, uri, toolsToo);
  }

  private static CompletableFuture<SseStream> listenAsync(
      TestGateway to, String path, Object id, String uri, boolean toolsToo) {
    String filter =
        "{"
            + (toolsToo ? "\"toolsListChanged\":true," : "")
            + "\"resourceSubscriptions\":[\""
            + uri
            + "\"]}";
    String body =
        request(
            id,
            "subscriptions/listen",
            "{\"notifications\":" + filter + "," + StatelessClient.meta("{}", "") + "}");
    return SseStream.opening(
        to,
        to.postRequest(path, null, body, StatelessClient.headers("subscriptions/listen", null))
            .build());
  }

  private void touch(String path, String uri) {
    touch(gateway, path, uri);
  }

  private static void touch(TestGateway to, String path, String uri) {
    String tool =
        path.equals(AggregatedEndpoint.PATH)
            ? "fixture__" + FixtureTools.TOUCH_RESOURCE
            : FixtureTools.TOUCH_RESOURCE;
    HttpResponse<String> touched =
        new StatelessClient(to, "{}").callTool(path, 1, tool, "{\"uri\":\"" + uri + "\"}");
    assertEquals("touched", TestGateway.text(last(touched)), touched.body());
  }

  private JsonNode counts() {
    HttpResponse<String> response =
        client.callTool(FIXTURE, nextId++, FixtureTools.REQUEST_COUNTS, "{}");
    return json(TestGateway.text(last(response)));
  }

  private static long delta(JsonNode before, JsonNode after, String method) {
    return after.path(method).asLong() - before.path(method).asLong();
  }

  /** Bounded: the count reaches {@code expected} over {@code before} within 15 s. */
  private void awaitCount(JsonNode before, String method, long expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    long seen;
    do {
      seen = delta(before, counts(), method);
    } while (seen < expected && System.nanoTime() < deadline);
    assertEquals(expected, seen, method);
  }

  /** Bounded: the supervisor holds {@code expected} leases (a listener that left released its). */
  private void awaitLeases(int expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    int leases;
    do {
      leases = gateway.snapshot().keys().stream().mapToInt(key -> key.leases().size()).sum();
    } while (leases != expected && System.nanoTime() < deadline);
    assertEquals(expected, leases);
  }

  private static void assertUpdate(JsonNode frame, String uri, JsonNode subscriptionId) {
    assertEquals(UPDATED, frame.path("method").asText(), frame::toString);
    assertEquals(uri, frame.path("params").path("uri").asText(), frame::toString);
    assertEquals(subscriptionId, idOf(frame), frame::toString);
  }

  private static JsonNode idOf(JsonNode frame) {
    return frame.path("params").path("_meta").path(Subscription.SUBSCRIPTION_ID);
  }

  private static JsonNode last(HttpResponse<String> response) {
    return TestGateway.answer(response);
  }
}
