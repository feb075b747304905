package dev.mcpsupervisor.benchreport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.internal.chartpart.Chart;

/** Writes a chart as SVG (or PNG). */
public final class ChartFiles {

  private ChartFiles() {}

  /**
   * Writes {@code chart} to {@code directory/baseName.svg} (or {@code .png}) and returns the file.
   * XChart draws text as outlines, so the SVG gets a {@code <title>} and a {@code <desc>} naming
   * the chart and its series: a screen reader, a search and the smoke test can read them.
   */
  public static Path write(Chart<?, ?> chart, Path directory, String baseName, boolean png)
      throws IOException {
    Files.createDirectories(directory);
    if (png) {
      Path file = directory.resolve(baseName + ".png");
      BitmapEncoder.saveBitmapWithDPI(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG, 144);
      return file;
    }
    ByteArrayOutputStream svg = new ByteArrayOutputStream();
    VectorGraphicsEncoder.saveVectorGraphic(chart, svg, VectorGraphicsFormat.SVG);
    Path file = directory.resolve(baseName + ".svg");
    Files.writeString(file, describe(svg.toString(StandardCharsets.UTF_8), chart));
    return file;
  }

  static String describe(String svg, Chart<?, ?> chart) {
    int rootStart = svg.indexOf("<svg");
    int rootEnd = rootStart < 0 ? -1 : svg.indexOf('>', rootStart);
    if (rootEnd < 0) {
      throw new IllegalStateException("the SVG encoder wrote no <svg> element");
    }
    String description =
        "<title>"
            + Xml.escape(chart.getTitle())
            + "</title><desc>series: "
            + Xml.escape(String.join(", ", Charts.seriesNames(chart)))
            + "</desc>";
    return svg.substring(0, rootEnd + 1) + description + svg.substring(rootEnd + 1);
  }
}
