package dev.mcpsupervisor.benchreport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * Renders benchmark results for docs/benchmarks.md. Commands:
 *
 * <pre>
 * charts [--compare FILE.json] [--chaos FILE.json] [--out DIR] [--png]
 * flame FILE.collapsed [--out FILE.svg] [--title TEXT] [--min-width FRACTION]
 * </pre>
 */
public final class BenchReport {

  static final String USAGE =
      """
      usage: bench-report charts [--compare FILE.json] [--chaos FILE.json] [--out DIR] [--png]
             bench-report flame FILE.collapsed [--out FILE.svg] [--title TEXT] [--min-width FRACTION]
      """;

  private BenchReport() {}

  public static void main(String[] args) {
    try {
      for (Path file : run(args)) {
        System.out.println(file);
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
    } catch (IOException e) {
      System.err.println(e);
      System.exit(1);
    }
  }

  /** Runs one command; returns the files it wrote. */
  static List<Path> run(String... args) throws IOException {
    if (args.length == 0) {
      throw new IllegalArgumentException("no command");
    }
    List<String> rest = List.of(args).subList(1, args.length);
    return switch (args[0]) {
      case "charts" -> charts(Options.parse(rest, Set.of("--compare", "--chaos", "--out")));
      case "flame" ->
          List.of(flame(Options.parse(rest, Set.of("--out", "--title", "--min-width"))));
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    };
  }

  private static List<Path> charts(Options options) throws IOException {
    Path compare = options.path("--compare");
    Path chaos = options.path("--chaos");
    if (compare == null && chaos == null) {
      throw new IllegalArgumentException("charts needs --compare FILE, --chaos FILE or both");
    }
    Path out = options.pathOr("--out", Path.of("docs/benchmarks"));
    boolean png = options.flag("--png");
    List<Path> written = new ArrayList<>();
    if (compare != null) {
      CompareResults results = CompareResults.read(compare);
      if (results.cells().isEmpty()) {
        throw new IllegalArgumentException(compare + ": no measured rows");
      }
      write(Charts.throughput(results), out, "throughput", png, written);
      write(Charts.p99(results), out, "p99", png, written);
      write(Charts.cpuPerCall(results), out, "cpu-per-call", png, written);
    }
    if (chaos != null) {
      ChaosTimeline timeline = ChaosTimeline.read(chaos);
      if (timeline.timeline().isEmpty()) {
        throw new IllegalArgumentException(chaos + ": the timeline is empty");
      }
      write(Charts.chaos(timeline), out, "chaos-timeline", png, written);
    }
    return written;
  }

  /** A chart without any figure (e.g. CPU, measured without --pid) is skipped, with a note. */
  private static void write(
      Chart<?, ?> chart, Path out, String baseName, boolean png, List<Path> written)
      throws IOException {
    if (chart.getSeriesMap().isEmpty()) {
      System.err.println("skipped " + baseName + ": no figures in the input");
      return;
    }
    written.add(ChartFiles.write(chart, out, baseName, png));
  }

  private static Path flame(Options options) throws IOException {
    Path input = options.single("flame needs one FILE.collapsed");
    String name = input.getFileName().toString().replaceFirst("\\.collapsed$", "");
    Path out = options.pathOr("--out", Path.of(name + ".svg"));
    String title = options.valueOr("--title", "Flame graph: " + name);
    double minWidth = Double.parseDouble(options.valueOr("--min-width", "0.001"));
    FlameGraph.write(CollapsedStacks.read(input), title, minWidth, out);
    return out;
  }
}
