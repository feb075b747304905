package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class ClusterViewTest {

  private static final String A = "pekko://sys@127.0.0.1:1";
  private static final String B = "pekko://sys@127.0.0.1:2";
  private static final String C = "pekko://sys@127.0.0.1:3";

  @Test
  void everyMembersSessionsAndKeysAreListedWithTheirNode() throws IOException {
    ObjectNode view =
        ClusterView.merge(A, report(A, "one", 2.0, 0.0), Map.of(B, report(B, "one", 1.0, 0.5)));
    assertEquals(List.of(A, B), nodesOf(view.path("downstreamSessions")));
    assertEquals(List.of(A, B), nodesOf(view.path("serverKeys")));
    assertEquals("answered", node(view, B).path("state").asText());
    assertEquals("one", node(view, B).path("fingerprint").asText());
    assertFalse(view.path("cluster").path("drift").asBoolean());
  }

  @Test
  void aMemberThatDidNotAnswerIsUnreachableAndOneNotAskedToo() throws IOException {
    Map<String, ObjectNode> others = new HashMap<>();
    others.put(B, null);
    ObjectNode view = ClusterView.merge(A, report(A, "one", 1.0, 0.0), others);
    assertEquals("unreachable", node(view, B).path("state").asText());
    // C is a member whose desk is not listed
    assertEquals("unreachable", node(view, C).path("state").asText());
    assertEquals(List.of(A), nodesOf(view.path("downstreamSessions")));
  }

  @Test
  void membersOfDifferentConfigurationsAreFlaggedAsDrift() throws IOException {
    ObjectNode view =
        ClusterView.merge(A, report(A, "one", 1.0, 0.0), Map.of(B, report(B, "two", 1.0, 0.0)));
    assertTrue(view.path("cluster").path("drift").asBoolean());
    assertEquals("two", node(view, B).path("fingerprint").asText());
  }

  @Test
  void callsAreSummedAndTheirPercentilesAreTheHighestMembers() throws IOException {
    ObjectNode view =
        ClusterView.merge(A, report(A, "one", 3.0, 0.0), Map.of(B, report(B, "one", 1.0, 1.0)));
    JsonNode echo = view.path("servers").path("echo");
    assertEquals(4.0, echo.path("callsPerSecond").asDouble());
    assertEquals(0.25, echo.path("errorRate").asDouble());
    assertEquals(20.0, echo.path("p99Millis").asDouble());
    assertEquals("[4.0,0.0]", echo.path("callsPerSecondBySlot").toString());
    assertEquals("[20.0,0.0]", echo.path("p99MillisBySlot").toString());
  }

  /** A node's own report: one session, one key, the echo server's calls. */
  private static ObjectNode report(String node, String fingerprint, double rate, double errors)
      throws IOException {
    double p99 = errors > 0 ? 20 : 10;
    return (ObjectNode)
        JsonRpcCodec.mapper()
            .readTree(
                """
                {"cluster":{"self":"%1$s","members":[
                   {"address":"%2$s","status":"up","reachable":true},
                   {"address":"%3$s","status":"up","reachable":true},
                   {"address":"%4$s","status":"up","reachable":false}]},
                 "downstreamSessions":[{"id":"x","node":"%1$s"}],
                 "serverKeys":[{"server":"echo","key":"echo-1","sessions":[]}],
                 "servers":{"echo":{"callsPerSecond":%5$s,"errorRate":%6$s,"p50Millis":1,
                   "p99Millis":%7$s,"slotSeconds":10,"callsPerSecondBySlot":[%5$s,0],
                   "p99MillisBySlot":[%7$s,0]}},
                 "config":{"fingerprint":"%8$s","loadedAt":"2026-11-27T00:00:00Z"}}
                """
                    .formatted(node, A, B, C, rate, errors, p99, fingerprint));
  }

  private static List<String> nodesOf(JsonNode entries) {
    return StreamSupport.stream(entries.spliterator(), false)
        .map(entry -> entry.path("node").asText())
        .toList();
  }

  private static JsonNode node(ObjectNode view, String node) {
    for (JsonNode entry : view.path("cluster").path("nodes")) {
      if (entry.path("node").asText().equals(node)) {
        return entry;
      }
    }
    throw new AssertionError("no node " + node + " in " + view.path("cluster"));
  }
}
