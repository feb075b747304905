package dev.mcpsupervisor.http.request;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Values that many sessions hold equal copies of (a client program's name and version, the set of
 * capabilities it declares): one shared copy per key, so that 100,000 sessions of one client do not
 * keep 100,000 copies. Bounded: past {@code maxEntries} keys, or for a key longer than {@code
 * maxKeyLength}, a value is made and kept unshared, so clients cannot grow the table without limit.
 * Shared values are never modified. Thread-safe (sessions run on many threads).
 */
final class SharedValues<T> {

  private final ConcurrentHashMap<String, T> values = new ConcurrentHashMap<>();
  private final int maxEntries;
  private final int maxKeyLength;

  SharedValues(int maxEntries, int maxKeyLength) {
    this.maxEntries = maxEntries;
    this.maxKeyLength = maxKeyLength;
  }

  /** The shared value of {@code key}, made by {@code make} on first use. */
  T of(String key, Function<String, T> make) {
    T shared = values.get(key);
    if (shared != null) {
      return shared;
    }
    if (key.length() > maxKeyLength || values.size() >= maxEntries) {
      return make.apply(key);
    }
    return values.computeIfAbsent(key, make);
  }

  /** Client names and versions, as sessions keep them (see {@link ClientRequests.Client}). */
  private static final SharedValues<String> CLIENT_INFO = new SharedValues<>(1024, 128);

  /** The shared copy of a client's name or version (null stays null). */
  static String clientInfo(String value) {
    return value == null ? null : CLIENT_INFO.of(value, Function.identity());
  }

  int size() {
    return values.size();
  }
}
