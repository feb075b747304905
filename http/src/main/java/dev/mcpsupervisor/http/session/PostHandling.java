package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.CallerLimit;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.session.DownstreamStreams.InFlight;
import dev.mcpsupervisor.http.session.DownstreamStreams.OpenExchange;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;

/**
 * A downstream session's POSTs: each message of one is started (requests), passed on
 * (notifications) or handed back (answers to server requests), and each request's outcome, once it
 * comes, becomes its answer on the exchange. Runs on the session's thread; the session keeps the
 * states and turns outcomes into messages to itself ({@link Answers}).
 */
final class PostHandling {

  /** How an outcome gets back to the session's thread: the session pipes it to itself. */
  interface Answers {
    void await(CompletionStage<Outcome> outcome, JsonNode requestId, long sequence);
  }

  /**
   * JSON-RPC batches came with 2025-03-26 and left with 2025-06-18 (2024-11-05 clients may send
   * them too).
   */
  private static final Set<String> BATCH_VERSIONS =
      Set.of(ProtocolVersions.V2025_03_26, ProtocolVersions.V2024_11_05);

  private final String sessionId;
  private final SessionSupervisor supervisor;
  private final ActorRef<DownstreamSessions.Command> registry;
  private final ClientRequests requests;
  private final DownstreamStreams streams;
  private final UpstreamRelay relay;
  private final Answers answers;
  private final int maxInflight;

  /** The session's logger, fetched at each use: fetching it sets the actor's logging MDC. */
  private final Supplier<Logger> log;

  /** Tells a request's answer from that of an earlier request under the same id. */
  private long nextSequence;

  PostHandling(
      String sessionId,
      SessionSupervisor supervisor,
      ActorRef<DownstreamSessions.Command> registry,
      ClientRequests requests,
      DownstreamStreams streams,
      UpstreamRelay relay,
      Answers answers,
      int maxInflight,
      Supplier<Logger> log) {
    this.sessionId = sessionId;
    this.supervisor = supervisor;
    this.registry = registry;
    this.requests = requests;
    this.streams = streams;
    this.relay = relay;
    this.answers = answers;
    this.maxInflight = maxInflight;
    this.log = log;
  }

  /**
   * Refuses the whole POST (400) when it is a batch and the client's protocol allows none; {@code
   * client} is null before initialize.
   */
  boolean refusedBatch(DownstreamSession.Post post, ClientRequests.Client client) {
    // before initialize is taken no version is known, and none allows a batch yet
    String version = client == null ? null : client.protocolVersion();
    if (post.batch() && (version == null || !BATCH_VERSIONS.contains(version))) {
      post.exchange()
          .tell(
              Exchange.Refused.of(
                  400, "Invalid Request: protocol version " + version + " does not allow batches"));
      return true;
    }
    return false;
  }

  /**
   * Takes the POST's messages in order; answers the client after them (an initialize among them
   * makes it known).
   */
  ClientRequests.Client take(DownstreamSession.Post post, ClientRequests.Client client) {
    OpenExchange exchange = streams.open(post.exchange(), post.acceptsSse());
    post.preAnswered().forEach(error -> exchange.unsent.add(JsonRpcCodec.toJson(error)));
    ClientRequests.Client now = client;
    for (JsonRpcMessage message : post.messages()) {
      if (message instanceof JsonRpcRequest request) {
        now = start(exchange, request, now);
      } else if (message instanceof JsonRpcNotification notification) {
        requests.onNotification(notification, now, streams);
      } else if (message instanceof JsonRpcResponse response) {
        relay.clientAnswered(response);
      }
    }
    streams.finishIfAnswered(exchange);
    return now;
  }

  /** Starts one request; answers the client's protocol after it (an initialize makes it known). */
  private ClientRequests.Client start(
      OpenExchange exchange, JsonRpcRequest request, ClientRequests.Client client) {
    if (streams.isInFlight(request.id())) {
      streams.answer(
          exchange,
          JsonRpcResponse.failure(
              request.id(),
              INVALID_REQUEST,
              "Invalid Request: id " + request.id() + " is already in flight"));
      return client;
    }
    // what is in flight leaves the streams on every end (answer, error, timeout, cancel, session
    // end)
    if (streams.allInFlight().size() >= maxInflight) {
      streams.answer(
          exchange,
          CallerLimit.overloaded(
              request.id(), "this session", maxInflight, "maxInflightPerDownstreamSession"));
      return client;
    }
    long sequence = nextSequence++;
    // the sequence tags the upstream calls: what the supervisor relates to them comes back with it
    UpstreamCalls calls = new UpstreamCalls(supervisor, sessionId, Long.toString(sequence));
    if (McpMethods.INITIALIZE.equals(request.method())) {
      if (client != null) {
        streams.answer(
            exchange,
            JsonRpcResponse.failure(
                request.id(),
                INVALID_REQUEST,
                "Invalid Request: the session is already initialized"));
        return client;
      }
      ClientRequests.Client initialized = ClientRequests.Client.of(request);
      registry.tell(
          new DownstreamSessions.Describe(
              sessionId,
              initialized.protocolVersion(),
              AdminReport.clientText(initialized.name()),
              AdminReport.clientText(initialized.version())));
      track(exchange, request, sequence, calls, false, requests.initialize(initialized, calls));
      return initialized;
    }
    ClientRequests.Started started = requests.start(request, calls);
    if (started.answer() != null) {
      streams.answer(exchange, started.answer());
    } else {
      track(exchange, request, sequence, calls, started.carriesServerMessages(), started.outcome());
    }
    return client;
  }

  private void track(
      OpenExchange exchange,
      JsonRpcRequest request,
      long sequence,
      UpstreamCalls calls,
      boolean carriesServerMessages,
      CompletionStage<Outcome> outcome) {
    InFlight call = streams.track(exchange, request, sequence, calls, carriesServerMessages);
    answers.await(outcome, request.id(), call.sequence);
  }

  /**
   * A request's outcome came (or its {@code failure}); answers whether an exchange may have
   * finished (false when the request is no longer the one in flight under that id).
   */
  boolean answered(
      ClientRequests.Client client,
      JsonNode requestId,
      long sequence,
      Outcome outcome,
      Throwable failure) {
    InFlight call = streams.inFlight(requestId);
    if (call == null || call.sequence != sequence) {
      return false;
    }
    // the supervisor hands this context's listener every notification sent before an answer before
    // the answer, and both reach this actor in that order: whatever belongs on the stream is on it
    // already
    JsonRpcResponse response =
        call.cancelled ? null : answerOf(client, call.request, outcome, failure);
    if (response != null && outcome instanceof Outcome.Refused refused) {
      streams.refuse(call, response, refused.httpStatus());
      return true;
    }
    streams.complete(call, response);
    if (response != null
        && McpMethods.INITIALIZE.equals(call.request.method())
        && response.isError()) {
      registry.tell(
          new DownstreamSessions.EndMe(
              sessionId, "initialize failed: " + response.error().message()));
    }
    return true;
  }

  private JsonRpcResponse answerOf(
      ClientRequests.Client client, JsonRpcRequest request, Outcome outcome, Throwable failure) {
    if (failure != null) {
      log.get()
          .error("session {}: {} failed", SessionIds.redact(sessionId), request.method(), failure);
      return JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error");
    }
    JsonRpcResponse response = requests.apply(request, outcome);
    return client == null ? response : client.answer(request, response);
  }
}
