package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.TokenExchange;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscribers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The connector's client as one connection of a {@code tokenExchange} server uses it: every request
 * goes out with {@code Authorization: Bearer} and the token exchanged for the connection's caller
 * (the {@link TokenExchanger}'s, fresh), and a request the server answers 401 is sent once more
 * with a newly exchanged token. The connections above it see neither the token nor that first 401.
 */
final class ExchangedTokenClient extends HttpClient {

  private static final String AUTHORIZATION = "Authorization";

  private final HttpClient client;
  private final TokenExchanger exchanger;
  private final TokenExchange exchange;
  private final String subjectToken;

  ExchangedTokenClient(
      HttpClient client, TokenExchanger exchanger, TokenExchange exchange, String subjectToken) {
    this.client = client;
    this.exchanger = exchanger;
    this.exchange = exchange;
    this.subjectToken = subjectToken;
  }

  /** The first token, exchanged (or taken from the cache) before the connection opens. */
  CompletableFuture<String> firstToken() {
    return exchanger.token(exchange, subjectToken);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler) {
    CompletableFuture<HttpResponse<T>> answer = new CompletableFuture<>();
    // the exchange in flight: a cancelled answer (a connection closing) cancels it
    AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
    answer.whenComplete(
        (response, failure) -> {
          CompletableFuture<?> inFlight = current.get();
          if (failure instanceof CancellationException && inFlight != null) {
            inFlight.cancel(true);
          }
        });
    exchanger
        .token(exchange, subjectToken)
        .thenCompose(
            token ->
                answer.isCancelled()
                    ? CompletableFuture.<HttpResponse<T>>failedFuture(new CancellationException())
                    : sendWith(request, handler, token, true, answer, current))
        .whenComplete(
            (response, failure) -> {
              if (failure == null) {
                answer.complete(response);
              } else {
                answer.completeExceptionally(failure);
              }
            });
    return answer;
  }

  /** Sends with {@code token}; a 401 answer, when {@code mayRefresh}, once more with a new one. */
  private <T> CompletableFuture<HttpResponse<T>> sendWith(
      HttpRequest request,
      BodyHandler<T> handler,
      String token,
      boolean mayRefresh,
      CompletableFuture<HttpResponse<T>> answer,
      AtomicReference<CompletableFuture<?>> current) {
    boolean[] refused = {false};
    BodyHandler<T> watching =
        info -> {
          if (mayRefresh && info.statusCode() == 401) {
            refused[0] = true; // read before the future completes, on the same exchange
            return BodySubscribers.replacing(null);
          }
          return handler.apply(info);
        };
    CompletableFuture<HttpResponse<T>> sent =
        client.sendAsync(
            HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(AUTHORIZATION))
                .header(AUTHORIZATION, "Bearer " + token)
                .build(),
            watching);
    current.set(sent);
    if (answer.isCancelled()) { // cancelled while the token came: its cancel saw no exchange yet
      sent.cancel(true);
    }
    return sent.thenCompose(
        response ->
            refused[0]
                ? exchanger
                    .refresh(exchange, subjectToken, token)
                    .thenCompose(fresh -> sendWith(request, handler, fresh, false, answer, current))
                : CompletableFuture.completedFuture(response));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request,
      BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return sendAsync(request, handler); // HTTP/1.1 only: no pushes
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    try {
      return sendAsync(request, handler).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return client.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return client.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return client.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return client.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return client.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return client.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return client.authenticator();
  }

  @Override
  public Version version() {
    return client.version();
  }

  @Override
  public Optional<Executor> executor() {
    return client.executor();
  }
}
