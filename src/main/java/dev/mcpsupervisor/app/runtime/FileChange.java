package dev.mcpsupervisor.app.runtime;

import java.util.Objects;

/**
 * When a watched file's change is due for a reload: once its contents differ from the ones last
 * reloaded (or started with) and read the same at two looks in a row, so that a file being written
 * in pieces is reloaded once, whole. Contents are compared by digest; a file that cannot be read
 * (being replaced, or gone) is no change.
 *
 * @param reloaded the digest of the contents last reloaded or started with
 * @param seen the digest read at the previous look (null: unreadable)
 */
record FileChange(String reloaded, String seen) {

  /** Started with these contents. */
  static FileChange startedWith(String digest) {
    return new FileChange(digest, digest);
  }

  /** This look read {@code digest} (null: unreadable). */
  FileChange looked(String digest) {
    return new FileChange(reloaded, digest);
  }

  /** Whether the contents this look read ({@code digest}) are a settled change to reload. */
  boolean dueAt(String digest) {
    return digest != null && digest.equals(seen) && !Objects.equals(digest, reloaded);
  }

  /** Reloaded (whatever the outcome: a file that fails is not tried again until it changes). */
  FileChange reloadedAt(String digest) {
    return new FileChange(digest, digest);
  }
}
