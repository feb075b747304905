package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The router's context ↔ key index, without actors: it never outgrows the live leases. */
class ContextIndexTest {

  private final ContextIndex index = new ContextIndex();

  @Test
  void releasingEveryLeaseOfAContextLeavesNoEntry() {
    index.add("run", "alpha#1");
    index.add("run", "beta#2");
    assertTrue(index.has("run", "alpha#1"));
    assertEquals(Set.of("alpha#1", "beta#2"), index.removeContext("run"));
    assertFalse(index.has("run", "alpha#1"));
    assertTrue(index.isEmpty());
  }

  @Test
  void aKeyThatGoesTakesItsEntriesAlong() {
    index.add("one", "alpha#1");
    index.add("two", "alpha#1");
    index.add("two", "beta#2");
    index.removeKey("alpha#1");
    assertEquals(Set.of(), index.keysOf("one"));
    assertEquals(Set.of("beta#2"), index.keysOf("two"));
    index.remove("two", "beta#2");
    assertTrue(index.isEmpty());
  }
}
