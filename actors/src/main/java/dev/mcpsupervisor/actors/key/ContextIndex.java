package dev.mcpsupervisor.actors.key;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which server keys each context may hold leases on, both ways, so that releaseAll and a new
 * listener reach exactly those keys and a key actor that goes takes its entries along: no entry
 * outlives both its context's leases and its key actor. An entry is held explicitly (an acquire, a
 * leased call: until its release) or by leaseless calls only (an {@code isolation: context} server
 * leases each such context a session until its calls are answered): then it counts them, and only
 * the last one's answer ends it. Plain bookkeeping of the {@link KeyRouter}.
 */
final class ContextIndex {

  /**
   * Immutable sets: a context is on a key or two, and the gateway keeps one context per idle
   * downstream session, where a HashSet each would cost ~150 bytes.
   */
  private final Map<String, Set<String>> keysByContext = new HashMap<>();

  private final Map<String, Set<String>> contextsByKey = new HashMap<>();

  /** The entries only leaseless calls hold, with how many are in flight. */
  private final Map<Entry, Integer> callHolds = new HashMap<>();

  private record Entry(String context, String keyId) {}

  /** An explicit hold: the entry stays until released, whatever calls come and go. */
  void add(String context, String keyId) {
    callHolds.remove(new Entry(context, keyId));
    put(context, keyId);
  }

  /** A leaseless call holds the entry until its answer (an explicit hold, if any, is left so). */
  void addCallHold(String context, String keyId) {
    Entry entry = new Entry(context, keyId);
    if (has(context, keyId) && !callHolds.containsKey(entry)) {
      return;
    }
    put(context, keyId);
    callHolds.merge(entry, 1, Integer::sum);
  }

  /**
   * A leaseless call was answered: answers whether that ended the entry (the last call of an entry
   * only calls held), which is then gone.
   */
  boolean releaseCallHold(String context, String keyId) {
    Entry entry = new Entry(context, keyId);
    Integer holds = callHolds.get(entry);
    if (holds == null) {
      return false;
    }
    if (holds > 1) {
      callHolds.put(entry, holds - 1);
      return false;
    }
    remove(context, keyId);
    return true;
  }

  private void put(String context, String keyId) {
    keysByContext.merge(context, Set.of(keyId), ContextIndex::union);
    contextsByKey.computeIfAbsent(keyId, notUsed -> new HashSet<>()).add(context);
  }

  boolean has(String context, String keyId) {
    return keysByContext.getOrDefault(context, Set.of()).contains(keyId);
  }

  Set<String> keysOf(String context) {
    return keysByContext.getOrDefault(context, Set.of());
  }

  void remove(String context, String keyId) {
    callHolds.remove(new Entry(context, keyId));
    removeKeyOf(context, keyId);
    removeOneWay(contextsByKey, keyId, context);
  }

  /** Forgets the context; answers the keys it was on. */
  Set<String> removeContext(String context) {
    Set<String> keyIds = keysByContext.remove(context);
    if (keyIds == null) {
      return Set.of();
    }
    keyIds.forEach(
        keyId -> {
          callHolds.remove(new Entry(context, keyId));
          removeOneWay(contextsByKey, keyId, context);
        });
    return keyIds;
  }

  /** The key actor is gone: no context names it any more. Answers the contexts that did. */
  Set<String> removeKey(String keyId) {
    Set<String> contexts = contextsByKey.remove(keyId);
    if (contexts == null) {
      return Set.of();
    }
    contexts.forEach(
        context -> {
          callHolds.remove(new Entry(context, keyId));
          removeKeyOf(context, keyId);
        });
    return contexts;
  }

  boolean isEmpty() {
    return keysByContext.isEmpty() && contextsByKey.isEmpty() && callHolds.isEmpty();
  }

  private void removeKeyOf(String context, String keyId) {
    keysByContext.computeIfPresent(
        context,
        (notUsed, keyIds) -> {
          Set<String> left = new HashSet<>(keyIds);
          left.remove(keyId);
          return left.isEmpty() ? null : Set.copyOf(left);
        });
  }

  private static Set<String> union(Set<String> some, Set<String> others) {
    if (some.containsAll(others)) {
      return some;
    }
    Set<String> all = new HashSet<>(some);
    all.addAll(others);
    return Set.copyOf(all);
  }

  /** Drops an entry once its set is empty, so the maps never outgrow the live leases. */
  private static void removeOneWay(Map<String, Set<String>> map, String key, String value) {
    Set<String> values = map.get(key);
    if (values != null) {
      values.remove(value);
      if (values.isEmpty()) {
        map.remove(key);
      }
    }
  }
}
