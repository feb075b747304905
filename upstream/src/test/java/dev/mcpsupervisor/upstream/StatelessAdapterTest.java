package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The adapter between a session-era session and a 2026-07-28 server, on a scripted transport. */
class StatelessAdapterTest {

  static final String META = "_meta";
  static final String VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  final RecordingListener listener = new RecordingListener();
  final ScriptedTransport transport = new ScriptedTransport();
  StatelessAdapter adapter;

  @BeforeEach
  void open() {
    adapter = new StatelessAdapter("test server", listener, null).attach(transport);
  }

  static JsonNode json(String text) {
    try {
      return JsonRpcCodec.mapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  static JsonRpcRequest initialize() {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("protocolVersion", "2025-06-18");
    params.putObject("capabilities").putObject("elicitation");
    params.putObject("clientInfo").put("name", "mcp-supervisor").put("version", "9");
    return new JsonRpcRequest(Rpc.id(0), McpMethods.INITIALIZE, params);
  }

  static final String DISCOVERED =
      """
      {"resultType":"complete","supportedVersions":["2026-07-28"],
       "capabilities":{"tools":{}},"instructions":"be kind","ttlMs":5,"cacheScope":"public",
       "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"2"}}}""";

  /** The session's handshake, answered by a discover result offering {@code discovered}. */
  JsonRpcResponse handshake(String discovered) {
    adapter.send(initialize());
    JsonRpcRequest discover = transport.nextRequest(McpMethods.SERVER_DISCOVER);
    adapter.onMessage(JsonRpcResponse.success(discover.id(), json(discovered)), discover.id());
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(0));
    Rpc.await(adapter.send(Rpc.initialized()));
    return answer;
  }

  void reply(JsonRpcRequest upstream, String result) {
    adapter.onMessage(JsonRpcResponse.success(upstream.id(), json(result)), upstream.id());
  }

  @Test
  void initializeIsServedByDiscoverWithTheSessionsOwnCapabilities() {
    adapter.send(initialize());
    JsonRpcRequest discover = transport.nextRequest(McpMethods.SERVER_DISCOVER);
    JsonNode meta = discover.params().path(META);
    assertEquals("2026-07-28", meta.path(VERSION).asText());
    assertEquals(initialize().params().get("capabilities"), meta.get(CAPABILITIES));
    assertEquals(
        "mcp-supervisor", meta.path("io.modelcontextprotocol/clientInfo").path("name").asText());
    assertNotEquals(Rpc.id(0), discover.id(), "the upstream never sees the session's ids");

    reply(discover, DISCOVERED);
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(0));
    assertEquals("2025-06-18", answer.result().path("protocolVersion").asText());
    assertEquals(json("{\"tools\":{}}"), answer.result().get("capabilities"));
    assertEquals("modern", answer.result().path("serverInfo").path("name").asText());
    assertEquals("be kind", answer.result().path("instructions").asText());
    assertFalse(answer.result().has("resultType"));
  }

  @Test
  void initializedIsSwallowedAndPingIsServedByDiscover() {
    handshake(DISCOVERED);
    // the strand keeps order: had "initialized" gone upstream, it would come before the discover
    adapter.send(new JsonRpcRequest(Rpc.id(5), McpMethods.PING, null));
    JsonRpcRequest discover = transport.nextRequest(McpMethods.SERVER_DISCOVER);
    reply(discover, DISCOVERED);
    JsonRpcResponse pong = listener.awaitResponse(Rpc.id(5));
    assertEquals(JsonRpcCodec.emptyObject(), pong.result());
  }

  @Test
  void requestsCarryTheEnvelopeAndTheirOwnKeysAndAnswersLoseResultType() {
    handshake(DISCOVERED);
    ObjectNode params = Rpc.callTool(7, "echo", null).params().deepCopy();
    params.putObject(META).put("progressToken", "p-1");
    CompletionStage<Void> sent =
        adapter.send(new JsonRpcRequest(Rpc.id(7), McpMethods.TOOLS_CALL, params));

    JsonRpcRequest upstream = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertEquals("p-1", upstream.params().path(META).path("progressToken").asText());
    assertEquals("2026-07-28", upstream.params().path(META).path(VERSION).asText());
    assertNull(upstream.params().path(META).get("io.modelcontextprotocol/logLevel"));
    assertFalse(sent.toCompletableFuture().isDone(), "the send completes with the exchange");

    ObjectNode progress = JsonRpcCodec.emptyObject().put("progressToken", "p-1");
    adapter.onMessage(
        new JsonRpcNotification(McpMethods.NOTIFICATION_PROGRESS, progress), upstream.id());
    reply(upstream, "{\"resultType\":\"complete\",\"content\":[],\"ttlMs\":0}");

    RecordingListener.Received note =
        listener.await(received -> received.message() instanceof JsonRpcNotification);
    assertEquals(Rpc.id(7), note.relatedRequestId(), "related to the session's request");
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(7));
    assertEquals(json("{\"content\":[],\"ttlMs\":0}"), answer.result());
    Rpc.await(sent);
  }

  @Test
  void aCallersOwnCapabilitiesAndInfoPassThroughElseTheSupervisorsGo() {
    handshake(DISCOVERED);
    ObjectNode params = Rpc.callTool(7, "echo", null).params().deepCopy();
    ObjectNode meta = params.putObject(META);
    meta.putObject("io.modelcontextprotocol/clientCapabilities").putObject("roots");
    meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "the-caller");
    adapter.send(new JsonRpcRequest(Rpc.id(7), McpMethods.TOOLS_CALL, params));
    JsonRpcRequest upstream = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertEquals(
        json("{\"roots\":{}}"),
        upstream.params().path(META).get("io.modelcontextprotocol/clientCapabilities"),
        "the caller declared no sampling: the server must see that");
    assertEquals(
        "the-caller",
        upstream
            .params()
            .path(META)
            .path("io.modelcontextprotocol/clientInfo")
            .path("name")
            .asText());

    adapter.send(Rpc.callTool(8, "echo", null));
    JsonRpcRequest plain = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertTrue(
        plain.params().path(META).path("io.modelcontextprotocol/clientCapabilities").isObject(),
        "a caller that names none: the supervisor's own");
  }

  @Test
  void theLogLevelIsKeptAndSentOnLaterRequests() {
    handshake(DISCOVERED);
    ObjectNode level = JsonRpcCodec.emptyObject().put("level", "warning");
    adapter.send(new JsonRpcRequest(Rpc.id(1), McpMethods.LOGGING_SET_LEVEL, level));
    assertFalse(listener.awaitResponse(Rpc.id(1)).isError());
    adapter.send(
        new JsonRpcRequest(
            Rpc.id(2), McpMethods.LOGGING_SET_LEVEL, JsonRpcCodec.emptyObject().put("level", "x")));
    assertEquals(
        JsonRpcErrorCodes.INVALID_PARAMS, listener.awaitResponse(Rpc.id(2)).error().code());

    adapter.send(new JsonRpcRequest(Rpc.id(3), McpMethods.TOOLS_LIST, null));
    JsonRpcRequest upstream = transport.nextRequest(McpMethods.TOOLS_LIST);
    assertEquals(
        "warning", upstream.params().path(META).path("io.modelcontextprotocol/logLevel").asText());
  }

  @Test
  void inputRoundsBecomeSessionRequestsAndTheRetryCarriesAnswersAndState() {
    handshake(DISCOVERED);
    CompletionStage<Void> sent = adapter.send(Rpc.callTool(9, "book", null));
    JsonRpcRequest first = transport.nextRequest(McpMethods.TOOLS_CALL);
    reply(
        first,
        """
        {"resultType":"input_required","requestState":"s+1/=",
         "inputRequests":{
           "who":{"method":"elicitation/create","params":{"message":"name?"}},
           "llm":{"method":"sampling/createMessage","params":{"maxTokens":5}}}}""");

    JsonRpcRequest elicit = listener.awaitRequest(McpMethods.ELICITATION_CREATE);
    JsonRpcRequest sample = listener.awaitRequest(McpMethods.SAMPLING_CREATE_MESSAGE);
    assertEquals("name?", elicit.params().path("message").asText());
    assertTrue(elicit.id().isTextual(), "ids of the adapter's own");
    assertEquals(
        "who",
        elicit.params().path(META).path(InputRequests.INPUT_KEY_META).asText(),
        "the server's key goes with its request, for the caller's round");
    assertEquals("llm", sample.params().path(META).path(InputRequests.INPUT_KEY_META).asText());
    adapter.send(JsonRpcResponse.success(sample.id(), json("{\"model\":\"m\"}")));
    adapter.send(JsonRpcResponse.success(elicit.id(), json("{\"action\":\"accept\"}")));

    JsonRpcRequest retry = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertNotEquals(first.id(), retry.id());
    assertEquals("book", retry.params().path("name").asText());
    assertEquals("s+1/=", retry.params().path("requestState").asText());
    assertEquals(
        json("{\"who\":{\"action\":\"accept\"},\"llm\":{\"model\":\"m\"}}"),
        retry.params().get("inputResponses"));
    assertEquals("2026-07-28", retry.params().path(META).path(VERSION).asText());

    // a second round, without state: the next retry must not carry the old one
    reply(
        retry,
        """
        {"resultType":"input_required",
         "inputRequests":{"again":{"method":"elicitation/create","params":{}}}}""");
    JsonRpcRequest again = listener.awaitRequest(McpMethods.ELICITATION_CREATE);
    adapter.send(JsonRpcResponse.success(again.id(), json("{\"action\":\"decline\"}")));
    JsonRpcRequest last = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertFalse(last.params().has("requestState"));
    assertEquals(json("{\"again\":{\"action\":\"decline\"}}"), last.params().get("inputResponses"));
    assertFalse(sent.toCompletableFuture().isDone());

    reply(last, "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}");
    assertEquals("ok", Rpc.text(listener.awaitResponse(Rpc.id(9))));
    Rpc.await(sent);
  }

  @Test
  void aRoundWithOnlyStateIsRetriedAtOnce() {
    handshake(DISCOVERED);
    adapter.send(Rpc.callTool(4, "slow", null));
    JsonRpcRequest first = transport.nextRequest(McpMethods.TOOLS_CALL);
    reply(first, "{\"resultType\":\"input_required\",\"requestState\":\"later\"}");
    JsonRpcRequest retry = transport.nextRequest(McpMethods.TOOLS_CALL);
    assertEquals("later", retry.params().path("requestState").asText());
    assertFalse(retry.params().has("inputResponses"));
  }

  @Test
  void anErrorAnswerToAnInputFailsTheRequestAndWithdrawsTheOthers() {
    handshake(DISCOVERED);
    adapter.send(Rpc.callTool(3, "book", null));
    reply(
        transport.nextRequest(McpMethods.TOOLS_CALL),
        """
        {"resultType":"input_required","inputRequests":{
           "a":{"method":"elicitation/create","params":{}},
           "b":{"method":"roots/list"}}}""");
    JsonRpcRequest a = listener.awaitRequest(McpMethods.ELICITATION_CREATE);
    JsonRpcRequest b = listener.awaitRequest(McpMethods.ROOTS_LIST);
    adapter.send(
        JsonRpcResponse.failure(
            a.id(), new JsonRpcError(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, "nobody")));

    JsonRpcNotification withdrawn = listener.awaitNotification(McpMethods.NOTIFICATION_CANCELLED);
    assertEquals(b.id(), withdrawn.params().get("requestId"));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(3));
    assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, answer.error().code());
    assertTrue(answer.error().message().contains("\"a\""), answer.error().message());
  }

  @Test
  void aCancelInFlightGoesUpstreamUnderOurIdAndALateAnswerIsDropped() {
    handshake(DISCOVERED);
    CompletionStage<Void> sent = adapter.send(Rpc.callTool(6, "slow", null));
    JsonRpcRequest upstream = transport.nextRequest(McpMethods.TOOLS_CALL);
    adapter.send(cancel(Rpc.id(6)));
    JsonRpcNotification cancelled = transport.nextNotification(McpMethods.NOTIFICATION_CANCELLED);
    assertEquals(upstream.id().asLong(), cancelled.params().path("requestId").asLong());
    Rpc.await(sent);

    reply(upstream, "{\"content\":[]}");
    adapter.send(new JsonRpcRequest(Rpc.id(8), McpMethods.TOOLS_LIST, null));
    reply(transport.nextRequest(McpMethods.TOOLS_LIST), "{\"tools\":[]}");
    listener.awaitResponse(Rpc.id(8));
    assertTrue(
        listener.passedOver.stream().noneMatch(r -> r.message() instanceof JsonRpcResponse),
        "no answer for the cancelled request: " + listener.passedOver);
  }

  @Test
  void aCancelDuringAnInputRoundWithdrawsTheSessionsRequests() {
    handshake(DISCOVERED);
    adapter.send(Rpc.callTool(6, "book", null));
    reply(
        transport.nextRequest(McpMethods.TOOLS_CALL),
        "{\"resultType\":\"input_required\",\"inputRequests\":{\"a\":{\"method\":\"elicitation/create\"}}}");
    JsonRpcRequest asked = listener.awaitRequest(McpMethods.ELICITATION_CREATE);
    adapter.send(cancel(Rpc.id(6)));
    assertEquals(
        asked.id(),
        listener.awaitNotification(McpMethods.NOTIFICATION_CANCELLED).params().get("requestId"));
    // no round was in flight: nothing to cancel upstream, the next thing sent is the next call
    adapter.send(JsonRpcResponse.success(asked.id(), json("{\"action\":\"accept\"}")));
    adapter.send(new JsonRpcRequest(Rpc.id(7), McpMethods.TOOLS_LIST, null));
    transport.nextRequest(McpMethods.TOOLS_LIST);
  }

  @Test
  void aServerThatKeepsAskingIsStoppedAfterTheLastRound() {
    handshake(DISCOVERED);
    adapter.send(Rpc.callTool(2, "loop", null));
    for (int round = 0; round <= InputRoundRelay.MAX_ROUNDS; round++) {
      reply(
          transport.nextRequest(McpMethods.TOOLS_CALL),
          "{\"resultType\":\"input_required\",\"requestState\":\"r" + round + "\"}");
    }
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(2));
    assertEquals(JsonRpcErrorCodes.INTERNAL_ERROR, answer.error().code());
  }

  @Test
  void aRoundThatCannotBeSentFailsTheSendAndTheAnswerIsNotAwaited() {
    handshake(DISCOVERED);
    transport.nextSendStage = CompletableFuture.failedFuture(new IOException("stream broke"));
    CompletionStage<Void> sent = adapter.send(Rpc.callTool(2, "echo", null));
    CompletableFuture<Void> stage = sent.toCompletableFuture();
    Throwable failure = stage.handle((ok, error) -> error).join();
    assertInstanceOf(IOException.class, Failures.unwrap(failure));
  }

  @Test
  void aStatelessOnlyServerThatDiscoverRefusesFailsTheInitialize() {
    adapter.send(initialize());
    JsonRpcRequest discover = transport.nextRequest(McpMethods.SERVER_DISCOVER);
    adapter.onMessage(
        JsonRpcResponse.failure(
            discover.id(), new JsonRpcError(JsonRpcErrorCodes.METHOD_NOT_FOUND, "no such")),
        null);
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(0));
    assertEquals(JsonRpcErrorCodes.METHOD_NOT_FOUND, answer.error().code());
    assertTrue(answer.error().message().startsWith("server/discover failed"));
  }

  @Test
  void theEndReachesTheSessionOnceAndThenTheWaitingSendsFail() {
    handshake(DISCOVERED);
    CompletionStage<Void> sent = adapter.send(Rpc.callTool(2, "slow", null));
    transport.nextRequest(McpMethods.TOOLS_CALL);
    adapter.onClosed(new ConnectionClosed(ConnectionClosed.Kind.PROCESS_EXITED, "exit code 1"));
    Throwable failure = sent.toCompletableFuture().handle((ok, error) -> error).join();
    assertTrue(listener.closed.isDone(), "the session heard of the end before the failure");
    assertInstanceOf(IOException.class, Failures.unwrap(failure));
    listener.assertClosedOnceAs(ConnectionClosed.Kind.PROCESS_EXITED);
    Rpc.await(adapter.close());
    assertEquals(1, listener.closeCount.get());
  }

  @Test
  void listChangedComesFromAListenStreamWithoutItsSubscriptionTag() {
    handshake(
        """
        {"supportedVersions":["2026-07-28"],
         "capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}}}""");
    JsonRpcRequest listen = transport.nextRequest(McpMethods.SUBSCRIPTIONS_LISTEN);
    assertEquals(json("{\"toolsListChanged\":true}"), listen.params().get("notifications"));
    adapter.onMessage(tagged(ListenStream.ACKNOWLEDGED, listen.id()), listen.id());
    adapter.onMessage(tagged(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, listen.id()), null);
    JsonRpcNotification changed =
        listener.awaitNotification(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED);
    assertNull(changed.params(), "the subscription's _meta is gone: " + changed);

    // subscribing to a resource reopens the stream with it
    ObjectNode uri = JsonRpcCodec.emptyObject().put("uri", "file:///a");
    adapter.send(new JsonRpcRequest(Rpc.id(4), McpMethods.RESOURCES_SUBSCRIBE, uri));
    assertFalse(listener.awaitResponse(Rpc.id(4)).isError());
    JsonRpcNotification left = transport.nextNotification(McpMethods.NOTIFICATION_CANCELLED);
    assertEquals(listen.id().asLong(), left.params().path("requestId").asLong());
    JsonRpcRequest reopened = transport.nextRequest(McpMethods.SUBSCRIPTIONS_LISTEN);
    assertEquals(
        json("{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a\"]}"),
        reopened.params().get("notifications"));

    // the server ends the stream: another one opens (after a pause)
    reply(reopened, "{\"resultType\":\"complete\"}");
    transport.nextRequest(McpMethods.SUBSCRIPTIONS_LISTEN);
  }

  @Test
  void hundredsOfRacingCallsEachGetTheirOwnAnswerThroughTheirOwnRounds() throws Exception {
    int calls = 400;
    // the session: answers every input request at once, and collects the answers by id
    Map<JsonNode, List<JsonRpcResponse>> answers = new ConcurrentHashMap<>();
    // the initialize's answer comes this way too: the latch waited for one call too few
    CountDownLatch allAnswered = new CountDownLatch(calls + 1);
    StatelessAdapter[] racing = new StatelessAdapter[1];
    ConnectionListener session =
        new ConnectionListener() {
          @Override
          public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
            if (message instanceof JsonRpcRequest asked) {
              racing[0].send(JsonRpcResponse.success(asked.id(), json("{\"roots\":[]}")));
            } else if (message instanceof JsonRpcResponse answer) {
              answers.computeIfAbsent(answer.id(), id -> new CopyOnWriteArrayList<>()).add(answer);
              allAnswered.countDown();
            }
          }

          @Override
          public void onClosed(ConnectionClosed cause) {}
        };
    racing[0] = new StatelessAdapter("racing", session, null).attach(transport);
    adapter = racing[0];
    adapter.send(initialize());
    reply(transport.nextRequest(McpMethods.SERVER_DISCOVER), DISCOVERED);
    // the server: odd calls need one input round first, every answer names its call
    Thread server =
        new Thread(
            () -> {
              for (int answered = 0; answered < calls * 3 / 2; answered++) {
                JsonRpcRequest request = transport.nextRequest(McpMethods.TOOLS_CALL);
                String name = request.params().path("name").asText();
                boolean needsInput = Integer.parseInt(name.substring(1)) % 2 == 1;
                if (needsInput && !request.params().has("inputResponses")) {
                  reply(
                      request,
                      "{\"resultType\":\"input_required\",\"requestState\":\""
                          + name
                          + "\",\"inputRequests\":{\"k\":{\"method\":\"roots/list\"}}}");
                } else {
                  String state = request.params().path("requestState").asText(name);
                  reply(request, "{\"content\":[{\"type\":\"text\",\"text\":\"" + state + "\"}]}");
                }
              }
            });
    server.start();
    Thread[] callers = new Thread[calls];
    for (int i = 0; i < calls; i++) {
      int call = i;
      callers[i] = new Thread(() -> adapter.send(Rpc.callTool(1000 + call, "c" + call, null)));
    }
    for (Thread caller : callers) {
      caller.start();
    }
    assertTrue(allAnswered.await(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS));
    server.join(RecordingListener.WAIT.toMillis());
    for (int i = 0; i < calls; i++) {
      List<JsonRpcResponse> got = answers.get(Rpc.id(1000 + i));
      assertEquals(1, got == null ? 0 : got.size(), "answers to call " + i);
      assertEquals("c" + i, Rpc.text(got.get(0)));
    }
    assertEquals(calls + 1, answers.size(), "the calls and the initialize, nothing else");
  }

  static JsonRpcNotification tagged(String method, JsonNode subscriptionId) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.putObject(META).set(ListenStream.SUBSCRIPTION_ID, subscriptionId);
    return new JsonRpcNotification(method, params);
  }

  static JsonRpcNotification cancel(JsonNode requestId) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.set("requestId", requestId);
    return new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params);
  }
}
