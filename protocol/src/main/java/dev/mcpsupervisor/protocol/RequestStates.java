package dev.mcpsupervisor.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code requestState} of a 2026-07-28 {@code input_required} result the gateway issues while
 * it keeps an upstream call pending: which pending call it names (by a string id, so that any node
 * could route on it), which round, which request it belongs to, whose it is, and until when it
 * holds. Sealed as {@code base64url(json) "." base64url(HMAC-SHA256(json))}: the client sees what
 * it carries but cannot change it. Opening checks the MAC first, then the expiry, then that the
 * retry is the request the state was issued for, by the same principal.
 */
public final class RequestStates {

  private static final String ALGORITHM = "HmacSHA256";
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  /**
   * What a state says.
   *
   * @param pendingId the pending call's id (the downstream session that holds it)
   * @param round which input_required round of that call this state answers (from 1)
   * @param method the request's method
   * @param name its Mcp-Name (tool or prompt name, resource URI), or null
   * @param principal who asked (a digest of the credential), or null when the gateway takes none
   * @param expiresAtMillis when the state stops holding (epoch milliseconds)
   * @param node the cluster node that holds the pending call (its address), or null on a single
   *     node: a retry that lands on another node is sent there
   */
  public record State(
      String pendingId,
      int round,
      String method,
      String name,
      String principal,
      long expiresAtMillis,
      String node) {}

  /** What opening a state told: the state, or why it does not hold. */
  public sealed interface Opened {
    record Valid(State state) implements Opened {}

    record Invalid(String why) implements Opened {}
  }

  private final SecretKeySpec key;
  private final Clock clock;

  /**
   * @param key the HMAC key: nodes that must open each other's states share it
   */
  public RequestStates(byte[] key, Clock clock) {
    if (key.length < 32) {
      throw new IllegalArgumentException("a requestState key needs at least 32 bytes");
    }
    this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    this.clock = clock;
  }

  /** States that only this process can open: a key drawn at random. */
  public static RequestStates withRandomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return new RequestStates(key, Clock.systemUTC());
  }

  public long nowMillis() {
    return clock.millis();
  }

  public String seal(State state) {
    ObjectNode json = JsonRpcCodec.emptyObject();
    json.put("p", state.pendingId());
    json.put("r", state.round());
    json.put("m", state.method());
    json.put("n", state.name());
    json.put("u", state.principal());
    json.put("e", state.expiresAtMillis());
    if (state.node() != null) {
      json.put("o", state.node());
    }
    byte[] payload;
    try {
      payload = JsonRpcCodec.mapper().writeValueAsBytes(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ENCODER.encodeToString(payload) + "." + ENCODER.encodeToString(mac(payload));
  }

  /**
   * Opens a state the client sent back with a retry of {@code method} on {@code name} by {@code
   * principal}.
   */
  public Opened open(String sealed, String method, String name, String principal) {
    int dot = sealed == null ? -1 : sealed.indexOf('.');
    if (dot < 0) {
      return new Opened.Invalid("requestState is not one this gateway issued");
    }
    byte[] payload;
    byte[] tag;
    try {
      payload = DECODER.decode(sealed.substring(0, dot));
      tag = DECODER.decode(sealed.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return new Opened.Invalid("requestState is not one this gateway issued");
    }
    if (!MessageDigest.isEqual(mac(payload), tag)) {
      return new Opened.Invalid("requestState failed verification");
    }
    JsonNode json;
    try {
      json = JsonRpcCodec.mapper().readTree(payload);
    } catch (IOException e) { // verified, so ours: only a different build's format gets here
      return new Opened.Invalid("requestState is not one this gateway issued");
    }
    State state =
        new State(
            json.path("p").asText(),
            json.path("r").asInt(),
            json.path("m").asText(),
            json.path("n").asText(null),
            json.path("u").asText(null),
            json.path("e").asLong(),
            json.path("o").asText(null));
    if (clock.millis() > state.expiresAtMillis()) {
      return new Opened.Invalid("requestState has expired");
    }
    if (!state.method().equals(method) || !Objects.equals(state.name(), name)) {
      return new Opened.Invalid("requestState belongs to another request");
    }
    if (!Objects.equals(state.principal(), principal)) {
      return new Opened.Invalid("requestState belongs to another client");
    }
    return new Opened.Valid(state);
  }

  /**
   * The principal of a credential as a state names it: a digest, so the state never carries the
   * credential itself; null for none.
   */
  public static String principalOf(String credential) {
    if (credential == null || credential.isEmpty()) {
      return null;
    }
    return Digests.shortDigest(credential, 22);
  }

  private byte[] mac(byte[] payload) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac.doFinal(payload);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is missing from this JVM", e);
    }
  }
}
