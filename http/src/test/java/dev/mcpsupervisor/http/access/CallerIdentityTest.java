package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CallerIdentityTest {

  private static final CallerIdentity AGENTS = new CallerIdentity("X-Agent-ID");
  private static final CallerIdentity NO_AGENTS = new CallerIdentity("");

  /**
   * Headers by name, read case-insensitively as Pekko HTTP does; an {@code Authorization: Bearer x}
   * header stands for the authenticated identity named x (the gateway's authentication step turns
   * tokens into identities before contexts are derived).
   */
  private static String contextOf(CallerIdentity callers, String... headers) {
    Map<String, String> byName = new HashMap<>();
    Identity identity = Identity.ANONYMOUS;
    for (int i = 0; i < headers.length; i += 2) {
      if (headers[i].equals("Authorization") && headers[i + 1].startsWith("Bearer ")) {
        identity = Identity.ofToken(headers[i + 1].substring(7).trim());
      }
      byName.put(headers[i].toLowerCase(), headers[i + 1]);
    }
    return callers.contextOf(identity, name -> byName.get(name.toLowerCase()));
  }

  @Test
  void oneIdentityIsOneContextAndAnotherIdentityAnother() {
    String first = contextOf(NO_AGENTS, "Authorization", "Bearer token-one");
    assertEquals(first, contextOf(NO_AGENTS, "Authorization", "Bearer token-one"));
    assertNotEquals(first, contextOf(NO_AGENTS, "Authorization", "Bearer token-two"));
    assertTrue(first.startsWith(CallerIdentity.PREFIX), first);
  }

  @Test
  void anAccessTokenIdentityKeepsItsContextWhateverTokenItPresents() {
    String subject = NO_AGENTS.contextOf(Identity.ofAccessToken("alice"), name -> null);
    assertEquals(subject, NO_AGENTS.contextOf(Identity.ofAccessToken("alice"), name -> null));
    assertNotEquals(subject, NO_AGENTS.contextOf(Identity.ofToken("alice"), name -> null));
  }

  @Test
  void theContextIsADigestThatNeverShowsTheToken() {
    String context = contextOf(NO_AGENTS, "Authorization", "Bearer secret-token-value");
    assertFalse(context.contains("secret"), context);
    assertEquals(CallerIdentity.PREFIX.length() + 32, context.length(), context);
    assertTrue(context.substring(CallerIdentity.PREFIX.length()).matches("[A-Za-z0-9_-]+"));
  }

  @Test
  void anAnonymousCallerWithoutAgentIdIsNoIdentity() {
    assertNull(NO_AGENTS.contextOf(Identity.ANONYMOUS, name -> "Bearer anything"));
    assertNull(AGENTS.contextOf(Identity.ANONYMOUS, name -> null));
    assertNull(contextOf(NO_AGENTS, "Authorization", "Basic dXNlcjpwYXNz"));
  }

  @Test
  void theAgentHeaderCountsOnlyWhenConfigured() {
    String agent = contextOf(AGENTS, "X-Agent-ID", "agent-7");
    assertEquals(agent, contextOf(AGENTS, "x-agent-id", "agent-7"));
    assertNotEquals(agent, contextOf(AGENTS, "X-Agent-ID", "agent-8"));
    assertNull(contextOf(NO_AGENTS, "X-Agent-ID", "agent-7"), "no header configured");
    assertNull(contextOf(AGENTS, "X-Agent-ID", "  "), "a blank id names nobody");
  }

  @Test
  void tokenAndAgentTogetherKeepEachTokensAgentsApart() {
    String tokenOne = contextOf(AGENTS, "Authorization", "Bearer one");
    String oneA = contextOf(AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "a");
    String oneB = contextOf(AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "b");
    String twoA = contextOf(AGENTS, "Authorization", "Bearer two", "X-Agent-ID", "a");
    String onlyA = contextOf(AGENTS, "X-Agent-ID", "a");
    assertEquals(5, Set.of(tokenOne, oneA, oneB, twoA, onlyA).size(), "all different");
    assertEquals(oneA, contextOf(AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "a"));
  }

  @Test
  void partsCannotBeShiftedIntoEachOther() {
    // the same characters split differently between token and agent id are different callers
    assertNotEquals(
        contextOf(AGENTS, "Authorization", "Bearer ab", "X-Agent-ID", "c"),
        contextOf(AGENTS, "Authorization", "Bearer a", "X-Agent-ID", "bc"));
    assertNotEquals(
        contextOf(AGENTS, "Authorization", "Bearer x;agent:1:y"),
        contextOf(AGENTS, "Authorization", "Bearer x", "X-Agent-ID", "y"));
  }
}
