package dev.mcpsupervisor.benchreport;

import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Builds the benchmark charts as XChart objects; {@link ChartFiles} writes them. */
public final class Charts {

  static final int WIDTH = 900;
  static final int HEIGHT = 520;

  private Charts() {}

  /** Throughput against session count: one line per target. */
  public static CategoryChart throughput(CompareResults results) {
    return lines(results, "Throughput vs sessions", "calls/s", CompareResults.Cell::callsPerSecond);
  }

  /**
   * p99 latency against session count: one line per target. Linear: XChart labels a log axis at
   * powers of ten only, which leaves most plots with one label.
   */
  public static CategoryChart p99(CompareResults results) {
    return lines(results, "p99 latency vs sessions", "p99 µs", CompareResults.Cell::p99Micros);
  }

  /** CPU time of the front process per call: bars grouped by session count, one bar per target. */
  public static CategoryChart cpuPerCall(CompareResults results) {
    CategoryChart chart = categoryChart("CPU per call by target", "CPU µs per call");
    chart.getStyler().setOverlapped(false);
    addSeries(chart, results, CompareResults.Cell::cpuMicrosPerCall);
    return chart;
  }

  /** Calls ok and failed per second during a chaos run, a vertical line at each kill. */
  public static XYChart chaos(ChaosTimeline chaos) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title("Chaos timeline")
            .xAxisTitle("second")
            .yAxisTitle("calls per second")
            .build();
    style(chart.getStyler());
    chart.getStyler().setMarkerSize(6);
    List<Double> seconds = chaos.timeline().stream().map(ChaosTimeline.Second::second).toList();
    chart.addSeries("ok", seconds, counts(chaos, ChaosTimeline.Second::ok));
    chart.addSeries("failed", seconds, counts(chaos, ChaosTimeline.Second::failed));
    if (!chaos.kills().isEmpty()) {
      // the markers name the kills in the legend; the annotation lines make them visible across the
      // plot
      XYSeries kills =
          chart.addSeries("kill", chaos.kills(), chaos.kills().stream().map(k -> 0.0).toList());
      kills.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      kills.setMarker(SeriesMarkers.TRIANGLE_UP);
      chaos.kills().forEach(second -> chart.addAnnotation(new AnnotationLine(second, true, false)));
    }
    return chart;
  }

  private static List<Long> counts(
      ChaosTimeline chaos, ToLongFunction<ChaosTimeline.Second> count) {
    return chaos.timeline().stream().map(count::applyAsLong).toList();
  }

  private static CategoryChart lines(
      CompareResults results,
      String title,
      String yTitle,
      ToDoubleFunction<CompareResults.Cell> metric) {
    CategoryChart chart = categoryChart(title, yTitle);
    chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
    // lines of every target at the same x (bars would sit side by side)
    chart.getStyler().setOverlapped(true);
    chart.getStyler().setYAxisMin(0.0);
    addSeries(chart, results, metric);
    return chart;
  }

  private static CategoryChart categoryChart(String title, String yTitle) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle("sessions (N)")
            .yAxisTitle(yTitle)
            .build();
    style(chart.getStyler());
    return chart;
  }

  private static void addSeries(
      CategoryChart chart, CompareResults results, ToDoubleFunction<CompareResults.Cell> metric) {
    List<String> sessions =
        results.sessionCounts().stream().map(String::valueOf).collect(Collectors.toList());
    for (String name : results.seriesNames()) {
      List<Double> values = results.values(name, metric);
      if (values.stream().anyMatch(value -> value != null)) {
        chart.addSeries(name, sessions, values);
      }
    }
  }

  private static void style(AxesChartStyler styler) {
    // XChart switches to 7E6-style labels for large values
    styler.setYAxisDecimalPattern("#,###");
    styler.setLegendPosition(LegendPosition.OutsideE);
    styler.setChartBackgroundColor(java.awt.Color.WHITE);
    styler.setAntiAlias(true);
  }

  /** The series names a chart draws, for its SVG description. */
  static List<String> seriesNames(Chart<?, ?> chart) {
    return List.copyOf(chart.getSeriesMap().keySet());
  }
}
