package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Whose a server-to-client request (sampling, elicitation, roots) is: never a client that did not
 * cause it, since a shared session serves several. A request <em>tied</em> to a call in flight is
 * that call's: the transport names the call whose response stream carried it (Streamable HTTP), or
 * its {@code _meta} names the call's upstream request id under {@link #RELATED_REQUEST}, or carries
 * the progress token the session gave the call. An untagged one is for the only context that could
 * have caused it: the one context with calls in flight (not counting list calls while a call of
 * another kind is in flight, nor, while another is free, a context whose only call is parked on its
 * client's answer to a server request); with none in flight, the only leased context. When more
 * than one could have caused it, it is nobody's and the session refuses it upstream. A roots/list
 * is decided apart ({@link #rootsOwnerOf}): nobody caused it. Runs on the session's thread;
 * decisions only.
 */
final class ServerRequestAttribution {

  /** The {@code _meta} key by which an upstream names the request of ours it asks on behalf of. */
  static final String RELATED_REQUEST = SupervisorErrors.RELATED_REQUEST;

  private static final String META = "_meta";

  /** The lists the key actor caches: a call of one sends no server request. */
  private static final Set<String> LISTS =
      Set.of(
          McpMethods.TOOLS_LIST,
          McpMethods.PROMPTS_LIST,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST);

  /**
   * Whose the request is: a call's ({@code call} and its context), a context's with no call of its
   * own ({@code context} only), or nobody's — {@code claimants} says how many contexts could have
   * caused it (more than one: ambiguous; none: nobody leases the session). {@code tied}: the
   * request named its call (by transport, {@code _meta} id or progress token), so its owner was
   * never in doubt; else it was found by elimination.
   */
  record Owner(TrackedCall call, String context, int claimants, boolean tied) {

    Owner(TrackedCall call, String context, int claimants) {
      this(call, context, claimants, false);
    }

    boolean isAmbiguous() {
      return call == null && context == null && claimants > 1;
    }
  }

  private final PendingRequests pending;
  private final ProgressTokens progressTokens;
  private final LeasedContexts<?> contexts;
  private final Predicate<TrackedCall> answering;

  /**
   * @param answering whether the call's context is answering a server request already (of the calls
   *     of the one context in flight, a request goes to the newest that is not)
   */
  ServerRequestAttribution(
      PendingRequests pending,
      ProgressTokens progressTokens,
      LeasedContexts<?> contexts,
      Predicate<TrackedCall> answering) {
    this.pending = pending;
    this.progressTokens = progressTokens;
    this.contexts = contexts;
    this.answering = answering;
  }

  /**
   * @param transportRelatedId the id of our request whose response stream carried it, or null
   */
  Owner ownerOf(JsonRpcRequest request, JsonNode transportRelatedId) {
    TrackedCall tied = tiedCall(request, transportRelatedId);
    if (tied != null) {
      return new Owner(tied, tied.call().context(), 1, true);
    }
    // a list call asks nothing (the key's list cache serves one caller's fetch to every caller):
    // while a call of another kind is in flight, a context with only list calls claims nothing
    Predicate<TrackedCall> counted = ServerRequestAttribution::mayAsk;
    Set<String> claimants = claimants(counted);
    if (claimants.isEmpty()) {
      counted = call -> true;
      claimants = claimants(counted);
    }
    if (claimants.size() == 1) {
      TrackedCall call = newestOf(claimants.iterator().next(), counted);
      return new Owner(call, call.call().context(), 1);
    }
    if (claimants.size() > 1) {
      return new Owner(null, null, claimants.size());
    }
    Set<String> leased = contexts.all();
    return leased.size() == 1
        ? new Owner(null, leased.iterator().next(), 1)
        : new Owner(null, null, leased.size());
  }

  /**
   * Whose a {@code roots/list} is, or null when the supervisor answers it from its configuration. A
   * server asks for roots on its own (after initialize, after roots/list_changed), not for a call,
   * so it is a caller's only when that caller has roots of its own to give and nobody else could be
   * meant: the call the request names, when its caller declared roots (a round-trip call with the
   * roots capability) or its context announced roots (sent roots/list_changed); else the context
   * that announced roots, while no other context has calls in flight; with no announcer, the one
   * round-trip call asking ({@link #roundTripAsking}).
   */
  Owner rootsOwnerOf(JsonRpcRequest request, JsonNode transportRelatedId) {
    String announcer = contexts.lastNotifier();
    TrackedCall tied = tiedCall(request, transportRelatedId);
    if (tied != null) {
      boolean answersRoots = tied.call().answersRoots() || tied.call().context().equals(announcer);
      return answersRoots ? new Owner(tied, tied.call().context(), 1, true) : null;
    }
    if (announcer == null) {
      return roundTripAsking();
    }
    Set<String> inFlight = new HashSet<>();
    pending.inFlightCalls().forEach(call -> inFlight.add(call.call().context()));
    if (inFlight.isEmpty()) {
      return new Owner(null, announcer, 1);
    }
    return inFlight.equals(Set.of(announcer))
        ? new Owner(newestOf(announcer, call -> true), announcer, 1)
        : null;
  }

  /**
   * With nobody having announced roots: the newest call of the one context asking (list calls
   * aside), when its caller gives roots of its own (a round-trip call that declared the roots
   * capability: a 2026-07-28 client's roots come back as an input round), as when a request names
   * such a call. Else the supervisor's.
   */
  private Owner roundTripAsking() {
    Set<String> asking = new HashSet<>();
    for (TrackedCall call : pending.inFlightCalls()) {
      if (mayAsk(call)) {
        asking.add(call.call().context());
      }
    }
    if (asking.size() != 1) {
      return null;
    }
    String context = asking.iterator().next();
    TrackedCall newest = newestOf(context, ServerRequestAttribution::mayAsk);
    return newest.call().answersRoots() ? new Owner(newest, context, 1) : null;
  }

  /**
   * Whether a request could only have been sent for a call (sampling, elicitation): only such a
   * request teaches that the call's tool is interactive. Roots and ping are the session's.
   */
  static boolean isForACall(String method) {
    return McpMethods.SAMPLING_CREATE_MESSAGE.equals(method)
        || McpMethods.ELICITATION_CREATE.equals(method);
  }

  private static boolean mayAsk(TrackedCall call) {
    return !LISTS.contains(call.method());
  }

  /**
   * The contexts that could have caused an untagged request, counting only the calls in flight
   * {@code counted} accepts: a context whose one such call is parked on its client's answer to a
   * server request (say, a 2026-07-28 client that left its round) did not ask again, so while
   * another context is free it claims nothing; a context with more calls might have, so it stays a
   * claimant.
   */
  private Set<String> claimants(Predicate<TrackedCall> counted) {
    Map<String, Integer> callsByContext = new LinkedHashMap<>();
    Set<String> parked = new HashSet<>();
    for (TrackedCall call : pending.inFlightCalls()) {
      if (!counted.test(call)) {
        continue;
      }
      callsByContext.merge(call.call().context(), 1, Integer::sum);
      if (answering.test(call)) {
        parked.add(call.call().context());
      }
    }
    Set<String> free = new LinkedHashSet<>();
    callsByContext.forEach(
        (context, calls) -> {
          if (calls > 1 || !parked.contains(context)) {
            free.add(context);
          }
        });
    return free.isEmpty() ? callsByContext.keySet() : free;
  }

  /** The request as its client sees it: without our request id, which means nothing there. */
  static JsonRpcRequest forClient(JsonRpcRequest request) {
    JsonNode meta = request.params() == null ? null : request.params().get(META);
    if (meta == null || !meta.has(RELATED_REQUEST)) {
      return request;
    }
    ObjectNode params = ((ObjectNode) request.params()).deepCopy();
    ((ObjectNode) params.get(META)).remove(RELATED_REQUEST);
    return request.withParams(params);
  }

  /** The call in flight the request names in any of the ways it can, or null. */
  private TrackedCall tiedCall(JsonRpcRequest request, JsonNode transportRelatedId) {
    TrackedCall byTransport = pending.relatedCall(transportRelatedId);
    if (byTransport != null) {
      return byTransport;
    }
    JsonNode meta = request.params() == null ? null : request.params().get(META);
    if (meta == null || !meta.isObject()) {
      return null;
    }
    TrackedCall byId = pending.relatedCall(meta.get(RELATED_REQUEST));
    return byId != null ? byId : progressTokens.callOf(meta.get("progressToken"));
  }

  /**
   * The context's newest call in flight not answering a server request already (a call waiting for
   * its client's answer rarely asks again), else its newest.
   */
  private TrackedCall newestOf(String context, Predicate<TrackedCall> counted) {
    TrackedCall newest = null;
    TrackedCall newestFree = null;
    for (TrackedCall call : pending.inFlightCalls()) {
      if (!call.call().context().equals(context) || !counted.test(call)) {
        continue;
      }
      if (newest == null || call.upstreamId > newest.upstreamId) {
        newest = call;
      }
      if ((newestFree == null || call.upstreamId > newestFree.upstreamId)
          && !answering.test(call)) {
        newestFree = call;
      }
    }
    return newestFree != null ? newestFree : newest;
  }
}
