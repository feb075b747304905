package dev.mcpsupervisor.actors.session;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Calls not yet sent, in the order they go out. Not bounded here: the session admits a call only
 * while fewer than {@code stashCapacity} calls are not in flight, so this holds at most that many
 * plus the calls requeued after a lost connection (at most {@code maxInflightPerSession}).
 */
final class WaitingCalls {

  private LinkedHashMap<Long, TrackedCall> queue = new LinkedHashMap<>();

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int size() {
    return queue.size();
  }

  void add(TrackedCall call) {
    call.state = TrackedCall.State.WAITING;
    queue.put(call.callId(), call);
  }

  void remove(long callId) {
    queue.remove(callId);
  }

  /** The next call to send, or null. */
  TrackedCall poll() {
    Iterator<TrackedCall> next = queue.values().iterator();
    if (!next.hasNext()) {
      return null;
    }
    TrackedCall call = next.next();
    next.remove();
    return call;
  }

  /** Calls that were already sent once go out again before everything that arrived after them. */
  void putFirst(List<TrackedCall> calls) {
    LinkedHashMap<Long, TrackedCall> requeued = new LinkedHashMap<>();
    calls.forEach(call -> requeued.put(call.callId(), call));
    requeued.putAll(queue);
    queue = requeued;
  }
}
