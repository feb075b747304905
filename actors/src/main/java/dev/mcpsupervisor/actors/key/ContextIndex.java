package dev.mcpsupervisor.actors.key;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which server keys each context may hold leases on, both ways, so that releaseAll and a new
 * listener reach exactly those keys and a key actor that goes takes its entries along: no entry
 * outlives both its context's leases and its key actor. Plain bookkeeping of the {@link KeyRouter}.
 */
final class ContextIndex {

  /**
   * Immutable sets: a context is on a key or two, and the gateway keeps one context per idle
   * downstream session, where a HashSet each would cost ~150 bytes.
   */
  private final Map<String, Set<String>> keysByContext = new HashMap<>();

  private final Map<String, Set<String>> contextsByKey = new HashMap<>();

  void add(String context, String keyId) {
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
    removeKeyOf(context, keyId);
    removeOneWay(contextsByKey, keyId, context);
  }

  /** Forgets the context; answers the keys it was on. */
  Set<String> removeContext(String context) {
    Set<String> keyIds = keysByContext.remove(context);
    if (keyIds == null) {
      return Set.of();
    }
    keyIds.forEach(keyId -> removeOneWay(contextsByKey, keyId, context));
    return keyIds;
  }

  /** The key actor is gone: no context names it any more. */
  void removeKey(String keyId) {
    Set<String> contexts = contextsByKey.remove(keyId);
    if (contexts != null) {
      contexts.forEach(context -> removeKeyOf(context, keyId));
    }
  }

  boolean isEmpty() {
    return keysByContext.isEmpty() && contextsByKey.isEmpty();
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
