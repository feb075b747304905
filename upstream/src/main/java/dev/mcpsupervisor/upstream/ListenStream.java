package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.StatelessMessages.Envelope;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code subscriptions/listen} request a {@link StatelessAdapter} keeps open, so that a
 * stateless server's list_changed and resource updates reach the session as a session-era server's
 * would: opened after discover for what the server's capabilities offer, reopened (with backoff)
 * whenever it ends, and again whenever the session subscribes to or unsubscribes from a resource.
 * Its notifications go to the session without the subscription's {@code _meta}. Runs on the
 * adapter's strand.
 */
final class ListenStream {

  private static final Logger log = LoggerFactory.getLogger(ListenStream.class);
  static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
  static final String ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
  private static final long REOPEN_MIN_MILLIS = 250;
  private static final long REOPEN_MAX_MILLIS = 10_000;

  private final String name;
  private final Executor strand;
  private final LongSupplier nextId;
  private final Function<JsonRpcMessage, CompletionStage<Void>> transmit;
  private final ConnectionEvents events;
  private final Set<String> resourceUris = new LinkedHashSet<>();
  private JsonNode capabilities;
  private Envelope envelope;
  private long currentId = -1;
  private int failures;
  private boolean stopped;

  ListenStream(
      String name,
      Executor strand,
      LongSupplier nextId,
      Function<JsonRpcMessage, CompletionStage<Void>> transmit,
      ConnectionEvents events) {
    this.name = name;
    this.strand = strand;
    this.nextId = nextId;
    this.transmit = transmit;
    this.events = events;
  }

  /** The server is discovered: listen for what it can tell. */
  void start(JsonNode serverCapabilities, Envelope envelope) {
    this.capabilities = serverCapabilities;
    this.envelope = envelope;
    open();
  }

  void stop() {
    stopped = true;
  }

  /**
   * A resources/subscribe or unsubscribe of the session: the stream is reopened with the new set of
   * resources. Returns the session's answer.
   */
  JsonRpcResponse subscription(JsonRpcRequest request, Envelope envelope) {
    if (capabilities == null || !capabilities.path("resources").path("subscribe").asBoolean()) {
      return StatelessMessages.error(
          request.id(),
          JsonRpcErrorCodes.METHOD_NOT_FOUND,
          "the server offers no resource subscriptions");
    }
    String uri = request.params() == null ? null : request.params().path("uri").asText(null);
    if (uri == null) {
      return StatelessMessages.error(
          request.id(), JsonRpcErrorCodes.INVALID_PARAMS, "params.uri is missing");
    }
    boolean changed =
        McpMethods.RESOURCES_SUBSCRIBE.equals(request.method())
            ? resourceUris.add(uri)
            : resourceUris.remove(uri);
    if (changed) {
      this.envelope = envelope;
      cancelCurrent("the subscribed resources changed");
      open();
    }
    return JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject());
  }

  /** What the server asks to be told of, from its capabilities; empty when nothing. */
  private ObjectNode filter() {
    ObjectNode filter = JsonRpcCodec.emptyObject();
    if (capabilities.path("tools").path("listChanged").asBoolean()) {
      filter.put("toolsListChanged", true);
    }
    if (capabilities.path("prompts").path("listChanged").asBoolean()) {
      filter.put("promptsListChanged", true);
    }
    if (capabilities.path("resources").path("listChanged").asBoolean()) {
      filter.put("resourcesListChanged", true);
    }
    if (!resourceUris.isEmpty()) {
      resourceUris.forEach(filter.putArray("resourceSubscriptions")::add);
    }
    return filter;
  }

  private void open() {
    ObjectNode filter = filter();
    if (stopped || filter.isEmpty()) {
      currentId = -1;
      return;
    }
    long id = nextId.getAsLong();
    currentId = id;
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.set("notifications", filter);
    JsonRpcRequest listen =
        new JsonRpcRequest(
            LongNode.valueOf(id),
            McpMethods.SUBSCRIPTIONS_LISTEN,
            StatelessMessages.withEnvelope(params, envelope));
    transmit
        .apply(listen)
        .whenComplete(
            (sent, failure) -> {
              if (failure != null) {
                strand.execute(() -> ended(id, "failed: " + failure));
              }
            });
  }

  private void cancelCurrent(String reason) {
    if (currentId < 0) {
      return;
    }
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("requestId", currentId);
    params.put("reason", reason);
    currentId = -1;
    transmit.apply(new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params));
  }

  /**
   * Takes what belongs to a listen stream: its notifications (handed to the session), its
   * acknowledgement, its end. False for everything else.
   */
  boolean consumed(JsonRpcMessage message) {
    if (message instanceof JsonRpcResponse answer) {
      Long id = answer.id().isIntegralNumber() ? answer.id().asLong() : null;
      if (id == null || id != currentId) {
        return false;
      }
      if (answer.isError()) {
        log.info("{}: the server refused subscriptions/listen: {}", name, answer.error().message());
        currentId = -1;
        return true;
      }
      ended(id, "ended by the server");
      return true;
    }
    if (!(message instanceof JsonRpcNotification notification) || notification.params() == null) {
      return false;
    }
    JsonNode params = notification.params();
    if (McpMethods.NOTIFICATION_CANCELLED.equals(notification.method())) {
      JsonNode requestId = params.path("requestId");
      if (requestId.isIntegralNumber() && requestId.asLong() == currentId) {
        ended(currentId, "torn down by the server");
        return true;
      }
      return false;
    }
    JsonNode subscription = params.path(StatelessEnvelope.META).path(SUBSCRIPTION_ID);
    if (subscription.isMissingNode()) {
      return false;
    }
    if (ACKNOWLEDGED.equals(notification.method())) {
      failures = 0;
    } else if (subscription.isIntegralNumber() && subscription.asLong() == currentId) {
      events.message(withoutSubscriptionId(notification), null);
    } // else a stream we left: its last words are no longer wanted
    return true;
  }

  private static JsonRpcNotification withoutSubscriptionId(JsonRpcNotification notification) {
    ObjectNode params = ((ObjectNode) notification.params()).deepCopy();
    ObjectNode meta = (ObjectNode) params.get(StatelessEnvelope.META);
    meta.remove(SUBSCRIPTION_ID);
    if (meta.isEmpty()) {
      params.remove(StatelessEnvelope.META);
    }
    return notification.withParams(params.isEmpty() ? null : params);
  }

  /** The stream {@code id} ended: if it is still the one wanted, another opens after a pause. */
  private void ended(long id, String why) {
    if (stopped || id != currentId) {
      return;
    }
    currentId = -1;
    long delay = Math.min(REOPEN_MAX_MILLIS, REOPEN_MIN_MILLIS << Math.min(failures++, 10));
    log.debug("{}: subscriptions/listen {}; reopening in {} ms", name, why, delay);
    Executor later = CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, strand);
    later.execute(
        () -> {
          if (!stopped && currentId < 0) {
            open();
          }
        });
  }
}
