package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * One 2026-07-28 {@code subscriptions/listen} stream: what an initialize would have told comes
 * first (which servers, which list changes they announce), then the resources the filter names are
 * subscribed on the stream's behalf (its session's leases, until it ends), and the stream carries
 * the notifications its filter takes. Plain class on its {@link ListenSession}'s thread.
 */
final class ListenStream {

  private final ClientRequests requests;
  private final McpEndpoint endpoint;

  /** What its servers offer is asked for, and its resources are subscribed, through this. */
  private final SessionSupervisor supervisor;

  private final String sessionId;

  /** The listen request this stream serves. */
  private final ListenSession.Listen served;

  /** Its client, as the request describes it. */
  private final ClientRequests.Client client;

  /** The stream's filter, once what its servers offer is known. */
  private Subscription subscription;

  ListenStream(SessionSpec spec, ListenSession.Listen listen) {
    this.requests = new ClientRequests(spec.endpoint());
    this.endpoint = spec.endpoint();
    this.supervisor = spec.supervisor();
    this.sessionId = spec.id();
    this.served = listen;
    requests.statelessLogLevel(listen.meta().logLevel());
    this.client = ClientRequests.Client.stateless(listen.meta(), listen.cacheScope());
  }

  /** What an initialize would have told: which servers are there, and what they offer. */
  CompletionStage<Outcome> discover() {
    return requests.initialize(client, new UpstreamCalls(supervisor, sessionId, "discover"));
  }

  /**
   * What the servers offer is known: the stream opens at once, or once its resources are subscribed
   * (on the session's behalf, its leases, until it ends): then the answer is what they come to (URI
   * → the server that took it), for {@link #subscribed}; else null.
   */
  CompletionStage<Map<String, String>> ready(Outcome outcome, Throwable failure) {
    JsonRpcRequest request = served.request();
    JsonRpcResponse initialized =
        failure != null
            ? JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error")
            : requests.apply(request, outcome);
    if (initialized.isError()) {
      served.exchange().tell(new Exchange.Complete(List.of(JsonRpcCodec.toJson(initialized))));
      return null;
    }
    subscription = Subscription.of(request, initialized.result().path("capabilities"));
    if (subscription.resourcesAsked().isEmpty()) {
      subscribed(Map.of());
      return null;
    }
    return ListenedResources.subscribe(
        endpoint,
        requests.snapshot(),
        subscription.resourcesAsked(),
        new UpstreamCalls(supervisor, sessionId, "listen"));
  }

  /**
   * The stream's resources are subscribed ({@code uris}: URI → the server that took it): the stream
   * opens with what it honors.
   */
  void subscribed(Map<String, String> uris) {
    subscription
        .acknowledge(uris)
        .forEach(frame -> served.exchange().tell(new Exchange.Message(frame)));
  }

  /** Whether {@code exchange} was the stream's: the session ends with it. */
  boolean endedWith(ExchangeSink exchange) {
    return served != null && exchange.equals(served.exchange());
  }

  /** A server's notification: on the stream if the filter takes it (none before it opens). */
  void listened(String server, JsonRpcNotification notification) {
    if (subscription == null) {
      return;
    }
    ObjectNode delivered = subscription.deliver(server, notification);
    if (delivered != null) {
      served.exchange().tell(new Exchange.Message(delivered));
    }
  }

  /** The gateway stops: the stream ends gracefully, with its result. */
  void drain() {
    if (subscription != null) {
      served.exchange().tell(new Exchange.Complete(List.of(subscription.closing())));
    }
  }
}
