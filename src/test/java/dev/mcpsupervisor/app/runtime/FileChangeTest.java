package dev.mcpsupervisor.app.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FileChangeTest {

  @Test
  void aChangeIsDueOnceItReadsTheSameAtTwoLooks() {
    FileChange started = FileChange.startedWith("a");
    assertFalse(started.dueAt("a"), "unchanged");
    assertFalse(started.dueAt("b"), "changed at this look only: it may still be being written");
    FileChange seen = started.looked("b");
    assertTrue(seen.dueAt("b"));
    assertFalse(seen.dueAt("c"), "changed again since");
  }

  @Test
  void anUnreadableFileIsNoChangeAndAReloadedOneIsNotDueAgain() {
    FileChange gone = FileChange.startedWith("a").looked(null);
    assertFalse(gone.dueAt(null));
    assertFalse(gone.dueAt("a"), "back as it was");
    FileChange reloaded = gone.looked("b").reloadedAt("b");
    assertFalse(reloaded.dueAt("b"), "a file that failed is not tried again until it changes");
  }
}
