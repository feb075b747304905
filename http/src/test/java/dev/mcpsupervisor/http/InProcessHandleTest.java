package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@link GatewayServer#handle}: a request object served in this JVM gets what the same request gets
 * over a loopback connection: the same checks (a missing token is refused), the same session and
 * answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InProcessHandleTest {

  private static final String TOKEN = "in-process-token-0123456789abcdef";

  private TestGateway gateway;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(TOKEN), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void anInitializeIsAnsweredAsOverTheSocket() {
    String body = TestGateway.initializeBody("2025-11-25", "{}");
    HttpResponse<String> overTheSocket =
        gateway.post("/mcp", null, body, "Authorization", "Bearer " + TOKEN);
    org.apache.pekko.http.javadsl.model.HttpResponse inThisJvm =
        TestGateway.await(gateway.server.handle(post(body, "Bearer " + TOKEN)));

    assertEquals(200, overTheSocket.statusCode(), overTheSocket.body());
    assertEquals(overTheSocket.statusCode(), inThisJvm.status().intValue());
    assertTrue(inThisJvm.getHeader("Mcp-Session-Id").isPresent(), inThisJvm.toString());
    assertEquals(
        overTheSocket.headers().firstValue("Content-Type").orElseThrow(),
        inThisJvm.entity().getContentType().toString());
    JsonNode socketResult = TestGateway.json(overTheSocket.body()).path("result");
    JsonNode jvmResult = TestGateway.json(text(inThisJvm.entity())).path("result");
    assertEquals(socketResult.path("protocolVersion"), jvmResult.path("protocolVersion"));
    assertEquals(socketResult.path("serverInfo"), jvmResult.path("serverInfo"));
  }

  @Test
  void theSameChecksApply() {
    String body = TestGateway.initializeBody("2025-11-25", "{}");
    assertEquals(401, gateway.post("/mcp", null, body).statusCode());
    assertEquals(
        401, TestGateway.await(gateway.server.handle(post(body, null))).status().intValue());
  }

  private HttpRequest post(String body, String authorization) {
    HttpRequest request =
        HttpRequest.POST(gateway.base + "/mcp")
            .addHeader(HttpHeader.parse("Host", "127.0.0.1:" + gateway.server.address().getPort()))
            .addHeader(HttpHeader.parse("Accept", "application/json, text/event-stream"))
            .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
    return authorization == null
        ? request
        : request.addHeader(HttpHeader.parse("Authorization", authorization));
  }

  private static String text(HttpEntity entity) {
    return ((HttpEntity.Strict) entity).getData().utf8String();
  }
}
