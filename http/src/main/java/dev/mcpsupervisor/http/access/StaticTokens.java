package dev.mcpsupervisor.http.access;

import dev.mcpsupervisor.protocol.Digests;
import dev.mcpsupervisor.protocol.config.NamedToken;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * The configured static bearer tokens and the identity each stands for. A presented token is
 * compared as a SHA-256 digest with {@link MessageDigest#isEqual}, against every configured token,
 * so the time taken says nothing about how much of a token matched. Only digests are kept.
 */
final class StaticTokens {

  private record Digested(byte[] digest, Identity identity) {}

  private final List<Digested> tokens;

  StaticTokens(List<NamedToken> tokens) {
    this.tokens =
        tokens.stream()
            .map(
                token ->
                    new Digested(Digests.sha256(token.token()), Identity.ofToken(token.name())))
            .toList();
  }

  /** The identity of a configured token, or empty when {@code presented} is none of them. */
  Optional<Identity> match(String presented) {
    byte[] presentedDigest = Digests.sha256(presented);
    Identity matched = null;
    for (Digested token : tokens) {
      if (MessageDigest.isEqual(token.digest(), presentedDigest)) {
        matched = token.identity();
      }
    }
    return Optional.ofNullable(matched);
  }
}
