package dev.mcpsupervisor.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which options a helper JVM gets; {@code HelperArchiveIT} records a real archive. */
class HelperArchiveTest {

  @Test
  void withoutTheLaunchersPropertyOrBeforeTheArchiveIsRecordedTheHelperRunsWithout() {
    assertEquals(List.of(), HelperArchive.options(null, DemoServer.class.getName(), file -> true));
    assertEquals(
        List.of(), HelperArchive.options("/cache/x-1", DemoServer.class.getName(), file -> false));
  }

  @Test
  void aRecordedArchiveIsMappedWithTheJvmsWarningsOnStderr() {
    assertEquals(
        List.of(
            "-XX:SharedArchiveFile=/cache/x-1-DemoServer.jsa",
            "-Xshare:auto",
            "-Xlog:disable",
            "-Xlog:all=warning:stderr"),
        HelperArchive.options("/cache/x-1", DemoServer.class.getName(), file -> true));
  }
}
