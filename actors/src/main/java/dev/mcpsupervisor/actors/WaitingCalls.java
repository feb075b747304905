package dev.mcpsupervisor.actors;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/** Calls not yet sent, in the order they go out; bounded, so a session that cannot keep up says so. */
final class WaitingCalls {

  private final int capacity;
  private LinkedHashMap<Long, TrackedCall> queue = new LinkedHashMap<>();

  WaitingCalls(int capacity) {
    this.capacity = capacity;
  }

  boolean isFull() {
    return queue.size() >= capacity;
  }

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
