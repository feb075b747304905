package dev.mcpsupervisor.http.access;

import dev.mcpsupervisor.protocol.Digests;
import java.util.function.Function;

/**
 * Who a 2026-07-28 request comes from, as the supervisor context its calls to {@code isolation:
 * context} servers use: such a request has no session, so this is what makes one agent's
 * consecutive requests reach the same upstream session. The caller is its authenticated {@link
 * Identity} (by its key, so an OAuth client keeps its context when its token is refreshed), when
 * the gateway requires authentication, and the value of the operator's agent id header when one is
 * configured; both together when both are present, so that one identity's agents stay apart and no
 * one reaches another identity's context by naming its agent id. The context is a digest: nothing
 * of the caller is shown on the admin page.
 */
public final class CallerIdentity {

  /** What every identity context's name starts with: it can never be a downstream session id. */
  public static final String PREFIX = "caller-";

  private static final int DIGEST_CHARACTERS = 32;

  private final String agentIdHeader;

  /**
   * @param agentIdHeader the header that names a client's agent (e.g. {@code X-Agent-ID}); blank:
   *     none
   */
  public CallerIdentity(String agentIdHeader) {
    this.agentIdHeader = agentIdHeader == null ? "" : agentIdHeader.trim();
  }

  /**
   * The caller's context from its identity and the request's headers, or null when the request
   * names no caller (then it is served in a context of its own, as any stateless request was
   * before).
   */
  public String contextOf(Identity identity, Function<String, String> header) {
    String caller = identity.isAnonymous() ? null : identity.key();
    String agent = agentIdHeader.isEmpty() ? null : nonBlank(header.apply(agentIdHeader));
    if (caller == null && agent == null) {
      return null;
    }
    // each part is labelled and its length given, so no two different pairs give the same input
    String named = part("identity", caller) + part("agent", agent);
    return PREFIX + Digests.shortDigest(named, DIGEST_CHARACTERS);
  }

  private static String nonBlank(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static String part(String label, String value) {
    return value == null ? label + ":-;" : label + ":" + value.length() + ":" + value + ";";
  }
}
