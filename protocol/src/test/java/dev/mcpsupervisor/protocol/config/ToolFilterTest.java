package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolFilterTest {

  private static final ToolFilter ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE =
      new ToolFilter(Set.of("read", "write"), Set.of("delete"));

  @Test
  void allowListExposesOnlyItsToolsAndDenyListHidesItsOwn() {
    ToolFilter allow = new ToolFilter(Set.of("read"), Set.of());
    ToolFilter deny = new ToolFilter(null, Set.of("delete"));
    assertTrue(allow.exposes("read"));
    assertFalse(allow.exposes("write"));
    assertFalse(allow.exposes(null));
    assertTrue(deny.exposes("read"));
    assertFalse(deny.exposes("delete"));
    assertTrue(deny.exposes(null));
    assertTrue(ToolFilter.ALL.exposesAll());
    assertTrue(ToolFilter.ALL.exposes("anything"));
    assertFalse(new ToolFilter(Set.of(), Set.of()).exposes("read"));
  }

  @Test
  void toolsListKeepsOnlyExposedToolsAndEverythingElse() {
    JsonRpcResponse answer = toolsList("read", "write", "delete", "admin");
    ((ObjectNode) answer.result()).put("nextCursor", "c2");
    JsonRpcResponse visible = ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE.visible(answer);
    assertEquals(List.of("read", "write"), names(visible));
    assertEquals("c2", visible.result().path("nextCursor").asText());
    assertEquals(answer.id(), visible.id());
    // the upstream's answer is not changed: a cache or another caller may hold it
    assertEquals(List.of("read", "write", "delete", "admin"), names(answer));
  }

  @Test
  void answersThatNeedNoFilteringAreReturnedAsTheyAre() {
    JsonRpcResponse all = toolsList("read", "write");
    assertSame(all, ToolFilter.ALL.visible(all));
    assertSame(all, ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE.visible(all));
    JsonRpcResponse error =
        JsonRpcResponse.failure(IntNode.valueOf(1), JsonRpcErrorCodes.INTERNAL_ERROR, "boom");
    assertSame(error, ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE.visible(error));
    JsonRpcResponse noTools =
        JsonRpcResponse.success(IntNode.valueOf(1), JsonRpcCodec.emptyObject());
    assertSame(noTools, ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE.visible(noTools));
  }

  @Test
  void callOfAHiddenToolIsRefusedAsAnUnknownTool() {
    JsonRpcError refused =
        ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE.refusal(McpMethods.TOOLS_CALL, call("delete"));
    assertEquals(JsonRpcErrorCodes.INVALID_PARAMS, refused.code());
    assertEquals("Unknown tool: delete", refused.message());
    assertEquals(
        "Unknown tool: admin",
        ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE
            .refusal(McpMethods.TOOLS_CALL, call("admin"))
            .message());
  }

  @Test
  void exposedToolsAndOtherMethodsAreNotRefused() {
    ToolFilter filter = ALLOW_READ_AND_WRITE_DENY_WRITE_DELETE;
    assertNull(filter.refusal(McpMethods.TOOLS_CALL, call("read")));
    assertNull(filter.refusal(McpMethods.PROMPTS_GET, call("delete")));
    assertNull(filter.refusal(McpMethods.TOOLS_CALL, null));
    assertNull(filter.refusal(McpMethods.TOOLS_CALL, JsonRpcCodec.emptyObject()));
    assertNull(ToolFilter.ALL.refusal(McpMethods.TOOLS_CALL, call("delete")));
  }

  private static JsonNode call(String tool) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    return params;
  }

  private static JsonRpcResponse toolsList(String... tools) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    for (String tool : tools) {
      result.withArray("tools").addObject().put("name", tool).put("description", tool + "s");
    }
    return JsonRpcResponse.success(IntNode.valueOf(7), result);
  }

  private static List<String> names(JsonRpcResponse response) {
    List<String> names = new ArrayList<>();
    response.result().path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }
}
