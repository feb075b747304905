package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_CANCELLED;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorErrors;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One downstream MCP session (one {@code Mcp-Session-Id}), which is also the supervisor context
 * holding its leases. It owns the session's protocol state — negotiated version, client
 * capabilities, log level, resource subscriptions, which server owns which resource — its open
 * streams, the requests in flight and the server-to-client requests waiting for the client's
 * answer.
 *
 * <p>Every POST is an exchange: requests are answered on it, and while they are in flight,
 * notifications and server-to-client requests that belong to them (progress with their token;
 * logging, sampling and elicitation from the servers they reached) go on it too, which turns it
 * into an SSE stream when the client accepts one. Everything else goes on the GET stream. A stream
 * the client closed is forgotten; its requests still run, but their answers are dropped (the
 * transport says a disconnect is not a cancellation).
 *
 * <p>Created and ended only by {@link DownstreamSessions}: it never stops on its own, it asks to be
 * ended (idle, failed initialize), so that the registry never routes a message to a session that is
 * gone.
 */
public final class DownstreamSession {

  public interface Command {}

  /** A command from HTTP, routed by session id; its exchange carries the answer. */
  public interface Routed extends Command {
    ActorRef<Exchange.Event> exchange();
  }

  /**
   * A POST's messages.
   *
   * @param preAnswered errors for batch elements that were not valid messages, sent with the other
   *     answers
   * @param batch whether the body was a JSON array (only 2025-03-26 and older allow one)
   * @param acceptsSse whether the client accepts an SSE answer
   */
  public record Post(
      List<JsonRpcMessage> messages,
      List<JsonRpcResponse> preAnswered,
      boolean batch,
      boolean acceptsSse,
      ActorRef<Exchange.Event> exchange)
      implements Routed {
    public Post {
      messages = List.copyOf(messages);
      preAnswered = List.copyOf(preAnswered);
    }
  }

  /** GET: the server-to-client stream. */
  public record OpenStream(ActorRef<Exchange.Event> exchange) implements Routed {}

  /** The HTTP side of a stream is gone (the client disconnected, or the stream ended). */
  public record ExchangeClosed(ActorRef<Exchange.Event> exchange) implements Command {}

  /** Cancel what is in flight, close every stream, release every lease, then reply and stop. */
  public record End(String reason, ActorRef<DownstreamSessions.Reply> replyTo) implements Command {}

  /** Gateway stopping: close the GET stream, reply once no exchange is open any more. */
  public record Drain(ActorRef<DownstreamSessions.Command> replyTo) implements Command {}

  // From the supervisor, through SessionListener.

  /**
   * {@code relatedTag}: the sequence number of the request it belongs to (as a string), or null.
   */
  public record UpstreamNotification(
      String server, JsonRpcNotification notification, String relatedTag) implements Command {}

  public record UpstreamRequest(
      String server, JsonRpcRequest request, String relatedTag, ActorRef<JsonRpcResponse> replyTo)
      implements Command {}

  // Private.

  private record Answered(JsonNode requestId, long sequence, Outcome outcome, Throwable failure)
      implements Command {}

  private record ServerRequestExpired(JsonNode downstreamId) implements Command {}

  private enum IdleCheck implements Command {
    INSTANCE
  }

  private enum LeasesReleased implements Command {
    INSTANCE
  }

  /** One POST whose answers are not all sent yet. */
  private static final class OpenExchange {
    final ActorRef<Exchange.Event> ref;
    final boolean acceptsSse;

    /** Answers not sent yet: all of them until the exchange streams. */
    final List<ObjectNode> unsent = new ArrayList<>();

    final List<InFlight> requests = new ArrayList<>();
    boolean streaming;
    boolean closed;

    OpenExchange(ActorRef<Exchange.Event> ref, boolean acceptsSse) {
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
  }

  /** A downstream request being answered. */
  private static final class InFlight {
    final JsonRpcRequest request;
    final long sequence;
    final OpenExchange exchange;
    final UpstreamCalls calls;
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
      this.request = request;
      this.sequence = sequence;
      this.exchange = exchange;
      this.calls = calls;
      this.carriesServerMessages = carriesServerMessages;
      JsonNode meta = request.params() == null ? null : request.params().get("_meta");
      this.progressToken = meta == null ? null : meta.get("progressToken");
    }
  }

  /** A server-to-client request sent to the client under our id, waiting for its answer. */
  private record PendingServerRequest(
      JsonNode upstreamId, String server, ActorRef<JsonRpcResponse> replyTo) {}

  /**
   * JSON-RPC batches came with 2025-03-26 and left with 2025-06-18 (2024-11-05 clients may send
   * them too).
   */
  private static final Set<String> BATCH_VERSIONS =
      Set.of(ProtocolVersions.V2025_03_26, ProtocolVersions.V2024_11_05);

  public static Behavior<Command> create(
      String id,
      McpEndpoint endpoint,
      SessionSupervisor supervisor,
      GatewaySettings settings,
      Duration idleTimeout,
      ActorRef<DownstreamSessions.Command> registry) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new DownstreamSession(
                            id,
                            endpoint,
                            supervisor,
                            settings,
                            idleTimeout,
                            registry,
                            context,
                            timers)
                        .start()));
  }

  private final String id;
  private final McpEndpoint endpoint;
  private final SessionSupervisor supervisor;
  private final GatewaySettings settings;
  private final Duration idleTimeout;
  private final ActorRef<DownstreamSessions.Command> registry;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;

  private String protocolVersion;
  private JsonNode clientCapabilities = JsonRpcCodec.emptyObject();
  private String logLevel;
  private Map<String, JsonNode> upstreams = Map.of();
  private final Map<String, String> resourceOwners = new HashMap<>();
  private final Map<String, String> templateOwners = new HashMap<>();
  private final Set<String> subscriptions = new HashSet<>();

  /** Oldest first: server messages go to the oldest exchange they belong to. */
  private final Map<ActorRef<Exchange.Event>, OpenExchange> exchanges = new LinkedHashMap<>();

  private final Map<JsonNode, InFlight> inFlight = new HashMap<>();
  private final Map<JsonNode, PendingServerRequest> serverRequests = new HashMap<>();
  private ActorRef<Exchange.Event> getStream;
  private ActorRef<DownstreamSessions.Command> drainWaiter;
  private long nextSequence;
  private long nextServerRequest;

  /** Messages the registry routed here, so that an idle end never races a message on its way. */
  private long routedProcessed;

  private DownstreamSession(
      String id,
      McpEndpoint endpoint,
      SessionSupervisor supervisor,
      GatewaySettings settings,
      Duration idleTimeout,
      ActorRef<DownstreamSessions.Command> registry,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.id = id;
    this.endpoint = endpoint;
    this.supervisor = supervisor;
    this.settings = settings;
    this.idleTimeout = idleTimeout;
    this.registry = registry;
    this.context = context;
    this.timers = timers;
  }

  private Behavior<Command> start() {
    supervisor.register(
        id,
        new SessionListener(
            context.getSelf(), context.getSystem().scheduler(), settings.serverRequestTimeout()));
    restartIdleTimer();
    return active();
  }

  // -------------------------------------------------------------------------------------------------------- active

  private Behavior<Command> active() {
    return Behaviors.receive(Command.class)
        .onMessage(Post.class, this::onPost)
        .onMessage(OpenStream.class, this::onOpenStream)
        .onMessage(ExchangeClosed.class, this::onExchangeClosed)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(UpstreamNotification.class, this::onUpstreamNotification)
        .onMessage(UpstreamRequest.class, this::onUpstreamRequest)
        .onMessage(ServerRequestExpired.class, this::onServerRequestExpired)
        .onMessageEquals(IdleCheck.INSTANCE, this::onIdleCheck)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(End.class, this::onEnd)
        .build();
  }

  private Behavior<Command> onPost(Post post) {
    routedProcessed++;
    restartIdleTimer();
    if (post.batch() && !BATCH_VERSIONS.contains(protocolVersion)) {
      post.exchange()
          .tell(
              new Exchange.Refused(
                  400,
                  McpResponses.errorBody(
                      INVALID_REQUEST,
                      "Invalid Request: protocol version "
                          + protocolVersion
                          + " does not allow batches")));
      return Behaviors.same();
    }
    OpenExchange exchange = new OpenExchange(post.exchange(), post.acceptsSse());
    exchanges.put(exchange.ref, exchange);
    post.preAnswered().forEach(error -> exchange.unsent.add(JsonRpcCodec.toJson(error)));
    for (JsonRpcMessage message : post.messages()) {
      if (message instanceof JsonRpcRequest request) {
        startRequest(exchange, request);
      } else if (message instanceof JsonRpcNotification notification) {
        onClientNotification(notification);
      } else if (message instanceof JsonRpcResponse response) {
        onClientResponse(response);
      }
    }
    finishIfAnswered(exchange);
    return Behaviors.same();
  }

  private void startRequest(OpenExchange exchange, JsonRpcRequest request) {
    if (inFlight.containsKey(request.id())) {
      answer(
          exchange,
          failure(
              request,
              INVALID_REQUEST,
              "Invalid Request: id " + request.id() + " is already in flight"));
      return;
    }
    long sequence = nextSequence++;
    // the sequence tags the upstream calls: what the supervisor relates to them comes back with it
    UpstreamCalls calls = new UpstreamCalls(supervisor, id, Long.toString(sequence));
    switch (request.method()) {
      case McpMethods.INITIALIZE -> {
        if (protocolVersion != null) {
          answer(
              exchange,
              failure(
                  request, INVALID_REQUEST, "Invalid Request: the session is already initialized"));
        } else {
          track(exchange, request, sequence, calls, false, initialize(request, calls));
        }
      }
      case McpMethods.PING ->
          answer(exchange, JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      case McpMethods.LOGGING_SET_LEVEL -> {
        String level =
            request.params() == null ? null : request.params().path("level").asText(null);
        if (level == null || !LogLevels.isLevel(level)) {
          answer(
              exchange,
              failure(request, INVALID_PARAMS, "params.level must be one of " + LogLevels.ORDER));
        } else {
          logLevel = level;
          track(exchange, request, sequence, calls, false, askUpstreamsForEveryLevel(calls));
        }
      }
      case McpMethods.RESOURCES_UNSUBSCRIBE -> {
        // upstream subscriptions are shared with other sessions: only this session stops receiving
        // updates
        subscriptions.remove(
            request.params() == null ? null : request.params().path("uri").asText(null));
        answer(exchange, JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      }
      default -> track(exchange, request, sequence, calls, true, handle(request, calls));
    }
  }

  private CompletionStage<Outcome> initialize(JsonRpcRequest request, UpstreamCalls calls) {
    JsonNode params = request.params() == null ? JsonRpcCodec.emptyObject() : request.params();
    protocolVersion = ProtocolVersions.negotiate(params.path("protocolVersion").asText(""));
    if (params.path("capabilities").isObject()) {
      clientCapabilities = params.get("capabilities");
    }
    JsonNode clientInfo = params.path("clientInfo");
    registry.tell(
        new DownstreamSessions.Describe(
            id,
            protocolVersion,
            clientInfo.path("name").asText(null),
            clientInfo.path("version").asText(null)));
    return endpoint.initialize(calls, protocolVersion);
  }

  /**
   * Upstream sessions are shared: each is asked for everything, and every session filters at its
   * own level.
   */
  private CompletionStage<Outcome> askUpstreamsForEveryLevel(UpstreamCalls calls) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("level", LogLevels.UPSTREAM_LEVEL);
    List<CompletableFuture<JsonRpcResponse>> asks = new ArrayList<>();
    for (String server : endpoint.servers()) {
      JsonNode init = upstreams.get(server);
      if (init != null && init.path("capabilities").has("logging")) {
        asks.add(calls.call(server, McpMethods.LOGGING_SET_LEVEL, params).toCompletableFuture());
      }
    }
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
        .handle((allDone, failure) -> new Outcome.Result(JsonRpcCodec.emptyObject()));
  }

  private CompletionStage<Outcome> handle(JsonRpcRequest request, UpstreamCalls calls) {
    McpEndpoint.View view =
        new McpEndpoint.View(
            upstreams,
            Collections.unmodifiableMap(resourceOwners),
            Collections.unmodifiableMap(templateOwners));
    try {
      return endpoint.handle(request, view, calls);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void track(
      OpenExchange exchange,
      JsonRpcRequest request,
      long sequence,
      UpstreamCalls calls,
      boolean carriesServerMessages,
      CompletionStage<Outcome> outcome) {
    InFlight call = new InFlight(request, sequence, exchange, calls, carriesServerMessages);
    inFlight.put(request.id(), call);
    exchange.requests.add(call);
    context.pipeToSelf(
        outcome, (result, failure) -> new Answered(request.id(), call.sequence, result, failure));
  }

  private Behavior<Command> onAnswered(Answered answered) {
    InFlight call = inFlight.get(answered.requestId());
    if (call == null || call.sequence != answered.sequence()) {
      return Behaviors.same();
    }
    if (call.cancelled) {
      complete(call, null);
      return Behaviors.same();
    }
    // the supervisor hands this context's listener every notification sent before an answer before
    // the answer, and
    // both reach this actor in that order: whatever belongs on the stream is on it already
    complete(call, apply(call.request, answered.outcome(), answered.failure()));
    return Behaviors.same();
  }

  /**
   * The request is done: its answer (null: none, it was cancelled) goes out, and its exchange may
   * finish.
   */
  private void complete(InFlight call, JsonRpcResponse response) {
    inFlight.remove(call.request.id());
    call.exchange.requests.remove(call);
    if (response != null) {
      answer(call.exchange, response);
      if (McpMethods.INITIALIZE.equals(call.request.method()) && response.isError()) {
        registry.tell(
            new DownstreamSessions.EndMe(
                id, "initialize failed: " + response.error().message(), -1));
      }
    }
    finishIfAnswered(call.exchange);
    restartIdleTimer();
  }

  /** Remembers what the outcome teaches the session, and turns it into the response. */
  private JsonRpcResponse apply(JsonRpcRequest request, Outcome outcome, Throwable failure) {
    if (failure != null) {
      context
          .getLog()
          .error("session {}: {} failed", SessionIds.redact(id), request.method(), failure);
      return failure(request, INTERNAL_ERROR, "internal error");
    }
    if (outcome instanceof Outcome.Failure failed) {
      return JsonRpcResponse.failure(request.id(), failed.error());
    }
    JsonNode result;
    if (outcome instanceof Outcome.Initialized initialized) {
      upstreams = Map.copyOf(initialized.upstreams());
      result = initialized.result();
    } else if (outcome instanceof Outcome.ResourcesLearned learned) {
      resourceOwners.putAll(learned.owners());
      templateOwners.putAll(learned.templateOwners());
      result = learned.result();
    } else if (outcome instanceof Outcome.Subscribed subscribed) {
      subscriptions.add(subscribed.uri());
      resourceOwners.putIfAbsent(subscribed.uri(), subscribed.server());
      result = subscribed.result();
    } else {
      result = ((Outcome.Result) outcome).result();
    }
    return JsonRpcResponse.success(request.id(), result);
  }

  private void onClientNotification(JsonRpcNotification notification) {
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_CANCELLED -> {
        InFlight call = inFlight.get(params.path("requestId"));
        if (call != null && call.carriesServerMessages && !call.cancelled) {
          call.cancelled = true;
          call.calls.cancelAll();
        }
      }
      case McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED -> {
        // only a client with roots can answer the roots/list that servers send in reply
        if (clientCapabilities.has("roots")) {
          endpoint
              .servers()
              .forEach(server -> supervisor.notify(id, server, notification.method(), params));
        }
      }
      default -> {
        // notifications/initialized and anything else: nothing to do
      }
    }
  }

  private void onClientResponse(JsonRpcResponse response) {
    PendingServerRequest pending = serverRequests.remove(response.id());
    if (pending == null) {
      context
          .getLog()
          .debug("session {}: answer for unknown request {}", SessionIds.redact(id), response.id());
      return;
    }
    timers.cancel(response.id());
    pending.replyTo().tell(response.withId(pending.upstreamId()));
  }

  // ------------------------------------------------------------------------------------------------------ streams

  private Behavior<Command> onOpenStream(OpenStream open) {
    routedProcessed++;
    restartIdleTimer();
    if (drainWaiter != null) {
      open.exchange().tell(refused(503, "the gateway is shutting down"));
    } else if (getStream != null) {
      open.exchange().tell(refused(409, "Conflict: this session already has an open GET stream"));
    } else {
      getStream = open.exchange();
      getStream.tell(Exchange.Opened.INSTANCE);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onExchangeClosed(ExchangeClosed closed) {
    routedProcessed++;
    if (closed.exchange().equals(getStream)) {
      getStream = null;
    }
    OpenExchange exchange = exchanges.remove(closed.exchange());
    if (exchange != null) {
      exchange.closed = true;
    }
    replyIfDrained();
    return Behaviors.same();
  }

  private void answer(OpenExchange exchange, JsonRpcResponse response) {
    if (exchange.closed) {
      return;
    }
    ObjectNode json = JsonRpcCodec.toJson(response);
    if (exchange.streaming) {
      exchange.ref.tell(new Exchange.Message(json));
    } else {
      exchange.unsent.add(json);
    }
  }

  private void finishIfAnswered(OpenExchange exchange) {
    if (!exchange.closed && exchange.requests.isEmpty()) {
      exchange.ref.tell(new Exchange.Complete(exchange.unsent));
      exchange.closed = true;
      exchanges.remove(exchange.ref);
      replyIfDrained();
    }
  }

  /** Sends a server message on an exchange, which from now on streams (answers included). */
  private void send(OpenExchange exchange, ObjectNode json) {
    exchange.ref.tell(new Exchange.Message(json));
    if (!exchange.streaming) {
      exchange.streaming = true;
      exchange.unsent.forEach(unsent -> exchange.ref.tell(new Exchange.Message(unsent)));
      exchange.unsent.clear();
    }
  }

  /**
   * On the oldest streaming-capable exchange with a request that reached the server, else on the
   * GET stream.
   */
  private boolean sendRelated(ObjectNode json, String server) {
    return sendOnRelatedExchange(json, server) || sendOnGetStream(json);
  }

  /**
   * On the stream of the request the supervisor related the message to (by its tag), if it is still
   * open.
   */
  private boolean sendOnTaggedExchange(ObjectNode json, String relatedTag) {
    if (relatedTag == null) {
      return false;
    }
    for (InFlight call : inFlight.values()) {
      if (Long.toString(call.sequence).equals(relatedTag)) {
        if (call.exchange.acceptsSse && !call.exchange.closed) {
          send(call.exchange, json);
          return true;
        }
        return false;
      }
    }
    return false;
  }

  private boolean sendOnRelatedExchange(ObjectNode json, String server) {
    for (OpenExchange exchange : exchanges.values()) {
      if (exchange.acceptsSse && !exchange.closed && exchange.relatesTo(server)) {
        send(exchange, json);
        return true;
      }
    }
    return false;
  }

  /** On the GET stream, else on an exchange it relates to. */
  private boolean sendUnrelated(ObjectNode json, String server) {
    return sendOnGetStream(json) || sendRelated(json, server);
  }

  private boolean sendOnGetStream(ObjectNode json) {
    if (getStream == null) {
      return false;
    }
    getStream.tell(new Exchange.Message(json));
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // from the upstreams

  private Behavior<Command> onUpstreamNotification(UpstreamNotification upstream) {
    JsonRpcNotification notification = upstream.notification();
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_PROGRESS ->
          sendProgress(upstream.server(), notification, params);
      case McpMethods.NOTIFICATION_MESSAGE -> {
        String threshold = logLevel != null ? logLevel : LogLevels.DEFAULT_THRESHOLD;
        // logs on a request's upstream stream come tagged with that request: they go on its stream.
        // Untagged ones
        // (stdio) reach every context leased on that upstream session: only a session with a
        // request in flight
        // there can be the one they are about, so the GET stream never carries them (no
        // cross-client leak)
        if (LogLevels.passes(params.path("level").asText(""), threshold)) {
          ObjectNode json = JsonRpcCodec.toJson(notification);
          if (!sendOnTaggedExchange(json, upstream.relatedTag())) {
            sendOnRelatedExchange(json, upstream.server());
          }
        }
      }
      case McpMethods.NOTIFICATION_RESOURCE_UPDATED -> {
        if (subscriptions.contains(params.path("uri").asText(""))) {
          sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
        }
      }
      case McpMethods.NOTIFICATION_CANCELLED ->
          withdrawServerRequest(upstream.server(), notification, params);
      default -> sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
    }
    return Behaviors.same();
  }

  /**
   * Progress carries the client's own token (the supervisor restored it): it goes with that
   * request.
   */
  private void sendProgress(String server, JsonRpcNotification notification, JsonNode params) {
    JsonNode token = params.get("progressToken");
    for (InFlight call : inFlight.values()) {
      if (token != null && token.equals(call.progressToken) && call.calls.reached(server)) {
        ObjectNode json = JsonRpcCodec.toJson(notification);
        if (call.exchange.acceptsSse && !call.exchange.closed) {
          send(call.exchange, json);
        } else {
          sendOnGetStream(json);
        }
        return;
      }
    }
  }

  /** The upstream gave up on one of its requests: tell the client under the id it knows. */
  private void withdrawServerRequest(
      String server, JsonRpcNotification notification, JsonNode params) {
    JsonNode upstreamId = params.get("requestId");
    Iterator<Map.Entry<JsonNode, PendingServerRequest>> pending =
        serverRequests.entrySet().iterator();
    while (pending.hasNext()) {
      Map.Entry<JsonNode, PendingServerRequest> entry = pending.next();
      if (entry.getValue().upstreamId().equals(upstreamId)
          && entry.getValue().server().equals(server)) {
        pending.remove();
        timers.cancel(entry.getKey());
        ObjectNode withdrawn = ((ObjectNode) params).deepCopy();
        withdrawn.set("requestId", entry.getKey());
        sendUnrelated(JsonRpcCodec.toJson(notification.withParams(withdrawn)), server);
        return;
      }
    }
  }

  /**
   * Sampling, elicitation, roots: sent to the client under an id of ours; its answer goes back
   * upstream.
   */
  private Behavior<Command> onUpstreamRequest(UpstreamRequest upstream) {
    JsonRpcRequest request = upstream.request();
    if (McpMethods.PING.equals(request.method())) {
      upstream.replyTo().tell(JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      return Behaviors.same();
    }
    String capability = requiredCapability(request.method());
    if (capability != null && !clientCapabilities.has(capability)) {
      refuseServerRequest(upstream, "the client did not declare the " + capability + " capability");
      return Behaviors.same();
    }
    JsonNode downstreamId = TextNode.valueOf("gw-" + ++nextServerRequest);
    ObjectNode json = JsonRpcCodec.toJson(request.withId(downstreamId));
    if (!sendOnTaggedExchange(json, upstream.relatedTag())
        && !sendRelated(json, upstream.server())) {
      refuseServerRequest(
          upstream, "no stream is open to the client (no SSE request in flight, no GET stream)");
      return Behaviors.same();
    }
    serverRequests.put(
        downstreamId,
        new PendingServerRequest(request.id(), upstream.server(), upstream.replyTo()));
    timers.startSingleTimer(
        downstreamId, new ServerRequestExpired(downstreamId), settings.serverRequestTimeout());
    return Behaviors.same();
  }

  private static String requiredCapability(String method) {
    return switch (method) {
      case McpMethods.SAMPLING_CREATE_MESSAGE -> "sampling";
      case McpMethods.ELICITATION_CREATE -> "elicitation";
      case McpMethods.ROOTS_LIST -> "roots";
      default -> null;
    };
  }

  private void refuseServerRequest(UpstreamRequest upstream, String why) {
    upstream
        .replyTo()
        .tell(
            JsonRpcResponse.failure(
                upstream.request().id(),
                SupervisorErrors.noClient(upstream.server(), upstream.request().method(), why)));
  }

  private Behavior<Command> onServerRequestExpired(ServerRequestExpired expired) {
    // the supervisor answers its upstream by its own timer; this only forgets the entry
    serverRequests.remove(expired.downstreamId());
    return Behaviors.same();
  }

  // --------------------------------------------------------------------------------------------------- lifecycle

  private void restartIdleTimer() {
    timers.startSingleTimer(IdleCheck.INSTANCE, IdleCheck.INSTANCE, idleTimeout);
  }

  private Behavior<Command> onIdleCheck() {
    if (inFlight.isEmpty()) {
      registry.tell(new DownstreamSessions.EndMe(id, "idle for " + idleTimeout, routedProcessed));
    }
    restartIdleTimer();
    return Behaviors.same();
  }

  private Behavior<Command> onDrain(Drain drain) {
    drainWaiter = drain.replyTo();
    if (getStream != null) {
      getStream.tell(new Exchange.Complete(List.of()));
      getStream = null;
    }
    replyIfDrained();
    return Behaviors.same();
  }

  private void replyIfDrained() {
    if (drainWaiter != null && exchanges.isEmpty()) {
      drainWaiter.tell(new DownstreamSessions.Drained(id));
      drainWaiter = null;
    }
  }

  private Behavior<Command> onEnd(End end) {
    context
        .getLog()
        .info("session {} on {} ended: {}", SessionIds.redact(id), endpoint.path(), end.reason());
    for (InFlight call : inFlight.values()) {
      call.cancelled = true;
      call.calls.cancelAll();
      answer(
          call.exchange, failure(call.request, REQUEST_CANCELLED, "the downstream session ended"));
      call.exchange.requests.clear();
    }
    inFlight.clear();
    new ArrayList<>(exchanges.values()).forEach(this::finishIfAnswered);
    if (getStream != null) {
      getStream.tell(new Exchange.Complete(List.of()));
      getStream = null;
    }
    serverRequests.forEach(
        (downstreamId, pending) ->
            pending
                .replyTo()
                .tell(
                    JsonRpcResponse.failure(
                        pending.upstreamId(),
                        SupervisorErrors.noClient(
                            pending.server(),
                            "a server request",
                            "the downstream session ended"))));
    serverRequests.clear();
    timers.cancelAll();
    if (drainWaiter != null) {
      drainWaiter.tell(new DownstreamSessions.Drained(id));
      drainWaiter = null;
    }
    context.pipeToSelf(supervisor.releaseAll(id), (done, failure) -> LeasesReleased.INSTANCE);
    List<ActorRef<DownstreamSessions.Reply>> waiters = new ArrayList<>();
    waiters.add(end.replyTo());
    return ending(waiters);
  }

  /**
   * Waiting for the supervisor to release every lease; then replies to whoever asked for the end,
   * and stops.
   */
  private Behavior<Command> ending(List<ActorRef<DownstreamSessions.Reply>> waiters) {
    return Behaviors.receive(Command.class)
        .onMessage(
            End.class,
            end -> {
              waiters.add(end.replyTo());
              return Behaviors.same();
            })
        .onMessage(
            UpstreamRequest.class,
            upstream -> {
              refuseServerRequest(upstream, "the downstream session ended");
              return Behaviors.same();
            })
        .onMessage(
            Routed.class,
            routed -> {
              routed.exchange().tell(refused(404, "Session not found"));
              return Behaviors.same();
            })
        .onMessage(
            Drain.class,
            drain -> {
              drain.replyTo().tell(new DownstreamSessions.Drained(id));
              return Behaviors.same();
            })
        .onMessageEquals(
            LeasesReleased.INSTANCE,
            () -> {
              waiters.forEach(waiter -> waiter.tell(DownstreamSessions.Reply.DONE));
              return Behaviors.stopped();
            })
        .onAnyMessage(ignored -> Behaviors.same())
        .build();
  }

  // ------------------------------------------------------------------------------------------------------ helpers

  private static JsonRpcResponse failure(JsonRpcRequest request, int code, String message) {
    return JsonRpcResponse.failure(request.id(), new JsonRpcError(code, message));
  }

  static Exchange.Refused refused(int status, String message) {
    return new Exchange.Refused(status, McpResponses.errorBody(INVALID_REQUEST, message));
  }
}
