package dev.mcpsupervisor.http.stream;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Maps and sets a session part holds only while they hold something. Empty, the field holds the
 * shared immutable empty one, so that an idle session (100,000 of them on one gateway) carries
 * neither an empty map nor the table a map keeps after it was emptied. Read the field as any map;
 * write through these, storing what they return.
 */
public final class SparseMaps {

  private SparseMaps() {}

  /** {@code map} with {@code key → value}, a new hash map if it was the empty one. */
  public static <K, V> Map<K, V> with(Map<K, V> map, K key, V value) {
    Map<K, V> writable = map instanceof HashMap ? map : new HashMap<>();
    writable.put(key, value);
    return writable;
  }

  /** {@code map} with {@code key → value} unless it has {@code key}. */
  public static <K, V> Map<K, V> withIfNew(Map<K, V> map, K key, V value) {
    return map.containsKey(key) ? map : with(map, key, value);
  }

  /** {@link #with} keeping insertion order. */
  public static <K, V> Map<K, V> withLinked(Map<K, V> map, K key, V value) {
    Map<K, V> writable = map instanceof HashMap ? map : new LinkedHashMap<>();
    writable.put(key, value);
    return writable;
  }

  /** {@code map} with every entry of {@code more} added. */
  public static <K, V> Map<K, V> withAll(Map<K, V> map, Map<? extends K, ? extends V> more) {
    if (more.isEmpty()) {
      return map;
    }
    Map<K, V> writable = map instanceof HashMap ? map : new HashMap<>();
    writable.putAll(more);
    return writable;
  }

  /** {@code map} without {@code key}: the empty one once nothing is left. */
  public static <K, V> Map<K, V> without(Map<K, V> map, Object key) {
    if (map.isEmpty()) {
      return Map.of();
    }
    map.remove(key);
    return compacted(map);
  }

  /** {@code map} without every entry whose value is {@code value}. */
  static <K, V> Map<K, V> withoutValue(Map<K, V> map, Object value) {
    if (map.isEmpty()) {
      return Map.of();
    }
    map.values().removeIf(other -> other == value);
    return compacted(map);
  }

  /** The empty one when {@code map} is empty (after removals through its views). */
  public static <K, V> Map<K, V> compacted(Map<K, V> map) {
    return map.isEmpty() ? Map.of() : map;
  }

  /** {@code set} with {@code element}, a new hash set if it was the empty one. */
  public static <E> Set<E> with(Set<E> set, E element) {
    Set<E> writable = set instanceof HashSet ? set : new HashSet<>();
    writable.add(element);
    return writable;
  }

  /** {@link #with(Set, Object)} keeping insertion order. */
  static <E> Set<E> withLinked(Set<E> set, E element) {
    Set<E> writable = set instanceof HashSet ? set : new LinkedHashSet<>();
    writable.add(element);
    return writable;
  }

  /** {@code set} without {@code element}: the empty one once nothing is left. */
  public static <E> Set<E> without(Set<E> set, Object element) {
    if (set.isEmpty()) {
      return Set.of();
    }
    set.remove(element);
    return set.isEmpty() ? Set.of() : set;
  }
}
