package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A session's server-to-client requests (sampling, elicitation, roots) handed to a context and
 * waiting for its answer, each with a timer. The context is shown a local id unique in the
 * supervisor, so answers of different sessions never mix; an answer goes back only on the link the
 * request came on. Bounded: an upstream cannot make the session grow. Runs on the session's thread;
 * the session transmits what these methods answer.
 */
final class ServerRequests {

  /** No answer from the context in time. */
  record Expired(String localId) implements SessionCalls.CallCommand {}

  private record Timer(String localId) {}

  /** One request: the id its context was shown, where it came from, and who was asked. */
  private record Pending(
      String localId,
      JsonNode upstreamId,
      ActorRef<ContextDelivery.Command> delivery,
      String method,
      ActorRef<UpstreamLink.Command> link) {}

  private final String server;
  private final String localIdPrefix;
  private final int capacity;
  private final Duration timeout;
  private final TimerScheduler<SessionActor.Command> timers;
  private final ActorRef<ContextDelivery.ServerRequestAnswer> session;
  private final Map<String, Pending> byLocalId = new HashMap<>();
  private long nextLocalId = 1;

  /**
   * @param capacity how many may wait at once
   */
  ServerRequests(
      String server,
      String localIdPrefix,
      int capacity,
      Duration timeout,
      TimerScheduler<SessionActor.Command> timers,
      ActorRef<ContextDelivery.ServerRequestAnswer> session) {
    this.server = server;
    this.localIdPrefix = localIdPrefix;
    this.capacity = capacity;
    this.timeout = timeout;
    this.timers = timers;
    this.session = session;
  }

  /**
   * Hands the request to the context {@code target} names, under a local id and with a timer: null.
   * Nobody to ask, or too many waiting already: the error to answer upstream with at once.
   */
  JsonRpcResponse ask(
      JsonRpcRequest request,
      LeasedContexts.Target<ActorRef<ContextDelivery.Command>> target,
      String tag,
      ActorRef<UpstreamLink.Command> link) {
    String whyNot = target.whyNone();
    if (whyNot == null && byLocalId.size() >= capacity) {
      whyNot = byLocalId.size() + " server requests are waiting for an answer already";
    }
    if (whyNot != null) {
      return JsonRpcResponse.failure(
          request.id(), SupervisorErrors.noClient(server, request.method(), whyNot));
    }
    Pending asked =
        new Pending(
            localIdPrefix + nextLocalId++, request.id(), target.delivery(), request.method(), link);
    byLocalId.put(asked.localId(), asked);
    timers.startSingleTimer(new Timer(asked.localId()), new Expired(asked.localId()), timeout);
    target
        .delivery()
        .tell(
            new ContextDelivery.ServerRequest(
                server, request.withId(TextNode.valueOf(asked.localId())), tag, session));
    return null;
  }

  int waiting() {
    return byLocalId.size();
  }

  /** Whether a request waits for the answer of the context with this delivery. */
  boolean isAsking(ActorRef<ContextDelivery.Command> delivery) {
    return byLocalId.values().stream().anyMatch(asked -> asked.delivery().equals(delivery));
  }

  /**
   * The context answered: what to send upstream on {@code ready} (null if nothing waits, or on
   * another link).
   */
  JsonRpcResponse answered(
      String localId, JsonRpcResponse response, ActorRef<UpstreamLink.Command> ready) {
    Pending asked = take(localId);
    return asked != null && asked.link().equals(ready) ? response.withId(asked.upstreamId()) : null;
  }

  /** Nobody answered in time: the error to send upstream on {@code ready}, or null. */
  JsonRpcResponse expired(String localId, ActorRef<UpstreamLink.Command> ready) {
    Pending asked = take(localId);
    if (asked == null || !asked.link().equals(ready)) {
      return null;
    }
    String why = "no answer within " + timeout.toMillis() + " ms";
    return JsonRpcResponse.failure(
        asked.upstreamId(), SupervisorErrors.noClient(server, asked.method(), why));
  }

  /** The upstream withdrew one of its requests: its context is told, under the id it was shown. */
  void withdrawn(JsonRpcNotification cancelled) {
    JsonNode upstreamId = cancelled.params() == null ? null : cancelled.params().get("requestId");
    Iterator<Pending> pending = byLocalId.values().iterator();
    while (upstreamId != null && pending.hasNext()) {
      Pending request = pending.next();
      if (request.upstreamId().equals(upstreamId)) {
        pending.remove();
        timers.cancel(new Timer(request.localId()));
        ObjectNode params = ((ObjectNode) cancelled.params()).deepCopy();
        params.put("requestId", request.localId());
        request
            .delivery()
            .tell(new ContextDelivery.Notification(server, cancelled.withParams(params), null));
        return;
      }
    }
  }

  /** The connection they came on is gone, or the session closes: none can be answered any more. */
  void forgetAll() {
    byLocalId.keySet().forEach(localId -> timers.cancel(new Timer(localId)));
    byLocalId.clear();
  }

  private Pending take(String localId) {
    timers.cancel(new Timer(localId));
    return byLocalId.remove(localId);
  }
}
