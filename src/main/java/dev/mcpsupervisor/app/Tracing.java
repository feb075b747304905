package dev.mcpsupervisor.app;

import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;
import java.util.function.Function;

/**
 * The application's OpenTelemetry: off unless asked for with {@code --otel} or one of the standard
 * {@code OTEL_*} variables that name an exporter or an endpoint; then an SDK configured from the
 * standard {@code OTEL_*} variables and {@code otel.*} system properties, exporting over OTLP to
 * {@code http://localhost:4318} unless they say otherwise.
 */
final class Tracing implements AutoCloseable {

  /** Variables that ask for telemetry by naming where it goes. */
  private static final String[] ASKING_VARIABLES = {
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
  };

  /** Defaults the {@code OTEL_*} variables and {@code otel.*} properties override. */
  private static final Map<String, String> DEFAULTS =
      Map.of(
          "otel.service.name", "mcp-supervisor",
          "otel.exporter.otlp.protocol", "http/protobuf",
          "otel.logs.exporter", "none");

  static final Tracing OFF = new Tracing(null);

  private final OpenTelemetrySdk sdk;

  private Tracing(OpenTelemetrySdk sdk) {
    this.sdk = sdk;
  }

  /**
   * Tracing as the flag and the environment ask: {@code OTEL_SDK_DISABLED=true} turns it off
   * whatever else says.
   */
  static Tracing of(boolean flag, Function<String, String> environment) {
    if ("true".equalsIgnoreCase(environment.apply("OTEL_SDK_DISABLED"))) {
      return OFF;
    }
    boolean asked = flag;
    for (String variable : ASKING_VARIABLES) {
      String value = environment.apply(variable);
      asked |= value != null && !value.isBlank() && !"none".equalsIgnoreCase(value);
    }
    if (!asked) {
      return OFF;
    }
    return new Tracing(
        AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> DEFAULTS)
            .build()
            .getOpenTelemetrySdk());
  }

  boolean isOn() {
    return sdk != null;
  }

  McpTelemetry telemetry() {
    return sdk == null ? McpTelemetry.OFF : McpTelemetry.of(sdk);
  }

  /** Exports what is left and stops the SDK. */
  @Override
  public void close() {
    if (sdk != null) {
      sdk.close();
    }
  }
}
