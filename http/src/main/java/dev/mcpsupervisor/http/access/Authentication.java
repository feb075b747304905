package dev.mcpsupervisor.http.access;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.HttpChallenge;
import org.apache.pekko.http.javadsl.model.headers.WWWAuthenticate;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authentication step: turns a request's bearer token into the {@link Identity} the routes
 * serve. A configured static token is its named identity; otherwise, with {@code gateway.oauth}, a
 * JWT access token is verified ({@link AccessTokens}, off the request threads since it may fetch
 * the issuer's keys). Without any authentication configured every caller is {@link
 * Identity#ANONYMOUS}. Refusals follow RFC 6750 and the MCP authorization spec: 401 with a {@code
 * Bearer} challenge ({@code resource_metadata} pointing to the {@link ProtectedResource} document
 * when OAuth is on, {@code error="invalid_token"} for a token that was presented), 403 {@code
 * insufficient_scope} for a valid token without the required scopes. Tokens are never logged, never
 * echoed, and never passed upstream.
 */
public final class Authentication extends AllDirectives {

  private static final Logger log = LoggerFactory.getLogger(Authentication.class);

  private static final String REALM = "mcp-supervisor";
  private static final String BEARER = "Bearer ";

  private final boolean required;
  private final StaticTokens tokens;
  private final Optional<AccessTokens> accessTokens;
  private final Optional<ProtectedResource> resource;
  private final Executor blocking;
  private final GatewayMetrics metrics;

  /**
   * @param blocking where access tokens are verified (a key fetch blocks)
   */
  public Authentication(GatewayConfig gateway, GatewayMetrics metrics, Executor blocking) {
    this.required = gateway.requiresAuthentication();
    this.tokens = new StaticTokens(gateway.namedTokens());
    this.accessTokens = Optional.ofNullable(gateway.oauth()).map(AccessTokens::new);
    this.resource = Optional.ofNullable(gateway.oauth()).map(ProtectedResource::new);
    this.blocking = blocking;
    this.metrics = metrics;
  }

  /**
   * The protected resource metadata at {@code /.well-known/oauth-protected-resource} and under it
   * (RFC 9728 puts the resource's path after it); open to everyone, only with OAuth configured.
   */
  public Route metadata() {
    return resource
        .map(
            published ->
                get(
                    () ->
                        pathPrefix(
                            PathMatchers.segment(".well-known").slash("oauth-protected-resource"),
                            () ->
                                complete(McpResponses.json(StatusCodes.OK, published.document())))))
        .orElseGet(this::reject);
  }

  /** Whether callers must present a token (static tokens or OAuth are configured). */
  public boolean required() {
    return required;
  }

  /**
   * {@code page}, a 401 that asks for the token in its own way (the operations page's form), with
   * the challenge every other refusal here carries; counted as one.
   */
  public HttpResponse challenged(HttpResponse page) {
    metrics.rejected("unauthorized");
    return page.addHeader(WWWAuthenticate.create(challenge(null)));
  }

  /** Serves {@code inner} as the request's identity, or refuses the request. */
  public Route authenticate(Function<Identity, Route> inner) {
    if (!required) {
      return inner.apply(Identity.ANONYMOUS);
    }
    return extractRequest(
        request -> {
          Optional<String> presented = bearerToken(request);
          if (presented.isEmpty()) {
            return complete(unauthorized(null));
          }
          Optional<Identity> named = tokens.match(presented.get());
          if (named.isPresent()) {
            return inner.apply(named.get());
          }
          if (accessTokens.isEmpty() || !AccessTokens.looksLikeJwt(presented.get())) {
            return complete(unauthorized("invalid_token"));
          }
          AccessTokens verifier = accessTokens.get();
          return onSuccess(
              CompletableFuture.supplyAsync(() -> verifier.verify(presented.get()), blocking),
              verdict -> {
                if (verdict instanceof AccessTokens.Verdict.Valid valid) {
                  return inner.apply(valid.identity());
                }
                return complete(refusal(verdict));
              });
        });
  }

  private HttpResponse refusal(AccessTokens.Verdict verdict) {
    if (verdict instanceof AccessTokens.Verdict.MissingScope missing) {
      metrics.rejected("insufficient_scope");
      return McpResponses.error(
              StatusCodes.FORBIDDEN,
              INVALID_REQUEST,
              "Forbidden: the access token lacks a required scope (" + missing.required() + ")")
          .addHeader(
              WWWAuthenticate.create(resource.orElseThrow().insufficientScope(missing.required())));
    }
    if (verdict instanceof AccessTokens.Verdict.KeysUnavailable unavailable) {
      log.warn(
          "access token not checked: the issuer's keys are unavailable: {}", unavailable.why());
      metrics.rejected("jwks_unavailable");
      return McpResponses.error(
          StatusCodes.SERVICE_UNAVAILABLE,
          INVALID_REQUEST,
          "Service Unavailable: the access token cannot be checked now");
    }
    log.debug("access token refused: {}", ((AccessTokens.Verdict.Invalid) verdict).why());
    return unauthorized("invalid_token");
  }

  private HttpResponse unauthorized(String error) {
    metrics.rejected("unauthorized");
    return McpResponses.error(
            StatusCodes.UNAUTHORIZED,
            INVALID_REQUEST,
            "Unauthorized: a valid bearer token is required")
        .addHeader(WWWAuthenticate.create(challenge(error)));
  }

  private HttpChallenge challenge(String error) {
    return resource
        .map(published -> published.unauthorized(error))
        .orElseGet(() -> HttpChallenge.create("Bearer", REALM));
  }

  /**
   * The bearer token {@code request} presents, for a server that passes it upstream ({@code
   * passCallerToken}); never to be logged.
   */
  public static Optional<String> bearerToken(HttpRequest request) {
    return request
        .getHeader("Authorization")
        .map(header -> header.value().trim())
        .filter(value -> value.regionMatches(true, 0, BEARER, 0, BEARER.length()))
        .map(value -> value.substring(BEARER.length()).trim())
        .filter(token -> !token.isEmpty());
  }
}
