package dev.mcpsupervisor.http.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One shared copy per key, within bounds; capability sets and client names use it. */
class SharedValuesTest {

  @Test
  void equalKeysShareOneValueUpToTheBound() {
    SharedValues<String> shared = new SharedValues<>(2, 5);
    AtomicInteger made = new AtomicInteger();
    String first = shared.of("abc", key -> new String(key + made.incrementAndGet()));
    assertSame(first, shared.of("abc", key -> new String(key + made.incrementAndGet())));
    assertEquals(1, made.get());
    assertEquals("toolong1", shared.of("toolong", key -> key + 1), "too long: made, not kept");
    shared.of("xy", key -> key);
    assertEquals(2, shared.size());
    String beyond = shared.of("zz", key -> new String(key));
    assertNotSame(beyond, shared.of("zz", key -> new String(key)), "full: no more entries");
    assertEquals(2, shared.size());
  }

  @Test
  void sessionsDeclaringTheSameCapabilitiesShareOneNodeAndNamesAreNotConfused() throws Exception {
    ObjectNode roots =
        ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree("{\"roots\":{\"x\":1}}"));
    assertSame(roots, ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree("{\"roots\":{}}")));
    assertSame(
        ClientCapabilities.namesOf(null), ClientCapabilities.namesOf(JsonRpcCodec.emptyObject()));
    ObjectNode two =
        ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree("{\"a\":1,\"b\":2}"));
    ObjectNode joined =
        ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree("{\"1:a1:b\":1}"));
    assertTrue(two.has("a") && two.has("b"));
    assertFalse(joined.has("a"), "a name that spells another set's key is its own set");
    assertTrue(joined.has("1:a1:b"));
  }

  @Test
  void clientNamesAndTheNegotiatedVersionAreSharedCopies() {
    assertSame(
        SharedValues.clientInfo(new String("memory-bench")),
        SharedValues.clientInfo(new String("memory-bench")));
    assertEquals(null, SharedValues.clientInfo(null));
    assertSame(ProtocolVersions.V2025_06_18, ProtocolVersions.negotiate(new String("2025-06-18")));
    assertSame(ProtocolVersions.LATEST, ProtocolVersions.negotiate("1999-01-01"));
  }
}
