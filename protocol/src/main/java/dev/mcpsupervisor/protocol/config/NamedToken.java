package dev.mcpsupervisor.protocol.config;

/**
 * A static bearer token of {@code gateway.authTokens} and the identity it stands for. A token
 * written as a plain string is named {@code token-<n>} (its 1-based position).
 *
 * @param name the identity's name (what {@code gateway.identities} and logs use)
 * @param token the secret; never printed
 */
public record NamedToken(String name, String token) {

  /** The name of the {@code index}-th (0-based) token written without one. */
  public static String defaultName(int index) {
    return "token-" + (index + 1);
  }

  @Override
  public String toString() {
    return "NamedToken[name=" + name + ", token=<redacted>]";
  }
}
