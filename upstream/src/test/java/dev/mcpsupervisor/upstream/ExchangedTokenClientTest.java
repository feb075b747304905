package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.protocol.config.TokenExchange;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection's requests through {@link ExchangedTokenClient}: a loopback token endpoint hands out
 * {@code t-1}, {@code t-2}... (each living 100 s, on a clock the test moves) and a resource refuses
 * the tokens the test revokes with 401. The token is exchanged once while fresh, again when due,
 * and once more, with one resend, when the resource refuses it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExchangedTokenClientTest {

  private final AtomicInteger exchanges = new AtomicInteger();
  private final Queue<String> presented = new ConcurrentLinkedQueue<>();
  private final Set<String> revoked = ConcurrentHashMap.newKeySet();
  private final AtomicLong now = new AtomicLong();
  private volatile int tokenStatus = 200;
  private HttpServer server;
  private HttpClient http;
  private TokenExchanger exchanger;
  private TokenExchange exchange;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", this::token);
    server.createContext("/resource", this::resource);
    server.start();
    http = HttpClient.newHttpClient();
    exchanger = new TokenExchanger(http, now::get);
    exchange =
        new TokenExchange(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/token"),
            "aud",
            null,
            "client",
            "secret");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aFreshTokenIsExchangedOnceAndADueOneAgain() throws Exception {
    ExchangedTokenClient client = new ExchangedTokenClient(http, exchanger, exchange, "caller-1");
    assertEquals(200, get(client).statusCode());
    assertEquals(200, get(client).statusCode());
    assertEquals(1, exchanges.get());
    now.addAndGet(Duration.ofSeconds(89).toNanos());
    assertEquals(200, get(client).statusCode());
    assertEquals(1, exchanges.get(), "a tenth of its 100 s before expiry it is still used");
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertEquals(200, get(client).statusCode());
    assertEquals(2, exchanges.get(), "due: exchanged again");
    assertEquals(List.of("t-1", "t-1", "t-1", "t-2"), List.copyOf(presented));
  }

  @Test
  void aRefusedTokenIsExchangedAgainOnceAndTheRequestSentAgain() throws Exception {
    ExchangedTokenClient client = new ExchangedTokenClient(http, exchanger, exchange, "caller-1");
    assertEquals(200, get(client).statusCode());
    revoked.add("t-1");
    HttpResponse<String> answer = get(client);
    assertEquals(200, answer.statusCode());
    assertEquals("served t-2", answer.body());
    assertEquals(List.of("t-1", "t-1", "t-2"), List.copyOf(presented));

    revoked.add("t-2");
    revoked.add("t-3");
    HttpResponse<String> refused = get(client);
    assertEquals(401, refused.statusCode(), "refused twice: the second 401 is the answer");
    assertEquals(List.of("t-1", "t-1", "t-2", "t-2", "t-3"), List.copyOf(presented));
    assertEquals(3, exchanges.get());
  }

  @Test
  void eachCallersTokenIsExchangedForItsOwn() throws Exception {
    assertEquals(
        200, get(new ExchangedTokenClient(http, exchanger, exchange, "caller-1")).statusCode());
    assertEquals(
        200, get(new ExchangedTokenClient(http, exchanger, exchange, "caller-2")).statusCode());
    assertEquals(
        200, get(new ExchangedTokenClient(http, exchanger, exchange, "caller-1")).statusCode());
    assertEquals(List.of("t-1", "t-2", "t-1"), List.copyOf(presented));
  }

  @Test
  void aRefusedExchangeFailsTheRequestNamingTheEndpointOnly() throws Exception {
    tokenStatus = 400;
    ExchangedTokenClient client = new ExchangedTokenClient(http, exchanger, exchange, "caller-1");
    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> client.firstToken().get());
    TokenExchangeException cause =
        assertInstanceOf(TokenExchangeException.class, failed.getCause());
    assertEquals(
        "token exchange at http://127.0.0.1:"
            + server.getAddress().getPort()
            + " answered HTTP 400 (invalid_grant)",
        cause.getMessage());
    assertTrue(TokenExchangeException.describes(Failures.describe(failed)));
    assertFalse(cause.getMessage().contains("caller-1"));
    assertTrue(presented.isEmpty());

    tokenStatus = 200;
    assertEquals(200, get(client).statusCode(), "a failed exchange is not cached");
  }

  private HttpResponse<String> get(HttpClient client) throws Exception {
    return client
        .sendAsync(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/resource"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .get();
  }

  private void token(HttpExchange request) throws IOException {
    String form = new String(request.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    if (tokenStatus != 200) {
      answer(request, tokenStatus, "{\"error\":\"invalid_grant\"}");
      return;
    }
    assertTrue(form.contains("subject_token=caller-"), form);
    int count = exchanges.incrementAndGet();
    answer(
        request,
        200,
        "{\"access_token\":\"t-" + count + "\",\"token_type\":\"Bearer\",\"expires_in\":100}");
  }

  private void resource(HttpExchange request) throws IOException {
    String token =
        String.valueOf(request.getRequestHeaders().getFirst("Authorization"))
            .substring("Bearer ".length());
    presented.add(token);
    if (revoked.contains(token)) {
      answer(request, 401, "{\"error\":\"invalid_token\"}");
    } else {
      answer(request, 200, "served " + token);
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (exchange) {
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }
}
