package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import java.net.URI;

/**
 * A caller's token could not be exchanged for a server's ({@code tokenExchange}): the endpoint
 * refused it, answered something else, or could not be reached. The message names the endpoint by
 * scheme, host and port, its status and OAuth error code: never a token, a secret or its text.
 */
public final class TokenExchangeException extends RuntimeException {

  /** How every message starts: a session's failure reason is a string by the time it is told. */
  private static final String FIRST_WORDS = "token exchange at ";

  TokenExchangeException(URI tokenEndpoint, String what) {
    super(
        FIRST_WORDS + UpstreamDiagnostics.redactUrl(tokenEndpoint) + " " + what,
        null,
        false,
        false);
  }

  /** Whether a connection's failure {@code reason} is an exchange's failure. */
  public static boolean describes(String reason) {
    return reason != null && reason.startsWith(FIRST_WORDS);
  }
}
