package dev.mcpsupervisor.benchreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlameGraphTest {

  private static final Pattern FRAME =
      Pattern.compile(
          "<g><title>([^<]*)</title><rect x=\"([\\d.]+)\" y=\"(\\d+)\" width=\"([\\d.]+)\"[^>]*fill=\"hsl\\((\\d+),");

  @TempDir Path dir;

  @Test
  void mergesStacksWidthsBySamplesColoursByKindAndDropsThinFrames() throws Exception {
    Path collapsed = dir.resolve("sample.collapsed");
    Files.write(
        collapsed,
        List.of(
            "java/lang/Thread.run;dev/mcpsupervisor/http/Routes.handle_[j];write_[k] 600",
            "java/lang/Thread.run;org/apache/pekko/actor/ActorCell.invoke 300",
            "java/lang/Thread.run;dev/mcpsupervisor/http/Routes.handle_[j];Parker::park 99",
            "rare;frame 1"));

    List<Path> written =
        BenchReport.run(
            "flame",
            collapsed.toString(),
            "--out",
            dir.resolve("f.svg").toString(),
            "--title",
            "T<1>",
            "--min-width",
            "0.002");
    String svg = Files.readString(written.get(0));

    assertTrue(svg.contains("<title>T&lt;1&gt;</title>"));
    List<String[]> frames = frames(svg);
    assertEquals(
        List.of(
            "all (1,000 samples, 100.00%)",
            "java/lang/Thread.run (999 samples, 99.90%)",
            "dev/mcpsupervisor/http/Routes.handle (699 samples, 69.90%)",
            "write (600 samples, 60.00%)",
            "Parker::park (99 samples, 9.90%)",
            "org/apache/pekko/actor/ActorCell.invoke (300 samples, 30.00%)"),
        frames.stream().map(f -> f[0]).toList(),
        "the 0.1% stack 'rare;frame' is dropped at --min-width 0.002");
    assertEquals(
        List.of("0", "40", "120", "20", "0", "205"),
        frames.stream().map(f -> f[4]).toList(),
        "hues by kind");
    // widths proportional to samples; callees above callers
    assertEquals(1179.5, Double.parseDouble(frames.get(0)[3]), 0.1);
    assertEquals(1180.0 * 0.6 - 0.5, Double.parseDouble(frames.get(3)[3]), 0.2);
    assertTrue(Integer.parseInt(frames.get(3)[2]) < Integer.parseInt(frames.get(2)[2]));
    // Pekko's frame starts where the mcp-supervisor subtree ends
    assertEquals(10 + 1180.0 * 0.699, Double.parseDouble(frames.get(5)[1]), 0.2);
    assertFalse(svg.contains("rare"));
  }

  @Test
  void framesAreClassifiedByName() {
    assertEquals(
        FrameKind.MCP_SUPERVISOR, FrameKind.of("dev/mcpsupervisor/actors/SessionActor.onCall"));
    assertEquals(FrameKind.PEKKO, FrameKind.of("org/apache/pekko/dispatch/Mailbox.run_[j]"));
    assertEquals(FrameKind.JDK, FrameKind.of("java/util/concurrent/ForkJoinPool.scan"));
    assertEquals(FrameKind.JDK, FrameKind.of("jdk.internal.misc.Unsafe.park"));
    assertEquals(
        FrameKind.JAVA_LIBRARY, FrameKind.of("com/fasterxml/jackson/core/JsonParser.nextToken"));
    assertEquals(FrameKind.JAVA_LIBRARY, FrameKind.of("scala/collection/Foo$$anon$1.apply_[i]"));
    assertEquals(FrameKind.KERNEL, FrameKind.of("do_syscall_64_[k]"));
    assertEquals(FrameKind.NATIVE, FrameKind.of("Unsafe_Park"));
    assertEquals(FrameKind.NATIVE, FrameKind.of("Parker::park"));
    assertEquals(FrameKind.NATIVE, FrameKind.of("libc.so.6"));
  }

  @Test
  void labelsFallBackToTheClassAndMethod() {
    assertEquals("java/lang/Thread.run", FlameGraph.fit("java/lang/Thread.run", 200));
    assertEquals("Thread.run", FlameGraph.fit("java/lang/Thread.run", 90));
    assertEquals("Thre..", FlameGraph.fit("java/lang/Thread.run", 47));
    assertEquals("", FlameGraph.fit("java/lang/Thread.run", 20));
  }

  @Test
  void aLineWithoutACountIsRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> CollapsedStacks.parse(java.util.stream.Stream.of("a;b;c")));
  }

  private static List<String[]> frames(String svg) {
    Matcher matcher = FRAME.matcher(svg);
    List<String[]> frames = new ArrayList<>();
    while (matcher.find()) {
      frames.add(
          new String[] {
            matcher.group(1), matcher.group(2), matcher.group(3), matcher.group(4), matcher.group(5)
          });
    }
    return frames;
  }
}
