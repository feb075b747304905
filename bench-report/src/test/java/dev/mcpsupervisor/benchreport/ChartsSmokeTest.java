package dev.mcpsupervisor.benchreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders every chart type from the committed sample results through the command line entry point.
 */
class ChartsSmokeTest {

  private static final Pattern DESCRIPTION =
      Pattern.compile("<title>([^<]*)</title><desc>series: ([^<]*)</desc>");

  @TempDir Path out;

  @Test
  void rendersTheComparisonAndChaosChartsWithTheirSeries() throws Exception {
    List<Path> written =
        BenchReport.run(
            "charts",
            "--compare",
            resource("compare-sample.json").toString(),
            "--chaos",
            resource("chaos-sample.json").toString(),
            "--out",
            out.toString());

    assertEquals(
        List.of("throughput.svg", "p99.svg", "cpu-per-call.svg", "chaos-timeline.svg"),
        written.stream().map(file -> file.getFileName().toString()).toList());
    assertChart("throughput.svg", "Throughput vs sessions", "direct, supervisor-stdio, mcp-proxy");
    assertChart("p99.svg", "p99 latency vs sessions", "direct, supervisor-stdio, mcp-proxy");
    // mcp-proxy was measured without --pid: no CPU figure, so no bars for it
    assertChart("cpu-per-call.svg", "CPU per call by target", "direct, supervisor-stdio");
    assertChart("chaos-timeline.svg", "Chaos timeline", "ok, failed, kill");
  }

  @Test
  void writesPngOnRequest() throws Exception {
    List<Path> written =
        BenchReport.run(
            "charts",
            "--chaos",
            resource("chaos-sample.json").toString(),
            "--out",
            out.toString(),
            "--png");

    byte[] png = Files.readAllBytes(written.get(0));
    assertEquals("chaos-timeline.png", written.get(0).getFileName().toString());
    assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G');
  }

  @Test
  void skipsAChartWithoutFiguresAndRejectsAnEmptyTimeline() throws Exception {
    Path compare = out.resolve("no-cpu.json");
    Files.writeString(
        compare,
        """
        {"rows": [{"target": "direct", "sessions": 10, "era": "session",
                   "median": {"callsPerSecond": 5, "p99": 7, "cpuMicrosPerCall": null}}]}
        """);
    Path chaos = out.resolve("empty-chaos.json");
    Files.writeString(chaos, "{\"timeline\": [], \"kills\": []}");

    List<Path> written =
        BenchReport.run("charts", "--compare", compare.toString(), "--out", out.toString());

    assertEquals(
        List.of("throughput.svg", "p99.svg"),
        written.stream().map(file -> file.getFileName().toString()).toList());
    assertThrows(
        IllegalArgumentException.class,
        () -> BenchReport.run("charts", "--chaos", chaos.toString(), "--out", out.toString()));
  }

  private void assertChart(String file, String title, String series) throws Exception {
    String svg = Files.readString(out.resolve(file));
    Matcher description = DESCRIPTION.matcher(svg);
    assertTrue(description.find(), file + " has no title and series description");
    assertEquals(title, description.group(1));
    assertEquals(series, description.group(2));
    // the plot itself: XChart draws lines, bars, markers and text as paths
    assertTrue(svg.split("<path").length > 20, file + " draws almost nothing");
  }

  static Path resource(String name) throws URISyntaxException {
    return Path.of(ChartsSmokeTest.class.getResource("/" + name).toURI());
  }
}
