package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.http.stream.SparseMaps;
import dev.mcpsupervisor.http.stream.StreamResumption;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A downstream session's streams to its client and the requests in flight on them: which POST
 * exchange answers which request, which server message goes on which stream. Every POST is an
 * exchange: its requests are answered on it, and while they are in flight the server messages that
 * belong to them go on it too, which turns it into an SSE stream when the client accepts one;
 * everything else goes on the GET stream. Plain bookkeeping on the session's thread; the session
 * decides what to send, this decides where.
 */
final class DownstreamStreams {

  /** One POST whose answers are not all sent yet. */
  static final class OpenExchange {
    final ExchangeSink ref;
    final boolean acceptsSse;

    /** Answers not sent yet: all of them until the exchange streams. */
    final List<ObjectNode> unsent = new ArrayList<>();

    final List<InFlight> requests = new ArrayList<>();
    boolean streaming;
    boolean closed;

    OpenExchange(ExchangeSink ref, boolean acceptsSse) {
      this.ref = ref;
      this.acceptsSse = acceptsSse;
    }

    /**
     * Whether server messages from this server belong here: a request on it reached that server.
     */
    boolean relatesTo(String server) {
      for (InFlight request : requests) {
        if (request.carriesServerMessages && request.calls.reached(server)) {
          return true;
        }
      }
      return false;
    }

    boolean isOpenStream() {
      return acceptsSse && !closed;
    }
  }

  /** A downstream request being answered. */
  static final class InFlight {
    /** The id it is tracked under: its request's. */
    final JsonNode key;

    final long sequence;
    final UpstreamCalls calls;

    /** The request the answer goes to. */
    final JsonRpcRequest request;

    final OpenExchange exchange;
    final JsonNode progressToken;

    /** initialize and setLevel do not: nothing a server sends meanwhile belongs to them. */
    final boolean carriesServerMessages;

    boolean cancelled;

    InFlight(
        JsonRpcRequest request,
        long sequence,
        OpenExchange exchange,
        UpstreamCalls calls,
        boolean carriesServerMessages) {
      this.key = request.id();
      this.sequence = sequence;
      this.calls = calls;
      this.carriesServerMessages = carriesServerMessages;
      this.exchange = exchange;
      this.request = request;
      JsonNode meta = request.params() == null ? null : request.params().get("_meta");
      this.progressToken = meta == null ? null : meta.get("progressToken");
    }
  }

  /**
   * Oldest first: server messages go to the oldest exchange they belong to. Sparse (see {@link
   * SparseMaps}), as is {@link #inFlight}: an idle session holds neither map.
   */
  private Map<ExchangeSink, OpenExchange> exchanges = Map.of();

  private Map<JsonNode, InFlight> inFlight = Map.of();
  private ExchangeSink getStream;

  /**
   * Every event goes through it: ids and replay for clients that resume streams; until one is set
   * ({@link #replayWith}), the shared pass-through one.
   */
  StreamResumption replay = StreamResumption.DISABLED;

  /** The client resumes streams: from now on events go through {@code resumable}. */
  void replayWith(StreamResumption resumable) {
    replay = resumable;
  }

  OpenExchange open(ExchangeSink ref, boolean acceptsSse) {
    OpenExchange exchange = new OpenExchange(ref, acceptsSse);
    exchanges = SparseMaps.withLinked(exchanges, ref, exchange);
    replay.opened(ref, acceptsSse);
    return exchange;
  }

  boolean isInFlight(JsonNode requestId) {
    return inFlight.containsKey(requestId);
  }

  InFlight inFlight(JsonNode requestId) {
    return inFlight.get(requestId);
  }

  boolean nothingInFlight() {
    return inFlight.isEmpty();
  }

  InFlight track(
      OpenExchange exchange,
      JsonRpcRequest request,
      long sequence,
      UpstreamCalls calls,
      boolean carriesServerMessages) {
    InFlight call = new InFlight(request, sequence, exchange, calls, carriesServerMessages);
    inFlight = SparseMaps.with(inFlight, request.id(), call);
    exchange.requests.add(call);
    return call;
  }

  /**
   * The request is done: its answer (null: none, it was cancelled) goes out, and its exchange may
   * finish.
   */
  void complete(InFlight call, JsonRpcResponse response) {
    inFlight = SparseMaps.without(inFlight, call.key);
    call.exchange.requests.remove(call);
    if (response != null) {
      answer(call.exchange, response);
    }
    finishIfAnswered(call.exchange);
  }

  /**
   * Ends the call with {@code error}, sent with {@code httpStatus} when it is its exchange's only
   * answer and nothing streamed yet (else in the stream, as any answer).
   */
  void refuse(InFlight call, JsonRpcResponse error, int httpStatus) {
    OpenExchange exchange = call.exchange;
    if (exchange.streaming
        || exchange.closed
        || exchange.requests.size() > 1
        || !exchange.unsent.isEmpty()) {
      complete(call, error);
      return;
    }
    inFlight = SparseMaps.without(inFlight, call.key);
    exchange.requests.remove(call);
    exchange.ref.tell(new Exchange.Refused(httpStatus, JsonRpcCodec.toJson(error)));
    exchange.closed = true;
    exchanges = SparseMaps.without(exchanges, exchange.ref);
  }

  void answer(OpenExchange exchange, JsonRpcResponse response) {
    if (exchange.closed) {
      return;
    }
    ObjectNode json = JsonRpcCodec.toJson(response);
    if (exchange.streaming) {
      replay.tell(exchange.ref, new Exchange.Message(json));
    } else {
      exchange.unsent.add(json);
    }
  }

  void finishIfAnswered(OpenExchange exchange) {
    if (!exchange.closed && exchange.requests.isEmpty()) {
      replay.tell(exchange.ref, new Exchange.Complete(exchange.unsent));
      exchange.closed = true;
      exchanges = SparseMaps.without(exchanges, exchange.ref);
    }
  }

  /**
   * The HTTP side of a stream is gone: forgotten, unless the client may resume it; its requests
   * still run, their answers are dropped (or kept for the client's return).
   */
  void closed(ExchangeSink ref) {
    if (replay.detached(ref)) {
      return;
    }
    if (ref.equals(getStream)) {
      getStream = null;
    }
    OpenExchange exchange = exchanges.get(ref);
    exchanges = SparseMaps.without(exchanges, ref);
    if (exchange != null) {
      exchange.closed = true;
    }
  }

  boolean noExchangeOpen() {
    return exchanges.isEmpty();
  }

  /** False when a GET stream is open already (one per session). */
  boolean openGetStream(ExchangeSink ref) {
    if (getStream != null) {
      return false;
    }
    getStream = ref;
    replay.openedGet(ref);
    return true;
  }

  /**
   * A GET with Last-Event-ID: the stream that id belongs to goes on on {@code ref} (the GET stream
   * if it was that); a plain GET stream when the session does not resume streams.
   */
  boolean resume(String lastEventId, ExchangeSink ref) {
    if (!replay.enabled()) {
      return openGetStream(ref);
    }
    if (replay.resume(lastEventId, ref) == null && replay.isGetStream(lastEventId)) {
      if (getStream != null && replay.carries(getStream)) { // another GET stream: replaced
        replay.tell(getStream, new Exchange.Complete(List.of()));
      }
      getStream = ref;
    }
    return true;
  }

  void closeGetStream() {
    if (getStream != null) {
      replay.tell(getStream, new Exchange.Complete(List.of()));
      getStream = null;
    }
  }

  /** Every request in flight, for cancelling them all. */
  Collection<InFlight> allInFlight() {
    return List.copyOf(inFlight.values());
  }

  /**
   * The session ends: every request in flight is answered with {@code answerOf}, every stream
   * completed.
   */
  void endAll(java.util.function.Function<InFlight, JsonRpcResponse> answerOf) {
    for (InFlight call : inFlight.values()) {
      answer(call.exchange, answerOf.apply(call));
      call.exchange.requests.clear();
    }
    inFlight = Map.of();
    new ArrayList<>(exchanges.values()).forEach(this::finishIfAnswered);
    closeGetStream();
  }

  // --------------------------------------------------------------------------------- where it goes

  /**
   * On the oldest streaming-capable exchange with a request that reached the server, else on the
   * GET stream.
   */
  boolean sendRelated(ObjectNode json, String server) {
    return sendOnRelatedExchange(json, server) || sendOnGetStream(json);
  }

  /** On the GET stream, else on an exchange it relates to. */
  boolean sendUnrelated(ObjectNode json, String server) {
    return sendOnGetStream(json) || sendRelated(json, server);
  }

  /**
   * On the stream of the request the supervisor related the message to (by its tag), if it is still
   * open.
   */
  boolean sendOnTaggedExchange(ObjectNode json, String relatedTag) {
    if (relatedTag == null) {
      return false;
    }
    for (InFlight call : inFlight.values()) {
      if (Long.toString(call.sequence).equals(relatedTag)) {
        if (call.exchange.isOpenStream()) {
          send(call.exchange, json);
          return true;
        }
        return false;
      }
    }
    return false;
  }

  boolean sendOnRelatedExchange(ObjectNode json, String server) {
    for (OpenExchange exchange : exchanges.values()) {
      if (exchange.isOpenStream() && exchange.relatesTo(server)) {
        send(exchange, json);
        return true;
      }
    }
    return false;
  }

  /**
   * Progress carries the client's own token: it goes with the request that has it, else on the GET
   * stream.
   */
  void sendProgress(ObjectNode json, JsonNode token, String server) {
    for (InFlight call : inFlight.values()) {
      if (token != null && token.equals(call.progressToken) && call.calls.reached(server)) {
        if (call.exchange.isOpenStream()) {
          send(call.exchange, json);
        } else {
          sendOnGetStream(json);
        }
        return;
      }
    }
  }

  private boolean sendOnGetStream(ObjectNode json) {
    if (getStream == null) {
      return false;
    }
    replay.tell(getStream, new Exchange.Message(json));
    return true;
  }

  /** Sends a server message on an exchange, which from now on streams (answers included). */
  private void send(OpenExchange exchange, ObjectNode json) {
    replay.tell(exchange.ref, new Exchange.Message(json));
    if (!exchange.streaming) {
      exchange.streaming = true;
      exchange.unsent.forEach(unsent -> replay.tell(exchange.ref, new Exchange.Message(unsent)));
      exchange.unsent.clear();
    }
  }
}
