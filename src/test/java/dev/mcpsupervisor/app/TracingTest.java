package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingTest {

  @Test
  void offUnlessTheFlagOrAnExporterVariableAsks() {
    assertFalse(Tracing.of(false, Map.<String, String>of()::get).isOn());
    assertSame(McpTelemetry.OFF, Tracing.of(false, Map.<String, String>of()::get).telemetry());
    assertFalse(Tracing.of(false, Map.of("OTEL_TRACES_EXPORTER", "none")::get).isOn());
    assertFalse(Tracing.of(true, Map.of("OTEL_SDK_DISABLED", "true")::get).isOn());
    try (Tracing flagged = Tracing.of(true, Map.<String, String>of()::get)) {
      assertTrue(flagged.isOn());
      assertTrue(flagged.telemetry().isOn());
    }
    try (Tracing byEndpoint =
        Tracing.of(false, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")::get)) {
      assertTrue(byEndpoint.isOn());
    }
  }
}
