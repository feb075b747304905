package dev.mcpsupervisor.http.stateless;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.stateless.IdentityContexts.Entered;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdentityContextsTest {

  private final IdentityContexts<String> contexts = new IdentityContexts<>();

  @Test
  void theLastRequestOfAContextToLeaveStartsItsIdleTime() {
    assertEquals(Entered.FIRST, contexts.enter("c", "request-1"));
    assertEquals(Entered.AGAIN, contexts.enter("c", "request-2"));
    assertFalse(contexts.left("c"), "request-2 still uses it");
    assertTrue(contexts.left("c"));
    assertFalse(contexts.left("c"), "nobody is left to leave");
    assertFalse(contexts.left("never-entered"));
  }

  @Test
  void anIdleContextIsReleasedOnlyWhileNobodyUsesIt() {
    contexts.enter("c", "request-1");
    assertFalse(contexts.idle("c"), "in use: a stale idle time changes nothing");
    assertTrue(contexts.left("c"));
    assertEquals(Entered.AGAIN, contexts.enter("c", "request-2"), "back before the idle time");
    assertFalse(contexts.idle("c"));
    contexts.left("c");
    assertTrue(contexts.idle("c"));
    assertFalse(contexts.idle("c"), "released once");
    assertFalse(contexts.isEmpty(), "forgotten only when the release is done");
    assertEquals(List.of(), contexts.released("c"));
    assertTrue(contexts.isEmpty());
  }

  @Test
  void aRequestForAContextBeingReleasedWaitsAndThenEntersANewOne() {
    contexts.enter("c", "request-1");
    contexts.left("c");
    assertTrue(contexts.idle("c"));
    assertEquals(Entered.WAIT, contexts.enter("c", "request-2"));
    assertEquals(Entered.WAIT, contexts.enter("c", "request-3"));
    assertEquals(List.of("request-2", "request-3"), contexts.released("c"));
    assertEquals(Entered.FIRST, contexts.enter("c", "request-2"), "a new context");
    assertEquals(Entered.AGAIN, contexts.enter("c", "request-3"));
  }

  @Test
  void contextsAreApart() {
    contexts.enter("a", "request-a");
    assertEquals(Entered.FIRST, contexts.enter("b", "request-b"));
    assertTrue(contexts.left("a"));
    assertTrue(contexts.idle("a"));
    assertFalse(contexts.idle("b"));
    assertEquals(Entered.AGAIN, contexts.enter("b", "request-b2"));
  }

  @Test
  void atStopEveryContextIsReleasedOnceEvenInUse() {
    contexts.enter("a", "request-a");
    contexts.enter("b", "request-b");
    contexts.left("b");
    assertTrue(contexts.idle("b"));
    assertEquals(List.of("a"), contexts.releaseAll(), "b is being released already");
    assertEquals(List.of(), contexts.releaseAll());
    assertFalse(contexts.left("a"), "released at stop: no idle time");
    contexts.released("a");
    contexts.released("b");
    assertTrue(contexts.isEmpty());
  }
}
