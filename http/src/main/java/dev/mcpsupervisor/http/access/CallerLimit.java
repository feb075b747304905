package dev.mcpsupervisor.http.access;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.OVERLOADED;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * What each caller holds at once, against a cap: stateless requests in flight (so that one caller's
 * flood is refused at the door instead of filling the upstream sessions' queues that every caller
 * shares), open streams (so that one caller cannot hold every connection). Thread-safe: the routes
 * count, on whatever thread a request or its end comes. Each {@link #tryAcquire} that succeeded
 * must be matched by one {@link #release}; a key at zero is forgotten.
 */
public final class CallerLimit {

  /** The cap in force: read at each acquire. */
  private final IntSupplier max;

  private final ConcurrentMap<String, Integer> inFlight = new ConcurrentHashMap<>();

  public CallerLimit(IntSupplier max) {
    this.max = max;
  }

  /** Counts one more request of {@code key}; false (nothing counted) when it has {@code max}. */
  boolean tryAcquire(String key) {
    boolean[] acquired = {false};
    int cap = max.getAsInt();
    inFlight.compute(
        key,
        (k, count) -> {
          int now = count == null ? 0 : count;
          if (now >= cap) {
            return count;
          }
          acquired[0] = true;
          return now + 1;
        });
    return acquired[0];
  }

  /**
   * One more for {@code key}, given back by running the answer (once, however often it runs), or
   * empty when {@code key} holds {@code max} already.
   */
  public Optional<Runnable> acquire(String key) {
    if (!tryAcquire(key)) {
      return Optional.empty();
    }
    AtomicBoolean released = new AtomicBoolean();
    return Optional.of(
        () -> {
          if (released.compareAndSet(false, true)) {
            release(key);
          }
        });
  }

  void release(String key) {
    inFlight.computeIfPresent(key, (k, count) -> count > 1 ? count - 1 : null);
  }

  int inFlight(String key) {
    return inFlight.getOrDefault(key, 0);
  }

  /** Keys with a request in flight (none once everything is released). */
  int keys() {
    return inFlight.size();
  }

  /**
   * The answer to a request refused at a cap: overloaded, so the client retries later.
   *
   * @param whose "this session", "this caller"
   * @param setting the setting that caps it
   */
  public static JsonRpcResponse overloaded(
      JsonNode requestId, String whose, int max, String setting) {
    return JsonRpcResponse.failure(
        requestId,
        OVERLOADED,
        "overloaded: "
            + whose
            + " has "
            + max
            + " requests in flight (gateway."
            + setting
            + "); retry once one is answered");
  }
}
