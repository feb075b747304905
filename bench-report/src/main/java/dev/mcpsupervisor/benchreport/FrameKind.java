package dev.mcpsupervisor.benchreport;

import java.util.regex.Pattern;

/**
 * What a flame graph frame runs, by its name in async-profiler's collapsed output; each kind has a
 * hue.
 */
public enum FrameKind {
  MCP_SUPERVISOR("mcp-supervisor", 120),
  PEKKO("Pekko", 205),
  JDK("JDK", 40),
  JAVA_LIBRARY("other Java", 175),
  NATIVE("native / JVM", 0),
  KERNEL("kernel", 20);

  // Java frames are package-qualified (java/lang/Thread.run, or dotted from the JFR converter);
  // async-profiler
  // marks JIT-compiled, inlined and C1 frames with _[j], _[i], _[0], _[1] and kernel frames with
  // _[k]
  private static final Pattern JAVA_NAME =
      Pattern.compile("[\\w$]+([/.][\\w$]+)+\\.[A-Za-z_$<][\\w$<>]*");
  private static final Pattern ANNOTATION = Pattern.compile("_\\[[a-z0-9]]$");

  private final String label;
  private final int hue;

  FrameKind(String label, int hue) {
    this.label = label;
    this.hue = hue;
  }

  public String label() {
    return label;
  }

  public static FrameKind of(String frame) {
    if (frame.endsWith("_[k]")) {
      return KERNEL;
    }
    String name = displayName(frame);
    if (name.startsWith("dev/mcpsupervisor/") || name.startsWith("dev.mcpsupervisor.")) {
      return MCP_SUPERVISOR;
    }
    if (name.startsWith("org/apache/pekko/") || name.startsWith("org.apache.pekko.")) {
      return PEKKO;
    }
    boolean java = ANNOTATION.matcher(frame).find() || JAVA_NAME.matcher(name).matches();
    if (!java) {
      return NATIVE;
    }
    return name.matches("(java|javax|jdk|sun|com[/.]sun)[/.].*") ? JDK : JAVA_LIBRARY;
  }

  /** The frame without async-profiler's {@code _[x]} annotation. */
  public static String displayName(String frame) {
    return ANNOTATION.matcher(frame).replaceFirst("");
  }

  /**
   * A fill colour of this kind's hue, its lightness varied by the frame's name so that neighbours
   * stay apart and one frame keeps its colour from graph to graph.
   */
  public String color(String frame) {
    int variation = Math.floorMod(displayName(frame).hashCode(), 20);
    return "hsl(" + hue + "," + (kindSaturation()) + "%," + (58 + variation) + "%)";
  }

  private int kindSaturation() {
    return this == NATIVE ? 55 : 65;
  }
}
