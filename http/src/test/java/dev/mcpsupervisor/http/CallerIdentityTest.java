package dev.mcpsupervisor.http;

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

  private static final CallerIdentity TOKENS_AND_AGENTS = new CallerIdentity(true, "X-Agent-ID");
  private static final CallerIdentity TOKENS_ONLY = new CallerIdentity(true, "");
  private static final CallerIdentity AGENTS_ONLY = new CallerIdentity(false, "X-Agent-ID");

  /** Headers by name, read case-insensitively as Pekko HTTP does. */
  private static String contextOf(CallerIdentity callers, String... headers) {
    Map<String, String> byName = new HashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      byName.put(headers[i].toLowerCase(), headers[i + 1]);
    }
    return callers.contextOf(name -> byName.get(name.toLowerCase()));
  }

  @Test
  void oneTokenIsOneContextAndAnotherTokenAnother() {
    String first = contextOf(TOKENS_ONLY, "Authorization", "Bearer token-one");
    assertEquals(first, contextOf(TOKENS_ONLY, "Authorization", "Bearer token-one"));
    assertEquals(first, contextOf(TOKENS_ONLY, "Authorization", "bearer  token-one "));
    assertNotEquals(first, contextOf(TOKENS_ONLY, "Authorization", "Bearer token-two"));
    assertTrue(first.startsWith(CallerIdentity.PREFIX), first);
  }

  @Test
  void theContextIsADigestThatNeverShowsTheToken() {
    String context = contextOf(TOKENS_ONLY, "Authorization", "Bearer secret-token-value");
    assertFalse(context.contains("secret"), context);
    assertEquals(CallerIdentity.PREFIX.length() + 32, context.length(), context);
    assertTrue(context.substring(CallerIdentity.PREFIX.length()).matches("[A-Za-z0-9_-]+"));
  }

  @Test
  void aTokenTheGatewayDoesNotCheckIsNoIdentity() {
    assertNull(contextOf(AGENTS_ONLY, "Authorization", "Bearer anything"));
    assertNull(contextOf(new CallerIdentity(false, ""), "Authorization", "Bearer anything"));
    assertNull(contextOf(TOKENS_ONLY, "Authorization", "Basic dXNlcjpwYXNz"));
  }

  @Test
  void theAgentHeaderCountsOnlyWhenConfigured() {
    String agent = contextOf(AGENTS_ONLY, "X-Agent-ID", "agent-7");
    assertEquals(agent, contextOf(AGENTS_ONLY, "x-agent-id", "agent-7"));
    assertNotEquals(agent, contextOf(AGENTS_ONLY, "X-Agent-ID", "agent-8"));
    assertNull(contextOf(TOKENS_ONLY, "X-Agent-ID", "agent-7"), "no header configured");
    assertNull(contextOf(AGENTS_ONLY, "X-Agent-ID", "  "), "a blank id names nobody");
  }

  @Test
  void tokenAndAgentTogetherKeepEachTokensAgentsApart() {
    String tokenOne = contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer one");
    String oneA = contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "a");
    String oneB = contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "b");
    String twoA = contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer two", "X-Agent-ID", "a");
    String onlyA = contextOf(AGENTS_ONLY, "X-Agent-ID", "a");
    assertEquals(5, Set.of(tokenOne, oneA, oneB, twoA, onlyA).size(), "all different");
    assertEquals(
        oneA, contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer one", "X-Agent-ID", "a"));
  }

  @Test
  void partsCannotBeShiftedIntoEachOther() {
    // the same characters split differently between token and agent id are different callers
    assertNotEquals(
        contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer ab", "X-Agent-ID", "c"),
        contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer a", "X-Agent-ID", "bc"));
    assertNotEquals(
        contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer x;agent:1:y"),
        contextOf(TOKENS_AND_AGENTS, "Authorization", "Bearer x", "X-Agent-ID", "y"));
  }
}
