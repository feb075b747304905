package dev.mcpsupervisor.protocol.config;

import java.net.URI;
import java.util.Objects;

/**
 * A server's {@code tokenExchange} (RFC 8693): the gateway exchanges its caller's access token at
 * {@code tokenEndpoint} for one meant for the server ({@code audience}, {@code scope}: null when
 * not set), authenticating as {@code clientId} with {@code clientSecret} (HTTP Basic), and sends
 * that token upstream as {@code Authorization: Bearer}. {@code toString} never shows the secret.
 */
public record TokenExchange(
    URI tokenEndpoint, String audience, String scope, String clientId, String clientSecret) {

  public TokenExchange {
    Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(clientSecret, "clientSecret");
  }

  @Override
  public String toString() {
    return "TokenExchange[tokenEndpoint="
        + Specs.printable(tokenEndpoint)
        + ", audience="
        + audience
        + ", scope="
        + scope
        + ", clientId="
        + clientId
        + "]";
  }
}
