package dev.mcpsupervisor.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import org.junit.jupiter.api.Test;

class ToolResultTest {

  @Test
  void textJoinsTheTextItemsAndSkipsTheOthers() throws Exception {
    ToolResult result =
        ToolResult.fromJson(
            json(
                """
                {"content": [{"type": "text", "text": "one"},
                             {"type": "image", "data": "AA==", "mimeType": "image/png"},
                             {"type": "text", "text": "two"}],
                 "structuredContent": {"sum": 3}}
                """));

    assertEquals("one\ntwo", result.text());
    assertEquals(3, result.content().size());
    assertEquals(3, result.structuredContent().path("sum").asInt());
    assertFalse(result.isError());
  }

  @Test
  void aToolsOwnFailureIsAResultMarkedIsError() throws Exception {
    ToolResult result =
        ToolResult.fromJson(
            json(
                "{\"content\": [{\"type\": \"text\", \"text\": \"no such file\"}], \"isError\": true}"));

    assertTrue(result.isError());
    assertEquals("no such file", result.text());
    assertNull(result.structuredContent());
  }

  @Test
  void aToolWithoutSchemaTakesAnyObject() throws Exception {
    McpTool tool = McpTool.fromJson(json("{\"name\": \"time\"}"));

    assertEquals("time", tool.name());
    assertEquals("", tool.description());
    assertEquals("object", tool.inputSchema().path("type").asText());
    assertNull(tool.title());
    assertNull(tool.outputSchema());
  }

  private static JsonNode json(String text) throws Exception {
    return JsonRpcCodec.mapper().readTree(text);
  }
}
