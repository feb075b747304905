package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.config.TokenExchange;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * OAuth 2.0 Token Exchange (RFC 8693) for servers of {@code tokenExchange}: a caller's access token
 * (the subject) exchanged for one meant for the server, cached per subject until shortly before it
 * expires, one exchange at a time per subject however many requests wait for it. Asynchronous on
 * the connector's HTTP client: no thread waits for the token endpoint.
 */
final class TokenExchanger {

  static final String GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
  static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** How long before its expiry a token is exchanged again, at most. */
  private static final Duration EARLY = Duration.ofSeconds(30);

  /** Past this many subjects, those whose tokens expired are forgotten. */
  private static final int PRUNE_ABOVE = 256;

  /** An OAuth error code (RFC 6749 5.2): the only part of the endpoint's answer ever repeated. */
  private static final Pattern ERROR_CODE = Pattern.compile("[a-z_]{1,64}");

  /** One caller's token for one exchange configuration. */
  private record Subject(TokenExchange exchange, String token) {
    @Override
    public String toString() { // never the token
      return "Subject[" + exchange + "]";
    }
  }

  /** An exchanged token, used until {@code refreshAt} (System.nanoTime; Long.MAX_VALUE: never). */
  private record Exchanged(String token, long refreshAt) {
    @Override
    public String toString() { // never the token
      return "Exchanged[refreshAt=" + refreshAt + "]";
    }
  }

  private final HttpClient client;
  private final LongSupplier nanoTime;
  private final Map<Subject, CompletableFuture<Exchanged>> cache = new ConcurrentHashMap<>();

  TokenExchanger(HttpClient client) {
    this(client, System::nanoTime);
  }

  TokenExchanger(HttpClient client, LongSupplier nanoTime) {
    this.client = client;
    this.nanoTime = nanoTime;
  }

  /** The token to send for {@code subjectToken}: the cached one while fresh, else a new one. */
  CompletableFuture<String> token(TokenExchange exchange, String subjectToken) {
    if (cache.size() > PRUNE_ABOVE) {
      cache.values().removeIf(this::stale);
    }
    return cache
        .compute(
            new Subject(exchange, subjectToken),
            (subject, cached) -> cached == null || stale(cached) ? exchange(subject) : cached)
        .thenApply(Exchanged::token);
  }

  /**
   * The upstream refused {@code rejected} (401): a new token, unless another request already got
   * one since.
   */
  CompletableFuture<String> refresh(TokenExchange exchange, String subjectToken, String rejected) {
    return cache
        .compute(
            new Subject(exchange, subjectToken),
            (subject, cached) ->
                cached == null
                        || cached.isCompletedExceptionally()
                        || (cached.isDone() && cached.join().token().equals(rejected))
                    ? exchange(subject)
                    : cached)
        .thenApply(Exchanged::token);
  }

  /** Failed, or done and due for a new exchange; one under way is never stale. */
  private boolean stale(CompletableFuture<Exchanged> cached) {
    return cached.isCompletedExceptionally()
        || (cached.isDone() && nanoTime.getAsLong() - cached.join().refreshAt() >= 0);
  }

  private CompletableFuture<Exchanged> exchange(Subject subject) {
    TokenExchange exchange = subject.exchange();
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", GRANT_TYPE);
    form.put("subject_token", subject.token());
    form.put("subject_token_type", ACCESS_TOKEN_TYPE);
    if (exchange.audience() != null) {
      form.put("audience", exchange.audience());
    }
    if (exchange.scope() != null) {
      form.put("scope", exchange.scope());
    }
    HttpRequest request =
        HttpRequest.newBuilder(exchange.tokenEndpoint())
            .timeout(TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .header("Authorization", basic(exchange.clientId(), exchange.clientSecret()))
            .POST(HttpRequest.BodyPublishers.ofString(encoded(form)))
            .build();
    long sent = nanoTime.getAsLong();
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .handle(
            (response, failure) -> {
              if (failure != null) {
                throw new TokenExchangeException(
                    exchange.tokenEndpoint(), "failed: " + Failures.describe(failure));
              }
              return exchanged(exchange, response, sent);
            });
  }

  private Exchanged exchanged(TokenExchange exchange, HttpResponse<byte[]> response, long sent) {
    JsonNode body;
    try {
      body = JsonRpcCodec.mapper().readTree(response.body());
    } catch (IOException | RuntimeException e) {
      body = null;
    }
    if (response.statusCode() != 200 || body == null || !body.path("access_token").isTextual()) {
      String error = body == null ? "" : body.path("error").asText("");
      throw new TokenExchangeException(
          exchange.tokenEndpoint(),
          "answered HTTP "
              + response.statusCode()
              + (ERROR_CODE.matcher(error).matches() ? " (" + error + ")" : "")
              + (response.statusCode() == 200 ? " without an access_token" : ""));
    }
    JsonNode expiresIn = body.path("expires_in");
    if (!expiresIn.canConvertToLong() || expiresIn.asLong() <= 0) {
      // no lifetime told: used until the upstream refuses it
      return new Exchanged(body.get("access_token").asText(), Long.MAX_VALUE);
    }
    Duration lifetime = Duration.ofSeconds(expiresIn.asLong());
    Duration early = lifetime.dividedBy(10).compareTo(EARLY) < 0 ? lifetime.dividedBy(10) : EARLY;
    return new Exchanged(body.get("access_token").asText(), sent + lifetime.minus(early).toNanos());
  }

  /** HTTP Basic as RFC 6749 2.3.1 has it: each part form-encoded first. */
  private static String basic(String clientId, String clientSecret) {
    String pair = formEncoded(clientId) + ":" + formEncoded(clientSecret);
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }

  private static String encoded(Map<String, String> form) {
    return form.entrySet().stream()
        .map(field -> formEncoded(field.getKey()) + "=" + formEncoded(field.getValue()))
        .collect(Collectors.joining("&"));
  }

  private static String formEncoded(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }
}
