package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.IdentityContexts.Entered;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdentityContextsTest {

  private final IdentityContexts<String> contexts = new IdentityContexts<>();

  @Test
  void theFirstSessionOfAContextRegistersItAndTheLastOneStartsItsIdleTime() {
    assertEquals(Entered.FIRST, contexts.enter("c", "create-1"));
    contexts.started("s1", "c");
    assertEquals(Entered.AGAIN, contexts.enter("c", "create-2"));
    contexts.started("s2", "c");
    assertNull(contexts.stopped("s1"), "s2 still uses it");
    assertEquals("c", contexts.stopped("s2"));
    assertNull(contexts.stopped("s2"), "a session stops once");
    assertNull(contexts.stopped("never-started"));
  }

  @Test
  void anIdleContextIsReleasedOnlyWhileNobodyUsesIt() {
    contexts.enter("c", "create-1");
    contexts.started("s1", "c");
    assertFalse(contexts.idle("c"), "in use: a stale idle time changes nothing");
    assertEquals("c", contexts.stopped("s1"));
    assertEquals(Entered.AGAIN, contexts.enter("c", "create-2"), "back before the idle time");
    contexts.started("s2", "c");
    assertFalse(contexts.idle("c"));
    contexts.stopped("s2");
    assertTrue(contexts.idle("c"));
    assertFalse(contexts.idle("c"), "released once");
    assertFalse(contexts.isEmpty(), "forgotten only when the release is done");
    assertEquals(List.of(), contexts.released("c"));
    assertTrue(contexts.isEmpty());
  }

  @Test
  void aSessionForAContextBeingReleasedWaitsAndThenStartsANewOne() {
    contexts.enter("c", "create-1");
    contexts.started("s1", "c");
    contexts.stopped("s1");
    assertTrue(contexts.idle("c"));
    assertEquals(Entered.WAIT, contexts.enter("c", "create-2"));
    assertEquals(Entered.WAIT, contexts.enter("c", "create-3"));
    assertEquals(List.of("create-2", "create-3"), contexts.released("c"));
    assertEquals(Entered.FIRST, contexts.enter("c", "create-2"), "a new context: registered again");
    assertEquals(Entered.AGAIN, contexts.enter("c", "create-3"));
  }

  @Test
  void contextsAreApart() {
    contexts.enter("a", "create-a");
    contexts.started("sa", "a");
    assertEquals(Entered.FIRST, contexts.enter("b", "create-b"));
    contexts.started("sb", "b");
    assertEquals("a", contexts.stopped("sa"));
    assertTrue(contexts.idle("a"));
    assertFalse(contexts.idle("b"));
    assertEquals(Entered.AGAIN, contexts.enter("b", "create-b2"));
  }

  @Test
  void atStopEveryContextIsReleasedOnceEvenInUse() {
    contexts.enter("a", "create-a");
    contexts.started("sa", "a");
    contexts.enter("b", "create-b");
    contexts.started("sb", "b");
    contexts.stopped("sb");
    assertTrue(contexts.idle("b"));
    assertEquals(List.of("a"), contexts.releaseAll(), "b is being released already");
    assertEquals(List.of(), contexts.releaseAll());
    assertNull(contexts.stopped("sa"), "released at stop: no idle time");
    contexts.released("a");
    contexts.released("b");
    assertTrue(contexts.isEmpty());
  }
}
