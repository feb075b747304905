package dev.mcpsupervisor.protocol;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** SHA-256 digests: of secrets that must not be kept or shown, and of names that must not clash. */
public final class Digests {

  private static final Base64.Encoder BASE64_URL = Base64.getUrlEncoder().withoutPadding();

  private Digests() {}

  public static byte[] sha256(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must support SHA-256", e);
    }
  }

  public static byte[] sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The first {@code characters} (at most 43) of the text's SHA-256 in unpadded base64url: short
   * enough for a header or an id, long enough that distinct texts do not meet (22 characters are
   * 132 bits).
   */
  public static String shortDigest(String text, int characters) {
    return BASE64_URL.encodeToString(sha256(text)).substring(0, characters);
  }
}
