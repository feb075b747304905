package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeptContextsTest {

  private final KeptContexts kept = new KeptContexts();

  @Test
  void theLastCallInFlightToEndStartsTheIdleTime() {
    kept.held("c");
    kept.held("c");
    assertFalse(kept.ended("c"), "another call still holds it");
    assertTrue(kept.ended("c"));
    assertFalse(kept.ended("c"), "nothing is left to end");
    assertFalse(kept.ended("never-held"));
  }

  @Test
  void anIdleTimeOverIsAReleaseOnlyWhileNothingIsInFlight() {
    kept.held("c");
    assertFalse(kept.idleOver("c"), "in flight: a stale idle time changes nothing");
    kept.ended("c");
    kept.held("c"); // back before the idle time was over
    assertFalse(kept.idleOver("c"));
    kept.ended("c");
    assertTrue(kept.idleOver("c"));
    assertFalse(kept.idleOver("c"), "released once, then forgotten");
    assertFalse(kept.idleOver("never-held"));
  }

  @Test
  void aCallAfterTheReleaseKeepsTheContextAnew() {
    kept.held("c");
    kept.ended("c");
    assertTrue(kept.idleOver("c"));
    kept.held("c");
    assertTrue(kept.ended("c"), "counted from nothing: the release forgot the old count");
  }

  @Test
  void aTouchKeepsAContextAndStartsItsIdleTimeOnlyWhileNothingIsInFlight() {
    assertTrue(kept.touched("new"), "kept from now on, idle");
    assertTrue(kept.idleOver("new"), "so released after its idle time, though it never called");
    kept.held("busy");
    assertFalse(kept.touched("busy"), "its call's end starts the idle time");
    kept.ended("busy");
    assertTrue(kept.touched("busy"), "idle: its idle time starts again");
    assertTrue(kept.idleOver("busy"));
  }

  @Test
  void contextsAreApart() {
    kept.held("a");
    kept.held("b");
    assertTrue(kept.ended("a"));
    assertTrue(kept.idleOver("a"));
    assertFalse(kept.idleOver("b"));
  }

  @Test
  void atAStopEveryContextIsReleasedInUseOrNotAndLateEndsChangeNothing() {
    kept.held("a");
    kept.held("b");
    kept.ended("b");
    assertEquals(List.of("a", "b"), kept.releaseAll().stream().sorted().toList());
    assertEquals(List.of(), kept.releaseAll());
    assertFalse(kept.ended("a"), "released at the stop: its call's end starts no idle time");
    assertFalse(kept.idleOver("b"));
  }
}
