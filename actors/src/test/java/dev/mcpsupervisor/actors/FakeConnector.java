package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.ConnectionClosed;
import dev.mcpsupervisor.upstream.ConnectionListener;
import dev.mcpsupervisor.upstream.UpstreamConnection;
import dev.mcpsupervisor.upstream.UpstreamConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An upstream driven from the test: every connection records what the session sends, and the test
 * pushes responses, notifications, server requests and close events. By default it answers the
 * handshake (initialize, and tools/list without a cursor: the session's own fetch) and ping itself,
 * so tests only script what they are about.
 */
final class FakeConnector implements UpstreamConnector {

  final AtomicInteger connects = new AtomicInteger();
  final LinkedBlockingQueue<FakeConnection> connections = new LinkedBlockingQueue<>();

  /** Tool name → annotations, answered to tools/list. */
  final Map<String, ObjectNode> tools = new ConcurrentHashMap<>();

  /** While set, connect fails with this reason. */
  volatile String failConnectsWith;

  /**
   * While set, a connect completes only when this completes (a spawn or handshake that takes its
   * time).
   */
  volatile CompletableFuture<Void> connectGate;

  /** While set, initialize is not answered automatically (the test answers it). */
  volatile boolean holdInitialize;

  /** Answers ping automatically while set. */
  volatile boolean answerPing = true;

  /** Answers tools/call (and other non-handshake requests) automatically when set. */
  volatile Function<JsonRpcRequest, JsonRpcResponse> answerCalls;

  /**
   * Answers them automatically by the spec the connection was opened for, when set (and {@link
   * #answerCalls} is not): which configuration served a call.
   */
  volatile BiFunction<ServerSpec, JsonRpcRequest, JsonRpcResponse> answerCallsBySpec;

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    connects.incrementAndGet();
    if (failConnectsWith != null) {
      return CompletableFuture.failedFuture(new IllegalStateException(failConnectsWith));
    }
    FakeConnection connection = new FakeConnection(spec, listener);
    connections.add(connection);
    CompletableFuture<Void> gate = connectGate;
    return gate == null
        ? CompletableFuture.completedFuture(connection)
        : gate.thenApply(opened -> connection);
  }

  FakeConnection nextConnection() {
    return TestSupervisor.poll(connections, "no connection was opened within 10 s");
  }

  void addTool(String name, boolean readOnly, boolean idempotent) {
    ObjectNode annotations = JsonRpcCodec.emptyObject();
    annotations.put("readOnlyHint", readOnly);
    annotations.put("idempotentHint", idempotent);
    tools.put(name, annotations);
  }

  static JsonNode initializeResult() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("protocolVersion", ProtocolVersions.LATEST);
    result.putObject("capabilities").putObject("tools").put("listChanged", true);
    result.putObject("serverInfo").put("name", "fake").put("version", "1");
    return result;
  }

  static JsonNode text(String text) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.putArray("content").addObject().put("type", "text").put("text", text);
    return result;
  }

  final class FakeConnection implements UpstreamConnection {
    final ServerSpec spec;
    final ConnectionListener listener;

    /** What the session sent and the fake did not handle itself, in order. */
    final LinkedBlockingQueue<JsonRpcMessage> sent = new LinkedBlockingQueue<>();

    /** Everything the session sent, in order. */
    final List<JsonRpcMessage> log = java.util.Collections.synchronizedList(new ArrayList<>());

    final AtomicBoolean closed = new AtomicBoolean();

    /** Makes pid() throw: a stand-in for a bug inside the session actor. */
    volatile boolean failPid;

    FakeConnection(ServerSpec spec, ConnectionListener listener) {
      this.spec = spec;
      this.listener = listener;
    }

    @Override
    public CompletionStage<Void> send(JsonRpcMessage message) {
      if (closed.get()) {
        return CompletableFuture.failedFuture(new IllegalStateException("connection closed"));
      }
      log.add(message);
      if (message instanceof JsonRpcRequest request && answerAutomatically(request)) {
        return CompletableFuture.completedFuture(null);
      }
      if (message instanceof JsonRpcNotification notification
          && McpMethods.NOTIFICATION_INITIALIZED.equals(notification.method())) {
        return CompletableFuture.completedFuture(null); // part of the handshake: only in the log
      }
      sent.add(message);
      return CompletableFuture.completedFuture(null);
    }

    private boolean answerAutomatically(JsonRpcRequest request) {
      switch (request.method()) {
        case McpMethods.INITIALIZE:
          if (holdInitialize) {
            return false;
          }
          respond(request.id(), initializeResult());
          return true;
        case McpMethods.TOOLS_LIST:
          // the session's own fetch has no cursor; tests send theirs with one, to answer them
          // themselves
          if (request.params() != null && request.params().has("cursor")) {
            return false;
          }
          respond(request.id(), toolsListResult());
          return true;
        case McpMethods.PING:
          if (!answerPing) {
            return false;
          }
          respond(request.id(), JsonRpcCodec.emptyObject());
          return true;
        default:
          Function<JsonRpcRequest, JsonRpcResponse> answer = answerCalls;
          BiFunction<ServerSpec, JsonRpcRequest, JsonRpcResponse> bySpec = answerCallsBySpec;
          if (answer != null) {
            push(answer.apply(request));
          } else if (bySpec != null) {
            push(bySpec.apply(spec, request));
          } else {
            return false;
          }
          return true;
      }
    }

    private JsonNode toolsListResult() {
      ObjectNode result = JsonRpcCodec.emptyObject();
      ArrayNode list = result.putArray("tools");
      tools.forEach(
          (name, annotations) -> {
            ObjectNode tool = list.addObject();
            tool.put("name", name);
            tool.putObject("inputSchema").put("type", "object");
            tool.set("annotations", annotations);
          });
      return result;
    }

    @Override
    public CompletionStage<Void> close() {
      if (closed.compareAndSet(false, true)) {
        listener.onClosed(new ConnectionClosed(ConnectionClosed.Kind.CLOSED_BY_US, "closed"));
      }
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public OptionalLong pid() {
      if (failPid) {
        throw new IllegalStateException("simulated bug");
      }
      return OptionalLong.empty();
    }

    /** The next message the session sent that was not answered automatically. */
    JsonRpcMessage nextSent() {
      return TestSupervisor.poll(sent, "nothing was sent within 10 s");
    }

    JsonRpcRequest nextRequest() {
      JsonRpcMessage message = nextSent();
      if (!(message instanceof JsonRpcRequest request)) {
        throw new AssertionError("expected a request, got " + JsonRpcCodec.toString(message));
      }
      return request;
    }

    JsonRpcNotification nextNotification() {
      JsonRpcMessage message = nextSent();
      if (!(message instanceof JsonRpcNotification notification)) {
        throw new AssertionError("expected a notification, got " + JsonRpcCodec.toString(message));
      }
      return notification;
    }

    /** Nothing more was sent (checked after a barrier such as a snapshot). */
    boolean nothingSent() {
      return sent.isEmpty();
    }

    void respond(JsonNode id, JsonNode result) {
      push(JsonRpcResponse.success(id, result));
    }

    void push(JsonRpcMessage message) {
      listener.onMessage(message, null);
    }

    void push(JsonRpcMessage message, JsonNode relatedRequestId) {
      listener.onMessage(message, relatedRequestId);
    }

    /** The upstream dies (process exit, broken stream). */
    void die(String detail) {
      if (closed.compareAndSet(false, true)) {
        listener.onClosed(new ConnectionClosed(ConnectionClosed.Kind.PROCESS_EXITED, detail));
      }
    }
  }

  /** For tests that wait on sessions: a short real-time bound. */
  static final Duration WAIT = Duration.ofSeconds(10);
}
