package dev.mcpsupervisor.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class DigestsTest {

  @Test
  void sha256MatchesTheStandardTestVector() {
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        HexFormat.of().formatHex(Digests.sha256("abc")));
  }

  @Test
  void shortDigestIsTheUnpaddedBase64UrlPrefix() {
    // base64url of the "abc" vector: ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0
    assertEquals("ungWv48Bz-pBQUDeXa4iI7", Digests.shortDigest("abc", 22));
    assertEquals("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0", Digests.shortDigest("abc", 43));
    assertNotEquals(Digests.shortDigest("abc", 22), Digests.shortDigest("abd", 22));
  }
}
