package dev.mcpsupervisor.protocol.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The {@code gateway.oauth} section: OAuth 2.1 access tokens (JWTs) accepted besides the static
 * tokens, as the MCP authorization spec describes for a protected resource.
 *
 * @param issuer the authorization server; a token's {@code iss} must equal it
 * @param jwksUri where the issuer publishes its signing keys (https, or http on loopback)
 * @param audience what a token's {@code aud} must contain (defaults to {@code resource})
 * @param resource this gateway's canonical URI, published in its protected resource metadata
 * @param requiredScopes scopes every token must carry (else 403 insufficient_scope)
 * @param identityClaim the claim that names the caller (default {@code sub})
 * @param jwksTimeout connect and read timeout of one key set fetch
 * @param jwksCacheTtl how long fetched keys are used before they are fetched again
 */
public record OAuthConfig(
    String issuer,
    URI jwksUri,
    String audience,
    URI resource,
    List<String> requiredScopes,
    String identityClaim,
    Duration jwksTimeout,
    Duration jwksCacheTtl) {

  public OAuthConfig {
    requiredScopes = List.copyOf(requiredScopes);
  }
}
