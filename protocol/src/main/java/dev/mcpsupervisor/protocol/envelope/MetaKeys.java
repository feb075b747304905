package dev.mcpsupervisor.protocol.envelope;

import dev.mcpsupervisor.protocol.StatelessEnvelope;
import java.util.Set;

/**
 * The spec's {@code _meta} key names (2025-06-18 on): an optional prefix of dot-separated labels
 * (each starting with a letter and ending with a letter or digit, hyphens inside) and a slash, then
 * a name (empty, or starting and ending with a letter or digit, with hyphens, underscores and dots
 * inside).
 */
public final class MetaKeys {

  /** Keys the spec itself names: valid, and on nearly every 2026-07-28 request. */
  private static final Set<String> SPEC_META_KEYS =
      Set.of(
          "progressToken",
          StatelessEnvelope.META_PROTOCOL_VERSION,
          StatelessEnvelope.META_CLIENT_CAPABILITIES,
          StatelessEnvelope.META_CLIENT_INFO,
          StatelessEnvelope.META_LOG_LEVEL);

  private MetaKeys() {}

  /**
   * The spec's {@code _meta} key names: an optional prefix (labels separated by dots, each starting
   * with a letter and ending with a letter or digit, hyphens inside, then a slash) and a name
   * (empty, or starting and ending with a letter or digit, with hyphens, underscores and dots
   * inside).
   */
  public static boolean isMetaKey(String key) {
    if (SPEC_META_KEYS.contains(key)) {
      return true;
    }
    int slash = key.indexOf('/');
    int nameStart = 0;
    if (slash >= 0) {
      if (key.indexOf('/', slash + 1) >= 0 || !isPrefix(key, slash)) {
        return false;
      }
      nameStart = slash + 1;
    }
    int end = key.length();
    if (nameStart == end) {
      return true;
    }
    if (!isAlphanumeric(key.charAt(nameStart)) || !isAlphanumeric(key.charAt(end - 1))) {
      return false;
    }
    for (int i = nameStart + 1; i < end - 1; i++) {
      char c = key.charAt(i);
      if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') {
        return false;
      }
    }
    return true;
  }

  /** Labels separated by dots in {@code key[0, end)}. */
  private static boolean isPrefix(String key, int end) {
    int labelStart = 0;
    for (int i = 0; i <= end; i++) {
      if (i == end || key.charAt(i) == '.') {
        if (!isLabel(key, labelStart, i)) {
          return false;
        }
        labelStart = i + 1;
      }
    }
    return true;
  }

  private static boolean isLabel(String key, int start, int end) {
    if (start >= end || !isLetter(key.charAt(start)) || !isAlphanumeric(key.charAt(end - 1))) {
      return false;
    }
    for (int i = start + 1; i < end - 1; i++) {
      char c = key.charAt(i);
      if (!isAlphanumeric(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isAlphanumeric(char c) {
    return isLetter(c) || (c >= '0' && c <= '9');
  }
}
