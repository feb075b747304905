package dev.mcpsupervisor.http.access;

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

  private SessionIds() {}

  public static String generate(SecureRandom random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Enough of the id to tell sessions apart in logs, not enough to use it. */
  public static String redact(String id) {
    return id.length() <= SHOWN_CHARACTERS ? id : id.substring(0, SHOWN_CHARACTERS) + "…";
  }
}
