package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.StatelessExchange.Kind;
import dev.mcpsupervisor.upstream.StatelessMessages.Envelope;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presents a server that speaks only MCP 2026-07-28 (stateless) as a session-era connection, so
 * that the session above needs no change. The session's initialize is served by server/discover,
 * its ping too (a stateless server has none: discover proves it answers), its log level is kept and
 * sent in {@code _meta}; every other request goes upstream with the envelope ({@code _meta}
 * protocol version, the client capabilities and info the session declared at initialize) under an
 * id of ours. An {@code input_required} result starts a round of {@link InputRoundRelay}: the
 * session is asked, then the request is sent again with the answers, as often as the server asks.
 * The final result reaches the session under its own id, without {@code resultType}. Change
 * notifications come from {@link ListenStream}.
 *
 * <p>The transport below moves stateless messages (stdio, or {@link StatelessHttpConnection}). All
 * state lives on one strand: the session's sends and the transport's reads queue up on it.
 */
final class StatelessAdapter implements UpstreamConnection, ConnectionListener {

  private static final Logger log = LoggerFactory.getLogger(StatelessAdapter.class);

  private static final Set<String> LOG_LEVELS =
      Set.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");
  private static final Executor POOL = DaemonThreads.cachedPool("mcp-stateless");

  private final ConnectionEvents events;
  private final SerialExecutor strand = new SerialExecutor(POOL);
  private final EraProbe probe;
  private volatile UpstreamConnection transport;

  // owned by the strand
  private Envelope envelope = new Envelope(JsonRpcCodec.emptyObject(), null, null);
  private final StatelessExchanges exchanges = new StatelessExchanges();
  private final InputRoundRelay inputs;
  private final ListenStream listen;
  private boolean closed;

  /**
   * @param name the connection as logs name it
   * @param probe told what discover found (auto mode), or null when the server is known to speak
   *     2026-07-28 (then an initialize fails if discover does not confirm it)
   */
  StatelessAdapter(String name, ConnectionListener listener, EraProbe probe) {
    this.events = new ConnectionEvents(name, listener);
    this.probe = probe;
    this.inputs =
        new InputRoundRelay(
            events,
            new InputRoundRelay.Outcome() {
              @Override
              public void retry(StatelessExchange exchange, ObjectNode params) {
                sendRound(exchange, params);
              }

              @Override
              public void answer(StatelessExchange exchange, JsonRpcResponse response) {
                StatelessAdapter.this.answer(exchange, response);
              }
            });
    this.listen = new ListenStream(name, strand, exchanges::nextUpstreamId, this::transmit, events);
  }

  /** The transport to speak through; set once, before the first send. */
  StatelessAdapter attach(UpstreamConnection transport) {
    this.transport = transport;
    return this;
  }

  // ------------------------------------------------------------------------- from the session

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    CompletableFuture<Void> stage = new CompletableFuture<>();
    strand.execute(
        () -> {
          try {
            fromSession(message, stage);
          } catch (RuntimeException e) {
            stage.completeExceptionally(e);
          }
        });
    return stage;
  }

  private void fromSession(JsonRpcMessage message, CompletableFuture<Void> stage) {
    if (closed) {
      stage.completeExceptionally(new IOException(events.name() + " is closed"));
    } else if (message instanceof JsonRpcRequest request) {
      fromSession(request, stage);
    } else {
      if (message instanceof JsonRpcNotification notification
          && McpMethods.NOTIFICATION_CANCELLED.equals(notification.method())) {
        cancel(notification);
      } else if (message instanceof JsonRpcResponse answer) {
        inputs.answered(answer);
      } // other notifications (initialized, roots changed) have no place in 2026-07-28
      stage.complete(null);
    }
  }

  private void fromSession(JsonRpcRequest request, CompletableFuture<Void> stage) {
    JsonNode params = request.params() == null ? JsonRpcCodec.emptyObject() : request.params();
    switch (request.method()) {
      case McpMethods.INITIALIZE -> {
        envelope = Envelope.of(request);
        StatelessExchange exchange = discoverExchange(Kind.INITIALIZE, request);
        start(exchange, stage);
        if (probe != null) {
          long round = exchange.upstreamId;
          CompletableFuture.delayedExecutor(
                  probe.timeout().toMillis(), TimeUnit.MILLISECONDS, strand)
              .execute(
                  () -> {
                    if (exchanges.awaits(round, exchange)) {
                      abortRound(exchange);
                      roundFailed(exchange, round, new TimeoutException("no answer in time"));
                    }
                  });
        }
      }
      case McpMethods.PING -> start(discoverExchange(Kind.PING, request), stage);
      case McpMethods.LOGGING_SET_LEVEL -> {
        String level = params.path("level").asText("");
        if (LOG_LEVELS.contains(level)) {
          envelope = envelope.withLogLevel(level);
          deliver(JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
        } else {
          deliver(
              StatelessMessages.error(
                  request.id(), JsonRpcErrorCodes.INVALID_PARAMS, "unknown log level: " + level));
        }
        stage.complete(null);
      }
      case McpMethods.RESOURCES_SUBSCRIBE, McpMethods.RESOURCES_UNSUBSCRIBE -> {
        deliver(listen.subscription(request, envelope));
        stage.complete(null);
      }
      default ->
          start(
              new StatelessExchange(
                  Kind.CALL,
                  request,
                  request.method(),
                  StatelessMessages.withEnvelope(request.params(), envelope)),
              stage);
    }
  }

  private StatelessExchange discoverExchange(Kind kind, JsonRpcRequest request) {
    return new StatelessExchange(
        kind, request, McpMethods.SERVER_DISCOVER, StatelessMessages.withEnvelope(null, envelope));
  }

  private void start(StatelessExchange exchange, CompletableFuture<Void> stage) {
    exchange.done.whenComplete(
        (done, failure) -> {
          if (failure == null) {
            stage.complete(null);
          } else {
            stage.completeExceptionally(failure);
          }
        });
    exchanges.open(exchange);
    sendRound(exchange, exchange.params);
  }

  private void sendRound(StatelessExchange exchange, ObjectNode params) {
    long id = exchanges.startRound(exchange);
    transmit(new JsonRpcRequest(LongNode.valueOf(id), exchange.method, params))
        .whenComplete(
            (sent, failure) -> {
              if (failure != null) {
                strand.execute(() -> roundFailed(exchange, id, failure));
              }
            });
  }

  private CompletionStage<Void> transmit(JsonRpcMessage message) {
    try {
      return transport.send(message);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The round's request could not be sent, or its answer was lost (a broken HTTP stream). */
  private void roundFailed(StatelessExchange exchange, long upstreamId, Throwable failure) {
    if (!exchanges.awaits(upstreamId, exchange)) {
      return; // answered or withdrawn meanwhile
    }
    exchanges.forget(exchange);
    if (exchange.kind == Kind.INITIALIZE && probe != null) {
      log.debug(
          "{}: server/discover failed ({}): not stateless", events.name(), failure.toString());
      fallBack(exchange);
    } else {
      exchange.done.completeExceptionally(failure);
    }
  }

  private void cancel(JsonRpcNotification cancelled) {
    JsonNode requestId = cancelled.params() == null ? null : cancelled.params().get("requestId");
    StatelessExchange exchange = exchanges.ofSessionRequest(requestId);
    if (exchange == null) {
      return;
    }
    exchanges.forget(exchange);
    String reason = cancelled.params().path("reason").asText("cancelled by the client");
    inputs.withdraw(exchange, reason);
    if (exchange.inFlight) {
      abortRound(exchange, reason);
    }
    exchange.done.complete(null);
  }

  private void abortRound(StatelessExchange exchange) {
    abortRound(exchange, "no longer wanted");
  }

  /**
   * Tells the server to stop on the round in flight (over HTTP the transport closes the round's
   * stream instead: that is the 2026-07-28 cancel).
   */
  private void abortRound(StatelessExchange exchange, String reason) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("requestId", exchange.upstreamId);
    params.put("reason", reason);
    transmit(new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params));
  }

  // ------------------------------------------------------------------------ from the upstream

  @Override
  public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
    strand.execute(() -> fromUpstream(message, relatedRequestId));
  }

  private void fromUpstream(JsonRpcMessage message, JsonNode relatedRequestId) {
    if (closed || listen.consumed(message)) {
      return;
    }
    if (message instanceof JsonRpcResponse answer) {
      StatelessExchange exchange = exchanges.answered(answer.id());
      if (exchange == null) {
        log.debug("{}: dropped an answer nothing waits for: id {}", events.name(), answer.id());
        return;
      }
      onRoundAnswer(exchange, answer);
    } else {
      StatelessExchange exchange = exchanges.ofRound(relatedRequestId);
      events.message(message, exchange == null ? null : exchange.sessionId());
    }
  }

  private void onRoundAnswer(StatelessExchange exchange, JsonRpcResponse answer) {
    switch (exchange.kind) {
      case INITIALIZE -> onDiscovered(exchange, answer);
      case PING ->
          answer(
              exchange,
              answer.isError()
                  ? answer
                  : JsonRpcResponse.success(exchange.sessionId(), JsonRpcCodec.emptyObject()));
      case CALL -> {
        if (StatelessMessages.isInputRequired(answer)) {
          inputs.ask(exchange, answer.result());
        } else {
          answer(exchange, StatelessMessages.forSessionClient(answer, exchange.sessionId()));
        }
      }
    }
  }

  private void onDiscovered(StatelessExchange exchange, JsonRpcResponse answer) {
    if (StatelessMessages.speaksStateless(answer)) {
      if (probe != null) {
        probe.stateless();
      }
      answer(
          exchange,
          JsonRpcResponse.success(
              exchange.sessionId(),
              StatelessMessages.initializeResult(exchange.request, answer.result())));
      listen.start(answer.result().path("capabilities"), envelope);
    } else if (probe != null) {
      log.debug("{}: server/discover answered {}: not stateless", events.name(), answer);
      exchanges.forget(exchange);
      fallBack(exchange);
    } else {
      answer(exchange, StatelessMessages.notStateless(answer, exchange.sessionId()));
    }
  }

  private void fallBack(StatelessExchange initialize) {
    probe
        .notStateless(initialize.request)
        .whenComplete(
            (sent, failure) -> {
              if (failure == null) {
                initialize.done.complete(null);
              } else {
                initialize.done.completeExceptionally(failure);
              }
            });
  }

  // ------------------------------------------------------------------------------ answering

  private void answer(StatelessExchange exchange, JsonRpcResponse response) {
    exchanges.forget(exchange);
    deliver(response.withId(exchange.sessionId()));
    exchange.done.complete(null);
  }

  private void deliver(JsonRpcResponse response) {
    events.message(response, null);
  }

  // ------------------------------------------------------------------------------- lifecycle

  @Override
  public void onClosed(ConnectionClosed cause) {
    strand.execute(() -> ended(cause.kind(), cause.detail()));
  }

  /** The session hears of the end first, then the sends it waits on fail. */
  private void ended(ConnectionClosed.Kind kind, String detail) {
    closed = true;
    events.close(kind, detail);
    listen.stop();
    IOException gone = new IOException(events.name() + " is closed: " + detail);
    List<StatelessExchange> open = exchanges.clear();
    inputs.clear();
    open.forEach(exchange -> exchange.done.completeExceptionally(gone));
  }

  @Override
  public CompletionStage<Void> close() {
    events.close(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor");
    strand.execute(() -> ended(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor"));
    return transport.close();
  }

  @Override
  public OptionalLong pid() {
    return transport.pid();
  }
}
