package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway in front of a Streamable HTTP upstream (the fixture served in this JVM), with the SDK
 * client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamableHttpUpstreamTest {

  private FixtureHttpServer upstream;
  private TestGateway gateway;

  @BeforeAll
  void start() {
    upstream = FixtureServer.startHttp(0);
    gateway = TestGateway.start(TestGateway.streamableHttp("remote", upstream.url()));
  }

  @AfterAll
  void stop() {
    try {
      gateway.close();
    } finally {
      upstream.close();
    }
  }

  @Test
  void toolsAreListedAndCalledThroughBothEndpoints() {
    try (SdkClient single = new SdkClient(gateway.base, "/servers/remote/mcp");
        SdkClient aggregated = new SdkClient(gateway.base, "/mcp")) {
      assertEquals(FixtureTools.SERVER_NAME, single.client.getServerInfo().name());
      List<String> names = aggregated.client.listTools().tools().stream().map(Tool::name).toList();
      assertTrue(names.contains("remote__echo"), names.toString());
      assertEquals("over http", text(single.client.callTool(echo("echo", "over http"))));
      assertEquals(
          "aggregated", text(aggregated.client.callTool(echo("remote__echo", "aggregated"))));
    }
  }

  @Test
  void samplingAndProgressPassThroughAStreamableHttpUpstream() throws InterruptedException {
    try (SdkClient sdk = new SdkClient(gateway.base, "/servers/remote/mcp")) {
      CallToolResult sampled =
          sdk.client.callTool(
              CallToolRequest.builder()
                  .name(FixtureTools.SAMPLE)
                  .arguments(Map.of("prompt", "p"))
                  .build());
      assertEquals("sampled: p", text(sampled));
      CallToolResult progressed =
          sdk.client.callTool(
              CallToolRequest.builder()
                  .name(FixtureTools.PROGRESS)
                  .arguments(Map.of("steps", 2))
                  .progressToken("remote-token")
                  .build());
      assertEquals("done 2", text(progressed));
      ProgressNotification progress = sdk.progress.poll(10, TimeUnit.SECONDS);
      assertNotNull(progress);
      assertEquals("remote-token", progress.progressToken());
    }
  }

  private static CallToolRequest echo(String tool, String message) {
    return CallToolRequest.builder().name(tool).arguments(Map.of("message", message)).build();
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }
}
