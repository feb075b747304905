package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.CallerLimit;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.request.ClientRequests;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.IntSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A downstream session's POSTs: each message of one is started (requests), passed on
 * (notifications) or handed back (answers to server requests), and each request's outcome, once it
 * comes, becomes its answer on the exchange. Runs on the session's thread; what a POST leaves the
 * session to do (outcomes to await, deadlines that end) it answers as {@link Taken}.
 */
final class PostHandling {

  private static final Logger log = LoggerFactory.getLogger(DownstreamSession.class);

  /** A request's outcome the session awaits, to hand back to {@link #answered}. */
  record Awaited(JsonNode requestId, long sequence, CompletionStage<Outcome> outcome) {}

  /**
   * What a POST leaves the session to do.
   *
   * @param client the session's client as it is now (a new one once initialize is taken)
   * @param awaited the outcomes of the requests it started
   * @param answered the ids of the server requests the client answered: their deadlines end
   */
  record Taken(ClientRequests.Client client, List<Awaited> awaited, List<JsonNode> answered) {}

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
  private final ClientNotifications notifications;
  private final DownstreamStreams streams;
  private final UpstreamRelay relay;

  /** {@code gateway.maxInflightPerDownstreamSession} in force. */
  private final IntSupplier maxInflight;

  /** Tells a request's answer from that of an earlier request under the same id. */
  private long nextSequence;

  PostHandling(
      String sessionId,
      SessionSupervisor supervisor,
      ActorRef<DownstreamSessions.Command> registry,
      ClientRequests requests,
      ClientNotifications notifications,
      DownstreamStreams streams,
      UpstreamRelay relay,
      IntSupplier maxInflight) {
    this.sessionId = sessionId;
    this.supervisor = supervisor;
    this.registry = registry;
    this.requests = requests;
    this.notifications = notifications;
    this.streams = streams;
    this.relay = relay;
    this.maxInflight = maxInflight;
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

  /** Takes the POST's messages in order (an initialize among them makes the client known). */
  Taken take(DownstreamSession.Post post, ClientRequests.Client client) {
    OpenExchange exchange = streams.open(post.exchange(), post.acceptsSse());
    post.preAnswered().forEach(error -> exchange.unsent.add(JsonRpcCodec.toJson(error)));
    Taken taken = new Taken(client, new ArrayList<>(1), new ArrayList<>(0));
    for (JsonRpcMessage message : post.messages()) {
      if (message instanceof JsonRpcRequest request) {
        taken = start(exchange, request, taken);
      } else if (message instanceof JsonRpcNotification notification) {
        notifications.fromClient(notification, taken.client(), streams);
      } else if (message instanceof JsonRpcResponse response) {
        if (relay.clientAnswered(response)) {
          taken.answered().add(response.id());
        } else {
          log.debug(
              "session {}: answer for unknown request {}",
              SessionIds.redact(sessionId),
              response.id());
        }
      }
    }
    streams.finishIfAnswered(exchange);
    return taken;
  }

  /** Starts one request; an initialize makes the client known. */
  private Taken start(OpenExchange exchange, JsonRpcRequest request, Taken taken) {
    ClientRequests.Client client = taken.client();
    if (streams.isInFlight(request.id())) {
      streams.answer(
          exchange,
          JsonRpcResponse.failure(
              request.id(),
              INVALID_REQUEST,
              "Invalid Request: id " + request.id() + " is already in flight"));
      return taken;
    }
    // what is in flight leaves the streams on every end (answer, error, timeout, cancel, session
    // end)
    int cap = maxInflight.getAsInt();
    if (streams.allInFlight().size() >= cap) {
      streams.answer(
          exchange,
          CallerLimit.overloaded(
              request.id(), "this session", cap, "maxInflightPerDownstreamSession"));
      return taken;
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
        return taken;
      }
      ClientRequests.Client initialized = ClientRequests.Client.of(request);
      registry.tell(
          new DownstreamSessions.Describe(
              sessionId,
              initialized.protocolVersion(),
              AdminReport.clientText(initialized.name()),
              AdminReport.clientText(initialized.version())));
      track(
          exchange,
          request,
          sequence,
          calls,
          false,
          requests.initialize(initialized, calls),
          taken);
      return new Taken(initialized, taken.awaited(), taken.answered());
    }
    ClientRequests.Started started = requests.start(request, calls);
    if (started.answer() != null) {
      streams.answer(exchange, started.answer());
    } else {
      track(
          exchange,
          request,
          sequence,
          calls,
          started.carriesServerMessages(),
          started.outcome(),
          taken);
    }
    return taken;
  }

  private void track(
      OpenExchange exchange,
      JsonRpcRequest request,
      long sequence,
      UpstreamCalls calls,
      boolean carriesServerMessages,
      CompletionStage<Outcome> outcome,
      Taken taken) {
    InFlight call = streams.track(exchange, request, sequence, calls, carriesServerMessages);
    taken.awaited().add(new Awaited(request.id(), call.sequence, outcome));
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
      log.error("session {}: {} failed", SessionIds.redact(sessionId), request.method(), failure);
      return JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error");
    }
    JsonRpcResponse response = requests.apply(request, outcome);
    return client == null ? response : client.answer(request, response);
  }
}
