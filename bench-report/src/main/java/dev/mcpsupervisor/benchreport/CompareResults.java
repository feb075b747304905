package dev.mcpsupervisor.benchreport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * The medians of one comparison run, as bench/compare_report.py writes them: {@code {"meta": {...},
 * "rows": [{"target", "sessions", "era", "median": {"callsPerSecond", "p50", "p99",
 * "cpuMicrosPerCall"}}]}}. Rows of cells that were not run ({@code era} null) and missing or null
 * metrics are skipped, not errors: a chart shows a gap there.
 */
public record CompareResults(List<Cell> cells) {

  /**
   * One target at one session count in one era; a metric is {@code NaN} when it was not measured.
   */
  public record Cell(
      String target,
      int sessions,
      String era,
      double callsPerSecond,
      double p99Micros,
      double cpuMicrosPerCall) {}

  public static CompareResults read(Path file) throws IOException {
    return parse(new ObjectMapper().readTree(file.toFile()));
  }

  static CompareResults parse(JsonNode root) {
    JsonNode rows = root.path("rows");
    if (!rows.isArray()) {
      throw new IllegalArgumentException("not a comparison result: no \"rows\" array");
    }
    List<Cell> cells = new ArrayList<>();
    for (JsonNode row : rows) {
      if (!row.path("era").isTextual() || !row.path("sessions").canConvertToInt()) {
        continue;
      }
      JsonNode median = row.path("median");
      cells.add(
          new Cell(
              row.path("target").asText("?"),
              row.path("sessions").asInt(),
              row.path("era").asText(),
              number(median.path("callsPerSecond")),
              number(median.path("p99")),
              number(median.path("cpuMicrosPerCall"))));
    }
    return new CompareResults(List.copyOf(cells));
  }

  private static double number(JsonNode node) {
    return node.isNumber() ? node.asDouble() : Double.NaN;
  }

  /**
   * Series names in the order the runner measured them; with more than one era, the era is part of
   * the name.
   */
  public List<String> seriesNames() {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    cells.forEach(cell -> names.add(seriesName(cell)));
    return List.copyOf(names);
  }

  public List<Integer> sessionCounts() {
    TreeSet<Integer> counts = new TreeSet<>();
    cells.forEach(cell -> counts.add(cell.sessions()));
    return List.copyOf(counts);
  }

  /**
   * The metric of one series at each session count, {@code null} where not measured (XChart leaves
   * a gap), in the order of {@link #sessionCounts()}.
   */
  public List<Double> values(String seriesName, ToDoubleFunction<Cell> metric) {
    List<Double> values = new ArrayList<>();
    for (int sessions : sessionCounts()) {
      values.add(
          cell(seriesName, sessions)
              .map(metric::applyAsDouble)
              .filter(value -> !value.isNaN())
              .orElse(null));
    }
    return values;
  }

  private Optional<Cell> cell(String seriesName, int sessions) {
    return cells.stream()
        .filter(cell -> cell.sessions() == sessions && seriesName(cell).equals(seriesName))
        .findFirst();
  }

  private String seriesName(Cell cell) {
    boolean severalEras = cells.stream().map(Cell::era).distinct().count() > 1;
    return severalEras ? cell.target() + " (" + cell.era() + ")" : cell.target();
  }
}
