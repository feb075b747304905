package dev.mcpsupervisor.protocol.config;

import dev.mcpsupervisor.protocol.Digests;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Identifies one upstream server: its configured name and a stable digest (SHA-256, hex) of its
 * spec — transport, command, args, env, cwd and inheritEnv when set, or URL and headers, and the
 * protocol when set. Same spec, same key, in every run and JVM; any field change, a new key.
 * Secrets are inside the digest, so it is never printed: {@link #id} and {@code toString} show the
 * name and a short HMAC of the digest under a key of this process, which no one outside can test
 * guessed secrets against.
 */
public record ServerKey(String serverName, String digest) {

  /**
   * Names the encoding inside the digest, so that a future encoding can never collide with this
   * one.
   */
  private static final String ENCODING_VERSION = "mcp-supervisor/server-key/v1";

  private static final String ID_MAC = "HmacSHA256";

  /** Drawn once per process: ids are stable while it runs and mean nothing outside it. */
  private static final SecretKeySpec ID_KEY = new SecretKeySpec(randomKey(), ID_MAC);

  public static ServerKey of(String serverName, ServerSpec spec) {
    return new ServerKey(serverName, digestOf(spec));
  }

  /**
   * SHA-256 over a length-prefixed encoding: ["a b"] and ["a", "b"] encode differently, as do ""
   * and an absent cwd.
   */
  private static String digestOf(ServerSpec spec) {
    CanonicalEncoding encoding = new CanonicalEncoding();
    encoding.string(ENCODING_VERSION);
    encoding.string(spec.transport());
    if (spec instanceof ServerSpec.Stdio stdio) {
      encoding.string(stdio.command());
      encoding.strings(stdio.args());
      encoding.pairs(sortedPairs(stdio.env(), false));
      encoding.string(stdio.cwd());
      if (stdio.inheritEnv()) {
        // only when set: the keys of every server that leaves it alone stay what they were
        encoding.string("inheritEnv=true");
      }
    } else if (spec instanceof ServerSpec.StreamableHttp http) {
      encoding.string(http.url().toString());
      encoding.pairs(sortedPairs(http.headers(), true));
      TokenExchange exchange = http.tokenExchange();
      if (exchange != null) {
        // only when set: the keys of every server without it stay what they were
        encoding.string("tokenExchange");
        encoding.string(exchange.tokenEndpoint().toString());
        encoding.string(exchange.audience());
        encoding.string(exchange.scope());
        encoding.string(exchange.clientId());
        encoding.string(exchange.clientSecret());
      }
    } else if (spec instanceof ServerSpec.Sse sse) {
      encoding.string(sse.url().toString());
      encoding.pairs(sortedPairs(sse.headers(), true));
    }
    if (spec.protocol() != UpstreamProtocol.AUTO && !(spec instanceof ServerSpec.Sse)) {
      // only when set: the keys of every server that leaves it alone stay what they were
      encoding.string("protocol=" + spec.protocol().configName());
    }
    return HexFormat.of().formatHex(Digests.sha256(encoding.bytes()));
  }

  /** Entries sorted by name, then value; header names compare lower-cased, as HTTP does. */
  private static List<Map.Entry<String, String>> sortedPairs(
      Map<String, String> map, boolean caseInsensitiveNames) {
    List<Map.Entry<String, String>> pairs = new ArrayList<>(map.size());
    map.forEach(
        (name, value) ->
            pairs.add(
                Map.entry(caseInsensitiveNames ? name.toLowerCase(Locale.ROOT) : name, value)));
    pairs.sort(
        Map.Entry.<String, String>comparingByKey().thenComparing(Map.Entry.comparingByValue()));
    return pairs;
  }

  /**
   * A string id usable as an actor name: {@code <name>-<first 12 hex of the digest's HMAC under
   * this process's key>}. A bare digest prefix would let anyone who sees it test guesses of a short
   * secret offline.
   */
  public String id() {
    byte[] mac = hmac(digest.getBytes(StandardCharsets.UTF_8));
    return serverName + "-" + HexFormat.of().formatHex(mac, 0, 6);
  }

  private static byte[] hmac(byte[] input) {
    try {
      Mac mac = Mac.getInstance(ID_MAC);
      mac.init(ID_KEY);
      return mac.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform must support " + ID_MAC, e);
    }
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }

  @Override
  public String toString() {
    return id();
  }

  /**
   * Every value is prefixed with its length (strings: UTF-8 bytes, -1 for null; lists and maps:
   * their size).
   */
  private static final class CanonicalEncoding {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    void string(String value) {
      if (value == null) {
        length(-1);
        return;
      }
      byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
      length(utf8.length);
      out.writeBytes(utf8);
    }

    void strings(List<String> values) {
      length(values.size());
      values.forEach(this::string);
    }

    void pairs(List<Map.Entry<String, String>> pairs) {
      length(pairs.size());
      for (Map.Entry<String, String> pair : pairs) {
        string(pair.getKey());
        string(pair.getValue());
      }
    }

    private void length(int length) {
      out.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(length).array());
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
