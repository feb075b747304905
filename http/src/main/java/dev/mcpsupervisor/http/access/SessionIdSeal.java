package dev.mcpsupervisor.http.access;

import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The MAC a cluster's session ids end with ({@code <tag>.<random>.<mac>}): HMAC-SHA256 under a key
 * derived from the cluster secret, so that every node tells an id one of its nodes issued from a
 * forged or foreign one (another cluster's) without asking the others, and answers the latter 404
 * at once.
 */
public final class SessionIdSeal {

  /** Base64url characters of the MAC kept: 128 bits. */
  private static final int MAC_CHARACTERS = 22;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  private SessionIdSeal(byte[] key) {
    this.key = new SecretKeySpec(key, ALGORITHM);
  }

  /** The seal of the cluster's nodes. */
  public static SessionIdSeal of(ClusterConfig cluster) {
    return new SessionIdSeal(cluster.derivedKey("mcp-supervisor session id"));
  }

  /** The seal of another cluster's secret (tests). */
  public static SessionIdSeal ofSecret(String secret) {
    return new SessionIdSeal(ClusterConfig.derivedKey(secret, "mcp-supervisor session id"));
  }

  /** {@code body} with its MAC appended. */
  String sealed(String body) {
    return body + '.' + mac(body);
  }

  /** Whether {@code id} ends with the MAC of the rest under this seal. */
  public boolean verifies(String id) {
    int dot = id.lastIndexOf('.');
    if (dot <= 0) {
      return false;
    }
    byte[] expected = mac(id.substring(0, dot)).getBytes(StandardCharsets.US_ASCII);
    byte[] given = id.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, given);
  }

  private String mac(String body) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      byte[] digest = mac.doFinal(body.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(digest)
          .substring(0, MAC_CHARACTERS);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is not available", e);
    }
  }
}
