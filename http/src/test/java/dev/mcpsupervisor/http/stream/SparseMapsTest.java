package dev.mcpsupervisor.http.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Empty → used → emptied again: the shared empty map again, and usable as before. */
class SparseMapsTest {

  @Test
  void aMapEmptiedAgainIsTheSharedEmptyOneAndTakesEntriesAgain() {
    Map<String, Integer> map = Map.of();
    for (int round = 0; round < 2; round++) {
      map = SparseMaps.with(map, "a", 1);
      map = SparseMaps.with(map, "b", 2);
      assertEquals(Map.of("a", 1, "b", 2), map);
      map = SparseMaps.without(map, "a");
      assertEquals(Map.of("b", 2), map);
      map = SparseMaps.without(map, "absent");
      map = SparseMaps.without(map, "b");
      assertSame(Map.of(), map, "nothing kept once empty");
      map = SparseMaps.without(map, "b");
      assertSame(Map.of(), map, "removing from the empty one is a no-op");
    }
  }

  @Test
  void aLinkedMapKeepsInsertionOrderAcrossEmptying() {
    Map<String, Integer> map = Map.of();
    for (int round = 0; round < 2; round++) {
      for (String key : List.of("z", "a", "m")) {
        map = SparseMaps.withLinked(map, key, round);
      }
      assertEquals(List.of("z", "a", "m"), List.copyOf(map.keySet()));
      for (String key : List.of("z", "a", "m")) {
        map = SparseMaps.without(map, key);
      }
      assertSame(Map.of(), map);
    }
  }

  @Test
  void bulkAndConditionalWritesAndRemovalByValue() {
    Map<String, String> map = SparseMaps.withAll(Map.of(), Map.of());
    assertSame(Map.of(), map, "adding nothing allocates nothing");
    map = SparseMaps.withAll(map, Map.of("u", "s1"));
    map = SparseMaps.withIfNew(map, "u", "s2");
    map = SparseMaps.withIfNew(map, "v", "s2");
    assertEquals(Map.of("u", "s1", "v", "s2"), map);
    map = SparseMaps.withoutValue(map, map.get("v"));
    assertEquals(Map.of("u", "s1"), map);
    map = SparseMaps.withoutValue(map, map.get("u"));
    assertSame(Map.of(), map);
    assertSame(Map.of(), SparseMaps.withoutValue(map, "s1"));
    map = SparseMaps.withIfNew(map, "w", "s3");
    assertEquals(Map.of("w", "s3"), map);
    map.remove("w");
    assertSame(Map.of(), SparseMaps.compacted(map));
  }

  @Test
  void setsEmptiedAgainAreTheSharedEmptyOne() {
    Set<String> set = Set.of();
    for (int round = 0; round < 2; round++) {
      set = SparseMaps.with(set, "x");
      set = SparseMaps.with(set, "y");
      assertEquals(Set.of("x", "y"), set);
      set = SparseMaps.without(set, "x");
      set = SparseMaps.without(set, null);
      assertEquals(Set.of("y"), set);
      set = SparseMaps.without(set, "y");
      assertSame(Set.of(), set);
      assertSame(Set.of(), SparseMaps.without(set, "y"));
    }
    Set<String> linked = Set.of();
    for (String element : List.of("c", "a", "b")) {
      linked = SparseMaps.withLinked(linked, element);
    }
    assertEquals(List.of("c", "a", "b"), List.copyOf(linked));
  }
}
