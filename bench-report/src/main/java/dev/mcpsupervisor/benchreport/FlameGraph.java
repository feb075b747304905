package dev.mcpsupervisor.benchreport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Renders {@link CollapsedStacks} as a flame graph SVG: the root ("all") at the bottom, callees
 * stacked above their callers, each frame as wide as its share of the samples, coloured by {@link
 * FrameKind}, with its name, samples and share in a {@code <title>} (shown on hover). Frames
 * narrower than {@code minWidth} of the total are dropped with their callees: they would be too
 * thin to see and make the file large.
 */
public final class FlameGraph {

  static final int WIDTH = 1200;
  private static final int FRAME_HEIGHT = 16;
  private static final int MARGIN = 10;
  private static final int TOP = 56;
  private static final int BOTTOM = 20;
  private static final double CHAR_WIDTH = 6.6;

  private final long total;
  private final double minSamples;
  private final StringBuilder frames = new StringBuilder();
  private final int depth;

  private FlameGraph(CollapsedStacks.Frame root, double minWidth) {
    this.total = Math.max(root.samples(), 1);
    this.minSamples = total * minWidth;
    this.depth = depth(root);
  }

  public static void write(CollapsedStacks stacks, String title, double minWidth, Path out)
      throws IOException {
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, render(stacks, title, minWidth));
  }

  public static String render(CollapsedStacks stacks, String title, double minWidth) {
    CollapsedStacks.Frame root = stacks.root();
    FlameGraph graph = new FlameGraph(root, minWidth);
    graph.layout(root, 0, 0);
    return graph.document(title, root.samples());
  }

  /** Levels of the kept frames, the root's included. */
  private int depth(CollapsedStacks.Frame frame) {
    int deepest = 0;
    for (CollapsedStacks.Frame child : frame.children()) {
      if (child.samples() >= minSamples) {
        deepest = Math.max(deepest, depth(child));
      }
    }
    return deepest + 1;
  }

  /**
   * Lays out {@code frame} at {@code level} (0 = root) starting {@code offset} samples from the
   * left.
   */
  private void layout(CollapsedStacks.Frame frame, int level, long offset) {
    frames.append(frameElement(frame, level, offset));
    long childOffset = offset;
    for (CollapsedStacks.Frame child : frame.children()) {
      if (child.samples() >= minSamples) {
        layout(child, level + 1, childOffset);
      }
      childOffset += child.samples();
    }
  }

  private String frameElement(CollapsedStacks.Frame frame, int level, long offset) {
    double plotWidth = WIDTH - 2.0 * MARGIN;
    double x = MARGIN + plotWidth * offset / total;
    double width = plotWidth * frame.samples() / total;
    String name = FrameKind.displayName(frame.name());
    String hover =
        String.format(
            Locale.ROOT,
            "%s (%,d samples, %.2f%%)",
            name,
            frame.samples(),
            100.0 * frame.samples() / total);
    int y = TOP + (depth - 1 - level) * FRAME_HEIGHT;
    StringBuilder element =
        new StringBuilder()
            .append("<g><title>")
            .append(Xml.escape(hover))
            .append("</title><rect x=\"")
            .append(fmt(x))
            .append("\" y=\"")
            .append(y)
            .append("\" width=\"")
            .append(fmt(Math.max(width - 0.5, 0.1)))
            .append("\" height=\"")
            .append(FRAME_HEIGHT - 1)
            .append("\" rx=\"2\" fill=\"")
            .append(FrameKind.of(frame.name()).color(frame.name()))
            .append("\"/>");
    String label = fit(name, width);
    if (!label.isEmpty()) {
      element
          .append("<text x=\"")
          .append(fmt(x + 3))
          .append("\" y=\"")
          .append(y + FRAME_HEIGHT - 5)
          .append("\">")
          .append(Xml.escape(label))
          .append("</text>");
    }
    return element.append("</g>\n").toString();
  }

  /**
   * The name, else its class and method without the package, else a cut prefix; "" when nothing
   * fits.
   */
  static String fit(String name, double width) {
    int chars = (int) ((width - 6) / CHAR_WIDTH);
    if (chars < 3) {
      return "";
    }
    if (name.length() <= chars) {
      return name;
    }
    String shortName = name.substring(name.lastIndexOf('/') + 1);
    return shortName.length() <= chars ? shortName : shortName.substring(0, chars - 2) + "..";
  }

  private String document(String title, long samples) {
    int height = TOP + depth * FRAME_HEIGHT + BOTTOM;
    StringBuilder svg = new StringBuilder();
    svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height)
        .append("\" font-family=\"Verdana, sans-serif\" font-size=\"11\">\n")
        .append("<title>")
        .append(Xml.escape(title))
        .append("</title>\n")
        .append("<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n")
        .append("<text x=\"")
        .append(WIDTH / 2)
        .append("\" y=\"22\" text-anchor=\"middle\" font-size=\"16\">")
        .append(Xml.escape(title))
        .append("</text>\n");
    legend(svg);
    svg.append(frames)
        .append("<text x=\"")
        .append(MARGIN)
        .append("\" y=\"")
        .append(height - 5)
        .append("\" fill=\"#555\">")
        .append(String.format(Locale.ROOT, "%,d samples; hover a frame for its share", samples))
        .append("</text>\n</svg>\n");
    return svg.toString();
  }

  private static void legend(StringBuilder svg) {
    int x = MARGIN;
    for (FrameKind kind : FrameKind.values()) {
      svg.append("<rect x=\"")
          .append(x)
          .append("\" y=\"32\" width=\"12\" height=\"12\" fill=\"")
          .append(kind.color(kind.label()))
          .append("\"/><text x=\"")
          .append(x + 16)
          .append("\" y=\"42\">")
          .append(Xml.escape(kind.label()))
          .append("</text>\n");
      x += 24 + (int) (kind.label().length() * CHAR_WIDTH) + 12;
    }
  }

  private static String fmt(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }
}
