package dev.mcpsupervisor.http.stateless;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The 2026-07-28 requests parked on an {@code input_required} round, by the id their {@code
 * requestState} names (as unguessable as a session id, though the state is signed too): a client's
 * retry finds its request here, on whatever thread the route runs. A request is here from its first
 * round until it is answered, abandoned or overdue. Thread-safe.
 */
public final class PendingRounds {

  private final Map<String, StatelessRequest> parked = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final String node;

  /**
   * @param node this cluster node's incarnation ({@code Membership.selfNode}), which the states of
   *     the rounds parked here name; null on a single node
   */
  public PendingRounds(String node) {
    this.node = node;
  }

  /** The node the requests are parked on, or null on a single node. */
  public String node() {
    return node;
  }

  /** Whether a state naming {@code stateNode} names a round parked on another node. */
  public boolean heldElsewhere(String stateNode) {
    return stateNode != null && !stateNode.equals(node);
  }

  /** Parks a request: answers the id its states name. */
  String park(StatelessRequest request) {
    String id = SessionIds.generate(random);
    parked.put(id, request);
    return id;
  }

  /** The request a state names, or null when it is answered, abandoned or overdue. */
  public StatelessRequest get(String id) {
    return parked.get(id);
  }

  void remove(String id) {
    parked.remove(id);
    if (parked.isEmpty()) {
      List.copyOf(whenNoneParked).forEach(waiter -> waiter.complete(null));
    }
  }

  private final List<CompletableFuture<Void>> whenNoneParked = new CopyOnWriteArrayList<>();

  /**
   * Completes once no request is parked (each was answered, abandoned or overdue), or after {@code
   * within}: a stopping cluster node's rounds are retried through the other nodes' desks meanwhile,
   * and completed here.
   */
  public CompletionStage<Void> settled(Duration within) {
    CompletableFuture<Void> settled = new CompletableFuture<>();
    whenNoneParked.add(settled);
    if (parked.isEmpty()) {
      settled.complete(null);
    }
    return settled
        .completeOnTimeout(null, within.toNanos(), TimeUnit.NANOSECONDS)
        .whenComplete((done, failure) -> whenNoneParked.remove(settled));
  }

  int size() {
    return parked.size();
  }

  /** The gateway stops: every parked request is given up (its calls cancelled upstream). */
  public void abandonAll(String why) {
    List.copyOf(parked.values()).forEach(request -> request.abandon(why));
  }

  /** No round of a retry's state is waiting: answered already, overdue, or its call ended. */
  public static Exchange.Refused noRoundWaiting(JsonRpcRequest retry) {
    String why =
        "requestState names no input_required round that is waiting: it was answered"
            + " already, or its call has ended";
    return new Exchange.Refused(
        400, JsonRpcCodec.toJson(JsonRpcResponse.failure(retry.id(), INVALID_PARAMS, why)));
  }
}
