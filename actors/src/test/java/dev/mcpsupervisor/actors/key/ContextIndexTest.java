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

  @Test
  void leaselessCallsHoldAnEntryUntilTheLastIsAnswered() {
    index.addCallHold("run", "alpha#1");
    index.addCallHold("run", "alpha#1");
    index.addCallHold("run", "alpha#1");
    assertFalse(index.releaseCallHold("run", "alpha#1"));
    assertFalse(index.releaseCallHold("run", "alpha#1"));
    assertTrue(index.has("run", "alpha#1"), "a call is still in flight");
    assertTrue(index.releaseCallHold("run", "alpha#1"), "the last answer ends it");
    assertFalse(index.has("run", "alpha#1"));
    assertFalse(index.releaseCallHold("run", "alpha#1"), "nothing left to end");
    assertTrue(index.isEmpty());
  }

  @Test
  void anExplicitHoldOutlivesTheLeaselessCallsOnTheSameEntry() {
    index.add("run", "alpha#1");
    index.addCallHold("run", "alpha#1");
    assertFalse(index.releaseCallHold("run", "alpha#1"), "the acquire's lease stays");
    assertTrue(index.has("run", "alpha#1"));

    index.addCallHold("other", "alpha#1");
    index.add("other", "alpha#1"); // an acquire while a call holds it: now it is explicit
    assertFalse(index.releaseCallHold("other", "alpha#1"));
    assertTrue(index.has("other", "alpha#1"));
    index.remove("other", "alpha#1");
    index.remove("run", "alpha#1");
    assertTrue(index.isEmpty());
  }
}
