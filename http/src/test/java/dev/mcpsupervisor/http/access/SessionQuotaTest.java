package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SessionQuotaTest {

  @Test
  void refusesPastTheGatewayLimitUntilASessionStops() {
    SessionQuota quota = new SessionQuota(() -> 3, () -> 10);
    for (int i = 0; i < 3; i++) {
      assertNull(quota.refusal(null));
      quota.started("s" + i, null);
    }
    assertEquals("the gateway has 3 sessions, its maxDownstreamSessions", quota.refusal("anyone"));
    quota.stopped("s1");
    quota.stopped("s1"); // twice: counted once
    quota.stopped("never-started");
    assertEquals(2, quota.size());
    assertNull(quota.refusal(null));
  }

  @Test
  void refusesPastTheIdentityLimitWhileOtherIdentitiesStillGetSessions() {
    SessionQuota quota = new SessionQuota(() -> 100, () -> 2);
    quota.started("a1", "alice");
    quota.started("a2", "alice");
    assertNotNull(quota.refusal("alice"));
    assertNull(quota.refusal("bob"));
    assertNull(quota.refusal(null));
    quota.stopped("a1");
    assertNull(quota.refusal("alice"));
    quota.started("a3", "alice");
    assertEquals(
        "this caller has 2 sessions, the gateway's maxDownstreamSessionsPerIdentity",
        quota.refusal("alice"));
  }

  @Test
  void aSessionCountsForItsCallerContextElseItsAuthenticatedOwnerElseNobody() {
    assertEquals("ctx:1", SessionQuota.callerOf(Identity.ofToken("ops"), "ctx:1"));
    assertEquals("token:ops", SessionQuota.callerOf(Identity.ofToken("ops"), null));
    assertNull(SessionQuota.callerOf(Identity.ANONYMOUS, null));
    assertNull(SessionQuota.callerOf(null, null));
  }
}
