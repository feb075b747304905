package dev.mcpsupervisor.http.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class CapabilityUnionTest {

  private static JsonNode init(String capabilities) throws Exception {
    return JsonRpcCodec.mapper().readTree("{\"capabilities\":" + capabilities + "}");
  }

  @Test
  void aFlagIsSetWhenAnyServerSetsItAndNestedObjectsMerge() throws Exception {
    JsonNode union =
        CapabilityUnion.of(
            List.of(
                init("{\"tools\":{\"listChanged\":false},\"resources\":{\"subscribe\":true}}"),
                init(
                    "{\"tools\":{\"listChanged\":true},\"resources\":{\"listChanged\":true,\"subscribe\":false}}")),
            List.of("tools", "resources"));
    assertEquals(
        JsonRpcCodec.mapper()
            .readTree(
                "{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true}}"),
        union);
  }

  @Test
  void capabilitiesThatCannotBeRoutedAreLeftOut() throws Exception {
    JsonNode union =
        CapabilityUnion.of(
            List.of(init("{\"tasks\":{\"list\":{}},\"logging\":{},\"experimental\":{\"x\":{}}}")),
            List.of("tools", "logging"));
    assertEquals(JsonRpcCodec.mapper().readTree("{\"logging\":{}}"), union);
  }

  @Test
  void nonBooleanValuesKeepTheFirstServersValue() throws Exception {
    JsonNode union =
        CapabilityUnion.of(
            List.of(init("{\"prompts\":{\"mode\":\"a\"}}"), init("{\"prompts\":{\"mode\":\"b\"}}")),
            List.of("prompts"));
    assertEquals("a", union.path("prompts").path("mode").asText());
  }

  @Test
  void changingListsAreDeclaredEvenWhenNoServerHasThemAndKeepWhatTheServersSaid() throws Exception {
    JsonNode declared =
        CapabilityUnion.withChangingLists(
            CapabilityUnion.of(
                List.of(
                    init("{\"tools\":{\"listChanged\":false},\"resources\":{\"subscribe\":true}}")),
                List.of("tools", "prompts", "resources", "logging")),
            List.of("tools", "prompts", "resources"));
    assertEquals(
        JsonRpcCodec.mapper()
            .readTree(
                "{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true},"
                    + "\"prompts\":{\"listChanged\":true}}"),
        declared);
  }
}
