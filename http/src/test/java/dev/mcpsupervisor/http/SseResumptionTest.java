package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * SSE resumability for 2025-11-25 clients, over real HTTP: a priming event with retry, an id on
 * every event, replay after Last-Event-ID on the stream the id belongs to, bounds, and none of it
 * for older or stateless clients. {@code gateway} keeps a POST's connection open until its answer;
 * {@code polling} closes it after 300 ms (the client resumes), and keeps little.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SseResumptionTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String V = ProtocolVersions.V2025_11_25;

  private TestGateway gateway;
  private TestGateway polling;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            "mcp-supervisor.http.sseResume { streamAfter = 50ms, retry = 1500ms }",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"));
    polling =
        TestGateway.start(
            "mcp-supervisor.http.sseResume { streamAfter = 50ms, closeConnectionAfter = 300ms,"
                + " maxEvents = 1, maxDetachedStreams = 1 }",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
    polling.close();
  }

  // ----------------------------------------------------------------------------------- the stream

  @Test
  void aStreamedPostStartsWithAPrimingEventAndEveryEventCarriesAnIdOfThatStream() throws Exception {
    String session = gateway.initialize(FIXTURE);
    String progress =
        request(
            2,
            "tools/call",
            "{\"name\":\"progress\",\"arguments\":{\"steps\":3},\"_meta\":{\"progressToken\":\"p\"}}");
    List<SseEvents.Event> events = SseEvents.parse(post(gateway, session, progress).body());

    SseEvents.Event priming = events.get(0);
    assertNotNull(priming.id(), "the priming event has an id");
    assertEquals("1500", priming.retry(), "and tells the client when to reconnect");
    assertEquals("", priming.data(), "and no message");
    assertEquals(5, events.size(), "priming, three progress notifications, the answer: " + events);
    Set<String> ids = new HashSet<>();
    String stream = streamOf(priming.id());
    for (SseEvents.Event event : events) {
      assertNotNull(event.id(), "every event has an id: " + event);
      assertEquals(stream, streamOf(event.id()), "every id names the same stream");
      assertTrue(ids.add(event.id()), "ids are unique: " + event.id());
    }
    assertEquals(2, events.get(4).json().path("id").asInt(), "the answer comes last");
  }

  @Test
  void aQuickAnswerStaysPlainJson() {
    String session = gateway.initialize(FIXTURE);
    HttpResponse<String> echo =
        post(gateway, session, callTool(2, FixtureTools.ECHO, "{\"message\":\"hi\"}"));
    assertEquals("application/json", echo.headers().firstValue("Content-Type").orElseThrow());
  }

  @Test
  void aUnansweredPostIsPrimedAfterStreamAfterAndItsAnswerCarriesAnId() {
    String session = gateway.initialize(FIXTURE);
    List<SseEvents.Event> events =
        SseEvents.parse(
            post(gateway, session, callTool(2, FixtureTools.SLEEP, "{\"ms\":300}")).body());
    assertEquals(2, events.size(), events.toString());
    assertEquals("", events.get(0).data());
    assertEquals("slept 300", TestGateway.text(events.get(1).json()));
    assertNotNull(events.get(1).id());
  }

  @Test
  void theGetStreamIsPrimedAndItsEventsCarryIdsOfItsOwnStream() throws Exception {
    String session = gateway.initialize(FIXTURE);
    try (SseEvents get = openGet(gateway, session, null)) {
      SseEvents.Event priming = get.next();
      assertEquals("", priming.data());
      assertNotNull(priming.id());
      gateway.post(FIXTURE, session, callTool(2, FixtureTools.TRIGGER_LIST_CHANGED, "{}"));
      SseEvents.Event changed = get.next();
      assertEquals("notifications/tools/list_changed", changed.json().path("method").asText());
      assertEquals(streamOf(priming.id()), streamOf(changed.id()));
      String postStream =
          streamOf(
              SseEvents.parse(
                      post(gateway, session, callTool(3, FixtureTools.SLEEP, "{\"ms\":200}"))
                          .body())
                  .get(0)
                  .id());
      assertFalse(postStream.equals(streamOf(priming.id())), "a POST has a stream of its own");
    }
  }

  // ---------------------------------------------------------------------------------- resumption

  @Test
  void aClientThatDropsAPostStreamMidCallGetsTheAnswerExactlyOnceWhenItResumes() throws Exception {
    String session = gateway.initialize(FIXTURE);
    SseEvents call =
        postStreaming(gateway, session, callTool(7, FixtureTools.SLEEP, "{\"ms\":1000}"));
    String primingId = call.next().id();
    call.close();

    try (SseEvents resumed = openGet(gateway, session, primingId)) {
      assertEquals(200, resumed.status());
      List<SseEvents.Event> rest = resumed.rest();
      assertEquals(1, rest.size(), "the answer, once, then the stream ends: " + rest);
      assertEquals(7, rest.get(0).json().path("id").asInt());
      assertEquals("slept 1000", TestGateway.text(rest.get(0).json()));
      assertEquals(streamOf(primingId), streamOf(rest.get(0).id()));
    }
    HttpResponse<String> again = resume(gateway, session, primingId);
    assertEquals(410, again.statusCode(), "a delivered stream is not kept: " + again.body());
  }

  @Test
  void anAnswerThatCameWhileTheClientWasAwayIsReplayed() throws Exception {
    String session = polling.initialize(FIXTURE);
    String primingId = leaveMidCall(session, 4, 1000);
    // a longer call on plain JSON: once it is answered, the first one has been too
    HttpResponse<String> later =
        polling.post(
            FIXTURE,
            session,
            callTool(5, FixtureTools.SLEEP, "{\"ms\":1500}"),
            "Accept",
            "application/json",
            "MCP-Protocol-Version",
            V);
    assertEquals("slept 1500", TestGateway.text(TestGateway.answer(later)));

    HttpResponse<String> resumed = resume(polling, session, primingId);
    assertEquals(200, resumed.statusCode(), resumed.body());
    List<SseEvents.Event> events = SseEvents.parse(resumed.body());
    assertEquals(1, events.size(), events.toString());
    assertEquals("slept 1000", TestGateway.text(events.get(0).json()));
  }

  @Test
  void aResumedPostStreamCarriesOnWithItsLaterEvents() throws Exception {
    String session = polling.initialize(FIXTURE);
    String primingId = leaveMidCall(session, 4, 1200);
    try (SseEvents resumed = openGet(polling, session, primingId)) {
      List<SseEvents.Event> rest = resumed.rest();
      assertEquals(1, rest.size(), rest.toString());
      assertEquals("slept 1200", TestGateway.text(rest.get(0).json()));
    }
  }

  @Test
  void theGetStreamResumesAfterItsIdAndEvictedEventsGetAClearAnswer() throws Exception {
    String session = polling.initialize(FIXTURE);
    List<String> ids = new ArrayList<>();
    try (SseEvents get = openGet(polling, session, null)) {
      ids.add(get.next().id());
      for (int i = 0; i < 3; i++) {
        polling.post(FIXTURE, session, callTool(10 + i, FixtureTools.TRIGGER_LIST_CHANGED, "{}"));
        ids.add(get.next().id());
      }
    }
    // maxEvents = 1: only the last list_changed is kept
    HttpResponse<String> evicted = resume(polling, session, ids.get(1));
    assertEquals(410, evicted.statusCode(), evicted.body());
    assertTrue(evicted.body().contains("evicted"), evicted.body());

    try (SseEvents resumed = openGet(polling, session, ids.get(2))) {
      SseEvents.Event replayed = resumed.next();
      assertEquals(ids.get(3), replayed.id(), "the one event after the id");
      polling.post(FIXTURE, session, callTool(20, FixtureTools.TRIGGER_LIST_CHANGED, "{}"));
      SseEvents.Event later = resumed.next();
      assertEquals(streamOf(ids.get(0)), streamOf(later.id()), "then the stream carries on");
      assertEquals("notifications/tools/list_changed", later.json().path("method").asText());
    }
  }

  @Test
  void onlyTheNewestStreamsWhoseClientLeftAreKept() throws Exception {
    String session = polling.initialize(FIXTURE);
    String first = leaveMidCall(session, 30, 1500);
    String second = leaveMidCall(session, 31, 1500);

    HttpResponse<String> forgotten = resume(polling, session, first);
    assertEquals(410, forgotten.statusCode(), forgotten.body());
    assertTrue(forgotten.body().contains("no longer kept"), forgotten.body());
    try (SseEvents resumed = openGet(polling, session, second)) {
      assertEquals(31, resumed.rest().get(0).json().path("id").asInt());
    }
  }

  @Test
  void aStreamOfAnotherSessionOrAnIdOfNoStreamIsRefused() {
    String mine = gateway.initialize(FIXTURE);
    String other = gateway.initialize(FIXTURE);
    String othersId =
        SseEvents.parse(
                post(gateway, other, callTool(2, FixtureTools.SLEEP, "{\"ms\":200}")).body())
            .get(0)
            .id();
    HttpResponse<String> refused = resume(gateway, mine, othersId);
    assertEquals(400, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("not an event id of this session"), refused.body());
    assertEquals(400, resume(gateway, mine, "nonsense").statusCode());
  }

  // --------------------------------------------------------------------------------- other clients

  @Test
  void olderSessionEraClientsGetNoIdsAndNoPriming() {
    String session = gateway.initialize(FIXTURE, ProtocolVersions.V2025_06_18, "{}");
    HttpResponse<String> sleep =
        gateway.post(
            FIXTURE,
            session,
            callTool(2, FixtureTools.SLEEP, "{\"ms\":300}"),
            "MCP-Protocol-Version",
            ProtocolVersions.V2025_06_18);
    assertEquals("application/json", sleep.headers().firstValue("Content-Type").orElseThrow());
    HttpResponse<String> progress =
        gateway.post(
            FIXTURE,
            session,
            request(
                3,
                "tools/call",
                "{\"name\":\"progress\",\"arguments\":{\"steps\":2},\"_meta\":{\"progressToken\":\"p\"}}"),
            "MCP-Protocol-Version",
            ProtocolVersions.V2025_06_18);
    SseEvents.parse(progress.body()).forEach(event -> assertNull(event.id(), event.toString()));
    assertEquals(3, SseEvents.parse(progress.body()).size());
  }

  @Test
  void statelessRequestsGetNoIdsAndNoPriming() {
    String meta =
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
            + ProtocolVersions.V2026_07_28
            + "\",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"},"
            + "\"io.modelcontextprotocol/clientCapabilities\":{},\"progressToken\":\"p\"}";
    HttpResponse<String> response =
        gateway.post(
            FIXTURE,
            null,
            request(
                1,
                "tools/call",
                "{\"name\":\"progress\",\"arguments\":{\"steps\":2}," + meta + "}"),
            "MCP-Protocol-Version",
            ProtocolVersions.V2026_07_28,
            "Mcp-Method",
            "tools/call",
            "Mcp-Name",
            "progress");
    assertEquals(200, response.statusCode(), response.body());
    assertFalse(response.body().contains("id:"), response.body());
    assertFalse(response.body().contains("retry:"), response.body());
    assertEquals("done 2", TestGateway.text(TestGateway.answer(response)));
  }

  // --------------------------------------------------------------------------------------- helpers

  /**
   * A sleep of {@code ms} whose connection the polling gateway closes before its answer; answers
   * its priming id.
   */
  private String leaveMidCall(String session, int id, int ms) throws Exception {
    SseEvents call =
        postStreaming(polling, session, callTool(id, FixtureTools.SLEEP, "{\"ms\":" + ms + "}"));
    String primingId = call.next().id();
    assertTrue(call.endsWithin(Duration.ofSeconds(10)), "the gateway closes the connection");
    call.close();
    return primingId;
  }

  /** {@code <tag>-<stream>} of an event id. */
  private static String streamOf(String eventId) {
    return eventId.substring(0, eventId.lastIndexOf('-'));
  }

  private static HttpResponse<String> post(TestGateway on, String session, String body) {
    return on.post(FIXTURE, session, body, "MCP-Protocol-Version", V);
  }

  private static SseEvents postStreaming(TestGateway on, String session, String body)
      throws Exception {
    return new SseEvents(
        on.http
            .sendAsync(
                on.postRequest(FIXTURE, session, body, "MCP-Protocol-Version", V).build(),
                HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS));
  }

  private static SseEvents openGet(TestGateway on, String session, String lastEventId)
      throws Exception {
    return new SseEvents(
        on.http
            .sendAsync(getRequest(on, session, lastEventId), HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS));
  }

  private static HttpResponse<String> resume(TestGateway on, String session, String lastEventId) {
    return on.send(getRequest(on, session, lastEventId));
  }

  private static java.net.http.HttpRequest getRequest(
      TestGateway on, String session, String lastEventId) {
    java.net.http.HttpRequest.Builder builder =
        on.request(FIXTURE)
            .GET()
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", V);
    if (lastEventId != null) {
      builder.header("Last-Event-ID", lastEventId);
    }
    return builder.build();
  }
}
