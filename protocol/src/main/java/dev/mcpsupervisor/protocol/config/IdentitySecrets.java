package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import dev.mcpsupervisor.protocol.Digests;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The operator's per-identity secrets ({@code gateway.identitySecrets}, a file of {@code identity
 * -> name -> value}): what a server's {@code ${identity:NAME}} headers are filled with for each
 * caller. Never taken from a request. {@code toString} and every error show identities and names,
 * never a value.
 *
 * @param byIdentity per identity name (as {@code gateway.identities} names it), its values by name
 * @param file the file they were read from; null: none (built in code)
 */
public record IdentitySecrets(Map<String, Map<String, String>> byIdentity, Path file) {

  /** No file: every {@code ${identity:NAME}} is missing for every caller. */
  public static final IdentitySecrets NONE = new IdentitySecrets(Map.of());

  /** Secrets built in code, read from no file. */
  public IdentitySecrets(Map<String, Map<String, String>> byIdentity) {
    this(byIdentity, null);
  }

  public IdentitySecrets {
    Map<String, Map<String, String>> copy = new LinkedHashMap<>();
    byIdentity.forEach((identity, values) -> copy.put(identity, Map.copyOf(values)));
    byIdentity = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * A digest of every value, for the configuration's fingerprint: a rotated value changes it, and
   * it shows none (SHA-256 over the identities and names in order, each value length-prefixed).
   */
  public String digest() {
    StringBuilder canonical = new StringBuilder();
    new TreeMap<>(byIdentity)
        .forEach(
            (identity, values) ->
                new TreeMap<>(values)
                    .forEach(
                        (name, value) ->
                            List.of(identity, name, value)
                                .forEach(
                                    part ->
                                        canonical.append(part.length()).append(':').append(part))));
    return HexFormat.of().formatHex(Digests.sha256(canonical.toString()));
  }

  /** The value {@code identity} has for {@code name}, if any. */
  public Optional<String> value(String identity, String name) {
    return Optional.ofNullable(byIdentity.getOrDefault(identity, Map.of()).get(name));
  }

  /**
   * Reads the file as the configuration is read (HOCON, a superset of JSON; {@code ${VAR}} from the
   * environment).
   *
   * @param field the config field that names the file, for errors
   */
  static IdentitySecrets read(Path file, String origin, String field) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(
          origin,
          field,
          "cannot read the identity secrets file " + file + ": " + e.getClass().getSimpleName());
    }
    com.typesafe.config.Config parsed;
    try {
      parsed =
          ConfigFactory.parseString(
                  text,
                  ConfigParseOptions.defaults()
                      .setSyntax(ConfigSyntax.CONF)
                      .setOriginDescription(file.toString()))
              .resolve();
    } catch (com.typesafe.config.ConfigException e) {
      // Typesafe's message may quote the text: only where it is
      int line = e.origin() == null ? -1 : e.origin().lineNumber();
      throw new ConfigException(
          file.toString(), (line > 0 ? "line " + line + ": " : "") + "not a valid secrets file");
    }
    Map<String, Map<String, String>> byIdentity = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> identity : ConfigSection.inFileOrder(parsed.root())) {
      if (identity.getValue().valueType() != ConfigValueType.OBJECT) {
        throw new ConfigException(
            file.toString(), identity.getKey(), "must be an object of name = value");
      }
      Map<String, String> values = new LinkedHashMap<>();
      for (Map.Entry<String, ConfigValue> value :
          ConfigSection.inFileOrder((com.typesafe.config.ConfigObject) identity.getValue())) {
        if (value.getValue().valueType() != ConfigValueType.STRING) {
          throw new ConfigException(
              file.toString(),
              ConfigSection.childPath(identity.getKey(), value.getKey()),
              "must be a string");
        }
        String secret = (String) value.getValue().unwrapped();
        if (secret.indexOf('\r') >= 0 || secret.indexOf('\n') >= 0) {
          // it goes into a header, where a line break would start another
          throw new ConfigException(
              file.toString(),
              ConfigSection.childPath(identity.getKey(), value.getKey()),
              "must not contain line breaks");
        }
        values.put(value.getKey(), secret);
      }
      byIdentity.put(identity.getKey(), values);
    }
    return new IdentitySecrets(byIdentity, file);
  }

  @Override
  public String toString() {
    return "IdentitySecrets[" + byIdentity.size() + " identities]";
  }
}
