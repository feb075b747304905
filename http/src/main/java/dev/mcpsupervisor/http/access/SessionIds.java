package dev.mcpsupervisor.http.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Downstream session ids: 32 bytes from SecureRandom, URL-safe Base64 without padding (43 visible
 * ASCII characters, as the transport requires). An id is a bearer credential for its session, so
 * logs and the admin page show only its first characters.
 */
public final class SessionIds {

  private static final int RANDOM_BYTES = 32;
  private static final int SHOWN_CHARACTERS = 8;
  private static final int TAG_CHARACTERS = 11;
  private static final char NODE_SEPARATOR = '.';

  private SessionIds() {}

  public static String generate(SecureRandom random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * An id of a session on a cluster node: {@code <node tag>.<random>.<mac>}, so that any node knows
   * which node created it and that a node of this cluster did; null {@code nodeTag} (a single
   * node): the random part alone.
   */
  public static String generate(SecureRandom random, String nodeTag, SessionIdSeal seal) {
    return nodeTag == null
        ? generate(random)
        : seal.sealed(nodeTag + NODE_SEPARATOR + generate(random));
  }

  /**
   * The tag of {@code node} (a cluster node's incarnation, {@code Membership.selfNode}) in its ids:
   * a node restarted on the same address has another tag, so it never takes the sessions of its
   * previous incarnation for its own.
   */
  public static String nodeTag(String node) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(node.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(digest)
          .substring(0, TAG_CHARACTERS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** The node tag an id names, or null (a single node's id, or none of ours). */
  public static String nodeTagOf(String id) {
    int separator = id.indexOf(NODE_SEPARATOR);
    return separator == TAG_CHARACTERS ? id.substring(0, separator) : null;
  }

  /** Enough of the id to tell sessions apart in logs, not enough to use it. */
  public static String redact(String id) {
    String tag = nodeTagOf(id);
    String random = tag == null ? id : id.substring(TAG_CHARACTERS + 1);
    String shown =
        random.length() <= SHOWN_CHARACTERS ? random : random.substring(0, SHOWN_CHARACTERS) + "…";
    return tag == null ? shown : tag + NODE_SEPARATOR + shown;
  }
}
