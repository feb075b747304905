package dev.mcpsupervisor.benchreport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Stacks in the collapsed format async-profiler writes ({@code collapsed}) and flamegraph.pl reads:
 * one line per distinct stack, {@code root;caller;...;leaf count}, merged into a tree of frames
 * with inclusive sample counts.
 */
public final class CollapsedStacks {

  /** A frame at one position in the tree: its samples include those of every frame it called. */
  public static final class Frame {
    private final String name;
    private final Map<String, Frame> children = new LinkedHashMap<>();
    private long samples;

    Frame(String name) {
      this.name = name;
    }

    public String name() {
      return name;
    }

    public long samples() {
      return samples;
    }

    public Collection<Frame> children() {
      return children.values();
    }

    private Frame child(String childName) {
      return children.computeIfAbsent(childName, Frame::new);
    }
  }

  private final Frame root = new Frame("all");

  public static CollapsedStacks read(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(file)) {
      return parse(lines);
    }
  }

  /**
   * Blank lines are skipped; a line without a sample count at its end is an error naming the line.
   */
  public static CollapsedStacks parse(Stream<String> lines) {
    CollapsedStacks stacks = new CollapsedStacks();
    lines.filter(line -> !line.isBlank()).forEach(stacks::add);
    return stacks;
  }

  private void add(String line) {
    int space = line.stripTrailing().lastIndexOf(' ');
    long count;
    try {
      count = Long.parseLong(line.substring(space + 1).strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "not a collapsed stack line (no count at the end): " + line);
    }
    Frame frame = root;
    frame.samples += count;
    for (String name : line.substring(0, Math.max(space, 0)).split(";")) {
      frame = frame.child(name);
      frame.samples += count;
    }
  }

  /** The tree's root, "all", with every sample. */
  public Frame root() {
    return root;
  }
}
