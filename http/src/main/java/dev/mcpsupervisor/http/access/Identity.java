package dev.mcpsupervisor.http.access;

/**
 * Who a request comes from, as the authentication step found it: a named static token, an OAuth
 * access token's identity claim, or nobody in particular when the gateway requires no
 * authentication. Sessions are bound to the identity that created them, server allow-lists and
 * per-identity limits look it up, and identity contexts derive from it. It never holds a token.
 *
 * @param name what the operator calls it: the token's name or the claim's value; {@code
 *     gateway.identities} is keyed by it
 * @param key stable and unique across kinds ({@code token:<name>}, {@code oauth:<claim>}, {@code
 *     anonymous}): the same caller has the same key on every request, whatever token it presents
 *     (an OAuth client's tokens are refreshed), and no two callers share one
 */
public record Identity(String name, String key) {

  /** Every caller of a gateway that requires no authentication. */
  public static final Identity ANONYMOUS = new Identity("anonymous", "anonymous");

  public static Identity ofToken(String name) {
    return new Identity(name, "token:" + name);
  }

  static Identity ofAccessToken(String claim) {
    return new Identity(claim, "oauth:" + claim);
  }

  public boolean isAnonymous() {
    return ANONYMOUS.equals(this);
  }
}
