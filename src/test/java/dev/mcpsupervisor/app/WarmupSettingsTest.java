package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.protocol.config.ConfigException;
import org.junit.jupiter.api.Test;

class WarmupSettingsTest {

  private static final String ORIGIN = "mcp-supervisor.application";

  @Test
  void theDefaultsComeFromTheApplicationsReferenceConfAndWarmUp() {
    Config reference = ConfigFactory.load().getConfig(ORIGIN);
    WarmupSettings settings = WarmupSettings.fromConfig(reference, ORIGIN);
    assertEquals(
        new WarmupSettings(
            reference.getInt(WarmupSettings.CALLS),
            reference.getDuration(WarmupSettings.MAX_DURATION),
            reference.getDouble(WarmupSettings.SETTLED_SHARE)),
        settings);
    assertTrue(settings.enabled(), "the jar warms up unless told not to");
  }

  @Test
  void theCommandLineCountWinsAndZeroTurnsItOff() {
    WarmupSettings settings =
        WarmupSettings.fromConfig(ConfigFactory.load().getConfig(ORIGIN), ORIGIN).withCalls(0);
    assertEquals(0, settings.calls());
    assertEquals(false, settings.enabled());
  }

  @Test
  void badValuesAreConfigErrorsNamingTheSetting() {
    assertEquals(
        ORIGIN + ": warmup.calls: must be at least 0, got -5",
        assertThrows(ConfigException.class, () -> parse("warmup.calls = -5")).getMessage());
    assertEquals(
        ORIGIN + ": warmup.maxDuration: must be positive, got PT0S",
        assertThrows(ConfigException.class, () -> parse("warmup.maxDuration = 0s")).getMessage());
    assertEquals(
        ORIGIN + ": warmup.settledShare: must be at least 0 and below 1, got 1.0",
        assertThrows(ConfigException.class, () -> parse("warmup.settledShare = 1")).getMessage());
    assertThrows(ConfigException.class, () -> parse("warmup.calls = many"));
  }

  private static WarmupSettings parse(String overrides) {
    Config config =
        ConfigFactory.parseString(overrides).withFallback(ConfigFactory.load().getConfig(ORIGIN));
    return WarmupSettings.fromConfig(config, ORIGIN);
  }
}
