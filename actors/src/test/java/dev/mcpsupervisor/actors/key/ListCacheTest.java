package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The list cache of one server key, on a clock of the test's own, without actors. */
class ListCacheTest {

  private static final Duration TTL = Duration.ofSeconds(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private long now = 1_000_000_000L;
  private long nextCallId = 1;
  private final ListCache cache = new ListCache(TTL, false, REQUEST_TIMEOUT, null, () -> now);

  @Test
  void hundredsOfConcurrentMissesOfOnePageShareOneFetchAndEachGetsItsOwnAnswer() {
    List<UpstreamCall> callers = new ArrayList<>();
    List<ListCache.Fetch> fetches = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      UpstreamCall caller = call("ctx-" + i, McpMethods.TOOLS_LIST, null);
      callers.add(caller);
      ListCache.Lookup lookup = cache.lookup(caller);
      if (lookup instanceof ListCache.Fetch fetch) {
        fetches.add(fetch);
      } else {
        assertSame(ListCache.Waiting.INSTANCE, lookup);
      }
    }
    assertEquals(1, fetches.size(), "one fetch for 500 callers");
    UpstreamCall fetch = fetches.get(0).call();
    assertEquals(callers.get(0).callId(), fetch.callId());
    assertTrue(cache.isFetch(fetch.callId()));

    List<ListCache.Answer> answers = cache.fetched(success(fetch, tools("echo", "add")));
    assertEquals(500, answers.size());
    Set<Long> ids = new HashSet<>();
    for (ListCache.Answer answer : answers) {
      assertEquals(answer.call().callId(), answer.response().id().asLong());
      assertTrue(ids.add(answer.response().id().asLong()));
      assertEquals(List.of("echo", "add"), names(answer.response().result()));
      assertEquals(TTL.toMillis(), answer.response().result().path("ttlMs").asLong());
    }
    assertFalse(cache.isFetch(fetch.callId()));
    assertTrue(cache.fetched(success(fetch, tools("again"))).isEmpty(), "answered once");
  }

  @Test
  void aKeptPageIsServedWithItsRemainingLifetimeUntilItExpires() {
    fill(McpMethods.TOOLS_LIST, null, tools("echo"));
    now += Duration.ofMillis(2_500).toNanos();
    ListCache.Hit hit = assertInstanceOf(ListCache.Hit.class, cache.lookup(listTools()));
    assertEquals(7_500, hit.response().result().path("ttlMs").asLong());
    assertEquals(List.of("echo"), names(hit.response().result()));

    now += Duration.ofMillis(7_500).toNanos();
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()), "expired: fetched again");
  }

  @Test
  void servingAPageNeverChangesTheKeptResult() {
    ObjectNode upstream = tools("echo");
    fill(McpMethods.TOOLS_LIST, null, upstream);
    ListCache.Hit hit = assertInstanceOf(ListCache.Hit.class, cache.lookup(listTools()));
    ((ObjectNode) hit.response().result()).put("ttlMs", -1);
    assertFalse(upstream.has("ttlMs"), "served results are copies at the top level");
    hit = assertInstanceOf(ListCache.Hit.class, cache.lookup(listTools()));
    assertEquals(TTL.toMillis(), hit.response().result().path("ttlMs").asLong());
  }

  @Test
  void theUpstreamsOwnTtlWinsAndZeroOrNegativeMeansNotKept() {
    ObjectNode longLived = tools("echo");
    longLived.put("ttlMs", 300_000);
    fill(McpMethods.TOOLS_LIST, null, longLived);
    now += TTL.toNanos() * 2;
    ListCache.Hit hit = assertInstanceOf(ListCache.Hit.class, cache.lookup(listTools()));
    assertEquals(300_000 - 2 * TTL.toMillis(), hit.response().result().path("ttlMs").asLong());

    for (int ttl : new int[] {0, -5}) {
      ObjectNode stale = prompts();
      stale.put("ttlMs", ttl);
      JsonRpcResponse answered = fill(McpMethods.PROMPTS_LIST, null, stale);
      assertEquals(ttl, answered.result().path("ttlMs").asInt(), "passed on as the upstream said");
      assertInstanceOf(
          ListCache.Fetch.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)));
      cache.fetched(
          JsonRpcResponse.failure(
              LongNode.valueOf(nextCallId - 1), JsonRpcErrorCodes.INTERNAL_ERROR, "x"));
    }
  }

  @Test
  void errorsPrivateAndInputRequiredResultsAreNotKept() {
    UpstreamCall first = listTools();
    ListCache.Fetch fetch = assertInstanceOf(ListCache.Fetch.class, cache.lookup(first));
    UpstreamCall waiter = listTools();
    cache.lookup(waiter);
    JsonRpcError error = new JsonRpcError(JsonRpcErrorCodes.INTERNAL_ERROR, "boom");
    List<ListCache.Answer> answers =
        cache.fetched(JsonRpcResponse.failure(LongNode.valueOf(fetch.call().callId()), error));
    assertEquals(2, answers.size());
    answers.forEach(answer -> assertEquals("boom", answer.response().error().message()));
    assertEquals(waiter.callId(), answers.get(1).response().id().asLong());

    ObjectNode personal = tools("mine");
    personal.put("cacheScope", "private");
    fill(McpMethods.TOOLS_LIST, null, personal);
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()), "private: not shared");
    cache.fetchTimedOut(nextCallId - 1);

    ObjectNode interim = tools("echo");
    interim.put("resultType", "input_required");
    fill(McpMethods.TOOLS_LIST, null, interim);
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()), "input_required: not kept");
  }

  @Test
  void eachCursorIsAPageOfItsOwnAndOnlyCursorAndMetaMayBeAsked() {
    fill(McpMethods.TOOLS_LIST, null, tools("first"));
    fill(McpMethods.TOOLS_LIST, "p2", tools("second"));
    assertEquals(List.of("first"), names(hit(call("a", McpMethods.TOOLS_LIST, json("{}")))));
    assertEquals(
        List.of("second"),
        names(
            hit(
                call(
                    "a",
                    McpMethods.TOOLS_LIST,
                    json("{\"cursor\":\"p2\",\"_meta\":{\"progressToken\":7}}")))));
    assertInstanceOf(
        ListCache.Fetch.class,
        cache.lookup(call("a", McpMethods.TOOLS_LIST, json("{\"cursor\":\"p3\"}"))));

    assertNull(cache.lookup(call("a", McpMethods.TOOLS_LIST, json("{\"filter\":\"x\"}"))));
    assertNull(cache.lookup(call("a", McpMethods.TOOLS_LIST, json("{\"cursor\":7}"))));
    assertNull(cache.lookup(call("a", McpMethods.TOOLS_CALL, json("{\"name\":\"echo\"}"))));
    assertNull(cache.lookup(call("a", McpMethods.RESOURCES_READ, json("{\"uri\":\"a:b\"}"))));
  }

  @Test
  void theFetchAsksForTheCursorAloneWithTheLongerDeadlineAndNoTag() {
    UpstreamCall caller =
        UpstreamCall.leased(
            "ctx",
            "alpha",
            nextCallId++,
            McpMethods.RESOURCES_TEMPLATES_LIST,
            json("{\"cursor\":\"c\",\"_meta\":{\"progressToken\":\"p\"}}"),
            Duration.ofSeconds(5),
            null,
            "post-9");
    UpstreamCall fetch = assertInstanceOf(ListCache.Fetch.class, cache.lookup(caller)).call();
    assertEquals("ctx", fetch.context());
    assertEquals(McpMethods.RESOURCES_TEMPLATES_LIST, fetch.method());
    assertEquals(json("{\"cursor\":\"c\"}"), fetch.params());
    assertEquals(REQUEST_TIMEOUT, fetch.deadline(), "it serves callers with longer deadlines too");
    assertNull(fetch.tag());
  }

  @Test
  void listChangedDropsThatKindOfListOnlyAndResourcesTakeTheirTemplatesAlong() {
    fill(McpMethods.TOOLS_LIST, null, tools("echo"));
    fill(McpMethods.PROMPTS_LIST, null, prompts());
    fill(McpMethods.RESOURCES_LIST, null, resources());
    fill(McpMethods.RESOURCES_TEMPLATES_LIST, null, resources());

    cache.listChanged(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED);
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()));
    assertInstanceOf(ListCache.Hit.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)));

    cache.listChanged(McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED);
    assertInstanceOf(
        ListCache.Fetch.class, cache.lookup(call("c", McpMethods.RESOURCES_LIST, null)));
    assertInstanceOf(
        ListCache.Fetch.class, cache.lookup(call("c", McpMethods.RESOURCES_TEMPLATES_LIST, null)));
    assertInstanceOf(ListCache.Hit.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)));

    cache.listChanged(McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED);
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)));
  }

  @Test
  void aFetchUnderWayWhenTheListChangesAnswersItsWaitersButIsNotKeptAndNotJoined() {
    UpstreamCall before = listTools();
    UpstreamCall old = assertInstanceOf(ListCache.Fetch.class, cache.lookup(before)).call();
    cache.listChanged(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED);
    UpstreamCall after = listTools();
    UpstreamCall fresh = assertInstanceOf(ListCache.Fetch.class, cache.lookup(after)).call();

    List<ListCache.Answer> oldAnswers = cache.fetched(success(old, tools("old")));
    assertEquals(1, oldAnswers.size());
    assertSame(before, oldAnswers.get(0).call());
    assertFalse(oldAnswers.get(0).response().result().has("ttlMs"), "not kept: no lifetime");
    cache.fetched(success(fresh, tools("new")));
    assertEquals(List.of("new"), names(hit(listTools())));
  }

  @Test
  void aLostConnectionEmptiesTheCacheAndMakesFetchesUnderWayStale() {
    fill(McpMethods.TOOLS_LIST, null, tools("echo"));
    UpstreamCall under =
        assertInstanceOf(
                ListCache.Fetch.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)))
            .call();
    cache.clear();
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()));
    cache.fetched(success(under, prompts()));
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(call("c", McpMethods.PROMPTS_LIST, null)));
  }

  @Test
  void aWaiterThatGivesUpIsTakenOutAndTheFetchGoesOnForTheOthers() {
    UpstreamCall first = listTools();
    UpstreamCall fetch = assertInstanceOf(ListCache.Fetch.class, cache.lookup(first)).call();
    UpstreamCall second = listTools();
    UpstreamCall third = listTools();
    cache.lookup(second);
    cache.lookup(third);

    ListCache.Answer cancelled = cache.cancelled(first.callId());
    assertSame(first, cancelled.call());
    assertEquals(JsonRpcErrorCodes.REQUEST_CANCELLED, cancelled.response().error().code());
    assertTrue(cache.isFetch(first.callId()), "its fetch goes on");
    assertNull(cache.cancelled(first.callId()), "once");

    ListCache.Answer timedOut = cache.waitTimedOut(second.callId());
    assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, timedOut.response().error().code());
    assertEquals(
        "request tools/list to alpha timed out after 30000 ms",
        timedOut.response().error().message());

    List<ListCache.Answer> answers = cache.fetched(success(fetch, tools("echo")));
    assertEquals(List.of(third), answers.stream().map(ListCache.Answer::call).toList());
    assertInstanceOf(ListCache.Hit.class, cache.lookup(listTools()), "and it filled the cache");
  }

  @Test
  void aFetchWithoutAnAnswerByItsDeadlineAnswersItsWaitersWithATimeout() {
    UpstreamCall first = listTools();
    UpstreamCall fetch = assertInstanceOf(ListCache.Fetch.class, cache.lookup(first)).call();
    cache.lookup(listTools());
    List<ListCache.Answer> answers = cache.fetchTimedOut(fetch.callId());
    assertEquals(2, answers.size());
    answers.forEach(
        answer ->
            assertEquals(
                "request tools/list to alpha timed out after 60000 ms",
                answer.response().error().message()));
    assertInstanceOf(ListCache.Fetch.class, cache.lookup(listTools()), "the next caller fetches");
  }

  @Test
  void shuttingDownHandsBackEveryWaiter() {
    UpstreamCall a = listTools();
    UpstreamCall b = listTools();
    UpstreamCall c = call("c", McpMethods.PROMPTS_LIST, null);
    cache.lookup(a);
    cache.lookup(b);
    cache.lookup(c);
    cache.listChanged(McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED); // stale ones too
    assertEquals(Set.of(a, b, c), new HashSet<>(cache.drain()));
    assertTrue(cache.drain().isEmpty());
  }

  @Test
  void aZeroTtlTurnsTheCacheOff() {
    ListCache off = new ListCache(Duration.ZERO, false, REQUEST_TIMEOUT, null, () -> now);
    assertNull(off.lookup(listTools()));
  }

  @Test
  void perContextEachContextFetchesAndIsServedItsOwnPages() {
    ListCache apart = new ListCache(TTL, true, REQUEST_TIMEOUT, null, () -> now);
    UpstreamCall a = call("a", McpMethods.TOOLS_LIST, null);
    UpstreamCall fetchA = assertInstanceOf(ListCache.Fetch.class, apart.lookup(a)).call();
    assertEquals("a", fetchA.context(), "fetched on a's own session");
    UpstreamCall b = call("b", McpMethods.TOOLS_LIST, null);
    UpstreamCall fetchB =
        assertInstanceOf(ListCache.Fetch.class, apart.lookup(b), "b joins no fetch of a's").call();
    apart.fetched(success(fetchA, tools("of-a")));
    apart.fetched(success(fetchB, tools("of-b")));

    JsonNode ofA = hitOn(apart, call("a", McpMethods.TOOLS_LIST, null));
    assertEquals(List.of("of-a"), names(ofA));
    assertEquals(TTL.toMillis(), ofA.path("ttlMs").asLong());
    assertEquals(List.of("of-b"), names(hitOn(apart, call("b", McpMethods.TOOLS_LIST, null))));
  }

  @Test
  void perContextAReleasedContextsPagesGoAndItsFetchUnderWayIsNotKept() {
    ListCache apart = new ListCache(TTL, true, REQUEST_TIMEOUT, null, () -> now);
    UpstreamCall fetchA =
        assertInstanceOf(
                ListCache.Fetch.class, apart.lookup(call("a", McpMethods.TOOLS_LIST, null)))
            .call();
    apart.fetched(success(fetchA, tools("of-a")));
    UpstreamCall fetchB =
        assertInstanceOf(
                ListCache.Fetch.class, apart.lookup(call("b", McpMethods.TOOLS_LIST, null)))
            .call();

    apart.released("a");
    apart.released("b");
    assertInstanceOf(
        ListCache.Fetch.class,
        apart.lookup(call("a", McpMethods.TOOLS_LIST, null)),
        "a's page went with its lease");
    List<ListCache.Answer> answered = apart.fetched(success(fetchB, tools("of-b")));
    assertEquals(1, answered.size(), "its waiter is answered");
    assertFalse(answered.get(0).response().result().has("ttlMs"), "but nothing is kept");
    assertInstanceOf(ListCache.Fetch.class, apart.lookup(call("b", McpMethods.TOOLS_LIST, null)));
  }

  @Test
  void sharedPagesStayWhenAContextIsReleased() {
    fill(McpMethods.TOOLS_LIST, null, tools("echo"));
    cache.released("filler");
    assertEquals(List.of("echo"), names(hit(listTools())));
  }

  @Test
  void noMoreThanMaxPagesAreKeptAndExpiredOnesMakeRoom() {
    for (int page = 0; page < ListCache.MAX_PAGES; page++) {
      fill(McpMethods.TOOLS_LIST, "p" + page, tools("t" + page));
    }
    JsonRpcResponse beyond = fill(McpMethods.TOOLS_LIST, "beyond", tools("x"));
    assertFalse(beyond.result().has("ttlMs"), "not kept: the cache is full");
    assertInstanceOf(
        ListCache.Fetch.class,
        cache.lookup(call("c", McpMethods.TOOLS_LIST, json("{\"cursor\":\"beyond\"}"))));
    cache.fetchTimedOut(nextCallId - 1);

    now += TTL.toNanos();
    JsonRpcResponse later = fill(McpMethods.TOOLS_LIST, "later", tools("y"));
    assertEquals(TTL.toMillis(), later.result().path("ttlMs").asLong(), "expired pages made room");
  }

  // --------------------------------------------------------------------------------------- helpers

  private UpstreamCall call(String context, String method, JsonNode params) {
    return UpstreamCall.leased(
        context, "alpha", nextCallId++, method, params, Duration.ofSeconds(30), null, null);
  }

  private UpstreamCall listTools() {
    return call("ctx", McpMethods.TOOLS_LIST, null);
  }

  /** Fetches one page with one caller and answers it; returns what the caller got. */
  private JsonRpcResponse fill(String method, String cursor, ObjectNode result) {
    ObjectNode params = null;
    if (cursor != null) {
      params = JsonRpcCodec.emptyObject();
      params.put("cursor", cursor);
    }
    UpstreamCall fetch =
        assertInstanceOf(ListCache.Fetch.class, cache.lookup(call("filler", method, params)))
            .call();
    List<ListCache.Answer> answers = cache.fetched(success(fetch, result));
    assertEquals(1, answers.size());
    return answers.get(0).response();
  }

  private JsonNode hit(UpstreamCall call) {
    return hitOn(cache, call);
  }

  private static JsonNode hitOn(ListCache cache, UpstreamCall call) {
    return assertInstanceOf(ListCache.Hit.class, cache.lookup(call)).response().result();
  }

  private static JsonRpcResponse success(UpstreamCall fetch, JsonNode result) {
    return JsonRpcResponse.success(LongNode.valueOf(fetch.callId()), result);
  }

  private static ObjectNode tools(String... names) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    for (String name : names) {
      result.withArray("tools").addObject().put("name", name);
    }
    if (names.length == 0) {
      result.putArray("tools");
    }
    return result;
  }

  private static ObjectNode prompts() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.putArray("prompts").addObject().put("name", "greet");
    return result;
  }

  private static ObjectNode resources() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.putArray("resources").addObject().put("uri", "file:///a");
    return result;
  }

  private static List<String> names(JsonNode result) {
    List<String> names = new ArrayList<>();
    result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }

  private static JsonNode json(String text) {
    try {
      return JsonRpcCodec.mapper().readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
