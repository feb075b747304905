package dev.mcpsupervisor.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RequestStatesTest {

  private static final byte[] KEY = new byte[32];

  static {
    Arrays.fill(KEY, (byte) 7);
  }

  private final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
  private final RequestStates states = new RequestStates(KEY, clock);
  private final RequestStates.State state =
      new RequestStates.State("session-1", 2, "tools/call", "ask", "alice", 1_060_000, null);

  @Test
  void aSealedStateOpensForTheSameRequestAndPrincipal() {
    RequestStates.Opened opened = states.open(states.seal(state), "tools/call", "ask", "alice");

    assertEquals(new RequestStates.Opened.Valid(state), opened);
  }

  @Test
  void aChangedByteIsRefused() {
    String sealed = states.seal(state);
    char[] chars = sealed.toCharArray();
    chars[3] = chars[3] == 'A' ? 'B' : 'A';

    assertEquals(
        new RequestStates.Opened.Invalid("requestState failed verification"),
        states.open(new String(chars), "tools/call", "ask", "alice"));
    assertInstanceOf(
        RequestStates.Opened.Invalid.class,
        states.open(sealed + "-TAMPERED", "tools/call", "ask", "alice"));
    assertInstanceOf(
        RequestStates.Opened.Invalid.class, states.open("no-dot", "tools/call", "ask", "alice"));
  }

  @Test
  void anotherKeyCannotOpenIt() {
    byte[] other = KEY.clone();
    other[0] = 1;

    assertEquals(
        new RequestStates.Opened.Invalid("requestState failed verification"),
        new RequestStates(other, clock).open(states.seal(state), "tools/call", "ask", "alice"));
  }

  @Test
  void theNodeThatHoldsTheCallTravelsWithTheState() {
    RequestStates.State held =
        new RequestStates.State(
            "p-1", 1, "tools/call", "ask", null, Long.MAX_VALUE, "pekko://gw@127.0.0.1:2552");

    assertEquals(
        new RequestStates.Opened.Valid(held),
        states.open(states.seal(held), "tools/call", "ask", null));
  }

  @Test
  void itExpires() {
    RequestStates later =
        new RequestStates(KEY, Clock.fixed(Instant.ofEpochMilli(1_060_001), ZoneOffset.UTC));

    assertEquals(
        new RequestStates.Opened.Invalid("requestState has expired"),
        later.open(states.seal(state), "tools/call", "ask", "alice"));
  }

  @Test
  void itHoldsOnlyForItsRequestAndItsClient() {
    String sealed = states.seal(state);

    RequestStates.Opened otherRequest =
        new RequestStates.Opened.Invalid("requestState belongs to another request");
    assertEquals(otherRequest, states.open(sealed, "tools/call", "other", "alice"));
    assertEquals(otherRequest, states.open(sealed, "prompts/get", "ask", "alice"));
    assertEquals(
        new RequestStates.Opened.Invalid("requestState belongs to another client"),
        states.open(sealed, "tools/call", "ask", "mallory"));
  }

  @Test
  void aPrincipalIsADigestNeverTheCredential() {
    String principal = RequestStates.principalOf("Bearer secret-token");
    assertFalse(principal.contains("secret"));
    assertEquals(principal, RequestStates.principalOf("Bearer secret-token"));
    assertNotEquals(principal, RequestStates.principalOf("Bearer other-token"));
    assertNull(RequestStates.principalOf(null));
  }
}
