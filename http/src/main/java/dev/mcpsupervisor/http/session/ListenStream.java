package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A downstream session that serves one 2026-07-28 {@code subscriptions/listen} stream: what an
 * initialize would have told comes first (which servers, which list changes they announce), then
 * the resources the filter names are subscribed on the stream's behalf (the session's leases, until
 * it ends), and the stream carries the notifications its filter takes. The session ends with the
 * stream. Plain class on the session's thread.
 */
final class ListenStream {

  private final ClientRequests requests;

  /** The listen request this session serves (null until it comes). */
  private DownstreamSession.Listen served;

  /** The stream's filter, once what its servers offer is known. */
  private Subscription subscription;

  /** Between the request's arrival and what its servers offer. */
  private boolean discovering;

  ListenStream(ClientRequests requests) {
    this.requests = requests;
  }

  /** The client as the request describes it; what its servers offer is asked for first. */
  ClientRequests.Client begin(DownstreamSession.Listen listen) {
    served = listen;
    discovering = true;
    requests.statelessLogLevel(listen.meta().logLevel());
    return ClientRequests.Client.stateless(listen.meta(), listen.cacheScope());
  }

  CompletionStage<Outcome> initialize(ClientRequests.Client client, UpstreamCalls calls) {
    return requests.initialize(client, calls);
  }

  /**
   * What the servers offer is known: the stream opens at once, or once its resources are subscribed
   * through {@code calls} (on the session's behalf, its leases, until it ends): then the answer is
   * what they come to (URI → the server that took it), for {@link #subscribed}; else null.
   */
  CompletionStage<Map<String, String>> ready(
      Outcome outcome, Throwable failure, UpstreamCalls calls) {
    discovering = false;
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
    return requests.subscribeListened(subscription.resourcesAsked(), calls);
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

  /**
   * A server's notification: on the stream if the filter takes it. False when this session serves
   * no stream (the notification is not its).
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

  /** Whether the session serves a stream (which may stay quiet for long) or waits to open one. */
  boolean isOpen() {
    return subscription != null || discovering;
  }

  /** The gateway stops: the stream ends gracefully, with its result. */
  void drain() {
    if (subscription != null) {
      served.exchange().tell(new Exchange.Complete(List.of(subscription.closing())));
    }
  }
}
