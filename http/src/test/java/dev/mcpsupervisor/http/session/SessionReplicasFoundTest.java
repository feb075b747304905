package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.Map;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.LWWMap;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.junit.jupiter.api.Test;

/**
 * What a read of the replicas says of a session's record: a record missing from this node's own
 * copy, read because no majority answered in time, does not mean the session has none (a node that
 * has just joined has no copy yet), so the desk does not answer 404 for it.
 */
class SessionReplicasFoundTest {

  private static final String ID = "a-session";
  private static final Key<LWWMap<String, SessionRecord>> KEY = SessionReplicas.keyOf(ID);

  @Test
  void aRecordMissingFromTheMajorityIsKnownToBeMissing() {
    SessionReplicas.Found found = SessionReplicas.found(ID, false, new Replicator.NotFound<>(KEY));

    assertNull(found.record());
    assertTrue(found.known());
  }

  @Test
  void aRecordMissingFromThisNodesCopyAloneIsNotKnownToBeMissing() {
    assertFalse(SessionReplicas.found(ID, true, new Replicator.NotFound<>(KEY)).known());
    SessionReplicas.Found withoutIt =
        SessionReplicas.found(ID, true, new Replicator.GetSuccess<>(KEY, LWWMap.create()));
    assertNull(withoutIt.record());
    assertFalse(withoutIt.known());
  }

  @Test
  void aRecordInThisNodesCopyIsFound() {
    SessionRecord record =
        new SessionRecord(
            ID,
            "/mcp",
            Identity.ANONYMOUS,
            new ClientRequests.Client("2025-06-18", JsonRpcCodec.emptyObject(), "c", "1", null),
            Map.of(),
            null,
            Map.of(),
            "pekko://system@127.0.0.1:1#1");
    SelfUniqueAddress self =
        new SelfUniqueAddress(
            new UniqueAddress(
                org.apache.pekko.actor.AddressFromURIString.parse("pekko://system@127.0.0.1:1"),
                1L));
    LWWMap<String, SessionRecord> map =
        LWWMap.<String, SessionRecord>create().put(self, ID, record);

    SessionReplicas.Found found =
        SessionReplicas.found(ID, true, new Replicator.GetSuccess<>(KEY, map));

    assertEquals(record, found.record());
    assertTrue(found.known());
  }
}
