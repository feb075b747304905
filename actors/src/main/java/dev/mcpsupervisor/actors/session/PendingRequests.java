package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pending map: requests sent upstream and not answered yet, by the upstream id the session gave
 * them — callers' calls and the session's own requests alike, so ids never collide.
 */
final class PendingRequests {

  /** Requests the session sends on its own behalf. */
  enum Internal {
    TOOLS_LIST,
    PING
  }

  private long nextUpstreamId = 1;
  private final Map<Long, TrackedCall> calls = new HashMap<>();
  private final Map<Long, Internal> internal = new HashMap<>();

  /** Registers a caller's call as in flight; answers its upstream id. */
  long sendCall(TrackedCall call) {
    long upstreamId = nextUpstreamId++;
    call.state = TrackedCall.State.IN_FLIGHT;
    call.upstreamId = upstreamId;
    calls.put(upstreamId, call);
    return upstreamId;
  }

  long sendInternal(Internal kind) {
    long upstreamId = nextUpstreamId++;
    internal.put(upstreamId, kind);
    return upstreamId;
  }

  TrackedCall removeCall(Long upstreamId) {
    return upstreamId == null ? null : calls.remove(upstreamId);
  }

  Internal removeInternal(Long upstreamId) {
    return upstreamId == null ? null : internal.remove(upstreamId);
  }

  boolean hasInternal(Internal kind) {
    return internal.containsValue(kind);
  }

  /** Whether {@code upstreamId} is still pending as a request of this kind. */
  boolean isInternal(long upstreamId, Internal kind) {
    return internal.get(upstreamId) == kind;
  }

  void clearInternal() {
    internal.clear();
  }

  int callCount() {
    return calls.size();
  }

  boolean hasNoCalls() {
    return calls.isEmpty();
  }

  /**
   * The callers' calls in flight, in no particular order (a view: do not change the map meanwhile).
   */
  Iterable<TrackedCall> inFlightCalls() {
    return calls.values();
  }

  /** Empties the map of callers' calls; answers them in the order they were sent. */
  List<TrackedCall> takeCallsInSendOrder() {
    List<TrackedCall> taken = new ArrayList<>(calls.values());
    taken.sort(Comparator.comparingLong(call -> call.upstreamId));
    calls.clear();
    return taken;
  }

  /**
   * The caller's call in flight under the id a transport named (the request whose response stream
   * it was), or null.
   */
  TrackedCall relatedCall(JsonNode relatedRequestId) {
    return relatedRequestId == null ? null : calls.get(idOf(relatedRequestId));
  }

  /**
   * Our ids are numbers; a server that echoes them back as strings is understood too. Null if not
   * one of ours.
   */
  static Long idOf(JsonNode id) {
    if (id != null && id.isIntegralNumber() && id.canConvertToLong()) {
      return id.longValue();
    }
    if (id != null && id.isTextual()) {
      try {
        return Long.valueOf(id.textValue());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
