package dev.mcpsupervisor.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Per caller, the SSE streams open now, up to a cap: one caller opening streams without end would
 * otherwise hold every connection the gateway has. Thread-safe; a permit is given back when its
 * stream ends.
 */
final class StreamPermits {

  private final int maxPerIdentity;
  private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();

  StreamPermits(int maxPerIdentity) {
    this.maxPerIdentity = maxPerIdentity;
  }

  /** Takes a permit for {@code identity}, or returns false when it holds the cap already. */
  boolean tryAcquire(String identity) {
    boolean[] granted = {false};
    open.compute(
        identity,
        (key, count) -> {
          int held = count == null ? 0 : count;
          if (held >= maxPerIdentity) {
            return count;
          }
          granted[0] = true;
          return held + 1;
        });
    return granted[0];
  }

  void release(String identity) {
    open.computeIfPresent(identity, (key, count) -> count <= 1 ? null : count - 1);
  }

  int held(String identity) {
    return open.getOrDefault(identity, 0);
  }
}
