package dev.mcpsupervisor.http.access;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.mcpsupervisor.protocol.config.OAuthConfig;
import java.net.MalformedURLException;
import java.text.ParseException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * OAuth 2.1 access tokens (JWTs, RFC 9068) checked with Nimbus JOSE+JWT: signed with RS256 or ES256
 * by a key of the issuer's JWKS, {@code iss} equal to the issuer, {@code aud} containing the
 * audience, {@code exp} in the future and {@code nbf} not (60 s clock skew), the identity claim
 * present, and every required scope granted. The key set is cached for {@code jwksCacheTtl}; a
 * token signed by a key it does not hold fetches it again (rate limited by Nimbus to one fetch per
 * 30 s), so a key rotation is picked up without letting a stream of made-up key ids hammer the
 * issuer. {@link #verify} may fetch keys: it blocks, so run it off the request threads.
 */
final class AccessTokens {

  /** What a token is worth. */
  sealed interface Verdict {
    record Valid(Identity identity) implements Verdict {}

    /** Expired, wrong issuer or audience, bad signature, unknown key, malformed: 401. */
    record Invalid(String why) implements Verdict {}

    /** Valid, but without every required scope: 403. */
    record MissingScope(String required) implements Verdict {}

    /** The issuer's keys could not be fetched: the token could not be checked. */
    record KeysUnavailable(String why) implements Verdict {}
  }

  private static final Set<JWSAlgorithm> ALGORITHMS =
      Set.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256);

  /** Bounds one key set download. */
  private static final int JWKS_SIZE_LIMIT = 512 * 1024;

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final String identityClaim;
  private final List<String> requiredScopes;

  AccessTokens(OAuthConfig config) {
    int timeout = (int) config.jwksTimeout().toMillis();
    JWKSource<SecurityContext> keys;
    try {
      keys =
          JWKSourceBuilder.<SecurityContext>create(
                  config.jwksUri().toURL(),
                  new DefaultResourceRetriever(timeout, timeout, JWKS_SIZE_LIMIT))
              .cache(config.jwksCacheTtl().toMillis(), config.jwksTimeout().toMillis())
              .refreshAheadCache(false)
              .retrying(false)
              .build();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("gateway.oauth.jwksUri is no URL: " + e.getMessage(), e);
    }
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
    processor.setJWSTypeVerifier(
        new DefaultJOSEObjectTypeVerifier<>(
            JOSEObjectType.JWT, new JOSEObjectType("at+jwt"), null));
    this.identityClaim = config.identityClaim();
    processor.setJWTClaimsSetVerifier(
        new DefaultJWTClaimsVerifier<>(
            Set.of(config.audience()),
            new JWTClaimsSet.Builder().issuer(config.issuer()).build(),
            Set.of("exp", identityClaim),
            null));
    this.requiredScopes = config.requiredScopes();
  }

  /** Whether a bearer token has a JWT's shape (three dot-separated parts): worth verifying. */
  static boolean looksLikeJwt(String token) {
    int first = token.indexOf('.');
    int second = first < 0 ? -1 : token.indexOf('.', first + 1);
    return first > 0 && second > first + 1 && token.indexOf('.', second + 1) < 0;
  }

  Verdict verify(String token) {
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (KeySourceException e) {
      return new Verdict.KeysUnavailable(e.getMessage());
    } catch (ParseException | BadJOSEException | JOSEException e) {
      return new Verdict.Invalid(e.getMessage());
    }
    Object name = claims.getClaim(identityClaim);
    if (!(name instanceof String text) || text.isBlank()) {
      return new Verdict.Invalid("the " + identityClaim + " claim is not a string");
    }
    if (!grantedScopes(claims).containsAll(requiredScopes)) {
      return new Verdict.MissingScope(String.join(" ", requiredScopes));
    }
    return new Verdict.Valid(Identity.ofAccessToken(text));
  }

  /** {@code scope} as RFC 9068 writes it (space-separated), or {@code scp} as some issuers do. */
  private static Set<String> grantedScopes(JWTClaimsSet claims) {
    Set<String> granted = new HashSet<>();
    for (String claim : List.of("scope", "scp")) {
      Object value = claims.getClaim(claim);
      if (value instanceof String text) {
        granted.addAll(List.of(text.trim().split("\\s+")));
      } else if (value instanceof Collection<?> list) {
        list.forEach(scope -> granted.add(String.valueOf(scope)));
      }
    }
    return granted;
  }
}
