package dev.mcpsupervisor.http.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import org.junit.jupiter.api.Test;

class ClientCapabilitiesTest {

  @Test
  void keepsOnlyTheDeclaredNames() throws Exception {
    var declared =
        JsonRpcCodec.mapper()
            .readTree(
                "{\"roots\":{\"listChanged\":true},\"sampling\":{},"
                    + "\"experimental\":{\"big\":\""
                    + "x".repeat(100_000)
                    + "\"}}");
    assertEquals(
        JsonRpcCodec.mapper().readTree("{\"roots\":{},\"sampling\":{},\"experimental\":{}}"),
        ClientCapabilities.namesOf(declared));
  }

  @Test
  void anythingButAnObjectDeclaresNothingAndNamesAreBounded() throws Exception {
    assertEquals(0, ClientCapabilities.namesOf(null).size());
    assertEquals(0, ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree("[1]")).size());
    StringBuilder many = new StringBuilder("{");
    for (int i = 0; i < 1000; i++) {
      many.append(i == 0 ? "" : ",").append("\"c").append(i).append("\":{}");
    }
    assertEquals(
        ClientCapabilities.MAX_NAMES,
        ClientCapabilities.namesOf(JsonRpcCodec.mapper().readTree(many + "}")).size());
  }
}
