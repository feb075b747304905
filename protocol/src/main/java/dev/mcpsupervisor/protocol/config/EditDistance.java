package dev.mcpsupervisor.protocol.config;

/**
 * Levenshtein's distance: the insertions, deletions and substitutions from one name to another.
 * What "did you mean" suggestions are measured by, in a configuration file and on the command line.
 */
public final class EditDistance {

  private EditDistance() {}

  /** The edits from {@code a} to {@code b}, two rows at a time. */
  public static int between(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
