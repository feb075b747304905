package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.MISSING_CLIENT_CAPABILITY;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A downstream session that serves one 2026-07-28 request: what an initialize would have told comes
 * first (which servers, what they offer), then {@code server/discover} is answered from it or the
 * request runs as a POST would. The server requests the upstream sends meanwhile become {@code
 * input_required} rounds ({@link InputRounds}): the call is parked, its exchange ends with the
 * round, and the client's retry (routed here by its {@code requestState}) answers them and takes
 * the call's answer. The session ends with the last exchange of its call, or when a retry is
 * overdue. Plain class on the session's thread.
 */
final class StatelessRequests {

  /**
   * The session's timer keys and messages, and what it needs from the session.
   *
   * @param calls upstream calls made under the session, named by a tag
   * @param subscribing hands the session what a listen stream's resources come to (URI → server):
   *     {@link #subscribed} gets it on the session's thread
   */
  record Wiring(
      TimerScheduler<DownstreamSession.Command> timers,
      DownstreamSession.Command gatherElapsed,
      DownstreamSession.Command retryOverdue,
      Consumer<String> endItself,
      Function<String, UpstreamCalls> calls,
      Consumer<CompletionStage<Map<String, String>>> subscribing) {}

  private final String sessionId;
  private final ClientRequests requests;
  private final DownstreamStreams streams;
  private final PostHandling posts;
  private final Wiring wiring;
  private final GatewaySettings settings;

  /** Made with the first server request of a stateless call: most sessions never have one. */
  private InputRounds rounds;

  /** The request this session serves (null until it comes): its call is tracked under its id. */
  private DownstreamSession.Stateless served;

  /** The stream this session serves when its request is subscriptions/listen, else null. */
  private Subscription subscription;

  /** Between the request's arrival and what its servers offer: nothing is in flight yet. */
  private boolean discovering;

  StatelessRequests(
      String sessionId,
      ClientRequests requests,
      DownstreamStreams streams,
      PostHandling posts,
      Wiring wiring,
      GatewaySettings settings) {
    this.sessionId = sessionId;
    this.requests = requests;
    this.streams = streams;
    this.posts = posts;
    this.wiring = wiring;
    this.settings = settings;
  }

  /** The client as the request describes it; what its servers offer is asked for first. */
  ClientRequests.Client begin(DownstreamSession.Stateless stateless) {
    served = stateless;
    discovering = true;
    requests.statelessLogLevel(stateless.meta().logLevel());
    requests.statelessParamHeaders(stateless.paramHeaders());
    return ClientRequests.Client.stateless(stateless.meta(), stateless.cacheScope());
  }

  CompletionStage<Outcome> initialize(ClientRequests.Client client, UpstreamCalls calls) {
    return requests.initialize(client, calls);
  }

  /** server/discover is answered from what the servers told; anything else goes on as a POST. */
  void ready(ClientRequests.Client client, Outcome outcome, Throwable failure) {
    discovering = false;
    JsonRpcRequest request = served.request();
    JsonRpcResponse initialized =
        failure != null
            ? JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error")
            : requests.apply(request, outcome);
    if (initialized.isError() || McpMethods.SERVER_DISCOVER.equals(request.method())) {
      JsonRpcResponse answer =
          initialized.isError()
              ? initialized
              : client.answer(
                  request,
                  JsonRpcResponse.success(
                      request.id(), StatelessEnvelope.discoverResult(initialized.result())));
      served.exchange().tell(new Exchange.Complete(List.of(JsonRpcCodec.toJson(answer))));
      return;
    }
    if (McpMethods.SUBSCRIPTIONS_LISTEN.equals(request.method())) {
      subscription = Subscription.of(request, initialized.result().path("capabilities"));
      if (subscription.resourcesAsked().isEmpty()) {
        subscribed(Map.of());
      } else {
        // the upstreams subscribe on this session's behalf (its leases), until it ends
        wiring
            .subscribing()
            .accept(
                requests.subscribeListened(
                    subscription.resourcesAsked(), wiring.calls().apply("listen")));
      }
      return;
    }
    posts.take(
        new DownstreamSession.Post(
            List.of(request), List.of(), false, served.acceptsSse(), served.exchange()),
        client);
  }

  /**
   * The listen stream's resources are subscribed ({@code uris}: URI → the server that took it): the
   * stream opens with what it honors.
   */
  void subscribed(Map<String, String> uris) {
    subscription
        .acknowledge(uris)
        .forEach(frame -> served.exchange().tell(new Exchange.Message(frame)));
  }

  /**
   * A server request during the call: it waits for the next round, is answered from the request
   * itself, or ends the call with -32021 when the client lacks what it needs.
   */
  void serverRequest(DownstreamSession.UpstreamRequest upstream, ClientRequests.Client client) {
    DownstreamStreams.InFlight call = call();
    if (call == null) {
      ServerRequestBridge.refuse(upstream, "the request it belongs to is answered already");
      return;
    }
    switch (rounds().arrived(upstream, client.capabilities(), call.request)) {
      case WAITING -> {
        if (!streams.isParked(call) && !wiring.timers().isTimerActive(wiring.gatherElapsed())) {
          // requests sent together go out in one round
          wiring
              .timers()
              .startSingleTimer(
                  wiring.gatherElapsed(), wiring.gatherElapsed(), settings.inputGatherWindow());
        }
      }
      case MISSING_CAPABILITY -> missingCapability(call, upstream);
      case HANDLED -> {
        // answered upstream already
      }
    }
  }

  private void missingCapability(
      DownstreamStreams.InFlight call, DownstreamSession.UpstreamRequest upstream) {
    String capability = InputRequests.requiredCapability(upstream.request().method());
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.putObject("requiredCapabilities").putObject(capability);
    call.cancelled = true;
    call.calls.cancelAll();
    streams.refuse(
        call,
        JsonRpcResponse.failure(
            call.request.id(),
            new JsonRpcError(
                MISSING_CLIENT_CAPABILITY,
                "Missing client capability: the server asked for " + capability,
                data)),
        400);
  }

  /** The round's requests are all in: the client gets them, and the call waits for its retry. */
  void gatherElapsed() {
    DownstreamStreams.InFlight call = call();
    if (call == null || streams.isParked(call) || !rounds().anyWaiting()) {
      return;
    }
    park(call);
  }

  private void park(DownstreamStreams.InFlight call) {
    long expiresAt =
        settings.requestStates().nowMillis() + settings.serverRequestTimeout().toMillis();
    JsonRpcRequest request = call.request;
    ObjectNode inputRequired =
        rounds()
            .nextRound(
                round ->
                    settings
                        .requestStates()
                        .seal(
                            new RequestStates.State(
                                sessionId,
                                round,
                                request.method(),
                                StatelessEnvelope.nameOf(request),
                                served.principal(),
                                expiresAt)));
    streams.park(call, JsonRpcResponse.success(request.id(), inputRequired));
    wiring
        .timers()
        .startSingleTimer(
            wiring.retryOverdue(), wiring.retryOverdue(), settings.serverRequestTimeout());
  }

  /**
   * The client retried with the state of a round: its answers go upstream, and the call answers on
   * the retry's exchange (at once with a new round if something is still unanswered).
   */
  void resume(DownstreamSession.Resume resume) {
    DownstreamStreams.InFlight call = call();
    if (call == null
        || !streams.isParked(call)
        || !rounds().isOut()
        || resume.state().round() != rounds().round()) {
      resume.exchange().tell(noRoundWaiting(resume.retry()));
      return;
    }
    wiring.timers().cancel(wiring.retryOverdue());
    rounds().retried(resume.retry());
    streams.resume(call, streams.open(resume.exchange(), resume.acceptsSse()), resume.retry());
    if (call() != null && rounds().anyWaiting()) {
      park(call);
    }
  }

  /**
   * An exchange ended: the session ends with its call's, unless the call is parked (its client
   * comes back with a retry).
   */
  void exchangeClosed(ExchangeSink exchange) {
    if (served == null) { // a session-era session: its client ends it
      return;
    }
    DownstreamStreams.InFlight call = call();
    if (call != null && (streams.isParked(call) || !exchange.equals(call.exchange.ref))) {
      return;
    }
    // no round trip through the registry per request: it learns of the end when the session stops
    wiring.endItself().accept("its request is answered");
  }

  /**
   * A server's notification for a session serving a subscriptions/listen stream: on the stream if
   * the filter takes it. False when this session serves no stream (the notification is not its).
   */
  boolean listened(DownstreamSession.UpstreamNotification upstream) {
    if (subscription == null) {
      return false;
    }
    ObjectNode delivered = subscription.deliver(upstream.server(), upstream.notification());
    if (delivered != null) {
      served.exchange().tell(new Exchange.Message(delivered));
    }
    return true;
  }

  /** Whether the session serves a subscriptions/listen stream, which may stay quiet for long. */
  boolean isListening() {
    return subscription != null;
  }

  /**
   * Whether the request waits for what its servers offer (an upstream session may be starting),
   * with nothing in flight yet.
   */
  boolean isDiscovering() {
    return discovering;
  }

  /** The gateway stops: a subscription stream ends gracefully, with its result. */
  void drain() {
    if (subscription != null) {
      served.exchange().tell(new Exchange.Complete(List.of(subscription.closing())));
    }
  }

  /** The session ends: every server request still waiting is answered upstream with an error. */
  void end(String why) {
    if (rounds != null) {
      rounds.failAll(why);
    }
  }

  /** The upstream withdrew one of its requests. */
  void withdrawn(String server, JsonNode upstreamId) {
    if (rounds != null) {
      rounds.withdrawn(server, upstreamId);
    }
  }

  private InputRounds rounds() {
    if (rounds == null) {
      rounds = new InputRounds();
    }
    return rounds;
  }

  private DownstreamStreams.InFlight call() {
    return served == null ? null : streams.inFlight(served.request().id());
  }

  /** The error a retry gets whose state names no round this call has out. */
  /** No round of a retry's state is waiting: answered already, overdue, or its call ended. */
  static Exchange.Refused noRoundWaiting(JsonRpcRequest retry) {
    return staleState(
        retry,
        "requestState names no input_required round that is waiting: it was answered"
            + " already, or its call has ended");
  }

  static Exchange.Refused staleState(JsonRpcRequest retry, String why) {
    return new Exchange.Refused(
        400, JsonRpcCodec.toJson(JsonRpcResponse.failure(retry.id(), INVALID_PARAMS, why)));
  }
}
