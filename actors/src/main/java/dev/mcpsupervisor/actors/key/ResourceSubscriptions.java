package dev.mcpsupervisor.actors.key;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The resource subscriptions of one server key, refcounted per session and URI: however many
 * contexts leased on a session subscribe to a URI, the upstream hears one {@code
 * resources/subscribe}, and one {@code resources/unsubscribe} once the last of them has left
 * (unsubscribed, or released its lease). At most one of the two is under way per session and URI,
 * so the upstream never sees them out of order; a context that subscribes meanwhile waits for its
 * answer. A session that lost its connection is subscribed again once it is back (the new
 * connection knows nothing of the old one's subscriptions). Decisions only, no mailbox: the key
 * actor asks, then sends and answers.
 *
 * <p>Per session, not per key: the upstream sends a resource's updates on the connection that
 * subscribed, to the contexts leased there; a context-isolated server keeps one session per
 * context, so its subscriptions are never shared between contexts.
 */
final class ResourceSubscriptions {

  /** What the key actor does next. */
  sealed interface Step permits Answer, Send {}

  /** Answer a caller. */
  record Answer(UpstreamCall call, JsonRpcResponse response) implements Step {}

  /**
   * Send {@code method} (subscribe or unsubscribe) for {@code uri} on the session, as {@code
   * callId}.
   */
  record Send(long sessionId, long callId, String method, String uri) implements Step {}

  /** Whether the key's calls of this method are refcounted here. */
  static boolean handles(String method) {
    return McpMethods.RESOURCES_SUBSCRIBE.equals(method)
        || McpMethods.RESOURCES_UNSUBSCRIBE.equals(method);
  }

  private record Target(long sessionId, String uri) {}

  private static final long NONE = 0;

  /** One URI on one session. */
  private static final class Subscription {
    final Target target;

    /** The contexts subscribed (their subscribe answered). */
    final Set<String> contexts = new LinkedHashSet<>();

    /** Callers waiting for the call under way, by call id. */
    final Map<Long, UpstreamCall> waiting = new LinkedHashMap<>();

    /** The upstream holds the subscription on the session's current connection. */
    boolean upstream;

    /** The connection was lost while contexts were subscribed: subscribe again once it is back. */
    boolean owed;

    /** The id of the subscribe or unsubscribe under way, or NONE. */
    long underWay = NONE;

    String underWayMethod;

    Subscription(Target target) {
      this.target = target;
    }

    boolean wanted() {
      return !contexts.isEmpty() || !waiting.isEmpty();
    }
  }

  private final Map<Target, Subscription> subscriptions = new HashMap<>();
  private final Map<Long, Subscription> byCallId = new HashMap<>();
  private final Map<String, Set<Target>> byContext = new HashMap<>();

  /** Sessions that lost their connection and are not back yet. */
  private final Set<Long> down = new HashSet<>();

  /** Negative, so never the id of a caller's call (the supervisor counts those up from 1). */
  private long lastCallId;

  /** A context's resources/subscribe, for its lease on {@code sessionId}. */
  List<Step> subscribe(UpstreamCall call, long sessionId) {
    String uri = uriOf(call);
    if (uri == null) {
      return List.of(
          new Answer(
              call,
              call.errorResponse(new JsonRpcError(INVALID_PARAMS, "params.uri must be a string"))));
    }
    Target target = new Target(sessionId, uri);
    Subscription subscription = subscriptions.computeIfAbsent(target, Subscription::new);
    byContext.computeIfAbsent(call.context(), notUsed -> new HashSet<>()).add(target);
    if (subscription.contexts.contains(call.context())
        || (subscription.upstream && subscription.underWay == NONE)) {
      subscription.contexts.add(call.context());
      return List.of(new Answer(call, success(call)));
    }
    subscription.waiting.put(call.callId(), call);
    List<Step> steps = new ArrayList<>();
    settle(subscription, steps);
    return steps;
  }

  /**
   * A context's resources/unsubscribe: answered at once; the upstream hears of it when the context
   * was the last one subscribed on its session.
   */
  List<Step> unsubscribe(UpstreamCall call) {
    String uri = uriOf(call);
    List<Step> steps = new ArrayList<>();
    for (Target target : targetsOf(call.context())) {
      if (target.uri().equals(uri)) {
        leave(call.context(), target, steps);
      }
    }
    steps.add(new Answer(call, success(call)));
    return steps;
  }

  /** The context released its lease: it leaves every subscription it had. */
  List<Step> released(String context) {
    List<Step> steps = new ArrayList<>();
    targetsOf(context).forEach(target -> leave(context, target, steps));
    return steps;
  }

  /** The answer to a call this sent ({@link Send}); nothing for an id it does not know. */
  List<Step> answered(long callId, JsonRpcResponse response) {
    Subscription subscription = byCallId.remove(callId);
    if (subscription == null) {
      return List.of();
    }
    List<Step> steps = new ArrayList<>();
    boolean subscribed = McpMethods.RESOURCES_SUBSCRIBE.equals(subscription.underWayMethod);
    subscription.underWay = NONE;
    subscription.upstream = subscribed && !response.isError();
    // waiters wait for a subscribe's answer; those that came during an unsubscribe wait on
    List<UpstreamCall> waiters =
        subscribed ? List.copyOf(subscription.waiting.values()) : List.of();
    subscription.waiting.values().removeAll(waiters);
    for (UpstreamCall waiter : waiters) {
      if (subscription.upstream) {
        subscription.contexts.add(waiter.context());
        steps.add(new Answer(waiter, success(waiter)));
      } else {
        steps.add(new Answer(waiter, waiter.response(response)));
        if (!subscription.contexts.contains(waiter.context())) {
          forget(waiter.context(), subscription.target);
        }
      }
    }
    settle(subscription, steps);
    return steps;
  }

  /** The session lost its connection: what it held upstream is gone with it. */
  void connectionLost(long sessionId) {
    down.add(sessionId);
    for (Subscription subscription : subscriptions.values()) {
      if (subscription.target.sessionId() == sessionId) {
        subscription.owed |= subscription.upstream || !subscription.contexts.isEmpty();
        subscription.upstream = false;
      }
    }
  }

  /** The session is ready (again): what its contexts still want is subscribed anew. */
  List<Step> reconnected(long sessionId) {
    down.remove(sessionId);
    List<Step> steps = new ArrayList<>();
    for (Subscription subscription : List.copyOf(subscriptions.values())) {
      if (subscription.target.sessionId() == sessionId) {
        settle(subscription, steps);
      }
    }
    return steps;
  }

  /**
   * The session left the key (evicted, stopped): its subscriptions go, their waiters get {@code
   * error} (made only when one waits: an error may log an incident).
   */
  List<Step> sessionGone(long sessionId, Supplier<JsonRpcError> error) {
    down.remove(sessionId);
    List<Step> steps = new ArrayList<>();
    for (Subscription subscription : List.copyOf(subscriptions.values())) {
      if (subscription.target.sessionId() != sessionId) {
        continue;
      }
      subscription
          .waiting
          .values()
          .forEach(waiter -> steps.add(new Answer(waiter, waiter.errorResponse(error.get()))));
      byCallId.remove(subscription.underWay);
      subscriptions.remove(subscription.target);
      byContext.values().forEach(targets -> targets.remove(subscription.target));
    }
    byContext.values().removeIf(Set::isEmpty);
    return steps;
  }

  /** The contexts subscribed to {@code uri} on the session (for tests and snapshots). */
  Set<String> subscribers(long sessionId, String uri) {
    Subscription subscription = subscriptions.get(new Target(sessionId, uri));
    return subscription == null ? Set.of() : Set.copyOf(subscription.contexts);
  }

  /** Nothing subscribed, nothing under way, nobody remembered. */
  boolean isEmpty() {
    return subscriptions.isEmpty() && byCallId.isEmpty() && byContext.isEmpty();
  }

  private void leave(String context, Target target, List<Step> steps) {
    Subscription subscription = subscriptions.get(target);
    forget(context, target);
    if (subscription == null) {
      return;
    }
    subscription.contexts.remove(context);
    // a subscribe of the context still waiting: the unsubscription came after it, and stands
    subscription
        .waiting
        .values()
        .removeIf(
            waiter -> {
              if (waiter.context().equals(context)) {
                steps.add(new Answer(waiter, success(waiter)));
                return true;
              }
              return false;
            });
    settle(subscription, steps);
  }

  /**
   * With nothing under way: unsubscribes what nobody wants any more, subscribes what waiting
   * callers (or, once the connection is back, subscribed contexts) want, forgets what is done.
   */
  private void settle(Subscription subscription, List<Step> steps) {
    if (subscription.underWay != NONE) {
      return;
    }
    Target target = subscription.target;
    if (!subscription.wanted()) {
      if (subscription.upstream) {
        send(subscription, McpMethods.RESOURCES_UNSUBSCRIBE, steps);
      } else {
        subscriptions.remove(target);
      }
    } else if (!subscription.upstream
        && (!subscription.waiting.isEmpty() || subscription.owed)
        && !down.contains(target.sessionId())) {
      subscription.owed = false;
      send(subscription, McpMethods.RESOURCES_SUBSCRIBE, steps);
    }
  }

  private void send(Subscription subscription, String method, List<Step> steps) {
    long callId = --lastCallId;
    subscription.underWay = callId;
    subscription.underWayMethod = method;
    byCallId.put(callId, subscription);
    steps.add(new Send(subscription.target.sessionId(), callId, method, subscription.target.uri()));
  }

  private void forget(String context, Target target) {
    Set<Target> targets = byContext.get(context);
    if (targets != null) {
      targets.remove(target);
      if (targets.isEmpty()) {
        byContext.remove(context);
      }
    }
  }

  private List<Target> targetsOf(String context) {
    return List.copyOf(byContext.getOrDefault(context, Set.of()));
  }

  private static String uriOf(UpstreamCall call) {
    JsonNode uri = call.params() == null ? null : call.params().get("uri");
    return uri != null && uri.isTextual() ? uri.textValue() : null;
  }

  private static JsonRpcResponse success(UpstreamCall call) {
    return JsonRpcResponse.success(LongNode.valueOf(call.callId()), JsonRpcCodec.emptyObject());
  }
}
